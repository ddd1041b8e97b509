/** Cases of the integrity family: synthetic ledgers (a payment, its operations, queries, notifications) and what each check says. */
import type { Exchange, LedgerEntry, Observation, OperationKey, RunLedgerView } from '../../../core/model.js';
import { LEDGER_FACT } from '../../../suites/probes/integrity.js';
import { config, exchange, observation, profile } from '../fixtures.js';
import { type Case, fail, pass } from './types.js';

const TXN = 'T202612010001';
const ORDER = 'FX-ledger-1';
const success = (field: string) =>
  (profile.statusValues as unknown as Record<string, { success: string }>)[field]!.success;

/** A ledger entry answered at `t` (the worker's clock), sent one unit before. */
function entry(x: Exchange, t: number, authenticated = true): LedgerEntry {
  return { seq: t, operation: x.operation as OperationKey, exchange: x, authenticated, sentAt: t - 1, answeredAt: t };
}

/** The observation of `runLedger` on `op` over these entries and notifications. */
function ledger(
  op: OperationKey,
  entries: LedgerEntry[],
  notifications: Exchange[] = [],
  dropped = 0,
): () => Observation {
  return () => {
    const view: RunLedgerView = {
      entries,
      notifications: notifications.map((exchange, i) => ({ seq: 1000 + i, exchange })),
      dropped,
    };
    return observation('runLedger', op, exchange(op), {}, { [LEDGER_FACT]: view });
  };
}

/** A direct payment of 10.00 EUR, approved, answered with TXN. */
function payment(extra: Record<string, unknown> = {}): Exchange {
  const request = {
    merchant_id: config.merchantId,
    account_id: config.accountId,
    order_no: ORDER,
    amount: '10.00',
    currency: 'EUR',
    shopper_email: 'shopper@example.com',
    delivery_city: 'Lyon',
    notify_url: config.notifyUrl,
  };
  return exchange('authoriseDirect', {
    request,
    xml: {
      merchant_id: config.merchantId,
      account_id: config.accountId,
      order_no: ORDER,
      amount: '10.00',
      currency: 'EUR',
      transaction_id: TXN,
      order_status: profile.statusValues.order_status.approved,
      ...extra,
    },
  });
}

function refund(reference: string, amount = '4.00', ok = true): Exchange {
  const item = {
    transaction_id: TXN,
    order_no: ORDER,
    currency: 'EUR',
    amount: '10.00',
    refund_amount: amount,
    refund_reason: 'Returned',
  };
  return exchange('refund', {
    request: { merchant_id: config.merchantId, account_id: config.accountId, refund_orders: [item] },
    json: {
      merchant_id: config.merchantId,
      account_id: config.accountId,
      return_status: '1',
      return_message: 'OK',
      refund_orders: [
        {
          ...item,
          refund_status: ok ? success('refund_status') : profile.statusValues.refund_status.failure,
          refund_message: ok ? '0000:Success' : '2006:Refund amount exceeds refundable amount',
          refund_reference_id: ok ? reference : undefined,
          refund_reference: ok ? `R-${reference}` : undefined,
        },
      ],
    },
  });
}

function refundSearch(records: Record<string, unknown>[]): Exchange {
  return exchange('retrievalRefund', {
    request: { merchant_id: config.merchantId, account_id: config.accountId, transaction_id: TXN },
    json: { merchant_id: config.merchantId, account_id: config.accountId, return_status: '1', refund_orders: records },
  });
}

const listed = (reference: string, amount = '4.00', currency = 'EUR') => ({
  transaction_id: TXN,
  order_no: ORDER,
  amount: '10.00',
  currency,
  refund_amount: amount,
  refund_reference_id: reference,
  refund_status: success('refund_status'),
});

function query(
  record: Record<string, unknown>,
  selecting: Record<string, unknown> = { transaction_id: TXN },
): Exchange {
  return exchange('retrievalTrans', {
    request: { merchant_id: config.merchantId, account_id: config.accountId, ...selecting },
    json: {
      merchant_id: config.merchantId,
      account_id: config.accountId,
      return_status: '1',
      orders_list: [
        {
          transaction_id: TXN,
          order_no: ORDER,
          amount: '10.00',
          currency: 'EUR',
          query_result: profile.statusValues.query_result.found,
          ...record,
        },
      ],
    },
  });
}

