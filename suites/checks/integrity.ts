/**
 * The integrity family: the payment-integrity invariants judged against the run's ledger (suites/ledger.ts) — every
 * exchange of the run and every notification received, whatever probe made it. Each breach is one finding, on the
 * operation whose answer contradicts what the ledger holds, with the exchanges it contradicts as evidence.
 */
import type { CheckContext, Exchange, NotApplicable, Observation, RunLedgerView } from '../../core/model.js';
import { FIELD } from '../fields.js';
import { type FindingInput, type Report, defineCheck, quote } from '../findings.js';
import { acknowledgedState } from '../ledger-state.js';
import { type Ledger, type PaymentEntry, answered, ledgerOf, requestOf, str, succeededItems } from '../ledger.js';
import {
  hundredths,
  isObject,
  matchesCodeMessage,
  operationOf,
  paymentStatusCode,
  queryRecords,
  responseObject,
  sameValue,
} from '../observe.js';
import { LEDGER_FACT, runLedger } from '../probes/integrity.js';

const built = new WeakMap<RunLedgerView, Ledger>();

/** The typed ledger of an observation of `runLedger`, or why there is none to judge. */
function ledgerIn(o: Observation, ctx: CheckContext): Ledger | NotApplicable {
  const view = o.facts[LEDGER_FACT];
  if (!view) return { notApplicable: "the client keeps no ledger of the run's exchanges" };
  let ledger = built.get(view);
  if (!ledger) built.set(view, (ledger = ledgerOf(view, ctx)));
  return ledger;
}

/** A check reading the ledger: not applicable when the run made no exchange with the operation; one finding per kind of breach. */
export function withLedger(
  verify: (ledger: Ledger, o: Observation, ctx: CheckContext, report: Report) => void | NotApplicable,
): (o: Observation, ctx: CheckContext, report: Report) => void | NotApplicable {
  return (o, ctx, report) => {
    const ledger = ledgerIn(o, ctx);
    if ('notApplicable' in ledger) return ledger;
    const view = o.facts[LEDGER_FACT]!;
    if (!view.entries.some((e) => e.operation === o.operation))
      return { notApplicable: `the run made no ${o.operation} request` };
    const kinds = new Map<string, { first: FindingInput; more: number }>();
    const outcome = verify(ledger, o, ctx, (input) => {
      const key = `${input.code} ${String(input.requirement)} ${(input.pointer ?? '').replace(/\/[0-9]+/g, '/*')}`;
      const kind = kinds.get(key);
      if (kind) kind.more++;
      else kinds.set(key, { first: input, more: 0 });
    });
    if (outcome) return outcome;
    for (const { first, more } of kinds.values()) report(more ? withMore(first, more) : first);
  };
}

/**
 * One finding per kind of breach (code, requirement, place with the indices left out): a fault repeats over every
 * record and notification it touches, and which of them the run saw first depends on the order answers came in.
 */
function withMore(input: FindingInput, more: number): FindingInput {
  const tail = ` (and ${more} more like it in the run)`;
  const r = input.received;
  return { ...input, received: typeof r === 'string' ? `${r}${tail}` : { ...r, after: `${r.after ?? ''}${tail}` } };
}

// ------------------------------------------------------------------ identity

/** Report each identifier handed out for a second thing, on the answer that handed it out again. */
function reused<T>(
  things: readonly T[],
  idOf: (t: T) => string | undefined,
  whoOf: (t: T) => string,
  onEach: (first: T, again: T, id: string) => void,
): void {
  const seen = new Map<string, T>();
  for (const t of things) {
    const id = idOf(t);
    if (!id) continue;
    const first = seen.get(id);
    if (!first) seen.set(id, t);
    else if (whoOf(first) !== whoOf(t)) onEach(first, t, id);
  }
}

