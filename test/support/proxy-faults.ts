/**
 * The faults the proxy (fault-proxy.ts) injects in front of the reference gateway, as data: each named by the
 * requirement it breaks, with the findings a run must show for it. The behaviours of a gateway a certifier must not
 * pass (a refund above the capture accepted, a refused capture reported as done, a query with another amount or
 * without the payment just made, a batch item dropped or answered twice, a server error, another merchant, amount or
 * currency in an answer) and the cascades one wrong field used to set off (a payment answer one cent off, without
 * order_status, a cancel item in another currency).
 */
import type { OperationKey } from '../../core/model.js';
import type { ProxyAnswer, ProxyContext, ProxyFault } from './fault-proxy.js';

/** One end-to-end case: a fault, the run's selection, and what the results must show. */
export interface ProxyCase {
  /** The requirement the fault breaks (the integrity invariant the run must fail). */
  requirement: string;
  fault: ProxyFault;
  /** `--only` selection (none: the full default run). */
  only?: string;
  /** `<operation>/<checkId>` results that must fail naming `requirement`. */
  failing: string[];
  /** Further invariants the same fault breaks, which the integrity verdict must name too. */
  alsoBroken?: string[];
  /** A cascade: no INCONCLUSIVE, at most a handful of skipped checks. */
  cascade?: boolean;
}

type Body = Record<string, unknown>;

/** The result array of a batch answer, when the answer is one. */
function results(ctx: ProxyContext, answer: ProxyAnswer): Body[] | undefined {
  const batch = ctx.operation ? ctx.spec.operations.get(ctx.operation)?.batch : undefined;
  const list = batch && answer.body ? answer.body[batch.orders] : undefined;
  return Array.isArray(list) ? (list as Body[]) : undefined;
}

/** Report the failed items of `op` whose message carries one of the profile's failure codes (`keys`) as done. */
function refusedReportedDone(op: OperationKey, keys?: readonly string[]): ProxyFault['answer'] {
  return (ctx, answer) => {
    if (ctx.operation !== op) return false;
    const batch = ctx.spec.operations.get(op)!.batch!;
    const values = (ctx.profile.statusValues as unknown as Record<string, { success: string; failure: string }>)[
      batch.status
    ]!;
    const failures = ctx.profile.batch.itemFailures as Record<string, { code: string }>;
    const codes = (keys ?? Object.keys(failures)).map((k) => `${failures[k]!.code}:`);
    let changed = false;
    for (const r of results(ctx, answer) ?? []) {
      const message = String(r[batch.message] ?? '');
      if (r[batch.status] !== values.failure || !codes.some((c) => message.startsWith(c))) continue;
      r[batch.status] = values.success;
      const ok = ctx.profile.batch.itemSuccess;
      r[batch.message] = op === 'refund' ? `${ok.refundMessage.code}:${ok.refundMessage.message}` : ok.errorMessage;
      changed = true;
    }
    return changed;
  };
}

/** Another currency than `c`, for an answer that should echo `c`. */
function otherCurrency(c: unknown): string {
  return c === 'EUR' ? 'USD' : 'EUR';
}

