/**
 * The sets of operations, derived from the spec's `x-pagi-*` entries and schemas: the one definition of which
 * operations are batches, select records, answer in an envelope, carry a signature, are address-restricted. Checks and
 * probes name a set (`operations: 'batch'`) instead of listing operations, so an operation added to a copy of the spec
 * is covered by every set its entries put it in, with no code edit.
 */
import type { OperationKey } from './terms.js';
import { topLevelNames, type OperationModel, type SpecModel } from './load.js';

/** A set of operations the spec defines. */
export type OperationSetName =
  /** Every operation (and variant) of the spec, in spec order. */
  | 'all'
  /** Batches: the path carries `x-pagi-batch` (an order array with per-item results). */
  | 'batch'
  /** Operations selecting records through the profile's selection fields: the path carries `x-pagi-limit`. */
  | 'selecting'
  /** Operations answering in an envelope reporting the outcome: the response schema declares `return_status` and `return_message`. */
  | 'envelope'
  /** Operations the document limits to registered source addresses: the path carries `x-pagi-address-restricted`. */
  | 'addressRestricted'
  /** Operations whose answer can carry `encryption_data`: the response schema declares it. */
  | 'signedResponse'
  /** Operations answering a body of fields (every one but a page read into a form model: `x-pagi-checkout-form`). */
  | 'fieldResponse';

/** Every set name, for listings and tests. */
export const OPERATION_SETS: readonly OperationSetName[] = [
  'all',
  'batch',
  'selecting',
  'envelope',
  'addressRestricted',
  'signedResponse',
  'fieldResponse',
];

/** The operations a check or probe covers: a set of the spec, or (for what only one operation has) a list. */
export type OperationScope = OperationSetName | readonly OperationKey[];

const MEMBERSHIP: Record<OperationSetName, (op: OperationModel, spec: SpecModel) => boolean> = {
  all: () => true,
  batch: (op) => op.batch !== undefined,
  selecting: (op) => op.selectionLimit !== undefined,
  envelope: (op, spec) => {
    const names = topLevelNames(spec, op.responseSchemaId);
    return names.has('return_status') && names.has('return_message');
  },
  addressRestricted: (op) => op.addressRestriction !== undefined,
  signedResponse: (op, spec) => topLevelNames(spec, op.responseSchemaId).has('encryption_data'),
  fieldResponse: (op) => op.checkoutForm === undefined,
};

const derived = new WeakMap<SpecModel, Map<OperationSetName, OperationKey[]>>();

/** The operations of a set, in spec order. */
export function operationSet(spec: SpecModel, name: OperationSetName): readonly OperationKey[] {
  let sets = derived.get(spec);
  if (!sets) derived.set(spec, (sets = new Map()));
  let out = sets.get(name);
  if (!out) {
    const member = MEMBERSHIP[name];
    if (!member) throw new Error(`spec: no operation set ${String(name)}`);
    out = [...spec.operations.values()].filter((op) => member(op, spec)).map((op) => op.key);
    sets.set(name, out);
  }
  return out;
}

/** The operations a scope covers: a set in spec order, a list in its own (an operation the spec lacks left out). */
export function operationsIn(spec: SpecModel, scope: OperationScope): readonly OperationKey[] {
  if (typeof scope === 'string') return operationSet(spec, scope);
  return scope.filter((op) => spec.operations.has(op));
}

/** Whether a scope covers an operation. */
export function covers(spec: SpecModel, scope: OperationScope, op: OperationKey): boolean {
  return typeof scope === 'string' ? operationSet(spec, scope).includes(op) : scope.includes(op);
}

/** Operations a listed scope names that the spec does not have (a set never names one). */
export function unknownOperations(spec: SpecModel, scope: OperationScope): OperationKey[] {
  return typeof scope === 'string' ? [] : scope.filter((op) => !spec.operations.has(op));
}

/**
 * The batch whose results a selecting operation returns as its records: the batch whose order array the selecting
 * operation's answer holds (the refund search answers `refund_orders`, the refund batch's array); undefined when it
 * returns payments (the query's `orders_list`).
 */
export function recordSource(spec: SpecModel, op: OperationKey): OperationKey | undefined {
  const model = spec.operations.get(op);
  if (!model?.selectionLimit) return undefined;
  const names = topLevelNames(spec, model.responseSchemaId);
  return [...spec.operations.values()].find((o) => o.batch && names.has(o.batch.orders))?.key;
}

/** Whether an operation is a batch (`x-pagi-batch`). */
export function isBatchOperation(spec: SpecModel, op: OperationKey): boolean {
  return spec.operations.get(op)?.batch !== undefined;
}

/** Whether an operation selects records through the profile's selection fields (`x-pagi-limit`). */
export function isSelectingOperation(spec: SpecModel, op: OperationKey): boolean {
  return spec.operations.get(op)?.selectionLimit !== undefined;
}
