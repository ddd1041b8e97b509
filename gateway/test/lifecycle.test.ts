/**
 * State and rules: payment → capture (≤ authorised) → refunds (sum ≤ captured); cancel before capture; review;
 * query; payout; and 200 concurrent partial refunds of one capture.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../index.js';
import * as h from './helpers.js';

let gw: RunningGateway;
beforeAll(async () => {
  gw = await h.gateway();
});
afterAll(() => gw.close());

const p = h.profile;
const failure = (kind: keyof typeof p.batch.itemFailures) =>
  `${p.batch.itemFailures[kind].code}:${p.batch.itemFailures[kind].message}`;
const paymentStatus = p.statusValues.payment_status;

/** The query record of one transaction. */
async function record(transactionId: string): Promise<Record<string, any>> {
  const { json } = await h.query(gw, { transaction_id: transactionId });
  return json.orders_list[0];
}

/** Expect a batch answered as accepted, with one result echoing the item's ids and carrying the failure (or success). */
function expectItem(
  out: Awaited<ReturnType<typeof h.batch>>,
  sent: Record<string, unknown>,
  op: 'capture' | 'review' | 'cancel' | 'refund',
  fails?: keyof typeof p.batch.itemFailures,
) {
  const batch = h.spec.operations.get(op)!.batch!;
  expect(out.res.status).toBe(200);
  expect(h.violations(op, out.json)).toEqual([]);
  expect([out.json.return_status, out.json.return_message]).toEqual([
    p.statusValues.return_status.success,
    p.statusValues.return_status.successMessage,
  ]);
  const [result] = out.results;
  expect(result!.transaction_id).toBe(sent.transaction_id);
  expect(result!.order_no).toBe(sent.order_no);
  const statuses = p.statusValues[batch.status as 'capture_status'];
  if (fails) {
    expect(result![batch.status]).toBe(statuses.failure);
    expect(result![batch.message]).toBe(failure(fails));
  } else {
    expect(result![batch.status]).toBe(statuses.success);
    expect(result![batch.message]).toBe(
      batch.messageOnSuccess === 'empty'
        ? p.batch.itemSuccess.errorMessage
        : `${p.batch.itemSuccess.refundMessage.code}:${p.batch.itemSuccess.refundMessage.message}`,
    );
  }
  return result!;
}

async function one(
  op: 'capture' | 'review' | 'cancel' | 'refund',
  sent: Record<string, unknown>,
  fails?: keyof typeof p.batch.itemFailures,
) {
  return expectItem(await h.batch(gw, op, [sent]), sent, op, fails);
}

describe('capture', () => {
  it('captures at most the authorised amount (partial capture allowed), once', async () => {
    const { transactionId, body } = await h.pay(gw, { amount: '20.00' });
    await one('capture', h.item(transactionId, body, { amount: '20.01' }), 'overCapture');
    await one('capture', h.item(transactionId, body, { amount: '15.00' }));
    expect((await record(transactionId)).payment_status).toBe(paymentStatus.captured);
    await one('capture', h.item(transactionId, body, { amount: '1.00' }), 'alreadyCaptured');
  });

  it('refuses unknown transactions, another order_no, another currency', async () => {
    const { transactionId, body } = await h.pay(gw);
    await one('capture', h.item('T-unknown', body), 'unknownTransaction');
    await one('capture', h.item(transactionId, body, { order_no: 'ORD-other' }), 'unknownTransaction');
    await one(
      'capture',
      h.item(transactionId, body, { currency: body.currency === 'EUR' ? 'USD' : 'EUR' }),
      'currencyMismatch',
    );
    expect((await record(transactionId)).payment_status).toBe(paymentStatus.authorised);
  });

  it('refuses an item lacking a field or with an ill-formed amount, and answers it with its ids', async () => {
    const { transactionId, body } = await h.pay(gw);
    await one('capture', h.item(transactionId, body, { amount: '12' }), 'invalidItem');
    const { currency: _c, ...noCurrency } = h.item(transactionId, body);
    await one('capture', noCurrency, 'invalidItem');
  });

  it('refuses the capture of a cancelled payment', async () => {
    const { transactionId, body } = await h.pay(gw);
    await one('cancel', h.item(transactionId, body));
    await one('capture', h.item(transactionId, body), 'cancelled');
  });
});

