/** Cases of the conventions family. */
import type { CheckoutFormModel } from '../../../core/model.js';
import { context, happyObservation, orderRecord, profile } from '../fixtures.js';
import { type Case, fail, pass } from './types.js';

type Bodies = { request: Record<string, unknown>; response: Record<string, unknown> };
const form = (b: Bodies) => b.response as unknown as CheckoutFormModel;
const results = (b: Bodies, orders: string) => b.response[orders] as Record<string, unknown>[];
const records = (b: Bodies) => b.response.orders_list as Record<string, unknown>[];

export const CONVENTIONS_CASES: Case[] = [
  pass('fieldFormatsFollowConventions', 'PAGI-FMT-001', 'amounts with two decimals', 'refund', () =>
    happyObservation('refund'),
  ),
  fail(
    'fieldFormatsFollowConventions',
    'PAGI-FMT-001',
    'amount 10.3',
    'capture',
    () => happyObservation('capture', (b) => (results(b, 'capture_orders')[0]!.amount = '10.3')),
    ['FIELD_FORMAT'],
  ),
  fail(
    'fieldFormatsFollowConventions',
    'PAGI-FMT-004',
    'currency in lower case',
    'authoriseApm',
    () => happyObservation('authoriseApm', (b) => (b.response.currency = 'brl')),
    ['FIELD_FORMAT'],
  ),
  fail(
    'fieldFormatsFollowConventions',
    'PAGI-FMT-007',
    'transaction_date not YYYYMMDDHHMMSS',
    'retrievalTrans',
    () => happyObservation('retrievalTrans', (b) => (records(b)[0]!.transaction_date = '2026-11-22')),
    ['FIELD_FORMAT'],
  ),
  fail(
    'fieldFormatsFollowConventions',
    'PAGI-FMT-008',
    'created_at without offset',
    'payout',
    () => happyObservation('payout', (b) => (b.response.created_at = '2026-11-22T14:30:15')),
    ['FIELD_FORMAT'],
  ),
  fail(
    'fieldFormatsFollowConventions',
    'PAGI-FMT-012',
    'result_info without a code',
    'authoriseDirect',
    () => happyObservation('authoriseDirect', (b) => (b.response.result_info = 'Approved')),
    ['FIELD_FORMAT'],
  ),
  fail(
    'fieldFormatsFollowConventions',
    'PAGI-AUTH-003',
    'a short signature',
    'review',
    () => happyObservation('review', (b) => (b.response.encryption_data = 'abc')),
    ['FIELD_FORMAT'],
  ),
  fail(
    'fieldFormatsFollowConventions',
    'PAGI-PAY-003',
    'a full card number in card',
    'authoriseDirect',
    () => happyObservation('authoriseDirect', (b) => (b.response.card = '4111111111111111')),
    ['FIELD_FORMAT'],
  ),
  pass('responseEchoesRequestFields', 'PAGI-PAY-007', 'order echoed', 'authoriseDirect', () =>
    happyObservation('authoriseDirect'),
  ),
  pass('responseEchoesRequestFields', 'PAGI-GEN-005', 'checkout inputs echo the merchant', 'checkout', () =>
    happyObservation('checkout'),
  ),
  fail(
    'responseEchoesRequestFields',
    'PAGI-PAY-007',
    'another amount',
    'authoriseDirect',
    () => happyObservation('authoriseDirect', (b) => (b.response.amount = '1.00')),
    ['ECHO_MISMATCH'],
  ),
  fail(
    'responseEchoesRequestFields',
    'PAGI-APM-006',
    'another order_no',
    'authoriseApm',
    () => happyObservation('authoriseApm', (b) => (b.response.order_no = 'X')),
    ['ECHO_MISMATCH'],
  ),
  fail(
    'responseEchoesRequestFields',
    'PAGI-GEN-005',
    'another account',
    'retrievalRefund',
    () => happyObservation('retrievalRefund', (b) => (b.response.account_id = 'A9')),
    ['ECHO_MISMATCH'],
  ),
  fail(
    'responseEchoesRequestFields',
    'PAGI-INV-006',
    'another merchant named in the answer',
    'capture',
    () => happyObservation('capture', (b) => (b.response.merchant_id = 'M-OTHER')),
    ['ECHO_MISMATCH'],
  ),
  fail(
    'responseEchoesRequestFields',
    'PAGI-PAY-007',
    'the amount written with one decimal: the echo rule, not another amount',
    'authoriseDirect',
    () =>
      happyObservation('authoriseDirect', (b) => {
        b.response.amount = `${String(b.request.amount).replace(/0$/, '')}`;
        if (b.response.amount === b.request.amount) b.response.amount = `${String(b.request.amount)}0`;
      }),
    ['ECHO_MISMATCH'],
  ),
  fail(
    'payoutEchoesRequest',
    'PAGI-INV-006',
    'another payment amount',
    'payout',
    () => happyObservation('payout', (b) => (b.response.payment_amount = '1')),
    ['ECHO_MISMATCH'],
  ),
  pass('payoutEchoesRequest', 'PAGI-PO-002', 'request echoed', 'payout', () => happyObservation('payout')),
  fail(
    'payoutEchoesRequest',
    'PAGI-PO-002',
    'beneficiary name changed',
    'payout',
    () => happyObservation('payout', (b) => ((b.response.beneficiary as Record<string, unknown>).first_name = 'Eva')),
    ['ECHO_MISMATCH'],
  ),
  pass('batchResultsEchoRequestIds', 'PAGI-BAT-002', 'both items answered', 'cancel', () => happyObservation('cancel')),
  pass('batchResultsEchoRequestIds', 'PAGI-BAT-002', 'answered in another order', 'review', () =>
    happyObservation('review', (b) => results(b, 'review_orders').reverse()),
  ),
  fail(
    'batchResultsEchoRequestIds',
    'PAGI-INV-007',
    'an item not answered',
    'capture',
    () => happyObservation('capture', (b) => results(b, 'capture_orders').pop()),
    ['ITEM_NOT_ANSWERED'],
  ),
  fail(
    'batchResultsEchoRequestIds',
    'PAGI-INV-007',
    'an item answered twice',
    'capture',
    () =>
      happyObservation('capture', (b) => results(b, 'capture_orders').push({ ...results(b, 'capture_orders')[0]! })),
    ['ITEM_ANSWERED_TWICE'],
  ),
  fail(
    'batchResultsEchoRequestIds',
    'PAGI-INV-006',
    'a result naming another transaction for an item',
    'refund',
    () => happyObservation('refund', (b) => (results(b, 'refund_orders')[1]!.transaction_id = 'T-OTHER')),
    ['ECHO_MISMATCH'],
  ),
  fail(
    'batchResultsEchoRequestIds',
    'PAGI-INV-006',
    'a result for another transaction and order, the item left unanswered',
    'refund',
    () =>
      happyObservation('refund', (b) =>
        Object.assign(results(b, 'refund_orders')[1]!, { transaction_id: 'T-OTHER', order_no: 'O-OTHER' }),
      ),
    ['UNREQUESTED_RESULT', 'ITEM_NOT_ANSWERED'],
  ),
  fail(
    'batchResultsEchoRequestIds',
    'PAGI-BAT-002',
    'a result leaving out its order_no: answered, the rule broken',
    'capture',
    () => happyObservation('capture', (b) => delete results(b, 'capture_orders')[0]!.order_no),
    ['ECHO_MISMATCH'],
  ),
  fail(
    'batchResultsEchoRequestIds',
    'PAGI-BAT-009',
    'another amount echoed',
    'cancel',
    () => happyObservation('cancel', (b) => (results(b, 'cancel_orders')[0]!.amount = '99.00')),
    ['ECHO_MISMATCH'],
  ),
  pass('batchResultsEchoRequestIds', 'PAGI-INV-006', 'refund_reason and review_flag echoed as sent', 'refund', () =>
    happyObservation('refund'),
  ),
  fail(
    'batchResultsEchoRequestIds',
    'PAGI-INV-006',
    'another review_flag echoed: the review settled the other way',
    'review',
    () => happyObservation('review', (b) => (results(b, 'review_orders')[0]!.review_flag = '2')),
    ['ECHO_MISMATCH'],
  ),
  fail(
    'batchResultsEchoRequestIds',
    'PAGI-INV-006',
    'another refund_reason echoed',
    'refund',
    () => happyObservation('refund', (b) => (results(b, 'refund_orders')[0]!.refund_reason = 'Something else')),
    ['ECHO_MISMATCH'],
  ),
  pass('batchItemsSucceedWithShownValues', 'PAGI-BAT-007', 'status 1 and empty message', 'capture', () =>
    happyObservation('capture'),
  ),
  pass('batchItemsSucceedWithShownValues', 'PAGI-ST-002', "refund with the profile's success message", 'refund', () =>
    happyObservation('refund'),
  ),
  fail(
    'batchItemsSucceedWithShownValues',
    'PAGI-BAT-007',
    'status 0 and a message',
    'review',
    () =>
      happyObservation('review', (b) =>
        Object.assign(results(b, 'review_orders')[0]!, { review_status: '0', error_message: 'x' }),
      ),
    ['ITEM_STATUS', 'ITEM_MESSAGE'],
  ),
  fail(
    'batchItemsSucceedWithShownValues',
    'PAGI-ST-002',
    'another refund success message',
    'refund',
    () => happyObservation('refund', (b) => (results(b, 'refund_orders')[0]!.refund_message = '0001:Fine')),
    ['ITEM_MESSAGE'],
  ),
  pass('batchItemsSucceedWithShownValues', 'PAGI-ST-002', 'another success message text, not pinned', 'refund', () =>
    happyObservation(
      'refund',
      (b) => (results(b, 'refund_orders')[0]!.refund_message = `${profile.batch.itemSuccess.refundMessage.code}:Fine`),
    ),
  ),
  fail(
    'batchItemsSucceedWithShownValues',
    'PAGI-ST-002',
    'another success message text where the profile pins it',
    'refund',
    () =>
      happyObservation(
        'refund',
        (b) =>
          (results(b, 'refund_orders')[0]!.refund_message = `${profile.batch.itemSuccess.refundMessage.code}:Fine`),
      ),
    ['ITEM_MESSAGE'],
    () => context({ profile: (p) => void (p.batch.itemSuccess.refundMessage.pinned = true) }),
  ),
  fail(
    'batchItemsSucceedWithShownValues',
    'PAGI-BAT-006',
    'a result without its status',
    'cancel',
    () => happyObservation('cancel', (b) => delete results(b, 'cancel_orders')[0]!.cancel_status),
    ['SCHEMA_VIOLATION'],
  ),
  pass('envelopeReturnsOk', 'PAGI-BAT-005', '1 and OK', 'retrievalTrans', () => happyObservation('retrievalTrans')),
  fail(
    'envelopeReturnsOk',
    'PAGI-BAT-005',
    'return_message Done',
    'refund',
    () => happyObservation('refund', (b) => (b.response.return_message = 'Done')),
    ['ENVELOPE_STATUS'],
  ),
  fail(
    'envelopeReturnsOk',
    'PAGI-BAT-004',
    'no return_status',
    'retrievalRefund',
    () => happyObservation('retrievalRefund', (b) => delete b.response.return_status),
    ['ENVELOPE_STATUS'],
  ),
  pass('refundReferenceIdExtendsTransactionId', 'PAGI-FMT-013', 'T…-01', 'refund', () => happyObservation('refund')),
  fail(
    'refundReferenceIdExtendsTransactionId',
    'PAGI-FMT-013',
    'another prefix',
    'retrievalRefund',
    () =>
      happyObservation(
        'retrievalRefund',
        (b) => ((b.response.refund_orders as Record<string, unknown>[])[0]!.refund_reference_id = 'X1-01'),
      ),
    ['REFERENCE_ID_FORM'],
  ),
  fail(
    'noFullCardNumberInResponse',
    'PAGI-INV-010',
    'the security code sent, echoed',
    'authoriseDirect',
    () => happyObservation('authoriseDirect', (b) => (b.response.security_code = b.request.security_code)),
    ['SECURITY_CODE'],
  ),
  pass('noFullCardNumberInResponse', 'PAGI-INV-010', 'masked card only', 'authoriseDirect', () =>
    happyObservation('authoriseDirect'),
  ),
  fail(
    'noFullCardNumberInResponse',
    'PAGI-INV-010',
    'the sent card number in the body',
    'authoriseDirect',
    () => {
      const o = happyObservation('authoriseDirect');
      o.main.response!.bodyText += '<debug>4111111111111111</debug>';
      return o;
    },
    ['FULL_CARD_NUMBER'],
  ),
  fail(
    'noFullCardNumberInResponse',
    'PAGI-INV-010',
    'the card written with XML character references: searched decoded as well as raw',
    'authoriseDirect',
    () => {
      const o = happyObservation('authoriseDirect', (b) => (b.response.debug = '4111111111111111'));
      o.main.response!.bodyText =
        '<respon><debug>&#52;&#49;&#49;&#49;&#49;&#49;&#49;&#49;&#49;&#49;&#49;&#49;&#49;&#49;&#49;&#49;</debug></respon>';
      return o;
    },
    ['FULL_CARD_NUMBER'],
  ),
  fail(
    'noFullCardNumberInResponse',
    'PAGI-INV-010',
    'the card written with dots',
    'authoriseDirect',
    () => {
      const o = happyObservation('authoriseDirect');
      o.main.response!.bodyText += '<debug>4111.1111.1111.1111</debug>';
      return o;
    },
    ['FULL_CARD_NUMBER'],
  ),
  fail(
    'noFullCardNumberInResponse',
    'PAGI-INV-010',
    'the card in a header name',
    'checkout',
    () => {
      const o = happyObservation('checkout');
      o.main.response!.headers['x-card-4111-1111-1111-1111'] = '1';
      return o;
    },
    ['FULL_CARD_NUMBER'],
  ),
  fail(
    'noFullCardNumberInResponse',
    'PAGI-INV-010',
    'a query leaking the card',
    'retrievalTrans',
    () => {
      const o = happyObservation('retrievalTrans');
      o.main.response!.bodyText = o.main.response!.bodyText.replace('}', ',"pan":"4111111111111111"}');
      return o;
    },
    ['FULL_CARD_NUMBER'],
  ),
  pass('cardMaskedPerProfile', 'PAGI-PAY-012', '411111******1111', 'authoriseDirect', () =>
    happyObservation('authoriseDirect'),
  ),
  fail(
    'cardMaskedPerProfile',
    'PAGI-PAY-003',
    'the full number',
    'authoriseDirect',
    () => happyObservation('authoriseDirect', (b) => (b.response.card = '4111111111111111')),
    ['FULL_CARD_NUMBER'],
  ),
  fail(
    'cardMaskedPerProfile',
    'PAGI-PAY-012',
    'masked otherwise',
    'authoriseDirect',
    () => happyObservation('authoriseDirect', (b) => (b.response.card = '************1111')),
    ['CARD_MASK'],
  ),
  fail(
    'cardMaskedPerProfile',
    'PAGI-INV-006',
    'masked showing digits of another card',
    'authoriseDirect',
    () => happyObservation('authoriseDirect', (b) => (b.response.card = '411111******1112')),
    ['CARD_MASK'],
  ),
  pass('paymentReturnsRequestedResults', 'PAGI-PAY-004', 'every result', 'authoriseDirect', () =>
    happyObservation('authoriseDirect'),
  ),
  fail(
    'paymentReturnsRequestedResults',
    'PAGI-PAY-004',
    'no threeds_result for open3d',
    'authoriseDirect',
    () => happyObservation('authoriseDirect', (b) => delete b.response.threeds_result),
    ['RESULT_MISSING'],
  ),
  pass(
    'paymentReturnsRequestedResults',
    'PAGI-PAY-005',
    'no risk_score, other anti-fraud results present',
    'authoriseDirect',
    () => happyObservation('authoriseDirect', (b) => delete b.response.risk_score),
  ),
  fail(
    'paymentReturnsRequestedResults',
    'PAGI-PAY-005',
    'no anti-fraud result at all',
    'authoriseDirect',
    () =>
      happyObservation('authoriseDirect', (b) =>
        ['risk_action', 'risk_score', 'risk_reasons'].forEach((f) => delete b.response[f]),
      ),
    ['RESULT_MISSING'],
  ),
  fail(
    'paymentReturnsRequestedResults',
    'PAGI-PAY-006',
    'no recurring_id for a subscription',
    'authoriseDirect',
    () => happyObservation('authoriseDirect', (b) => delete b.response.recurring_id),
    ['RESULT_MISSING'],
  ),
  pass('paymentReturnsRequestedResults', 'PAGI-PAY-004', 'no threeds_result when not asked', 'authoriseDirect', () =>
    happyObservation('authoriseDirect', (b) => {
      delete b.request.open3d;
      delete b.response.threeds_result;
    }),
  ),
  pass('queryReturnsRequestedResults', 'PAGI-QRY-003', 'record with its results', 'retrievalTrans', () =>
    happyObservation('retrievalTrans'),
  ),
  fail(
    'queryReturnsRequestedResults',
    'PAGI-QRY-003',
    'record without is3ds',
    'retrievalTrans',
    () => happyObservation('retrievalTrans', (b) => delete records(b)[0]!.is3ds),
    ['RESULT_MISSING'],
  ),
  fail(
    'queryReturnsRequestedResults',
    'PAGI-QRY-004',
    'record without subscription_result',
    'retrievalTrans',
    () => happyObservation('retrievalTrans', (b) => delete records(b)[0]!.subscription_result),
    ['RESULT_MISSING'],
  ),
  pass('paymentApprovedPerProfile', 'PAGI-PAY-008', 'order_status 1, profile result_info', 'authoriseDirect', () =>
    happyObservation('authoriseDirect'),
  ),
  fail(
    'paymentApprovedPerProfile',
    'PAGI-PAY-008',
    'order_status 2',
    'authoriseDirect',
    () => happyObservation('authoriseDirect', (b) => (b.response.order_status = '2')),
    ['STATUS_VALUE'],
  ),
  fail(
    'paymentApprovedPerProfile',
    'PAGI-ST-002',
    'another result_info code',
    'authoriseDirect',
    () => happyObservation('authoriseDirect', (b) => (b.response.result_info = '0051:Approved')),
    ['STATUS_VALUE'],
  ),
  pass(
    'paymentApprovedPerProfile',
    'PAGI-ST-002',
    'the code with other message text (not pinned)',
    'authoriseDirect',
    () => happyObservation('authoriseDirect', (b) => (b.response.result_info = '0000:Success')),
  ),
  pass('payoutCompletedWithShownStatus', 'PAGI-PO-006', 'COMPLETED', 'payout', () => happyObservation('payout')),
  fail(
    'payoutCompletedWithShownStatus',
    'PAGI-PO-006',
    'DONE',
    'payout',
    () => happyObservation('payout', (b) => (b.response.status = 'DONE')),
    ['STATUS_VALUE'],
  ),
  fail(
    'payoutCompletedWithShownStatus',
    'PAGI-ST-002',
    'a failure type on success',
    'payout',
    () => happyObservation('payout', (b) => (b.response.failure_type = 'UNKNOWN')),
    ['STATUS_VALUE'],
  ),
  pass('selectionReturnsSelectedRecords', 'PAGI-QRY-006', 'the selected record only', 'retrievalTrans', () =>
    happyObservation('retrievalTrans'),
  ),
  pass('selectionReturnsSelectedRecords', 'PAGI-RFS-004', 'the selected refunds only', 'retrievalRefund', () =>
    happyObservation('retrievalRefund'),
  ),
  fail(
    'selectionReturnsSelectedRecords',
    'PAGI-QRY-006',
    'an unselected record too',
    'retrievalTrans',
    () =>
      happyObservation('retrievalTrans', (b) =>
        records(b).push(
          orderRecord({ transaction_id: 'T9', order_no: 'O9', amount: '1.00', currency: 'USD' }, 'authorised'),
        ),
      ),
    ['UNSELECTED_RECORD'],
  ),
  fail(
    'selectionReturnsSelectedRecords',
    'PAGI-RFS-004',
    'the selected refunds missing',
    'retrievalRefund',
    () => happyObservation('retrievalRefund', (b) => (b.response.refund_orders = [])),
    ['RECORD_NOT_FOUND'],
  ),
  pass('antifraudCookieUnderProfileName', 'PAGI-PAY-011', 'cookie accepted', 'authoriseDirect', () =>
    happyObservation('authoriseDirect'),
  ),
  pass('antifraudCookieUnderProfileName', 'PAGI-PAY-011', 'cookie echoed by the checkout form', 'checkout', () =>
    happyObservation('checkout', (b) => {
      b.request.antifraud_token_cookie = 'aftk-1';
      form(b).inputs.antifraud_token_cookie = 'aftk-1';
    }),
  ),
  fail(
    'antifraudCookieUnderProfileName',
    'PAGI-PAY-011',
    'cookie dropped by the checkout form',
    'checkout',
    () => happyObservation('checkout', (b) => (b.request.antifraud_token_cookie = 'aftk-1')),
    ['FORM_INPUT_VALUE'],
  ),
];