function capture(status: string, amount = '10.00'): Exchange {
  const item = { transaction_id: TXN, order_no: ORDER, currency: 'EUR', amount };
  return exchange('capture', {
    request: { merchant_id: config.merchantId, account_id: config.accountId, capture_orders: [item] },
    json: {
      return_status: '1',
      capture_orders: [{ ...item, capture_status: status, error_message: '' }],
    },
  });
}

function payout(requestId: string, transactionId: string, pays = 100, receives = 100): Exchange {
  return exchange('payout', {
    request: { merchant_id: config.merchantId, account_id: config.accountId, request_id: requestId },
    json: {
      request_id: requestId,
      transaction_id: transactionId,
      payment_currency: 'EUR',
      source_currency: 'EUR',
      amount_payer_pays: pays,
      amount_beneficiary_receives: receives,
      fee_amount: 0,
      fee_currency: 'EUR',
      status: profile.statusValues.payout_status.completed,
      failure_type: '',
      failure_reason: '',
    },
  });
}

function notification(body: Record<string, unknown>, url = config.notifyUrl!): Exchange {
  const x = exchange('external', { request: body, url });
  return { ...x, incoming: true };
}

const authorised = profile.statusValues.payment_status.authorised!;
const captured = profile.statusValues.payment_status.captured!;