describe('cancel', () => {
  it('cancels before capture only', async () => {
    const a = await h.pay(gw);
    await one('cancel', h.item(a.transactionId, a.body));
    expect((await record(a.transactionId)).payment_status).toBe(paymentStatus.cancelled);
    await one('cancel', h.item(a.transactionId, a.body), 'cancelled');
    const b = await h.pay(gw);
    await one('capture', h.item(b.transactionId, b.body));
    await one('cancel', h.item(b.transactionId, b.body), 'alreadyCaptured');
    expect((await record(b.transactionId)).payment_status).toBe(paymentStatus.captured);
  });

  it('refuses an amount that is not the payment amount', async () => {
    const { transactionId, body } = await h.pay(gw, { amount: '30.00' });
    await one('cancel', h.item(transactionId, body, { amount: '29.99' }), 'amountMismatch');
  });
});

describe('refund', () => {
  it('refunds in part and repeatedly with -01, -02 references, never beyond the captured amount', async () => {
    const { transactionId, body } = await h.pay(gw, { amount: '50.00' });
    await one(
      'refund',
      h.item(transactionId, body, { refund_amount: '1.00', refund_reason: 'too early' }),
      'invalidState',
    );
    await one('capture', h.item(transactionId, body, { amount: '40.00' }));
    const r1 = await one('refund', h.item(transactionId, body, { refund_amount: '10.00', refund_reason: 'first' }));
    expect(r1.refund_reference_id).toBe(`${transactionId}-01`);
    expect((await record(transactionId)).payment_status).toBe(paymentStatus.partiallyRefunded);
    const r2 = await one('refund', h.item(transactionId, body, { refund_amount: '25.50', refund_reason: 'second' }));
    expect(r2.refund_reference_id).toBe(`${transactionId}-02`);
    const over = await one(
      'refund',
      h.item(transactionId, body, { refund_amount: '4.51', refund_reason: 'too much' }),
      'overRefund',
    );
    expect(over.refund_reference_id).toBeUndefined(); // failedItems: omitted
    const r3 = await one('refund', h.item(transactionId, body, { refund_amount: '4.50', refund_reason: 'rest' }));
    expect(r3.refund_reference_id).toBe(`${transactionId}-03`);
    expect((await record(transactionId)).payment_status).toBe(paymentStatus.refunded);
    await one('refund', h.item(transactionId, body, { refund_amount: '0.01', refund_reason: 'again' }), 'overRefund');
  });

  it('refuses the refund of a cancelled payment and an original amount that does not match', async () => {
    const a = await h.pay(gw);
    await one('cancel', h.item(a.transactionId, a.body));
    await one('refund', h.item(a.transactionId, a.body, { refund_amount: '1.00', refund_reason: 'x' }), 'cancelled');
    const b = await h.pay(gw, { amount: '12.00' });
    await one('capture', h.item(b.transactionId, b.body));
    await one(
      'refund',
      h.item(b.transactionId, b.body, { amount: '11.00', refund_amount: '1.00', refund_reason: 'x' }),
      'amountMismatch',
    );
  });

  it('processes items in order, each seeing the earlier ones (two refunds of one payment in one request)', async () => {
    const { transactionId, body } = await h.pay(gw, { amount: '10.00' });
    await one('capture', h.item(transactionId, body));
    const items = [
      h.item(transactionId, body, { refund_amount: '6.00', refund_reason: 'a' }),
      h.item(transactionId, body, { refund_amount: '6.00', refund_reason: 'b' }),
      h.item(transactionId, body, { refund_amount: '4.00', refund_reason: 'c' }),
    ];
    const out = await h.batch(gw, 'refund', items);
    expect(out.results.map((r) => r.refund_status)).toEqual([
      p.statusValues.refund_status.success,
      p.statusValues.refund_status.failure,
      p.statusValues.refund_status.success,
    ]);
    expect(out.results.map((r) => r.refund_reference_id)).toEqual([
      `${transactionId}-01`,
      undefined,
      `${transactionId}-02`,
    ]);
    expect(h.violations('refund', out.json)).toEqual([]);
  });

  it('refund search shows every refund with its reference and amount', async () => {
    const { transactionId, body } = await h.pay(gw, { amount: '9.00' });
    await one('capture', h.item(transactionId, body));
    await one('refund', h.item(transactionId, body, { refund_amount: '2.00', refund_reason: 'a' }));
    await one('refund', h.item(transactionId, body, { refund_amount: '3.00', refund_reason: 'b' }));
    const res = await h.call(gw, 'retrievalRefund', {
      merchant_id: h.MERCHANT,
      account_id: h.ACCOUNT,
      transaction_id: transactionId,
    });
    const json = JSON.parse(res.text);
    expect(h.violations('retrievalRefund', json)).toEqual([]);
    expect(json.refund_orders.map((r: any) => [r.refund_reference_id, r.refund_amount, r.payment_status])).toEqual([
      [`${transactionId}-01`, '2.00', paymentStatus.partiallyRefunded],
      [`${transactionId}-02`, '3.00', paymentStatus.partiallyRefunded],
    ]);
    const latest = JSON.parse(
      (await h.call(gw, 'retrievalRefund', { merchant_id: h.MERCHANT, account_id: h.ACCOUNT })).text,
    );
    expect(latest.refund_orders[0].refund_reference_id).toBe(`${transactionId}-02`);
  });
});

