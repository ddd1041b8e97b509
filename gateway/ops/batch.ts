/**
 * Capture, review, cancel and refund: one result per request item, each item checked in the profile's
 * `batch.checkOrder` and applied at once, so later items of the same request see its effect.
 */
import type { ValidateFunction } from 'ajv';
import type { Profile } from '../../core/profile/load.js';
import {
  batchLimit,
  echo,
  ordered,
  refusesOverLimit,
  str,
  type Gateway,
  type GatewayRequest,
  type OperationHandler,
} from '../context.js';
import { codeMessage, signResponse } from '../errors.js';
import { toMinor } from '../money.js';
import { jsonReply } from '../reply.js';
import { propertySchemaId } from '../schema-fields.js';
import type { PaymentState, Transaction } from '../store.js';
import type { BatchOperationKey } from '../../core/spec/terms.js';

type BatchKey = BatchOperationKey;
type ItemFailure = keyof Profile['batch']['itemFailures'];
type Item = Record<string, unknown>;

/** What a batch operation does to one transaction once every check passed. */
interface BatchRules {
  /** The amount the item moves, when it must be positive (capture of an operation amount, refund). */
  operationAmount?(item: Item, gw: Gateway): bigint | undefined;
  /** Amount the transaction can still take, for `overAmount`. */
  available?(txn: Transaction, gw: Gateway): bigint;
  overFailure?: ItemFailure;
  /** Other reasons the item is invalid (a review_flag that neither approves nor rejects). */
  invalid?(item: Item, gw: Gateway): boolean;
  /** A failure found after every check of the profile's order (a refund numbering exhausted). */
  exhausted?(txn: Transaction, gw: Gateway): boolean;
  apply(txn: Transaction, item: Item, gw: Gateway): Item;
}

const refundable = (txn: Transaction) => (txn.capturedMinor ?? txn.amountMinor) - txn.refundedMinor;
/** What a fault lifting an amount bound lets an item take. */
const UNBOUNDED = BigInt(Number.MAX_SAFE_INTEGER) * 100n;

const RULES: Record<BatchKey, BatchRules> = {
  capture: {
    operationAmount: (item, gw) =>
      gw.profile.transitions.capture.itemAmount === 'operationAmount' ? toMinor(item.amount) : undefined,
    available: (txn, gw) =>
      gw.switches.skipCaptureBound
        ? UNBOUNDED
        : gw.profile.transitions.capture.itemAmount === 'operationAmount'
          ? txn.amountMinor
          : -1n,
    overFailure: 'overCapture',
    apply(txn, item, gw) {
      const t = gw.profile.transitions.capture;
      txn.capturedMinor = t.itemAmount === 'operationAmount' ? toMinor(item.amount)! : txn.amountMinor;
      txn.state = t.to;
      return {};
    },
  },
  review: {
    invalid: (item, gw) =>
      item.review_flag !== gw.profile.review.approve.flag && item.review_flag !== gw.profile.review.reject.flag,
    apply(txn, item, gw) {
      const r = gw.profile.review;
      txn.state = item.review_flag === r.approve.flag ? r.approve.to : r.reject.to;
      return {};
    },
  },
  cancel: {
    apply(txn, _item, gw) {
      txn.state = gw.profile.transitions.cancel.to;
      return {};
    },
  },
  refund: {
    operationAmount: (item) => toMinor(item.refund_amount),
    available: (txn, gw) => (gw.switches.skipRefundBound ? UNBOUNDED : refundable(txn)),
    overFailure: 'overRefund',
    exhausted: (txn) => txn.refundSeq >= 100, // no two-digit number left for refund_reference_id
    apply(txn, item, gw) {
      const t = gw.profile.transitions.refund;
      const amount = toMinor(item.refund_amount)!;
      const referenceId = `${txn.transactionId}-${String(txn.refundSeq).padStart(2, '0')}`;
      const reference =
        gw.profile.refunds.reference === 'sameAsReferenceId'
          ? referenceId
          : `RF${referenceId.slice(1).replace('-', '')}`;
      txn.refundSeq += 1;
      txn.refundedMinor += amount;
      gw.store.addRefund(txn, {
        referenceId,
        reference,
        amountMinor: amount,
        reason: str(item, 'refund_reason') ?? '',
        at: gw.now(),
      });
      txn.state = refundable(txn) <= 0n ? t.toFull : t.toPartial;
      return { refund_reference_id: referenceId, refund_reference: reference };
    },
  },
};

