/**
 * The integrity family's records over the whole run (PAGI-INV-016): every query and refund-search record of a payment
 * the run made, against what the ledger holds of it — every field it shares with the payment's request and answer
 * (nested objects too), a listed refund's with its refund's item and answer, the state and 3-D Secure result the
 * answers and the profile give — and against the selection its request made.
 */
import type { SelectingOperation } from '../../core/profile/operations.js';
import { ifStated } from '../../core/profile/reads.js';
import type { CheckContext, OperationKey } from '../../core/model.js';
import { FIELD } from '../fields.js';
import { type Report, defineCheck } from '../findings.js';
import { acknowledgedState } from '../ledger-state.js';
import { type Ledger, type PaymentEntry, type RecordEntry, answered, requestOf, str } from '../ledger.js';
import { isObject, operationOf, paymentStatusCode, sameValue } from '../observe.js';
import { runLedger } from '../probes/integrity.js';
import { withLedger } from './integrity.js';

/**
 * Record fields that say where a payment or refund is now, or when: never compared with what was sent or answered
 * before (the payment's state is judged against the state the answers left it in instead).
 */
const MOVING_FIELDS: ReadonlySet<string> = new Set([
  FIELD.paymentStatus,
  FIELD.queryResult,
  FIELD.transactionDate,
  FIELD.signature,
  FIELD.is3ds,
  'recurring_status',
  'refund_date',
  'refund_processing_date',
]);

const isLeaf = (v: unknown) => v !== undefined && (typeof v !== 'object' || v === null);

/**
 * The scalar fields of a body by name: its own, then those of the objects it nests (not of arrays), the outer one
 * first (a query record's `subscription_result.recurring_id` is the payment answer's `recurring_id`, its
 * `delivery_information.delivery_city` the request's `delivery_city`).
 */
function leavesByName(
  body: Record<string, unknown>,
  out = new Map<string, { value: unknown; path: string }>(),
  at = '',
) {
  const nested: [string, Record<string, unknown>][] = [];
  for (const [field, value] of Object.entries(body)) {
    if (isObject(value)) nested.push([field, value]);
    else if (isLeaf(value) && !out.has(field)) out.set(field, { value, path: `${at}/${field}` });
  }
  for (const [field, value] of nested) leavesByName(value, out, `${at}/${field}`);
  return out;
}

/**
 * The first field a record shares with what the ledger holds of its payment or refund (`held`: the request or item
 * as sent, and the answer) that holds another value than either (not another writing of the same one: sameWriting).
 */
function disagreeing(
  record: Record<string, unknown>,
  held: readonly Record<string, unknown>[],
): { field: string; path: string; value: unknown; held: unknown } | undefined {
  const sources = held.map((h) => leavesByName(h));
  for (const [field, { value, path }] of leavesByName(record)) {
    if (MOVING_FIELDS.has(field)) continue;
    for (const source of sources) {
      const known = source.get(field);
      if (!known || known.value === null) continue;
      if (!sameValue(field, value, known.value) && !sameWriting(value, known.value))
        return { field, path, value, held: known.value };
    }
  }
  return undefined;
}

/**
 * Whether two texts are one value written two ways: the same but for white space around it (an XML answer's element
 * text as its reader gives it), or a date (`YYYY-MM-DD`) and that date with a time.
 */
function sameWriting(a: unknown, b: unknown): boolean {
  if (typeof a !== 'string' || typeof b !== 'string') return false;
  const [x, y] = [a.trim(), b.trim()];
  if (x === y) return true;
  const [date, stamp] = x.length < y.length ? [x, y] : [y, x];
  return /^\d{4}-\d{2}-\d{2}$/.test(date) && stamp.startsWith(`${date} `);
}

/**
 * Whether a record answers the selection its request made: it carries one of the values the request selected in a
 * field of the profile's selection. Undefined (not judged) when the request selected nothing (the profile's
 * `whenAbsent`) or by a field the record does not carry (a date range: any record inside it answers).
 */