describe('review', () => {
  it('holds a payment the risk rule flags until review_flag settles it', async () => {
    const byAmount = await h.pay(gw, { amount: p.review.triggers!.amountAtLeast });
    expect(byAmount.result.order_status).toBe(p.statusValues.order_status.pendingReview);
    expect(byAmount.result.risk_action).toBe(p.payments.risk.action.pendingReview);
    const domain = p.review.triggers!.shopperEmailDomains[0]!;
    const { transactionId, body, result } = await h.pay(gw, { shopper_email: `someone@${domain}` });
    expect(result.order_status).toBe(p.statusValues.order_status.pendingReview);
    expect((await record(transactionId)).payment_status).toBe(paymentStatus.pendingReview);
    await one('capture', h.item(transactionId, body), 'invalidState');
    const reviewed = await one('review', h.item(transactionId, body, { review_flag: p.review.approve.flag }));
    expect(reviewed.review_flag).toBe(p.review.approve.flag);
    expect((await record(transactionId)).payment_status).toBe(paymentStatus[p.review.approve.to]);
    await one('review', h.item(transactionId, body, { review_flag: p.review.approve.flag }), 'notUnderReview');
    await one('capture', h.item(transactionId, body));
  });

  it('rejecting a held payment moves it to the profile state; an unknown flag is an invalid item', async () => {
    const { transactionId, body } = await h.pay(gw, { amount: p.review.triggers!.amountAtLeast });
    await one('review', h.item(transactionId, body, { review_flag: 'maybe' }), 'invalidItem');
    await one('review', h.item(transactionId, body, { review_flag: p.review.reject.flag }));
    expect((await record(transactionId)).payment_status).toBe(paymentStatus[p.review.reject.to]);
  });
});

describe('declined payments', () => {
  it('answers the decline and refuses to capture it', async () => {
    const { transactionId, body, result } = await h.pay(gw, h.cardFields(h.DECLINE_CARD));
    expect(result.order_status).toBe(p.statusValues.order_status.declined);
    expect(result.result_info).toBe(`${p.payments.resultInfo.declined.code}:${p.payments.resultInfo.declined.message}`);
    expect((await record(transactionId)).payment_status).toBe(paymentStatus.declined);
    await one('capture', h.item(transactionId, body), 'invalidState');
  });
});