export const identifiersNameOneThing = defineCheck({
  id: 'identifiersNameOneThing',
  family: 'integrity',
  probe: runLedger,
  operations: { requirement: 'PAGI-INV-011' },
  requirements: ['PAGI-INV-011'],
  description:
    'Over the whole run, a transaction_id names one payment or payout, a refund_reference_id one refund and a payout transaction_id one request_id.',
  verify: withLedger((ledger, o, _ctx, report) => {
    const identity = (what: string, first: Exchange, again: Exchange, id: string, pointer: string) =>
      report({
        code: 'IDENTIFIER_REUSED',
        requirement: 'PAGI-INV-011',
        exchange: again,
        also: [first],
        pointer,
        expected: `a ${pointer.split('/').pop()} no earlier answer of the run handed out`,
        received: { value: id, after: `, handed out before for ${what} (${first.id})` },
      });
    if (o.operation === 'authoriseDirect')
      reused(
        ledger.payments,
        (p) => p.transactionId,
        (p) => p.orderNo,
        (a, b, id) => identity(`order ${a.orderNo}`, a.entry.exchange, b.entry.exchange, id, `/${FIELD.transactionId}`),
      );
    if (o.operation === 'refund') {
      const refunds = ledger.items.filter((i) => i.operation === 'refund' && i.succeeded && i.result);
      reused(
        refunds,
        (i) => str(i.result![FIELD.refundReferenceId]),
        (i) => `${i.entry.seq}/${i.index}`,
        (a, b, id) =>
          identity(
            `another refund of ${String(a.item[FIELD.transactionId])}`,
            a.entry.exchange,
            b.entry.exchange,
            id,
            `/${FIELD.refundOrders}/${b.index}/${FIELD.refundReferenceId}`,
          ),
      );
    }
    if (o.operation === 'payout') {
      reused(
        ledger.payouts,
        (p) => p.transactionId,
        (p) => String(p.requestId),
        (a, b, id) =>
          identity(
            `request_id ${String(a.requestId)}`,
            a.entry.exchange,
            b.entry.exchange,
            id,
            `/${FIELD.transactionId}`,
          ),
      );
      for (const p of ledger.payouts) {
        const payment = p.transactionId ? ledger.paymentById.get(p.transactionId) : undefined;
        if (payment)
          identity(
            `the payment of order ${payment.orderNo}`,
            payment.entry.exchange,
            p.entry.exchange,
            p.transactionId!,
            `/${FIELD.transactionId}`,
          );
      }
    }
  }),
});

// ------------------------------------------------------------------ money

/** Whether a result's message is one of the profile's per-item failures. */
function carriesFailure(ctx: CheckContext, message: unknown): boolean {
  if (typeof message !== 'string' || message === '') return false;
  const failures = Object.values(ctx.profile.batch.itemFailures) as { code: string; message: string }[];
  return failures.some((f) => matchesCodeMessage(f, message) || message === f.message);
}

function failuresReportedDone(ledger: Ledger, o: Observation, ctx: CheckContext, report: Report): void {
  const batch = operationOf(ctx.spec, o.operation).batch;
  if (!batch) return;
  for (const i of ledger.items) {
    if (i.operation !== o.operation || !i.succeeded || !carriesFailure(ctx, i.result?.[batch.message])) continue;
    report({
      code: 'LEDGER_DISAGREES',
      requirement: 'PAGI-INV-012',
      exchange: i.entry.exchange,
      pointer: `/${batch.orders}/${i.index}/${batch.status}`,
      expected: `an item answered with the failure ${quote(ctx, i.result?.[batch.message])} not reported done`,
      received: { value: i.result?.[batch.status], before: `${batch.status} ` },
    });
  }
}

/** Refunds the run made on a payment: their reference ids, and whether every refund sent on it was answered. */
function refundsMade(ledger: Ledger, transactionId: string): { ids: Set<string>; complete: boolean } {
  const sent = ledger.items.filter((i) => i.operation === 'refund' && i.item[FIELD.transactionId] === transactionId);
  const ids = new Set(
    succeededItems(ledger, 'refund', transactionId)
      .map((i) => str(i.result?.[FIELD.refundReferenceId]))
      .filter((id): id is string => id !== undefined),
  );
  // A refund left unanswered, or sent without authenticating (unauthenticatedNeverCarriedOut judges that one), may
  // have been made: a search listing it is not judged.
  return { ids, complete: sent.every((i) => i.entry.exchange.response && i.entry.authenticated) };
}

