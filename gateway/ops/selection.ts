/**
 * Query (`/v1/retrievalTrans`) and refund search (`/v1/retrievalRefund`): the records the profile's `selection`
 * rules pick, at most the spec's `x-pagi-limit` orders per request.
 */
import type { OperationKey } from '../../core/model.js';
import { compactTimestamp, isoDate } from '../clock.js';
import {
  echo,
  ordered,
  refusesOverLimit,
  selectionLimit,
  type Gateway,
  type GatewayRequest,
  type OperationHandler,
  type Refusal,
} from '../context.js';
import { signResponse } from '../errors.js';
import { fromMinor } from '../money.js';
import { jsonReply } from '../reply.js';
import type { RefundRecord, Transaction } from '../store.js';

type SelectionKey = 'retrievalTrans' | 'retrievalRefund';
type Selector = { field: string; values: string[] };

/** The selecting fields the request gives, each with its values (split, trimmed, empties dropped). */
function selectors(gw: Gateway, key: SelectionKey, body: Record<string, unknown>): Selector[] | 'notText' {
  const sel = gw.profile.selection[key];
  const out: Selector[] = [];
  for (const field of sel.fields) {
    const raw = body[field];
    if (raw === undefined) continue;
    if (typeof raw !== 'string') return 'notText';
    const values = raw
      .split(sel.listSeparator)
      .map((v) => v.trim())
      .filter(Boolean);
    if (values.length) out.push({ field, values });
  }
  return out;
}

const countValues = (list: Selector[]) => list.reduce((n, s) => n + s.values.length, 0);

/** The first `max` values over all selectors, in order. */
function truncate(list: Selector[], max: number): Selector[] {
  let left = max;
  return list
    .map((s) => {
      const values = s.values.slice(0, Math.max(0, left));
      left -= values.length;
      return { field: s.field, values };
    })
    .filter((s) => s.values.length);
}

/** Transactions of the account one selecting value names, by transaction date ascending. */
function matches(gw: Gateway, req: GatewayRequest, field: string, value: string): readonly Transaction[] {
  const { merchantId } = req.account.merchant;
  const { accountId } = req.account.account;
  if (field === 'transaction_id') {
    const t = gw.store.transaction(merchantId, accountId, value);
    return t ? [t] : [];
  }
  if (field === 'order_no') return gw.store.orderTransactions(merchantId, accountId, value);
  return [];
}

type Picked = { txn: Transaction } | { unmatched: Selector & { value: string } };

/** What a request selects: transactions (and, for `failureItem`, the values that matched nothing). */
function pick(gw: Gateway, req: GatewayRequest, key: SelectionKey, given: Selector[]): Picked[] {
  const sel = gw.profile.selection[key];
  const out: Picked[] = [];
  const seen = new Set<string>();
  const add = (t: Transaction) => {
    if (!seen.has(t.transactionId)) {
      seen.add(t.transactionId);
      out.push({ txn: t });
    }
  };
  const [first, ...others] = given;
  const lists = sel.combine === 'union' ? given : first ? [first] : [];
  for (const s of lists) {
    for (const value of s.values) {
      const found = matches(gw, req, s.field, value).filter(
        (t) =>
          sel.combine === 'union' ||
          others.every((o) => o.values.some((v) => matches(gw, req, o.field, v).includes(t))),
      );
      if (!found.length && sel.unmatched === 'failureItem') out.push({ unmatched: { ...s, value } });
      found.forEach(add);
    }
  }
  return out;
}

function selected(gw: Gateway, req: GatewayRequest, key: SelectionKey): { given: Selector[]; picked: Picked[] } {
  const found = selectors(gw, key, req.body);
  const list = found === 'notText' ? [] : found;
  const max = selectionLimit(gw, req.op.model);
  const given = refusesOverLimit(gw) ? list : truncate(list, max);
  const picked = given.length ? pick(gw, req, key, given) : [];
  return { given, picked: gw.profile.selection[key].resultOrder === 'newestFirst' ? newestFirst(picked) : picked };
}

/** Picked records newest first (a later record of the same instant first); unmatched values keep their place at the end. */
function newestFirst(picked: Picked[]): Picked[] {
  const found = picked.filter((p): p is { txn: Transaction } => 'txn' in p);
  const order = new Map(found.map((p, i) => [p, i]));
  found.sort((a, b) => b.txn.createdAt.getTime() - a.txn.createdAt.getTime() || order.get(b)! - order.get(a)!);
  return [...found, ...picked.filter((p) => !('txn' in p))];
}

/** Refusals shared by both operations: unreadable selectors, a refused absent selection, too many values, nothing found. */
function selectionRefusals(key: SelectionKey): NonNullable<OperationHandler['refusals']> {
  return (req, gw) => {
    const sel = gw.profile.selection[key];
    const found = selectors(gw, key, req.body);
    if (found === 'notText') return [{ kind: 'invalidInput', reason: 'a selecting field is not text' }];
    const out: Refusal[] = [];
    if (!found.length && sel.whenAbsent === 'refuse')
      out.push({ kind: 'invalidInput', reason: 'no selecting field given' });
    const max = selectionLimit(gw, req.op.model);
    if (countValues(found) > max && refusesOverLimit(gw)) {
      out.push({ kind: 'overLimit', reason: `more than ${max} orders selected` });
    }
    if (found.length && sel.unmatched === 'unknownRecordIfNone' && !selected(gw, req, key).picked.length) {
      out.push({ kind: 'unknownRecord', reason: 'the selection matches nothing' });
    }
    return out;
  };
}