describe('batch envelope and limits', () => {
  it('answers each item on its own with return_status 1 / OK even when items fail', async () => {
    const a = await h.pay(gw);
    const items = [
      h.item(a.transactionId, a.body),
      h.item('T-nope', a.body),
      'not an item',
      h.item(a.transactionId, a.body),
    ];
    const out = await h.batch(gw, 'capture', items);
    expect(out.res.status).toBe(200);
    // The result answering 'not an item' has no identifier or amount to give: empty, at most PAGI-GEN-012 (expected).
    expect(
      h
        .violations('capture', out.json)
        .filter((v) => !(v.requirementId === 'PAGI-GEN-012' && v.instancePath.startsWith('/capture_orders/2/'))),
    ).toEqual([]);
    expect(out.json.return_status).toBe(p.statusValues.return_status.success);
    expect(out.results.map((r) => r.capture_status)).toEqual(
      ['1', '0', '0', '0'].map((v) =>
        v === '1' ? p.statusValues.capture_status.success : p.statusValues.capture_status.failure,
      ),
    );
    expect(out.results.map((r) => r.error_message)).toEqual([
      '',
      failure('unknownTransaction'),
      failure('invalidItem'),
      failure('alreadyCaptured'),
    ]);
    expect(out.results.map((r) => r.order_no)).toEqual([a.body.order_no, a.body.order_no, '', a.body.order_no]);
  });

  it('answers an empty batch without a server error', async () => {
    const out = await h.batch(gw, 'cancel', []);
    expect(out.res.status).toBe(200);
    expect(out.results).toEqual([]);
  });

  it('refuses an over-limit batch as a whole, processing nothing', async () => {
    const a = await h.pay(gw);
    const max = h.spec.operations.get('capture')!.batch!.maxItems;
    const before = gw.stateDigest();
    const out = await h.batch(gw, 'capture', [
      h.item(a.transactionId, a.body),
      ...Array.from({ length: max }, () => h.item('T-x', a.body)),
    ]);
    expect(out.res.status).toBe(p.errors.kinds.overLimit.status);
    expect(gw.stateDigest()).toBe(before);
    expect((await record(a.transactionId)).payment_status).toBe(paymentStatus.authorised);
    const full = await h.batch(gw, 'capture', [
      h.item(a.transactionId, a.body),
      ...Array.from({ length: max - 1 }, () => h.item('T-x', a.body)),
    ]);
    expect(full.results).toHaveLength(max);
  });
});

describe('query', () => {
  it('shows payment_status, is3ds, anti-fraud, subscription, delivery and transaction_date of a payment', async () => {
    const { transactionId, body } = await h.pay(gw);
    const { res, json } = await h.query(gw, { order_no: body.order_no });
    expect(res.status).toBe(200);
    expect(h.violations('retrievalTrans', json)).toEqual([]);
    const r = json.orders_list[0];
    expect(r).toMatchObject({
      transaction_id: transactionId,
      order_no: body.order_no,
      amount: body.amount,
      currency: body.currency,
      payment_status: paymentStatus.authorised,
    });
    expect(r.query_result).toBe(p.statusValues.query_result.found);
    expect(r.is3ds).toBe(p.statusValues.is3ds.with3ds);
    expect(r.antifraud_provider).toBe(p.payments.risk.provider);
    expect(r.fraud_check_result.filter((c: any) => c.status !== p.payments.risk.checkStatus.pass)).toEqual([]);
    expect(r.subscription_result).toMatchObject({
      contract_name: body.subscription.contract_name,
      recurring_status: p.statusValues.recurring_status.success,
    });
    expect(r.delivery_information.delivery_city).toBe(body.delivery_city);
    expect(r.transaction_date).toMatch(/^\d{14}$/);
    const noFlags = await h.pay(gw, { open3d: undefined });
    expect((await record(noFlags.transactionId)).is3ds).toBe(p.statusValues.is3ds.without3ds);
  });

  it('selects by the profile selection fields: lists, union, unmatched values, latest when absent', async () => {
    const a = await h.pay(gw);
    const b = await h.pay(gw);
    const sep = p.selection.retrievalTrans.listSeparator;
    const { json } = await h.query(gw, {
      order_no: [a.body.order_no, 'ORD-missing'].join(sep),
      transaction_id: b.transactionId,
    });
    expect(json.orders_list.map((r: any) => r.order_no ?? null)).toEqual([
      a.body.order_no,
      'ORD-missing',
      b.body.order_no,
    ]);
    expect(json.orders_list[1]).toEqual({
      order_no: 'ORD-missing',
      query_result: p.statusValues.query_result.notFound,
    });
    const latest = await h.query(gw);
    expect(latest.json.orders_list[0].transaction_id).toBe(b.transactionId);
    expect(latest.json.orders_list.length).toBeLessThanOrEqual(
      h.spec.operations.get('retrievalTrans')!.selectionLimit!.maxOrders,
    );
  });
});