export const INTEGRITY_CASES: Case[] = [
  pass(
    'capturesStayWithinAuthorisation',
    'PAGI-INV-002',
    'the authorised amount captured',
    'capture',
    ledger('capture', [entry(payment(), 1), entry(capture(success('capture_status')), 2)]),
  ),
  fail(
    'capturesStayWithinAuthorisation',
    'PAGI-INV-002',
    'a capture above the authorised amount accepted',
    'capture',
    ledger('capture', [entry(payment(), 1), entry(capture(success('capture_status'), '10.01'), 2)]),
    ['LEDGER_DISAGREES'],
  ),
  pass(
    'refundsStayWithinCapture',
    'PAGI-INV-001',
    'two refunds adding up to the capture',
    'refund',
    ledger('refund', [
      entry(payment(), 1),
      entry(capture(success('capture_status')), 2),
      entry(refund(`${TXN}-01`, '4.00'), 3),
      entry(refund(`${TXN}-02`, '6.00'), 4),
    ]),
  ),
  pass(
    'refundsStayWithinCapture',
    'PAGI-INV-001',
    'a refund above the remainder refused',
    'refund',
    ledger('refund', [
      entry(payment(), 1),
      entry(capture(success('capture_status')), 2),
      entry(refund(`${TXN}-01`, '6.00'), 3),
      entry(refund(`${TXN}-02`, '5.00', false), 4),
    ]),
  ),
  fail(
    'refundsStayWithinCapture',
    'PAGI-INV-001',
    'two accepted refunds adding up to more than the capture, in separate requests',
    'refund',
    ledger('refund', [
      entry(payment(), 1),
      entry(capture(success('capture_status')), 2),
      entry(refund(`${TXN}-01`, '6.00'), 3),
      entry(refund(`${TXN}-02`, '5.00'), 4),
    ]),
    ['LEDGER_DISAGREES'],
  ),
  {
    check: 'refundsStayWithinCapture',
    requirement: 'PAGI-INV-001',
    name: 'a ledger that dropped exchanges beyond its cap: not judged, never a pass',
    op: 'refund',
    observation: ledger('refund', [entry(payment(), 1), entry(refund(`${TXN}-01`, '4.00'), 2)], [], 3),
    expect: 'notApplicable',
  },
  fail(
    'refundsStayWithinCapture',
    'PAGI-INV-001',
    'a refund accepted on a payment never captured',
    'refund',
    ledger('refund', [entry(payment(), 1), entry(refund(`${TXN}-01`, '4.00'), 2)]),
    ['LEDGER_DISAGREES'],
  ),
  pass(
    'identifiersNameOneThing',
    'PAGI-INV-011',
    'two payouts, two transaction ids',
    'payout',
    ledger('payout', [entry(payout('r-1', 'PO1'), 1), entry(payout('r-2', 'PO2'), 2)]),
  ),
  fail(
    'identifiersNameOneThing',
    'PAGI-INV-011',
    'two request ids answered with one transaction id',
    'payout',
    ledger('payout', [entry(payout('r-1', 'PO1'), 1), entry(payout('r-2', 'PO1'), 2)]),
    ['IDENTIFIER_REUSED'],
  ),
  fail(
    'identifiersNameOneThing',
    'PAGI-INV-011',
    'one refund reference id for two refunds',
    'refund',
    ledger('refund', [entry(payment(), 1), entry(refund(`${TXN}-01`), 2), entry(refund(`${TXN}-01`), 3)]),
    ['IDENTIFIER_REUSED'],
  ),
  pass(
    'moneyAgreesWithLedger',
    'PAGI-INV-012',
    'a refund search lists the refund made',
    'retrievalRefund',
    ledger('retrievalRefund', [
      entry(payment(), 1),
      entry(refund(`${TXN}-01`), 2),
      entry(refundSearch([listed(`${TXN}-01`)]), 3),
    ]),
  ),
  fail(
    'moneyAgreesWithLedger',
    'PAGI-INV-012',
    'a refund search lists a refund never made',
    'retrievalRefund',
    ledger('retrievalRefund', [
      entry(payment(), 1),
      entry(refund(`${TXN}-01`), 2),
      entry(refundSearch([listed(`${TXN}-01`), listed(`${TXN}-02`)]), 3),
    ]),
    ['LEDGER_DISAGREES'],
  ),
  fail(
    'moneyAgreesWithLedger',
    'PAGI-INV-012',
    'a refund listed in another currency',
    'retrievalRefund',
    ledger('retrievalRefund', [
      entry(payment(), 1),
      entry(refund(`${TXN}-01`), 2),
      entry(refundSearch([listed(`${TXN}-01`, '4.00', 'USD')]), 3),
    ]),
    ['LEDGER_DISAGREES'],
  ),
  fail(
    'moneyAgreesWithLedger',
    'PAGI-INV-012',
    'a payer paying less than the beneficiary receives',
    'payout',
    ledger('payout', [entry(payout('r-1', 'PO1', 99, 100), 1)]),
    ['LEDGER_DISAGREES'],
  ),
  pass(
    'moneyAgreesWithLedger',
    'PAGI-INV-012',
    'payer pays what the beneficiary receives plus no fee',
    'payout',
    ledger('payout', [entry(payout('r-1', 'PO1'), 1)]),
  ),
  pass(
    'unauthenticatedNeverCarriedOut',
    'PAGI-INV-013',
    'an unauthenticated capture refused',
    'capture',
    ledger('capture', [
      entry(payment(), 1),
      entry(exchange('capture', { status: 401, json: { return_status: '0' } }), 2, false),
    ]),
  ),
  fail(
    'unauthenticatedNeverCarriedOut',
    'PAGI-INV-013',
    'an unauthenticated capture reported done',
    'capture',
    ledger('capture', [entry(payment(), 1), entry(capture(success('capture_status')), 2, false)]),
    ['UNAUTHENTICATED_DONE'],
  ),
  fail(
    'unauthenticatedNeverCarriedOut',
    'PAGI-INV-013',
    'an unauthenticated capture refused but shown done by the next query',
    'capture',
    ledger('capture', [
      entry(payment(), 1),
      entry(
        exchange('capture', {
          status: 401,
          request: { capture_orders: [{ transaction_id: TXN, order_no: ORDER, amount: '10.00', currency: 'EUR' }] },
          json: { return_status: '0' },
        }),
        2,
        false,
      ),
      entry(query({ payment_status: captured }), 4),
    ]),
    ['UNAUTHENTICATED_DONE'],
  ),
  pass(
    'queryShowsAcknowledgedState',
    'PAGI-INV-014',
    'the query shows the captured payment',
    'retrievalTrans',
    ledger('retrievalTrans', [
      entry(payment(), 1),
      entry(capture(success('capture_status')), 2),
      entry(query({ payment_status: captured }), 4),
    ]),
  ),
  fail(
    'queryShowsAcknowledgedState',
    'PAGI-INV-014',
    'a refused capture still moves the payment',
    'retrievalTrans',
    ledger('retrievalTrans', [
      entry(payment(), 1),
      entry(capture(profile.statusValues.capture_status.failure), 2),
      entry(query({ payment_status: captured }), 4),
    ]),
    ['STATE_NOT_ACKNOWLEDGED'],
  ),
  fail(
    'queryShowsAcknowledgedState',
    'PAGI-INV-014',
    'an accepted capture the query does not show',
    'retrievalTrans',
    ledger('retrievalTrans', [
      entry(payment(), 1),
      entry(capture(success('capture_status')), 2),
      entry(query({ payment_status: authorised }), 4),
    ]),
    ['STATE_NOT_ACKNOWLEDGED'],
  ),
  pass(
    'notificationsAgreeWithLedger',
    'PAGI-INV-015',
    'a notification agreeing with the payment',
    'authoriseDirect',
    ledger(
      'authoriseDirect',
      [entry(payment(), 1)],
      [notification({ order_no: ORDER, transaction_id: TXN, amount: '10.00', currency: 'EUR' })],
    ),
  ),
  fail(
    'notificationsAgreeWithLedger',
    'PAGI-INV-015',
    'a notification with another amount',
    'authoriseDirect',
    ledger(
      'authoriseDirect',
      [entry(payment(), 1)],
      [notification({ order_no: ORDER, transaction_id: TXN, amount: '11.00', currency: 'EUR' })],
    ),
    ['NOTIFICATION_CONTRADICTS'],
  ),
  fail(
    'notificationsAgreeWithLedger',
    'PAGI-INV-015',
    'a notification posted to another path',
    'authoriseDirect',
    ledger(
      'authoriseDirect',
      [entry(payment(), 1)],
      [notification({ order_no: ORDER }, `${config.notifyUrl}/elsewhere`)],
    ),
    ['NOTIFICATION_CONTRADICTS'],
  ),
  fail(
    'notificationsAgreeWithLedger',
    'PAGI-INV-015',
    'two notifications with contradicting results',
    'authoriseDirect',
    ledger(
      'authoriseDirect',
      [entry(payment(), 1)],
      [notification({ order_no: ORDER, order_status: '1' }), notification({ order_no: ORDER, order_status: '0' })],
    ),
    ['NOTIFICATION_CONTRADICTS'],
  ),
  pass(
    'recordsAgreeWithLedger',
    'PAGI-INV-016',
    'a query record holding what the payment was made with',
    'retrievalTrans',
    ledger('retrievalTrans', [
      entry(payment(), 1),
      entry(query({ shopper_email: 'shopper@example.com', payment_status: authorised }), 3),
    ]),
  ),
  fail(
    'recordsAgreeWithLedger',
    'PAGI-INV-016',
    "a query record with another shopper's e-mail",
    'retrievalTrans',
    ledger('retrievalTrans', [entry(payment(), 1), entry(query({ shopper_email: 'other@example.com' }), 3)]),
    ['LEDGER_DISAGREES'],
  ),
  fail(
    'recordsAgreeWithLedger',
    'PAGI-INV-016',
    'a listed refund with another amount than accepted',
    'retrievalRefund',
    ledger('retrievalRefund', [
      entry(payment(), 1),
      entry(refund(`${TXN}-01`), 2),
      entry(refundSearch([listed(`${TXN}-01`, '5.00')]), 3),
    ]),
    ['LEDGER_DISAGREES'],
  ),
  pass(
    'recordsAgreeWithLedger',
    'PAGI-INV-016',
    'a listed refund holding what its refund was sent and answered with, its payment partially refunded',
    'retrievalRefund',
    ledger('retrievalRefund', [
      entry(payment(), 1),
      entry(refund(`${TXN}-01`), 2),
      entry(
        refundSearch([
          {
            ...listed(`${TXN}-01`),
            refund_reason: 'Returned',
            refund_reference: `R-${TXN}-01`,
            payment_status: profile.statusValues.payment_status.partiallyRefunded!,
          },
        ]),
        3,
      ),
    ]),
  ),
  pass(
    'recordsAgreeWithLedger',
    'PAGI-INV-016',
    "a listed refund holding the refund_reason sent, which the refund's answer echoed otherwise (the echo check's finding)",
    'retrievalRefund',
    ledger('retrievalRefund', [
      entry(payment(), 1),
      entry(
        (() => {
          const x = refund(`${TXN}-01`);
          const decoded = x.response!.decoded as { value: { refund_orders: Record<string, unknown>[] } };
          decoded.value.refund_orders[0]!.refund_reason = 'Returnee';
          return x;
        })(),
        2,
      ),
      entry(refundSearch([{ ...listed(`${TXN}-01`), refund_reason: 'Returned' }]), 3),
    ]),
  ),
  fail(
    'recordsAgreeWithLedger',
    'PAGI-INV-016',
    'a listed refund with another refund_reason than sent',
    'retrievalRefund',
    ledger('retrievalRefund', [
      entry(payment(), 1),
      entry(refund(`${TXN}-01`), 2),
      entry(refundSearch([{ ...listed(`${TXN}-01`), refund_reason: 'Returnee' }]), 3),
    ]),
    ['LEDGER_DISAGREES'],
  ),
  fail(
    'recordsAgreeWithLedger',
    'PAGI-INV-016',
    "a listed refund with another refund_reference than the refund's answer",
    'retrievalRefund',
    ledger('retrievalRefund', [
      entry(payment(), 1),
      entry(refund(`${TXN}-01`), 2),
      entry(refundSearch([{ ...listed(`${TXN}-01`), refund_reference: `R-${TXN}-02` }]), 3),
    ]),
    ['LEDGER_DISAGREES'],
  ),
  fail(
    'recordsAgreeWithLedger',
    'PAGI-INV-016',
    'a refund-search record showing the refunded payment still authorised',
    'retrievalRefund',
    ledger('retrievalRefund', [
      entry(payment(), 1),
      entry(refund(`${TXN}-01`), 2),
      entry(refundSearch([{ ...listed(`${TXN}-01`), payment_status: authorised }]), 3),
    ]),
    ['LEDGER_DISAGREES'],
  ),
  pass(
    'recordsAgreeWithLedger',
    'PAGI-INV-016',
    "a query record's subscription result holding the payment answer's (a date for its date and time)",
    'retrievalTrans',
    ledger('retrievalTrans', [
      entry(payment({ recurring_id: 'RC-1', recurring_deduction_time: '2027-01-01 00:00:00' }), 1),
      entry(
        query({
          subscription_result: { recurring_id: 'RC-1', recurring_deduction_time: '2027-01-01', recurring_status: '1' },
        }),
        3,
      ),
    ]),
  ),
  pass(
    'recordsAgreeWithLedger',
    'PAGI-INV-016',
    "a query record's subscription result with white space the XML answer's reader left out: another writing",
    'retrievalTrans',
    ledger('retrievalTrans', [
      entry(payment({ contract_name: 'Club' }), 1),
      entry(query({ subscription_result: { contract_name: ' Club ' } }), 3),
    ]),
  ),
  fail(
    'recordsAgreeWithLedger',
    'PAGI-INV-016',
    "a query record's subscription result with another recurring_id than the payment's answer",
    'retrievalTrans',
    ledger('retrievalTrans', [
      entry(payment({ recurring_id: 'RC-1' }), 1),
      entry(query({ subscription_result: { recurring_id: 'RC-2' } }), 3),
    ]),
    ['LEDGER_DISAGREES'],
  ),
  fail(
    'recordsAgreeWithLedger',
    'PAGI-INV-016',
    "a query record's delivery information with another city than sent",
    'retrievalTrans',
    ledger('retrievalTrans', [
      entry(payment(), 1),
      entry(query({ delivery_information: { delivery_city: 'Elsewhere' } }), 3),
    ]),
    ['LEDGER_DISAGREES'],
  ),
  pass(
    'recordsAgreeWithLedger',
    'PAGI-INV-016',
    "a query record's is3ds the profile's for a payment answered without 3-D Secure",
    'retrievalTrans',
    ledger('retrievalTrans', [
      entry(payment({ threeds_result: profile.payments.threeDS.resultWhenNotRequested }), 1),
      entry(query({ is3ds: profile.statusValues.is3ds.without3ds }), 3),
    ]),
  ),
  fail(
    'recordsAgreeWithLedger',
    'PAGI-INV-016',
    "a query record's is3ds saying 3-D Secure for a payment answered without it",
    'retrievalTrans',
    ledger('retrievalTrans', [
      entry(payment({ threeds_result: profile.payments.threeDS.resultWhenNotRequested }), 1),
      entry(query({ is3ds: profile.statusValues.is3ds.with3ds }), 3),
    ]),
    ['LEDGER_DISAGREES'],
  ),
  fail(
    'recordsAgreeWithLedger',
    'PAGI-INV-016',
    'a query record of an order the request did not select',
    'retrievalTrans',
    ledger('retrievalTrans', [
      entry(payment(), 1),
      entry(query({ transaction_id: 'T202612019999', order_no: 'someone-else-1' }), 3),
    ]),
    ['LEDGER_DISAGREES'],
  ),
  pass(
    'recordsAgreeWithLedger',
    'PAGI-INV-016',
    'a query selecting nothing (the latest order): any record answers it',
    'retrievalTrans',
    ledger('retrievalTrans', [
      entry(payment(), 1),
      entry(query({ transaction_id: 'T202612019999', order_no: 'someone-else-1' }, {}), 3),
    ]),
  ),
];