function answersSelection(ctx: CheckContext, r: RecordEntry): boolean | undefined {
  const selection = ctx.profile.selection[r.operation as SelectingOperation];
  const sent = requestOf(r.entry);
  let named = false;
  for (const field of selection.fields) {
    const value = sent[field];
    if (typeof value !== 'string' || value === '') continue;
    if (r.record[field] === undefined) return undefined;
    named = true;
    const values = value.split(selection.listSeparator).map((v) => v.trim());
    if (values.includes(String(r.record[field]).trim())) return true;
  }
  return named ? false : undefined;
}

/**
 * Report a refund-search record showing its payment in another state than the gateway's answers left it in (the
 * query's counterpart is queryShowsAcknowledgedState): once per payment.
 */
function refundRecordState(
  ledger: Ledger,
  ctx: CheckContext,
  r: RecordEntry,
  payment: PaymentEntry,
  judged: Set<string>,
  report: Report,
): void {
  const key = `state ${payment.transactionId}`;
  if (judged.has(key) || r.record[FIELD.paymentStatus] === undefined) return;
  const st = acknowledgedState(ctx, ledger, payment, r.entry.sentAt);
  const code = st ? paymentStatusCode(ctx, st.state) : undefined;
  if (!st || !code || r.record[FIELD.paymentStatus] === code || st.items.some((i) => !i.entry.authenticated)) return;
  judged.add(key);
  const last = st.items.at(-1);
  report({
    code: 'LEDGER_DISAGREES',
    requirement: 'PAGI-INV-016',
    exchange: r.entry.exchange,
    also: [...(last ? [last.entry.exchange] : []), payment.entry.exchange],
    pointer: `/${FIELD.refundOrders}/${r.index}/${FIELD.paymentStatus}`,
    expected: `${FIELD.paymentStatus} ${code} (${st.state}), the state the gateway's answers left the payment ${payment.transactionId} in`,
    received: { value: r.record[FIELD.paymentStatus] },
  });
}

/**
 * The profile's `is3ds` value of a payment, from its request and answer: the 3-D Secure result the profile gives a
 * payment that asked for it (or did not) answered as such. Undefined when the answer gives no result or another one.
 */
function is3dsOf(ctx: CheckContext, payment: PaymentEntry): string | undefined {
  const result = payment.answer[FIELD.threeDsResult];
  if (typeof result !== 'string') return undefined;
  const { requestValue, resultWhenRequested, resultWhenNotRequested } = ctx.profile.payments.threeDS;
  const asked = payment.request[FIELD.threeDsRequest] === requestValue;
  if (result !== (asked ? resultWhenRequested : resultWhenNotRequested)) return undefined;
  const values = ctx.profile.statusValues.is3ds;
  return asked ? values.with3ds : values.without3ds;
}

/** Report a query record whose `is3ds` contradicts the 3-D Secure result its payment was answered with: once per payment. */
function recordThreeDs(
  ctx: CheckContext,
  r: RecordEntry,
  payment: PaymentEntry,
  judged: Set<string>,
  report: Report,
): void {
  const key = `3ds ${payment.transactionId}`;
  const got = r.record[FIELD.is3ds];
  if (judged.has(key) || got === undefined) return;
  const want = is3dsOf(ctx, payment);
  if (want === undefined || got === want) return;
  judged.add(key);
  report({
    code: 'LEDGER_DISAGREES',
    requirement: 'PAGI-INV-016',
    exchange: r.entry.exchange,
    also: [payment.entry.exchange],
    pointer: `/${FIELD.ordersList}/${r.index}/${FIELD.is3ds}`,
    expected: {
      value: want,
      before: `${FIELD.is3ds} of the payment ${payment.transactionId}, answered ${FIELD.threeDsResult} ${JSON.stringify(payment.answer[FIELD.threeDsResult])}, `,
    },
    received: { value: got },
  });
}

/**
 * An answer without the fields the spec says echo the request: what was sent holds them, and the echo checks judge an
 * answer's echo of them (one finding per fault, not a second one on every record of the payment).
 */
function beyondEchoes(answer: Record<string, unknown>, echoed: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(answer).filter(([field]) => !echoed.includes(field)));
}