describe('payout', () => {
  it('echoes the request (bank_details without bank_code, with local_clearing_system), computes amounts as numbers', async () => {
    const body = h.payoutBody();
    const res = await h.call(gw, 'payout', body);
    const json = JSON.parse(res.text);
    expect(h.violations('payout', json)).toEqual([]);
    expect(json.beneficiary.bank_details.bank_code).toBeUndefined();
    expect(json.beneficiary.bank_details.local_clearing_system).toBe(p.payout.localClearingSystem);
    expect(json.beneficiary.bank_details.iban).toBe(body.beneficiary.bank_details.iban);
    expect(json.payer).toEqual(body.payer);
    expect(json.amount_payer_pays).toBe(
      Number(body.payment_amount) + Number((p.payout.fee as { amount: string }).amount),
    );
    expect(json.amount_beneficiary_receives).toBe(Number(body.payment_amount));
    expect(json.status).toBe(p.statusValues.payout_status.completed);
    expect(json.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(Z|[+-]\d{2}:\d{2})$/);
  });

  it('answers a replay with the first response and pays out once; another body under the same request_id is refused', async () => {
    const body = h.payoutBody();
    const first = await h.call(gw, 'payout', body);
    const before = gw.counts().payouts;
    const again = await h.call(gw, 'payout', body);
    expect(again.text).toBe(first.text);
    expect(gw.counts().payouts).toBe(before);
    const other = await h.call(gw, 'payout', { ...body, payment_amount: '999', source_amount: '999' });
    expect(other.status).toBe(
      p.errors.kinds[p.payout.replayWithDifferentBody === 'invalidInput' ? 'invalidInput' : 'badSignature'].status,
    );
  });

  it('fails a payout the profile failure rules match with failure_type and failure_reason', async () => {
    const rule = p.payout.failureRules.find((r) => r.field === 'beneficiary_id')!;
    const json = JSON.parse((await h.call(gw, 'payout', h.payoutBody({ beneficiary_id: `${rule.value}42` }))).text);
    expect(json.status).toBe(p.statusValues.payout_status.failed);
    expect(json.failure_type).toBe(rule.failureType);
    expect(json.failure_reason).toBe(rule.failureReason);
    expect(h.violations('payout', json)).toEqual([]);
  });
});

describe('concurrency', () => {
  it('200 concurrent partial refunds of one capture never exceed it, every refund reference unique', async () => {
    // 10.00 captured, 200 refunds of 0.25: exactly 40 fit.
    const { transactionId, body } = await h.pay(gw, { amount: '12.00' });
    await h.batch(gw, 'capture', [h.item(transactionId, body, { amount: '10.00' })]);
    const outs = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        h.batch(gw, 'refund', [h.item(transactionId, body, { refund_amount: '0.25', refund_reason: `r${i}` })]),
      ),
    );
    const results = outs.map((o) => {
      expect(o.res.status).toBe(200);
      return o.results[0]!;
    });
    const ok = results.filter((r) => r.refund_status === h.profile.statusValues.refund_status.success);
    const refusedOver = results.filter((r) =>
      r.refund_message.startsWith(`${h.profile.batch.itemFailures.overRefund.code}:`),
    );
    expect(ok).toHaveLength(40);
    expect(refusedOver).toHaveLength(160);
    const refundedMinor = ok.reduce((sum, r) => sum + Math.round(Number(r.refund_amount) * 100), 0);
    expect(refundedMinor).toBe(1000);
    const refs = ok.map((r) => r.refund_reference_id);
    expect(new Set(refs).size).toBe(refs.length);
    for (const r of refs) expect(r).toMatch(new RegExp(`^${transactionId}-\\d{2}$`));
    const search = JSON.parse(
      (
        await h.call(gw, 'retrievalRefund', {
          merchant_id: h.MERCHANT,
          account_id: h.ACCOUNT,
          transaction_id: transactionId,
        })
      ).text,
    );
    expect(search.refund_orders.map((r: any) => r.refund_reference_id).sort()).toEqual([...refs].sort());
    expect(
      search.refund_orders.filter((r: any) => r.payment_status !== h.profile.statusValues.payment_status.refunded),
    ).toEqual([]);
  });
});