/** One cent more than an amount written with two decimals. */
function oneCentMore(amount: unknown): string {
  const cents = Math.round(Number(amount) * 100) + 1;
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

export const PROXY_FAULTS = {
  overRefundAccepted: {
    name: 'over-refund-accepted',
    description: 'a refund above what remains of the capture answered as done',
    answer: refusedReportedDone('refund', ['overRefund']),
  },
  refusedCaptureReportedDone: {
    name: 'refused-capture-reported-done',
    description: 'every capture item the gateway refused answered as captured',
    answer: refusedReportedDone('capture'),
  },
  queryAmountDiffers: {
    name: 'query-amount-differs',
    description: 'the query shows every payment with one unit more than its amount',
    answer(ctx, answer) {
      const list = ctx.operation === 'retrievalTrans' ? answer.body?.orders_list : undefined;
      if (!Array.isArray(list) || !list.length) return false;
      for (const r of list as Body[]) r.amount = oneCentMore(oneCentMore(r.amount));
      return true;
    },
  },
  queryLeavesOutNewPayment: {
    name: 'query-leaves-out-new-payment',
    description: 'the first query showing a payment leaves it out (a payment just made is not found)',
    answer(ctx, answer) {
      const list = ctx.operation === 'retrievalTrans' ? answer.body?.orders_list : undefined;
      if (!Array.isArray(list) || !list.length || !answer.body) return false;
      const seen = (ctx.state.get('seen') as Set<string> | undefined) ?? new Set<string>();
      ctx.state.set('seen', seen);
      const kept = (list as Body[]).filter((r) => {
        const id = String(r.transaction_id);
        if (seen.has(id)) return true;
        seen.add(id);
        return false;
      });
      if (kept.length === list.length) return false;
      answer.body.orders_list = kept;
      return true;
    },
  },
  batchItemDropped: {
    name: 'batch-51st-item-dropped',
    description:
      'a capture or cancel of 51 orders: the gateway gets the first 50, and the 51st vanishes from the answer',
    request(ctx) {
      const batch =
        ctx.operation === 'capture' || ctx.operation === 'cancel'
          ? ctx.spec.operations.get(ctx.operation)?.batch
          : undefined;
      const items = batch ? ctx.request[batch.orders] : undefined;
      if (!batch || !Array.isArray(items) || items.length <= batch.maxItems) return undefined;
      return { ...ctx.request, [batch.orders]: items.slice(0, batch.maxItems) };
    },
  },
  refundSearch500: {
    name: 'refund-search-500',
    description: 'every refund search answered HTTP 500',
    answer(ctx, answer) {
      if (ctx.operation !== 'retrievalRefund' || ctx.method !== 'POST') return false;
      answer.status = 500;
      answer.headers = { 'content-type': 'text/plain' };
      answer.text = 'Internal Server Error';
      return true;
    },
  },
  merchantAltered: {
    name: 'merchant-id-altered',
    description: 'every answer names another merchant',
    answer(_ctx, answer) {
      if (!answer.body || typeof answer.body.merchant_id !== 'string' || answer.body.merchant_id === '') return false;
      answer.body.merchant_id = `${answer.body.merchant_id}-OTHER`;
      return true;
    },
  },
  paymentOneCentOff: {
    name: 'payment-amount-one-cent-off',
    description: 'every direct payment answered with one cent more than the amount sent',
    answer(ctx, answer) {
      if (ctx.operation !== 'authoriseDirect' || !answer.body || typeof answer.body.amount !== 'string') return false;
      if (!/^[0-9]+\.[0-9]{2}$/.test(answer.body.amount)) return false;
      answer.body.amount = oneCentMore(answer.body.amount);
      return true;
    },
  },
  paymentOtherCurrency: {
    name: 'payment-other-currency',
    description: 'every direct payment answered in another currency than the one sent',
    answer(ctx, answer) {
      if (ctx.operation !== 'authoriseDirect' || !answer.body || typeof answer.body.currency !== 'string') return false;
      answer.body.currency = otherCurrency(answer.body.currency);
      return true;
    },
  },
  batchItemTwice: {
    name: 'batch-item-answered-twice',
    description: 'every capture answer holds its first result twice',
    answer(ctx, answer) {
      const list = ctx.operation === 'capture' ? results(ctx, answer) : undefined;
      if (!list?.length) return false;
      list.push({ ...list[0]! });
      return true;
    },
  },
  paymentWithoutOrderStatus: {
    name: 'payment-without-order-status',
    description: 'every direct payment answered without order_status',
    answer(ctx, answer) {
      if (ctx.operation !== 'authoriseDirect' || !answer.body || !('order_status' in answer.body)) return false;
      delete answer.body.order_status;
      return true;
    },
  },
  cancelItemOtherCurrency: {
    name: 'cancel-item-other-currency',
    description: 'every cancel result in another currency than its item',
    answer(ctx, answer) {
      const list = ctx.operation === 'cancel' ? results(ctx, answer) : undefined;
      if (!list?.length) return false;
      for (const r of list) if (typeof r.currency === 'string') r.currency = otherCurrency(r.currency);
      return true;
    },
  },
  // Hostile shapes (test/engine/hostile-answers.test.ts): a value of the wrong type where the kit reads a list or
  // follows a URL. Not cases of PROXY_CASES: they break the schema, no integrity invariant.
  queryOrdersListObject: {
    name: 'query-orders-list-object',
    description: 'every query answers its orders_list as an object keyed by position instead of an array',
    answer(ctx, answer) {
      const list = ctx.operation === 'retrievalTrans' ? answer.body?.orders_list : undefined;
      if (!Array.isArray(list) || !answer.body) return false;
      answer.body.orders_list = Object.fromEntries(list.map((r, i) => [`order${i}`, r]));
      return true;
    },
  },
  refundSearchOrdersObject: {
    name: 'refund-search-orders-object',
    description: 'every refund search answers its refund_orders as one object instead of an array',
    answer(ctx, answer) {
      const list = ctx.operation === 'retrievalRefund' ? answer.body?.refund_orders : undefined;
      if (!Array.isArray(list) || !answer.body) return false;
      answer.body.refund_orders = list[0] ?? {};
      return true;
    },
  },
  apmIssuerUrlNotUrl: {
    name: 'apm-issuer-url-not-url',
    description: 'every APM payment answers an issuer_url that is not a URL',
    answer(ctx, answer) {
      if (ctx.operation !== 'authoriseApm' || typeof answer.body?.issuer_url !== 'string') return false;
      answer.body.issuer_url = 'see your bank: http//issuer page';
      return true;
    },
  },
} satisfies Record<string, ProxyFault>;

/** The end-to-end cases, named by the requirement each fault breaks. */
export const PROXY_CASES: ProxyCase[] = [
  {
    requirement: 'PAGI-INV-001',
    fault: PROXY_FAULTS.overRefundAccepted,
    only: 'lifecycle',
    failing: ['refund/overRefundRefused'],
  },
  {
    // A capture above the authorisation and one of a transaction the gateway does not hold, both answered as done.
    requirement: 'PAGI-INV-002',
    fault: PROXY_FAULTS.refusedCaptureReportedDone,
    only: 'lifecycle,status',
    failing: ['capture/overCaptureRefused'],
    alsoBroken: ['PAGI-INV-003'],
  },
  {
    requirement: 'PAGI-INV-004',
    fault: PROXY_FAULTS.queryAmountDiffers,
    only: 'lifecycle',
    failing: ['retrievalTrans/queryShowsAuthorisedPayment'],
  },
  {
    requirement: 'PAGI-INV-004',
    fault: PROXY_FAULTS.queryLeavesOutNewPayment,
    only: 'lifecycle',
    failing: ['retrievalTrans/queryShowsAuthorisedPayment'],
  },
  {
    requirement: 'PAGI-INV-007',
    fault: PROXY_FAULTS.batchItemDropped,
    only: 'limits',
    failing: ['capture/batchOverLimitNotProcessedInFull', 'cancel/batchOverLimitNotProcessedInFull'],
  },
  {
    requirement: 'PAGI-INV-008',
    fault: PROXY_FAULTS.refundSearch500,
    only: 'status',
    // The observation rule's finding, in the result of whichever check read the answer first.
    failing: ['retrievalRefund/neverServerErrorAnswer'],
  },
  {
    requirement: 'PAGI-INV-006',
    fault: PROXY_FAULTS.merchantAltered,
    only: 'conventions',
    failing: ['capture/responseEchoesRequestFields', 'authoriseDirect/responseEchoesRequestFields'],
  },
  {
    // The full default run: one fault fails the run through the integrity verdict, and cascades no further.
    requirement: 'PAGI-INV-006',
    fault: PROXY_FAULTS.paymentOneCentOff,
    failing: ['authoriseDirect/responseEchoesRequestFields'],
    cascade: true,
  },
  {
    requirement: 'PAGI-INV-006',
    fault: PROXY_FAULTS.paymentOtherCurrency,
    only: 'conventions',
    failing: ['authoriseDirect/responseEchoesRequestFields'],
  },
  {
    requirement: 'PAGI-INV-007',
    fault: PROXY_FAULTS.batchItemTwice,
    only: 'conventions',
    failing: ['capture/batchResultsEchoRequestIds'],
  },
  {
    requirement: 'PAGI-GEN-011',
    fault: PROXY_FAULTS.paymentWithoutOrderStatus,
    failing: ['authoriseDirect/responseHoldsListedFields'],
    cascade: true,
  },
  {
    requirement: 'PAGI-INV-006',
    fault: PROXY_FAULTS.cancelItemOtherCurrency,
    // The families whose checks read cancel answers: the at-limit check used to report a requirement it does not declare.
    only: 'conventions,limits',
    failing: ['cancel/batchResultsEchoRequestIds'],
    cascade: true,
  },
];