/** The fields the spec says an operation's answer echoes from its request. */
function echoedFields(ctx: CheckContext, operation: OperationKey): string[] {
  return operationOf(ctx.spec, operation).echo.flatMap((rule) => rule.fields);
}

/** The fields the spec says a batch result echoes from its item: its key fields and the fields both list. */
function echoedItemFields(ctx: CheckContext, operation: OperationKey): string[] {
  const rule = operationOf(ctx.spec, operation).echoItems;
  return rule ? [...rule.key, ...rule.fields] : [];
}

export const recordsAgreeWithLedger = defineCheck({
  id: 'recordsAgreeWithLedger',
  family: 'integrity',
  probe: runLedger,
  operations: { requirement: 'PAGI-INV-016' },
  requirements: ['PAGI-INV-016'],
  description:
    'Over the whole run, each query and refund-search record of a payment the run made holds every value it shares with what the payment was made and answered with (nested results included), each listed refund every value its refund was sent and answered with, and a refund-search record its payment in the state the answers left it in.',
  verify: withLedger((ledger, o, ctx, report) => {
    const judged = new Set<string>();
    const refunds = new Map(
      ledger.items
        .filter((i) => i.operation === 'refund' && i.succeeded && str(i.result?.[FIELD.refundReferenceId]))
        .map((i) => [String(i.result![FIELD.refundReferenceId]), i]),
    );
    const list = o.operation === 'retrievalTrans' ? FIELD.ordersList : FIELD.refundOrders;
    for (const r of ledger.records) {
      if (r.operation !== o.operation || !r.entry.authenticated || !answered(r.entry)) continue;
      if (r.record[FIELD.queryResult] === ctx.profile.statusValues.query_result.notFound) continue;
      if (answersSelection(ctx, r) === false)
        report({
          code: 'LEDGER_DISAGREES',
          requirement: 'PAGI-INV-016',
          exchange: r.entry.exchange,
          pointer: `/${list}/${r.index}`,
          expected: `only records the request selected (${ctx.profile.selection[o.operation as SelectingOperation].fields.filter((f) => requestOf(r.entry)[f] !== undefined).join(', ')} as sent): the asking merchant's orders`,
          received: {
            value: r.record[FIELD.orderNo] ?? r.record[FIELD.transactionId],
            before: 'a record of an order not selected, ',
          },
        });
      const payment = ledger.paymentById.get(String(r.record[FIELD.transactionId]));
      if (!payment) continue;
      const refund =
        o.operation === 'retrievalRefund' ? refunds.get(String(r.record[FIELD.refundReferenceId])) : undefined;
      // A listed refund holds what its refund was sent and answered with; any record what its payment was.
      const about = refund
        ? {
            held: [refund.item, beyondEchoes(refund.result ?? {}, echoedItemFields(ctx, 'refund'))],
            exchange: refund.entry.exchange,
            what: `the refund ${String(r.record[FIELD.refundReferenceId])}`,
          }
        : {
            held: [payment.request, beyondEchoes(payment.answer, echoedFields(ctx, payment.entry.operation))],
            exchange: payment.entry.exchange,
            what: `the payment ${payment.transactionId}`,
          };
      const differs = disagreeing(r.record, about.held);
      const key = refund ? String(r.record[FIELD.refundReferenceId]) : payment.transactionId;
      if (differs && !judged.has(key)) {
        judged.add(key);
        report({
          code: 'LEDGER_DISAGREES',
          requirement: 'PAGI-INV-016',
          exchange: r.entry.exchange,
          also: [about.exchange, ...(refund ? [payment.entry.exchange] : [])],
          pointer: `/${list}/${r.index}${differs.path}`,
          expected: { value: differs.held, before: `${differs.field} of ${about.what}, ` },
          received: { value: differs.value },
        });
      }
      // Judged where the profile states what they need (a profile may leave transitions or values out).
      if (o.operation === 'retrievalRefund') ifStated(() => refundRecordState(ledger, ctx, r, payment, judged, report));
      else ifStated(() => recordThreeDs(ctx, r, payment, judged, report));
    }
  }),
});