function refundSearchHoldsMadeRefunds(ledger: Ledger, ctx: CheckContext, report: Report): void {
  const success = ctx.profile.statusValues.refund_status.success;
  const totals = new Map<string, { cents: number; payment: PaymentEntry; exchange: Exchange }>();
  for (const r of ledger.records) {
    if (r.operation !== 'retrievalRefund' || !r.entry.authenticated || !answered(r.entry)) continue;
    const payment = ledger.paymentById.get(String(r.record[FIELD.transactionId]));
    if (!payment || r.record.refund_status !== success) continue;
    const x = r.entry.exchange;
    const at = `/${FIELD.refundOrders}/${r.index}`;
    const id = str(r.record[FIELD.refundReferenceId]);
    const made = refundsMade(ledger, payment.transactionId);
    if (id && made.complete && ledger.dropped === 0 && !made.ids.has(id))
      report({
        code: 'LEDGER_DISAGREES',
        requirement: 'PAGI-INV-012',
        exchange: x,
        also: [payment.entry.exchange],
        pointer: `${at}/${FIELD.refundReferenceId}`,
        expected: `only refunds of ${payment.transactionId} the gateway accepted in the run (${[...made.ids].join(', ') || 'none'})`,
        received: { value: id, before: 'a refund ' },
      });
    if (
      r.record[FIELD.currency] !== undefined &&
      !sameValue(FIELD.currency, r.record[FIELD.currency], payment.currency)
    )
      report({
        code: 'LEDGER_DISAGREES',
        requirement: 'PAGI-INV-012',
        exchange: x,
        also: [payment.entry.exchange],
        pointer: `${at}/${FIELD.currency}`,
        expected: `the currency of the payment, ${String(payment.currency)}`,
        received: { value: r.record[FIELD.currency] },
      });
    const key = `${r.entry.seq}/${payment.transactionId}`;
    const sum = totals.get(key) ?? { cents: 0, payment, exchange: x };
    sum.cents += hundredths(r.record[FIELD.refundAmount]) ?? 0;
    totals.set(key, sum);
  }
  for (const { cents, payment, exchange } of totals.values()) {
    const amount = hundredths(payment.amount);
    if (amount !== undefined && cents > amount)
      report({
        code: 'LEDGER_DISAGREES',
        requirement: 'PAGI-INV-012',
        exchange,
        also: [payment.entry.exchange],
        pointer: `/${FIELD.refundOrders}`,
        expected: `refunds of ${payment.transactionId} adding up to at most its amount ${String(payment.amount)}`,
        received: `refunds adding up to ${(cents / 100).toFixed(2)}`,
      });
  }
}

function payoutsHoldTogether(ledger: Ledger, ctx: CheckContext, report: Report): void {
  const p = ctx.profile.payout;
  for (const payout of ledger.payouts) {
    const a = payout.answer;
    const x = payout.entry.exchange;
    const pays = hundredths(a[FIELD.amountPayerPays]);
    const receives = hundredths(a[FIELD.amountBeneficiaryReceives]);
    const fee = hundredths(a[FIELD.feeAmount]);
    const oneCurrency =
      p.currencyConversion === 'none' ||
      sameValue(
        FIELD.currency,
        a[FIELD.paymentCurrency] ?? payout.request[FIELD.paymentCurrency],
        a[FIELD.sourceCurrency] ?? payout.request[FIELD.sourceCurrency],
      );
    const feeInPayment = sameValue(
      FIELD.currency,
      a.fee_currency,
      a[FIELD.paymentCurrency] ?? payout.request[FIELD.paymentCurrency],
    );
    if (oneCurrency && pays !== undefined && receives !== undefined && pays < receives)
      report({
        code: 'LEDGER_DISAGREES',
        requirement: 'PAGI-INV-012',
        exchange: x,
        pointer: `/${FIELD.amountPayerPays}`,
        expected: `a payer paying at least what the beneficiary receives (${String(a[FIELD.amountBeneficiaryReceives])})`,
        received: { value: a[FIELD.amountPayerPays] },
      });
    else if (
      oneCurrency &&
      feeInPayment &&
      pays !== undefined &&
      receives !== undefined &&
      fee !== undefined &&
      pays !== receives + fee
    )
      report({
        code: 'LEDGER_DISAGREES',
        requirement: 'PAGI-INV-012',
        exchange: x,
        pointer: `/${FIELD.amountPayerPays}`,
        expected: `what the beneficiary receives plus the fee (${String(a[FIELD.amountBeneficiaryReceives])} + ${String(a[FIELD.feeAmount])})`,
        received: { value: a[FIELD.amountPayerPays] },
      });
    const failed =
      (str(a[FIELD.failureType]) !== undefined && a[FIELD.failureType] !== p.successFailureType) ||
      (str(a[FIELD.failureReason]) !== undefined && a[FIELD.failureReason] !== p.successFailureReason);
    if (failed && a[FIELD.payoutStatus] === ctx.profile.statusValues.payout_status.completed)
      report({
        code: 'LEDGER_DISAGREES',
        requirement: 'PAGI-INV-012',
        exchange: x,
        pointer: `/${FIELD.payoutStatus}`,
        expected: `a payout answered with the failure ${quote(ctx, a[FIELD.failureType])} not reported completed`,
        received: { value: a[FIELD.payoutStatus] },
      });
  }
}