/** The failure of a transaction's state for an operation (`transitions.<op>.refusals` / `otherRefusal`), or undefined when allowed. */
function stateFailure(gw: Gateway, key: BatchKey, state: PaymentState): ItemFailure | undefined {
  const t = gw.profile.transitions[key];
  if ((t.from as PaymentState[]).includes(state)) return undefined;
  if (key === 'capture' && state === 'cancelled' && gw.switches.captureCancelled) return undefined;
  return (t.refusals as Partial<Record<PaymentState, ItemFailure>>)[state] ?? t.otherRefusal;
}

const validators = new Map<string, ValidateFunction | null>();

/** Whether a value may be echoed in a result field (it validates against that field's schema). */
function echoable(gw: Gateway, resultSchemaId: string, field: string, value: unknown): boolean {
  const id = `${resultSchemaId}#${field}`;
  if (!validators.has(id)) {
    const schemaId = propertySchemaId(gw.spec, resultSchemaId, field);
    validators.set(id, schemaId ? gw.spec.validator(schemaId) : null);
  }
  const fn = validators.get(id);
  return value !== undefined && (fn ? fn(value) === true : false);
}

/** What a batch following none of the profile's transitions does: nothing beyond the checks of every item. */
const NO_RULES: BatchRules = { apply: () => ({}) };

/**
 * Check one item in the profile's order; the first failure, or the transaction it may be applied to. `key`: the
 * profile's transitions the operation follows (undefined: a batch with none, whose items are checked but for state).
 */
function check(
  gw: Gateway,
  req: GatewayRequest,
  key: BatchKey | undefined,
  raw: unknown,
): { failure: ItemFailure } | { txn: Transaction } {
  const rules = key ? RULES[key] : NO_RULES;
  const items = req.op.items!;
  const item = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Item) : undefined;
  const txn = item
    ? gw.store.transaction(req.account.merchant.merchantId, req.account.account.accountId, item.transaction_id)
    : undefined;
  const amount = item && rules.operationAmount?.(item, gw);
  for (const step of gw.profile.batch.checkOrder) {
    let failure: ItemFailure | undefined;
    if (step === 'invalidItem') {
      const bad =
        !item ||
        items.fields.some((f) => item[f] === undefined) ||
        gw.spec.validate(items.schemaId, item).length > 0 ||
        // Amount bounds are not shown by the document: a zero amount is an amount like any other.
        rules.invalid?.(item, gw) === true;
      failure = bad ? 'invalidItem' : undefined;
    } else if (!item || !txn || txn.orderNo !== item.order_no) {
      failure = 'unknownTransaction';
    } else if (step === 'currencyMismatch') {
      failure = item.currency !== txn.currency ? 'currencyMismatch' : undefined;
    } else if (step === 'amountMismatch') {
      const original = key !== 'capture' || gw.profile.transitions.capture.itemAmount === 'original';
      failure = original && toMinor(item.amount) !== txn.amountMinor ? 'amountMismatch' : undefined;
    } else if (step === 'state') {
      failure = key ? stateFailure(gw, key, txn.state) : undefined;
    } else if (step === 'overAmount' && amount !== undefined && rules.available) {
      const available = rules.available(txn, gw);
      // A profile refusing partial refunds (refunds.partial) takes only the whole remaining amount.
      const partial = gw.profile.refunds.partial ?? 'allowed';
      failure =
        amount > available
          ? rules.overFailure
          : key === 'refund' && partial !== 'allowed' && amount < available
            ? partial
            : undefined;
    }
    if (failure) return { failure };
  }
  if (!txn) return { failure: 'unknownTransaction' };
  if (rules.exhausted?.(txn, gw)) return { failure: 'invalidState' };
  return { txn };
}

