/**
 * What the lifecycle checks share: a scenario step's batch result and payment facts, and the expectations they judge
 * steps by (a state shown by a query, an item that succeeded, an item refused with the profile's failure).
 */
import type { CheckContext, Exchange, Observation, OperationKey } from '../../core/model.js';
import type { PAYMENT_STEPS, REVIEW_STEPS } from '../probes/lifecycle.js';
import { FIELD } from '../fields.js';
import { type Report, outcomeOf, quote, quoted, succeeded } from '../findings.js';
import {
  batchResults,
  type CodeMessagePair,
  expectedCodeMessage,
  matchesCodeMessage,
  itemSucceeded,
  operationOf,
  queryRecords,
  responseObject,
  stateOfCode,
} from '../observe.js';
import { codeOfState } from './common.js';

export type PaymentStep = keyof typeof PAYMENT_STEPS;
export type ReviewStep = keyof typeof REVIEW_STEPS;

/** The single batch result of a scenario step. */
export function resultOf(ctx: CheckContext, exchange: Exchange, op: OperationKey): Record<string, unknown> | undefined {
  return batchResults(ctx.spec, op, responseObject(exchange, ctx.spec))?.[0];
}

/** The payment facts of a scenario (`facts.record`, `facts.record2`). */
export function recordOf(o: Observation, key: 'record' | 'record2' | 'rejected' = 'record'): Record<string, unknown> {
  return o.facts[key] ?? {};
}

/** Report unless a query step shows the payment in `state` (the profile's payment_status code). */
export function expectState(
  ctx: CheckContext,
  report: Report,
  exchange: Exchange,
  transactionId: unknown,
  state: string,
  requirement: string,
  after: string,
): void {
  const code = codeOfState(ctx, state);
  const [record] = queryRecords(ctx, responseObject(exchange, ctx.spec), { [FIELD.transactionId]: transactionId });
  if (!record) {
    report({
      code: 'RECORD_NOT_FOUND',
      requirement,
      exchange,
      expected: `the payment ${String(transactionId)} after ${after}`,
      received: `${outcomeOf(exchange)} without it`,
    });
  } else if (record[FIELD.paymentStatus] !== code) {
    report({
      code: 'STATUS_VALUE',
      requirement,
      exchange,
      pointer: `/${FIELD.ordersList}`,
      expected: `${FIELD.paymentStatus} ${code} (${state}) after ${after}`,
      received: `${quote(ctx, record[FIELD.paymentStatus])} (${stateOfCode(ctx, record[FIELD.paymentStatus]) ?? 'unknown state'})`,
    });
  }
}

/**
 * Report TRANSITION_REFUSED unless a batch step's item succeeded; true when it did. `shown`: what of the item's
 * result the finding quotes (default: the whole result).
 */
export function expectItemSucceeded(
  ctx: CheckContext,
  report: Report,
  exchange: Exchange,
  op: OperationKey,
  requirement: string,
  expected: string,
  shown: (result: Record<string, unknown> | undefined) => unknown = (result) => result,
): boolean {
  const result = resultOf(ctx, exchange, op);
  if (itemSucceeded(ctx, op, result)) return true;
  report({
    code: 'TRANSITION_REFUSED',
    requirement,
    exchange,
    expected,
    received: `${outcomeOf(exchange)}, ${quote(ctx, shown(result))}`,
  });
  return false;
}

/** Report unless a batch step's item failed with the profile's failure for `reason` (`refusal` given: its code and message). */
export function expectItemRefused(
  ctx: CheckContext,
  report: Report,
  exchange: Exchange,
  op: OperationKey,
  requirement: string,
  what: string,
  refusal?: { key: string; requirement: string },
): void {
  const batch = operationOf(ctx.spec, op).batch!;
  const result = resultOf(ctx, exchange, op);
  if (succeeded(exchange) && result && itemSucceeded(ctx, op, result)) {
    report({
      code: 'TRANSITION_ALLOWED',
      requirement,
      exchange,
      pointer: `/${batch.orders}/0/${batch.status}`,
      expected: `${what} refused`,
      received: quoted(result[batch.status], 'success '),
    });
    return;
  }
  if (!refusal || !result) return;
  // A failed refund item carries no reference id, or empty ones, as the profile says (refunds.referenceId.failedItems).
  if (op === 'refund') {
    const omitted = ctx.profile.refunds.referenceId.failedItems === 'omitted';
    const id = result[FIELD.refundReferenceId];
    if (omitted ? id !== undefined : id !== '') {
      report({
        code: 'REFERENCE_ID_NUMBERING',
        requirement: refusal.requirement,
        exchange,
        pointer: `/${batch.orders}/0/${FIELD.refundReferenceId}`,
        expected: omitted
          ? 'no refund_reference_id on a failed item (profile)'
          : 'an empty refund_reference_id on a failed item (profile)',
        received: quoted(id),
      });
    }
  }
  const failure = (ctx.profile.batch.itemFailures as Record<string, CodeMessagePair>)[refusal.key];
  if (failure && !matchesCodeMessage(failure, result[batch.message])) {
    report({
      code: 'ITEM_MESSAGE',
      requirement: refusal.requirement,
      exchange,
      pointer: `/${batch.orders}/0/${batch.message}`,
      expected: `${expectedCodeMessage(failure)} (the profile's ${refusal.key})`,
      received: quoted(result[batch.message]),
    });
  }
}

/** The per-item failure the profile gives an operation on a payment in `state`. */
export function refusalFor(ctx: CheckContext, op: 'capture' | 'cancel' | 'refund' | 'review', state: string): string {
  const t = ctx.profile.transitions[op];
  return (t.refusals as Record<string, string>)[state] ?? t.otherRefusal;
}

/** The per-item failure an item with a refused state and an amount over what remains gets: whichever the profile checks first. */
export function stateOrOverAmount(ctx: CheckContext, op: 'capture' | 'refund', state: string, over: string): string {
  const order = ctx.profile.batch.checkOrder as string[];
  const overFirst = order.includes('overAmount') && order.indexOf('overAmount') < order.indexOf('state');
  return overFirst ? over : refusalFor(ctx, op, state);
}