export const moneyAgreesWithLedger = defineCheck({
  id: 'moneyAgreesWithLedger',
  family: 'integrity',
  probe: runLedger,
  operations: { requirement: 'PAGI-INV-012' },
  requirements: ['PAGI-INV-012'],
  description:
    'Over the whole run, answers about money agree with the operations the gateway accepted: refund searches, payout amounts and fees, failures never reported done.',
  verify: withLedger((ledger, o, ctx, report) => {
    if (o.operation === 'retrievalRefund') refundSearchHoldsMadeRefunds(ledger, ctx, report);
    else if (o.operation === 'payout') payoutsHoldTogether(ledger, ctx, report);
    else failuresReportedDone(ledger, o, ctx, report);
  }),
});

// ------------------------------------------------------------------ authentication

/** What an answer to a request that did not authenticate shows was done, or undefined. */
function doneBy(ctx: CheckContext, x: Exchange): { pointer: string; value: unknown } | undefined {
  const op = x.operation as Exclude<Exchange['operation'], 'external'>;
  const body = responseObject(x, ctx.spec);
  if (!body) return undefined;
  const model = operationOf(ctx.spec, op);
  const v = ctx.profile.statusValues;
  if (op === 'authoriseDirect') {
    const done = [v.order_status.approved, v.order_status.pendingReview].includes(String(body[FIELD.orderStatus]));
    return done && str(body[FIELD.transactionId])
      ? { pointer: `/${FIELD.orderStatus}`, value: body[FIELD.orderStatus] }
      : undefined;
  }
  if (op === 'authoriseApm')
    return str(body[FIELD.issuerUrl]) ? { pointer: `/${FIELD.issuerUrl}`, value: body[FIELD.issuerUrl] } : undefined;
  if (model.batch) {
    const success = (v as unknown as Record<string, { success?: string }>)[model.batch.status]?.success;
    const list = body[model.batch.orders];
    const at = Array.isArray(list) ? list.findIndex((r) => isObject(r) && r[model.batch!.status] === success) : -1;
    return at >= 0 ? { pointer: `/${model.batch.orders}/${at}/${model.batch.status}`, value: success } : undefined;
  }
  if (op === 'payout')
    return body[FIELD.payoutStatus] === v.payout_status.completed
      ? { pointer: `/${FIELD.payoutStatus}`, value: body[FIELD.payoutStatus] }
      : undefined;
  if (op === 'retrievalTrans' && queryRecords(ctx, body, {}).length)
    return { pointer: `/${FIELD.ordersList}`, value: `${queryRecords(ctx, body, {}).length} order(s)` };
  if (
    op === 'retrievalRefund' &&
    Array.isArray(body[FIELD.refundOrders]) &&
    (body[FIELD.refundOrders] as unknown[]).length
  )
    return { pointer: `/${FIELD.refundOrders}`, value: `${(body[FIELD.refundOrders] as unknown[]).length} refund(s)` };
  return undefined;
}

export const unauthenticatedNeverCarriedOut = defineCheck({
  id: 'unauthenticatedNeverCarriedOut',
  family: 'integrity',
  probe: runLedger,
  operations: { requirement: 'PAGI-INV-013' },
  requirements: ['PAGI-INV-013'],
  description:
    'A request whose signature, merchant_id or account_id does not authenticate is never carried out: its answer reports nothing done and no later query shows it.',
  verify: withLedger((ledger, o, ctx, report) => {
    const authenticatedOrders = new Set(ledger.payments.map((p) => p.orderNo));
    for (const e of ledger.unauthenticated) {
      if (e.operation !== o.operation) continue;
      const x = e.exchange;
      const done = doneBy(ctx, x);
      const carried = (
        expected: string,
        received: Report extends never ? never : Parameters<Report>[0]['received'],
        pointer: string,
        also: Exchange[] = [],
      ) =>
        report({
          code: 'UNAUTHENTICATED_DONE',
          requirement: 'PAGI-INV-013',
          exchange: x,
          also,
          pointer,
          expected,
          received,
        });
      if (done) {
        carried(
          'a request that does not authenticate refused, nothing done',
          { value: done.value, before: `HTTP ${x.response?.status}, ` },
          done.pointer,
        );
        continue;
      }
      const orderNo = str(requestOf(e)[FIELD.orderNo]);
      if (
        !['authoriseDirect', 'authoriseApm', 'checkout'].includes(e.operation) ||
        !orderNo ||
        authenticatedOrders.has(orderNo)
      )
        continue;
      const later = ledger.records.find(
        (r) =>
          r.operation === 'retrievalTrans' &&
          r.entry.authenticated &&
          r.entry.sentAt > e.answeredAt &&
          r.record[FIELD.orderNo] === orderNo &&
          r.record[FIELD.queryResult] !== ctx.profile.statusValues.query_result.notFound,
      );
      if (later)
        carried(
          `no payment for the order ${orderNo}, sent only without authenticating`,
          { value: later.record[FIELD.orderNo], before: 'a later query shows the order ' },
          `/${FIELD.ordersList}/${later.index}`,
          [later.entry.exchange],
        );
    }
    if (operationOf(ctx.spec, o.operation).batch) unauthenticatedItemsChangeNothing(ledger, o, ctx, report);
  }),
});

