/**
 * The sets of operations, derived from the spec's `x-pagi-*` entries and schemas: the one definition of which
 * operations are batches, select records, answer in an envelope, carry a signature, are address-restricted. Checks and
 * probes name a set (`operations: 'batch'`) instead of listing operations, so an operation added to a copy of the spec
 * is covered by every set its entries put it in, with no code edit.
 */
import type { BatchTransition, OperationKey } from './terms.js';
import { itemsOf, propertiesOf, schemaView, topLevelNames, type OperationModel, type SpecModel } from './load.js';
import { SpecError } from '../types/errors.js';

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
  | 'fieldResponse'
  /**
   * Selecting operations whose records are a batch's results: their answer holds the order array of a batch (the
   * refund search answers `refund_orders`, the refund batch's array), see {@link recordSource}.
   */
  | 'batchResultSearch';

/**
 * The operations a requirement of the catalogue concerns (its entry's `operations`), in spec order, within a set when
 * `within` names one: for a check of a statement about particular operations (`{ requirement: 'PAGI-FMT-013' }`: the
 * refund batch and the refund search, both answering `refund_reference_id`).
 */
export interface RequirementScope {
  requirement: string;
  within?: OperationSetName;
}

/** The operations a check or probe covers: a set of the spec, a requirement's operations, or a list. */
export type OperationScope = OperationSetName | RequirementScope | readonly OperationKey[];

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
  batchResultSearch: (op, spec) => recordSource(spec, op.key) !== undefined,
};

/** Every set name, in the order above, for listings and tests. */
export const OPERATION_SETS = Object.keys(MEMBERSHIP) as readonly OperationSetName[];

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

/** The operations a scope covers: a set or a requirement's in spec order, a list in its own (an operation the spec lacks left out). */
export function operationsIn(spec: SpecModel, scope: OperationScope): readonly OperationKey[] {
  if (typeof scope === 'string') return operationSet(spec, scope);
  if (isRequirementScope(scope)) {
    const entry = spec.requirements.get(scope.requirement);
    if (!entry) throw new SpecError(`spec: no requirement ${scope.requirement} for an operation scope`);
    const within = operationSet(spec, scope.within ?? 'all');
    return within.filter((op) => entry.operations.includes(op));
  }
  return scope.filter((op) => spec.operations.has(op));
}

/** Whether a scope covers an operation. */
export function covers(spec: SpecModel, scope: OperationScope, op: OperationKey): boolean {
  return Array.isArray(scope) ? scope.includes(op) : operationsIn(spec, scope).includes(op);
}

/** Operations a listed scope names that the spec does not have (a set or a requirement never names one). */
export function unknownOperations(spec: SpecModel, scope: OperationScope): OperationKey[] {
  return Array.isArray(scope) ? scope.filter((op) => !spec.operations.has(op)) : [];
}

function isRequirementScope(scope: OperationScope): scope is RequirementScope {
  return typeof scope === 'object' && !Array.isArray(scope);
}

/** The requirement a scope takes its operations from, if it is a requirement's scope. */
export function scopeRequirement(scope: OperationScope): string | undefined {
  return isRequirementScope(scope) ? scope.requirement : undefined;
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

/**
 * The profile's transitions a batch operation follows (`x-pagi-batch.transition`), read from its spec entry: a copy
 * of the cancel batch under another path follows `transitions.cancel` as the cancel batch does. Undefined for an
 * operation that is no batch, or a batch whose entry names none.
 */
export function batchTransition(spec: SpecModel, op: OperationKey): BatchTransition | undefined {
  return spec.operations.get(op)?.batch?.transition;
}

/** Whether an operation is a batch (`x-pagi-batch`). */
export function isBatchOperation(spec: SpecModel, op: OperationKey): boolean {
  return spec.operations.get(op)?.batch !== undefined;
}

/** Whether an operation selects records through the profile's selection fields (`x-pagi-limit`). */
export function isSelectingOperation(spec: SpecModel, op: OperationKey): boolean {
  return spec.operations.get(op)?.selectionLimit !== undefined;
}

/**
 * The array a selecting operation answers its records in: the one array its response schema declares at the top
 * (the query's `orders_list`, the refund search's `refund_orders`); undefined for an operation that selects nothing.
 */
export function selectionResults(spec: SpecModel, op: OperationKey): string | undefined {
  const model = spec.operations.get(op);
  if (!model?.selectionLimit) return undefined;
  const arrays = [...propertiesOf(spec, schemaView(spec, model.responseSchemaId))].filter(([, view]) =>
    view.some((v) => v.node.type === 'array'),
  );
  return arrays.length === 1 ? arrays[0]![0] : undefined;
}

/** The `$defs` entry of common.schema.json giving the document's date-and-time form (YYYYMMDDHHMMSS). */
const TIMESTAMP_FORM = /common\.schema\.json#\/\$defs\/compactTimestamp$/;

/**
 * The field dating a selecting operation's records: the first member of a result item in the document's date-and-time
 * form (`transaction_date` of an order record, `refund_date` of a refund); undefined when the item has none.
 */
export function selectionDateField(spec: SpecModel, op: OperationKey): string | undefined {
  const results = selectionResults(spec, op);
  const model = spec.operations.get(op);
  if (!results || !model) return undefined;
  const array = propertiesOf(spec, schemaView(spec, model.responseSchemaId)).get(results) ?? [];
  for (const [name, view] of propertiesOf(spec, itemsOf(spec, array)))
    if (view.some((v) => typeof v.node.$ref === 'string' && TIMESTAMP_FORM.test(v.node.$ref))) return name;
  return undefined;
}