/** The envelope of both operations around their result list. */
function envelope(gw: Gateway, req: GatewayRequest, key: SelectionKey, results: Record<string, unknown>[]) {
  const rs = gw.profile.statusValues.return_status;
  const values: Record<string, unknown> = { return_status: rs.success, return_message: rs.successMessage };
  echo(req.op.model, req.body, values);
  const signed = signResponse(gw, key, ordered(req.op.responseFields, values), req.account.secret);
  return jsonReply(ordered(req.op.responseFields, { ...signed, [req.op.records!.list]: results }));
}

/** An order record of the query result. */
function orderRecord(gw: Gateway, req: GatewayRequest, txn: Transaction): Record<string, unknown> {
  const { statusValues, payments } = gw.profile;
  const records = req.op.records!;
  const values: Record<string, unknown> = {
    amount: txn.amount,
    currency: txn.currency,
    order_no: txn.orderNo,
    delivery_information: Object.keys(txn.delivery).length
      ? ordered(records.objects.delivery_information ?? [], txn.delivery)
      : undefined,
    antifraud_provider: payments.risk.provider,
    fraud_check_result: txn.risk.map((c) => ({
      check_items: c.name,
      status: c.passed ? payments.risk.checkStatus.pass : payments.risk.checkStatus.fail,
    })),
    is3ds: txn.with3ds ? statusValues.is3ds.with3ds : statusValues.is3ds.without3ds,
    payment_status: statusValues.payment_status[txn.state],
    query_result: statusValues.query_result.found,
    reference_no: txn.referenceNo,
    transaction_id: txn.transactionId,
    shopper_email: txn.shopperEmail,
    shopper_phone: txn.shopperPhone,
    website: txn.website,
    transaction_date: compactTimestamp(txn.createdAt),
  };
  if (txn.subscription) {
    values.subscription_result = ordered(records.objects.subscription_result ?? [], {
      contract_name: txn.subscription.contractName,
      recurring_deduction_period: txn.subscription.period,
      recurring_deduction_time: isoDate(txn.subscription.nextDeduction),
      recurring_id: txn.subscription.recurringId,
      recurring_status:
        txn.outcome === 'declined' ? statusValues.recurring_status.failure : statusValues.recurring_status.success,
    });
  }
  return ordered(records.fields, values);
}

/** The query operation. */
export const retrievalTrans: OperationHandler = {
  refusals: selectionRefusals('retrievalTrans'),
  run(req, gw) {
    const { given, picked } = selected(gw, req, 'retrievalTrans');
    const max = selectionLimit(gw, req.op.model);
    const chosen: Picked[] = given.length ? picked : latest(gw, req, max).map((txn) => ({ txn }));
    const notFound = gw.profile.statusValues.query_result.notFound;
    const results = chosen
      .slice(0, max)
      .map((p) =>
        'txn' in p ? orderRecord(gw, req, p.txn) : { [p.unmatched.field]: p.unmatched.value, query_result: notFound },
      );
    return envelope(gw, req, 'retrievalTrans', results);
  },
};

/** The account's most recent transactions, newest first. */
function latest(gw: Gateway, req: GatewayRequest, max: number): Transaction[] {
  const newest = gw.store.latestTransactions(req.account.merchant.merchantId, req.account.account.accountId, max);
  return [...newest].reverse();
}

/** One refund of a transaction as the refund search shows it. */
function refundItem(gw: Gateway, req: GatewayRequest, txn: Transaction, refund: RefundRecord): Record<string, unknown> {
  const stamp = compactTimestamp(refund.at);
  return ordered(req.op.records!.fields, {
    transaction_id: txn.transactionId,
    order_no: txn.orderNo,
    amount: txn.amount,
    refund_status: gw.profile.statusValues.refund_status.success,
    payment_status: gw.profile.statusValues.payment_status[txn.state],
    refund_amount: fromMinor(refund.amountMinor),
    refund_reference: refund.reference,
    currency: txn.currency,
    refund_reason: refund.reason,
    refund_reference_id: refund.referenceId,
    refund_date: stamp,
    refund_processing_date: stamp,
  });
}

/** The refund search operation. */
export const retrievalRefund: OperationHandler = {
  refusals: selectionRefusals('retrievalRefund'),
  run(req, gw) {
    const { given, picked } = selected(gw, req, 'retrievalRefund');
    const max = selectionLimit(gw, req.op.model);
    const refunds = picked.flatMap((p) => ('txn' in p ? p.txn.refunds.map((refund) => ({ txn: p.txn, refund })) : []));
    // Newest first: by refund time, a later refund of the same instant first.
    if (gw.profile.selection.retrievalRefund.resultOrder === 'newestFirst')
      refunds.reverse().sort((a, b) => b.refund.at.getTime() - a.refund.at.getTime());
    const results = given.length
      ? refunds.map(({ txn, refund }) => refundItem(gw, req, txn, refund))
      : [...gw.store.latestRefunds(req.account.merchant.merchantId, req.account.account.accountId, max)]
          .reverse()
          .map(({ txn, refund }) => refundItem(gw, req, txn, refund));
    return envelope(gw, req, 'retrievalRefund', results);
  },
};

/** The two selecting operations. */
export const selectionOperations = { retrievalTrans, retrievalRefund } satisfies Partial<
  Record<OperationKey, OperationHandler>
>;