/** The first query record of a payment answered to a request sent after `after`. */
function nextQueryRecord(ledger: Ledger, payment: PaymentEntry, after: number) {
  return ledger.records.find(
    (r) =>
      r.operation === 'retrievalTrans' &&
      r.entry.authenticated &&
      answered(r.entry) &&
      r.entry.sentAt > after &&
      r.record[FIELD.transactionId] === payment.transactionId,
  );
}

function unauthenticatedItemsChangeNothing(ledger: Ledger, o: Observation, ctx: CheckContext, report: Report): void {
  const judged = new Set<string>();
  for (const i of ledger.items) {
    if (i.operation !== o.operation || i.entry.authenticated) continue;
    const payment = ledger.paymentById.get(String(i.item[FIELD.transactionId]));
    if (!payment || judged.has(payment.transactionId)) continue;
    const next = nextQueryRecord(ledger, payment, i.entry.answeredAt);
    const st = next && acknowledgedState(ctx, ledger, payment, next.entry.sentAt);
    const code = st ? paymentStatusCode(ctx, st.state) : undefined;
    if (!next || !code || next.record[FIELD.paymentStatus] === code) continue;
    judged.add(payment.transactionId);
    report({
      code: 'UNAUTHENTICATED_DONE',
      requirement: 'PAGI-INV-013',
      exchange: next.entry.exchange,
      also: [i.entry.exchange, payment.entry.exchange],
      pointer: `/${FIELD.ordersList}/${next.index}/${FIELD.paymentStatus}`,
      expected: `${FIELD.paymentStatus} ${code} (${st!.state}) unchanged by the ${o.operation} that did not authenticate (${i.entry.exchange.id})`,
      received: { value: next.record[FIELD.paymentStatus] },
    });
  }
}

// ------------------------------------------------------------------ state

export const queryShowsAcknowledgedState = defineCheck({
  id: 'queryShowsAcknowledgedState',
  family: 'integrity',
  probe: runLedger,
  operations: { requirement: 'PAGI-INV-014' },
  requirements: ['PAGI-INV-014'],
  description:
    "Over the whole run, every query shows each payment in the state the gateway's answers left it in: a refused request changes nothing, an accepted one shows.",
  verify: withLedger((ledger, _o, ctx, report) => {
    const judged = new Set<string>();
    for (const r of ledger.records) {
      if (r.operation !== 'retrievalTrans' || !r.entry.authenticated || !answered(r.entry)) continue;
      const payment = ledger.paymentById.get(String(r.record[FIELD.transactionId]));
      if (!payment || judged.has(payment.transactionId)) continue;
      if (r.record[FIELD.queryResult] === ctx.profile.statusValues.query_result.notFound) continue;
      const st = acknowledgedState(ctx, ledger, payment, r.entry.sentAt);
      const code = st ? paymentStatusCode(ctx, st.state) : undefined;
      if (!st || !code || r.record[FIELD.paymentStatus] === code) continue;
      judged.add(payment.transactionId);
      if (st.items.some((i) => !i.entry.authenticated)) continue; // unauthenticatedNeverCarriedOut judges it
      const last = st.items.at(-1);
      const what = !last
        ? 'its authorisation'
        : `the ${last.succeeded ? 'accepted' : 'refused'} ${last.operation} ${last.entry.exchange.id}`;
      report({
        code: 'STATE_NOT_ACKNOWLEDGED',
        requirement: 'PAGI-INV-014',
        exchange: r.entry.exchange,
        also: [...(last ? [last.entry.exchange] : []), payment.entry.exchange],
        pointer: `/${FIELD.ordersList}/${r.index}/${FIELD.paymentStatus}`,
        expected: `${FIELD.paymentStatus} ${code} (${st.state}) after ${what}`,
        received: { value: r.record[FIELD.paymentStatus] },
      });
    }
  }),
});