/** The status and message of an item failed with `failure`, in the profile's form (`batch.itemFailures`); `key`: its transitions. */
function failedItemFields(gw: Gateway, req: GatewayRequest, key: BatchKey | undefined, failure: ItemFailure): Item {
  const batch = req.op.model.batch!;
  const statuses = (gw.profile.statusValues as unknown as Record<string, { failure: string } | undefined>)[
    batch.status
  ];
  const values: Item = { [batch.message]: codeMessage(gw.profile.batch.itemFailures[failure]) };
  if (statuses) values[batch.status] = statuses.failure;
  if (key === 'refund' && gw.profile.refunds.referenceId.failedItems === 'empty')
    Object.assign(values, { refund_reference_id: '', refund_reference: '' });
  return values;
}

/**
 * An item of a batch the gateway has no handler for (one a copy of the spec adds with `x-pagi-batch`), judged by what
 * the gateway holds: the profile's `batch.checkOrder`, with the state check of the transition the operation's entry
 * names (`x-pagi-batch.transition`; none without one). The status and message fields of its failure in the profile's
 * form (as a real batch answers it), or undefined when it passes. Nothing is applied: the mock keeps no state.
 */
export function heldItemFailure(gw: Gateway, req: GatewayRequest, raw: unknown): Item | undefined {
  const key = req.op.model.batch?.transition;
  const outcome = check(gw, req, key, raw);
  return 'failure' in outcome ? failedItemFields(gw, req, key, outcome.failure) : undefined;
}

/** The result of one item: its echoed fields, its status and message, and what the operation adds. */
function processItem(gw: Gateway, req: GatewayRequest, key: BatchKey, raw: unknown): Item {
  const { batch } = req.op.model;
  const items = req.op.items!;
  const item: Item = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Item) : {};
  const rule = req.op.model.echoItems;
  const echoed = new Set([
    ...(rule?.key ?? []),
    ...(rule?.fields ?? []),
    ...items.resultFields.filter((f) => items.fields.includes(f)),
  ]);
  const values: Item = {};
  for (const f of rule?.key ?? []) values[f] = '';
  for (const f of echoed) if (echoable(gw, items.resultSchemaId, f, item[f])) values[f] = item[f];
  const statuses = gw.profile.statusValues[batch!.status as `${BatchKey}_status`];
  const outcome = check(gw, req, key, raw);
  if ('failure' in outcome) {
    Object.assign(values, failedItemFields(gw, req, key, outcome.failure));
  } else {
    Object.assign(values, RULES[key].apply(outcome.txn, item, gw));
    gw.store.changed(outcome.txn);
    values[batch!.status] = statuses.success;
    values[batch!.message] =
      batch!.messageOnSuccess === 'empty'
        ? gw.profile.batch.itemSuccess.errorMessage
        : codeMessage(gw.profile.batch.itemSuccess.refundMessage);
  }
  return ordered(items.resultFields, values);
}

/** A batch operation handler. */
function batchOperation(key: BatchKey): OperationHandler {
  return {
    run(req, gw) {
      const { batch } = req.op.model;
      const list = req.body[batch!.orders] as unknown[];
      const accepted = refusesOverLimit(gw) ? list : list.slice(0, batchLimit(gw, req.op.model));
      const results = accepted.map((raw) => processItem(gw, req, key, raw));
      const rs = gw.profile.statusValues.return_status;
      const statuses = gw.profile.statusValues[batch!.status as `${BatchKey}_status`];
      const failed = results.find((r) => r[batch!.status] !== statuses.success);
      // The profile's envelope when an item fails: still a success, or the failure value with the first failed item's message.
      const values: Record<string, unknown> =
        failed && gw.profile.batch.envelopeOnItemFailure === 'failure'
          ? { return_status: rs.failure, return_message: failed[batch!.message] }
          : { return_status: rs.success, return_message: rs.successMessage };
      echo(req.op.model, req.body, values);
      const envelope = signResponse(gw, key, ordered(req.op.responseFields, values), req.account.secret);
      return jsonReply(ordered(req.op.responseFields, { ...envelope, [batch!.orders]: results }));
    },
  };
}

/** The four batch operations. */
export const batchOperations = {
  capture: batchOperation('capture'),
  review: batchOperation('review'),
  cancel: batchOperation('cancel'),
  refund: batchOperation('refund'),
} satisfies Record<BatchKey, OperationHandler>;