// ------------------------------------------------------------------ notifications

const PAYMENT_FIELDS = [
  FIELD.merchantId,
  FIELD.accountId,
  FIELD.orderNo,
  FIELD.transactionId,
  FIELD.amount,
  FIELD.currency,
];
const PAYOUT_FIELDS = [
  FIELD.merchantId,
  FIELD.accountId,
  FIELD.requestId,
  FIELD.transactionId,
  FIELD.paymentAmount,
  FIELD.paymentCurrency,
  FIELD.payoutStatus,
];

function pathOf(url: unknown, base: string): string | undefined {
  try {
    return typeof url === 'string' ? new URL(url, base).pathname : undefined;
  } catch {
    return undefined;
  }
}

/** Report a notification whose fields or address contradict the answer of what it notifies. */
function notificationAgrees(
  ctx: CheckContext,
  report: Report,
  n: { exchange: Exchange; body: Record<string, unknown> },
  about: { answer: Record<string, unknown>; request: Record<string, unknown>; exchange: Exchange },
  fields: readonly string[],
): void {
  const held = (f: string) => (about.request[f] !== undefined ? about.request[f] : about.answer[f]);
  const differs = fields.find(
    (f) => n.body[f] !== undefined && held(f) !== undefined && !sameValue(f, n.body[f], held(f)),
  );
  if (differs)
    report({
      code: 'NOTIFICATION_CONTRADICTS',
      requirement: 'PAGI-INV-015',
      exchange: n.exchange,
      also: [about.exchange],
      pointer: `/${differs}`,
      expected: { value: held(differs), before: `${differs} as the request and answer gave it, ` },
      received: { value: n.body[differs] },
    });
  const given = pathOf(about.request[FIELD.notifyUrl], ctx.config.baseUrl);
  const posted = pathOf(n.exchange.request.url, ctx.config.notifyUrl ?? ctx.config.baseUrl);
  if (given && posted && given !== posted)
    report({
      code: 'NOTIFICATION_CONTRADICTS',
      requirement: 'PAGI-INV-015',
      exchange: n.exchange,
      also: [about.exchange],
      expected: `a notification posted to the notify_url given (${given})`,
      received: { value: posted, before: 'posted to ' },
    });
}

export const notificationsAgreeWithLedger = defineCheck({
  id: 'notificationsAgreeWithLedger',
  family: 'integrity',
  probe: runLedger,
  operations: { requirement: 'PAGI-INV-015' },
  requirements: ['PAGI-INV-015'],
  description:
    'Every notification received agrees with the answer of the payment or payout it is about, and with earlier notifications of it, and came to the notify_url given.',
  verify: withLedger((ledger, o, ctx, report) => {
    const results = new Map<string, { value: unknown; exchange: Exchange }>();
    for (const n of ledger.notifications) {
      if (o.operation === 'payout') {
        const payout = ledger.payouts.find((p) => p.requestId !== undefined && p.requestId === n.body[FIELD.requestId]);
        if (payout) notificationAgrees(ctx, report, n, { ...payout, exchange: payout.entry.exchange }, PAYOUT_FIELDS);
        continue;
      }
      const payment =
        ledger.paymentById.get(String(n.body[FIELD.transactionId])) ??
        ledger.payments.find((p) => p.orderNo === n.body[FIELD.orderNo]);
      if (!payment) continue;
      notificationAgrees(ctx, report, n, { ...payment, exchange: payment.entry.exchange }, PAYMENT_FIELDS);
      // A result can only change by an item on the payment: without one, every result notified is the answer's.
      if (ledger.items.some((i) => i.item[FIELD.transactionId] === payment.transactionId && i.succeeded)) continue;
      const result = n.body[FIELD.orderStatus];
      if (result === undefined) continue;
      const first = results.get(payment.transactionId);
      if (!first) results.set(payment.transactionId, { value: result, exchange: n.exchange });
      else if (first.value !== result)
        report({
          code: 'NOTIFICATION_CONTRADICTS',
          requirement: 'PAGI-INV-015',
          exchange: n.exchange,
          also: [first.exchange, payment.entry.exchange],
          pointer: `/${FIELD.orderStatus}`,
          expected: { value: first.value, before: `${FIELD.orderStatus} as an earlier notification gave it, ` },
          received: { value: result },
        });
    }
  }),
});
