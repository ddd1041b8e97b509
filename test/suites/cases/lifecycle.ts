/** Cases of the lifecycle family: scenario observations as the probes record them, then one step changed. */
import type { Exchange, Observation, ObservationFacts, OperationKey } from '../../../core/model.js';
import {
  batchExchange,
  context,
  errorExchange,
  exchange,
  happyExchange,
  item,
  observation,
  orderRecord,
  profile,
  queryExchange,
} from '../fixtures.js';
import { type Case, fail, pass } from './types.js';

const P1 = { transaction_id: 'T1', order_no: 'O1', amount: '100.00', currency: 'USD' };
const P2 = { transaction_id: 'T2', order_no: 'O2', amount: '100.00', currency: 'USD' };
const t = profile.transitions;

const refund = (amount: string, n: number, outcome: 'success' | 'overRefund' = 'success') => {
  const x = batchExchange('refund', [item('T1', 'O1', { amount: '100.00', refund_amount: amount })], () => outcome);
  const r = (x.response!.decoded as { value: { refund_orders: Record<string, unknown>[] } }).value.refund_orders[0]!;
  if (outcome === 'success') r.refund_reference_id = r.refund_reference = `T1-0${n}`;
  return x;
};

/** A batch answer whose first result carries another message. */
function withMessage(x: Exchange, list: string, field: string, message: string): Exchange {
  (x.response!.decoded as { value: Record<string, Record<string, unknown>[]> }).value[list]![0]![field] = message;
  return x;
}

/** The steps the payment scenario records against a conformant gateway. */
function paymentSteps(): Record<string, Exchange> {
  const refund1 = refund('25.00', 1);
  const refund2 = refund('25.00', 2);
  const search = exchange('retrievalRefund', {
    json: {
      merchant_id: 'M10001',
      account_id: 'A20001',
      return_status: '1',
      return_message: 'OK',
      encryption_data: 'a'.repeat(64),
      refund_orders: [1, 2].map((n) => ({
        ...P1,
        refund_amount: '25.00',
        refund_reference_id: `T1-0${n}`,
        refund_status: '1',
      })),
    },
  });
  return {
    authorise: happyExchange('authoriseDirect'),
    queryAfterAuthorise: queryExchange([orderRecord(P1, t.afterAuthorise.approved)]),
    capture: batchExchange('capture', [item('T1', 'O1', { amount: '100.00' })]),
    queryAfterCapture: queryExchange([orderRecord(P1, t.capture.to)]),
    refund1,
    refund2,
    queryAfterRefunds: queryExchange([orderRecord(P1, t.refund.toPartial)]),
    refundSearch: search,
    overRefund: refund('50.01', 3, 'overRefund'),
    captureAgain: batchExchange('capture', [item('T1', 'O1', { amount: '100.00' })], () => 'alreadyCaptured'),
    captureAfterRefunds: batchExchange('capture', [item('T1', 'O1', { amount: '100.00' })], () => 'invalidState'),
    refundRest: refund('50.00', 3),
    queryAfterFullRefund: queryExchange([orderRecord(P1, t.refund.toFull)]),
    refundAfterFull: refund('0.01', 4, 'overRefund'),
    cancelAfterRefunds: batchExchange('cancel', [item('T1', 'O1', { amount: '100.00' })], () => 'invalidState'),
    authorise2: happyExchange('authoriseDirect'),
    overCapture: batchExchange('capture', [item('T2', 'O2', { amount: '101.00' })], () => 'overCapture'),
    cancel: batchExchange('cancel', [item('T2', 'O2', { amount: '100.00' })]),
    queryAfterCancel: queryExchange([orderRecord(P2, t.cancel.to)]),
    captureAfterCancel: batchExchange('capture', [item('T2', 'O2', { amount: '100.00' })], () => 'cancelled'),
  };
}

const MAIN: Partial<Record<OperationKey, string>> = {
  retrievalTrans: 'queryAfterAuthorise',
  capture: 'capture',
  refund: 'refund1',
  retrievalRefund: 'refundSearch',
  cancel: 'cancel',
};

/** A payment-lifecycle observation for an operation, with `change` applied to the steps. */
function lifecycle(op: OperationKey, change?: (steps: Record<string, Exchange>) => void): Observation {
  const steps = paymentSteps();
  change?.(steps);
  return observation('paymentLifecycle', op, steps[MAIN[op]!] ?? steps.authorise!, steps, {
    record: P1,
    record2: P2,
    refunds: ['25.00', '25.00'],
    overRefund: '50.01',
    fullRefund: '50.00',
  });
}

/** The review scenario's steps. */
function reviewSteps(): Record<string, Exchange> {
  return {
    authorise: happyExchange('authoriseDirect', (b) => {
      b.response.order_status = profile.statusValues.order_status.pendingReview;
      b.response.result_info = `${profile.payments.resultInfo.pendingReview.code}:${profile.payments.resultInfo.pendingReview.message}`;
      b.response.risk_action = profile.payments.risk.action.pendingReview;
    }),
    queryBeforeReview: queryExchange([orderRecord(P1, t.afterAuthorise.pendingReview)]),
    review: batchExchange('review', [item('T1', 'O1', { review_flag: profile.review.approve.flag })]),
    queryAfterReview: queryExchange([orderRecord(P1, profile.review.approve.to)]),
    reviewAgain: batchExchange(
      'review',
      [item('T1', 'O1', { review_flag: profile.review.approve.flag })],
      () => 'notUnderReview',
    ),
    authoriseReject: happyExchange('authoriseDirect'),
    reviewReject: batchExchange('review', [item('T2', 'O2', { review_flag: profile.review.reject.flag })]),
    queryAfterReject: queryExchange([orderRecord(P2, profile.review.reject.to)]),
    reviewAfterReject: batchExchange(
      'review',
      [item('T2', 'O2', { review_flag: profile.review.approve.flag })],
      () => 'cancelled',
    ),
  };
}

const review = (change?: (s: Record<string, Exchange>) => void) => {
  const steps = reviewSteps();
  change?.(steps);
  return observation('reviewLifecycle', 'review', steps.review!, steps, { record: P1, rejected: P2 });
};

const rule = profile.payout.failureRules[0]!;
/** The payout scenario's steps: a failing payout, a payout, its replay and a changed replay. */
function payout(change?: (s: Record<string, Exchange>) => void): Observation {
  const first = happyExchange('payout');
  const steps: Record<string, Exchange> = {
    failing: happyExchange('payout', (b) =>
      Object.assign(b.response, {
        status: profile.statusValues.payout_status.failed,
        failure_type: rule.failureType,
        failure_reason: rule.failureReason,
      }),
    ),
    first,
    replay: exchange('payout', {
      request: first.request.body,
      json: (first.response!.decoded as { value: unknown }).value,
    }),
    replayChanged: errorExchange('payout', 'invalidInput'),
  };
  change?.(steps);
  return observation('payoutLifecycle', 'payout', steps.first!, steps, {
    failureRule: { field: rule.field, failureType: rule.failureType, failureReason: rule.failureReason },
    changedField: 'reason',
  });
}

const declined = (status: string, info: string) =>
  observation(
    'declinedPayment',
    'authoriseDirect',
    happyExchange('authoriseDirect', (b) => Object.assign(b.response, { order_status: status, result_info: info })),
  );
const DECLINED = profile.payments.resultInfo.declined;

function token(tokenId: string, approved: boolean): Observation {
  const tokenise = happyExchange('authoriseDirect', (b) => (b.response.token_id = tokenId));
  const byToken = happyExchange(
    'authoriseDirect',
    (b) =>
      (b.response.order_status = approved
        ? profile.statusValues.order_status.approved
        : profile.statusValues.order_status.declined),
  );
  return observation(
    'tokenPayment',
    'authoriseDirect',
    tokenId ? byToken : tokenise,
    tokenId ? { tokenise, byToken } : { tokenise },
  );
}

/** A page flow observation (APM or checkout): the payment, the pages followed, the query. */
function flow(
  op: 'authoriseApm' | 'checkout',
  pageStatus: number,
  queried: Record<string, unknown>[],
  facts: ObservationFacts = {},
): Observation {
  const payment = happyExchange(op);
  const page = exchange('external', {
    method: 'GET',
    url: 'https://gateway.example/issuer/tk',
    status: pageStatus,
    bodyText: '<html>Pay</html>',
  });
  const result = exchange('external', {
    url: 'https://gateway.example/issuer/tk',
    bodyText: '<html>Payment completed</html>',
  });
  const steps: Record<string, Exchange> =
    op === 'authoriseApm'
      ? { payment, issuerPage: page, page: result, query: queryExchange(queried) }
      : { checkout: payment, page: result, query: queryExchange(queried) };
  return observation(op === 'authoriseApm' ? 'apmCompletion' : 'checkoutCompletion', op, payment, steps, {
    orderNo: 'O1',
    completion: { formsFollowed: 1, stoppedAt: 'a page without a form' },
    ...facts,
  });
}

/** An APM flow whose second payment the shopper declined on the issuer page, the query showing `queried`. */
function declinedFlow(queried: Record<string, unknown>[], facts: ObservationFacts = {}): Observation {
  const o = flow('authoriseApm', 200, PAID_APM());
  Object.assign(o.steps, {
    declinedPayment: happyExchange('authoriseApm'),
    declinedIssuerPage: exchange('external', {
      method: 'GET',
      url: 'https://gateway.example/issuer/tk2',
      bodyText: '<html>Pay or decline</html>',
    }),
    declinePage: exchange('external', {
      url: 'https://gateway.example/issuer/tk2',
      bodyText: '<html>Payment declined</html>',
    }),
    declinedQuery: queryExchange(queried),
  });
  Object.assign(o.facts, {
    declinedOrderNo: 'O2',
    declineCompletion: { formsFollowed: 1, stoppedAt: 'a page without a form' },
    ...facts,
  });
  return o;
}
const PAID_APM = () => [orderRecord(P1, t.afterIssuerPage.paid)];
const PAID = [orderRecord(P1, t.afterAuthorise.approved)];

export const LIFECYCLE_CASES: Case[] = [
  pass('queryShowsAuthorisedPayment', 'PAGI-INV-004', 'the payment as paid', 'retrievalTrans', () =>
    lifecycle('retrievalTrans'),
  ),
  fail(
    'queryShowsAuthorisedPayment',
    'PAGI-INV-004',
    'not found',
    'retrievalTrans',
    () => lifecycle('retrievalTrans', (s) => (s.queryAfterAuthorise = queryExchange([]))),
    ['RECORD_NOT_FOUND'],
  ),
  fail(
    'queryShowsAuthorisedPayment',
    'PAGI-INV-004',
    'another amount',
    'retrievalTrans',
    () =>
      lifecycle(
        'retrievalTrans',
        (s) => (s.queryAfterAuthorise = queryExchange([orderRecord({ ...P1, amount: '1.00' }, 'authorised')])),
      ),
    ['RECORD_MISMATCH'],
  ),
  fail(
    'queryShowsAuthorisedPayment',
    'PAGI-ST-002',
    'another payment_status',
    'retrievalTrans',
    () => lifecycle('retrievalTrans', (s) => (s.queryAfterAuthorise = queryExchange([orderRecord(P1, 'captured')]))),
    ['STATUS_VALUE'],
  ),
  pass('queryShowsStatusAfterTransitions', 'PAGI-QRY-007', 'captured', 'capture', () => lifecycle('capture')),
  pass('queryShowsStatusAfterTransitions', 'PAGI-QRY-007', 'cancelled', 'cancel', () => lifecycle('cancel')),
  fail(
    'queryShowsStatusAfterTransitions',
    'PAGI-QRY-007',
    'still authorised after capture',
    'capture',
    () => lifecycle('capture', (s) => (s.queryAfterCapture = queryExchange([orderRecord(P1, 'authorised')]))),
    ['STATUS_VALUE'],
  ),
  fail(
    'queryShowsStatusAfterTransitions',
    'PAGI-QRY-007',
    'fully refunded after a partial refund',
    'refund',
    () => lifecycle('refund', (s) => (s.queryAfterRefunds = queryExchange([orderRecord(P1, 'refunded')]))),
    ['STATUS_VALUE'],
  ),
  {
    ...pass('queryShowsStatusAfterTransitions', 'PAGI-QRY-007', 'scenario stopped before', 'refund', () =>
      lifecycle('refund', (s) => delete s.queryAfterRefunds),
    ),
    expect: 'notApplicable',
  },
  pass('partialRefundsSucceedTwice', 'PAGI-REF-003', 'two partial refunds', 'refund', () => lifecycle('refund')),
  fail(
    'partialRefundsSucceedTwice',
    'PAGI-REF-003',
    'the second refused',
    'refund',
    () => lifecycle('refund', (s) => (s.refund2 = refund('25.00', 2, 'overRefund'))),
    ['TRANSITION_REFUSED'],
  ),
  pass('overRefundRefused', 'PAGI-INV-001', "refused with the profile's overRefund", 'refund', () =>
    lifecycle('refund'),
  ),
  fail(
    'overRefundRefused',
    'PAGI-INV-001',
    'accepted',
    'refund',
    () => lifecycle('refund', (s) => (s.overRefund = refund('50.01', 3))),
    ['TRANSITION_ALLOWED'],
  ),
  fail(
    'overRefundRefused',
    'PAGI-BAT-008',
    'refused with another code',
    'refund',
    () =>
      lifecycle('refund', (s) => (s.overRefund = batchExchange('refund', [item('T1', 'O1')], () => 'invalidState'))),
    ['ITEM_MESSAGE'],
  ),
  pass('refundReferenceIdsNumberedPerProfile', 'PAGI-REF-004', '-01 then -02', 'refund', () => lifecycle('refund')),
  fail(
    'refundReferenceIdsNumberedPerProfile',
    'PAGI-REF-004',
    '-00 then -01',
    'refund',
    () =>
      lifecycle('refund', (s) => {
        s.refund1 = refund('25.00', 0);
        s.refund2 = refund('25.00', 1);
      }),
    ['REFERENCE_ID_NUMBERING'],
  ),
  pass('refundSearchShowsEveryRefund', 'PAGI-RFS-003', 'both refunds shown', 'retrievalRefund', () =>
    lifecycle('retrievalRefund'),
  ),
  fail(
    'refundSearchShowsEveryRefund',
    'PAGI-INV-005',
    'one refund missing, one with another amount',
    'retrievalRefund',
    () =>
      lifecycle('retrievalRefund', (s) => {
        const list = (s.refundSearch!.response!.decoded as { value: { refund_orders: Record<string, unknown>[] } })
          .value.refund_orders;
        list.pop();
        list[0]!.refund_amount = '1.00';
      }),
    ['RECORD_NOT_FOUND', 'RECORD_MISMATCH'],
  ),
  fail(
    'refundSearchShowsEveryRefund',
    'PAGI-REF-004',
    'both refunds numbered alike',
    'retrievalRefund',
    () => lifecycle('retrievalRefund', (s) => (s.refund2 = refund('25.00', 1))),
    ['REFERENCE_ID_NUMBERING'],
  ),
  pass('cancelAfterRefundRefused', 'PAGI-CNL-003', "refused with the profile's failure", 'cancel', () =>
    lifecycle('cancel'),
  ),
  fail(
    'cancelAfterRefundRefused',
    'PAGI-CNL-003',
    'cancelled after capture',
    'cancel',
    () => lifecycle('cancel', (s) => (s.cancelAfterRefunds = batchExchange('cancel', [item('T1', 'O1')]))),
    ['TRANSITION_ALLOWED'],
  ),
  fail(
    'cancelAfterRefundRefused',
    'PAGI-CNL-003',
    'refused with another failure',
    'cancel',
    () =>
      lifecycle(
        'cancel',
        (s) => (s.cancelAfterRefunds = batchExchange('cancel', [item('T1', 'O1')], () => 'cancelled')),
      ),
    ['ITEM_MESSAGE'],
  ),
  pass('overCaptureRefused', 'PAGI-INV-002', 'refused', 'capture', () => lifecycle('capture')),
  fail(
    'overCaptureRefused',
    'PAGI-INV-002',
    'captured',
    'capture',
    () =>
      lifecycle('capture', (s) => (s.overCapture = batchExchange('capture', [item('T2', 'O2', { amount: '101.00' })]))),
    ['TRANSITION_ALLOWED'],
  ),
  pass('cancelledPaymentNotCapturable', 'PAGI-CNL-002', 'refused', 'capture', () => lifecycle('capture')),
  fail(
    'cancelledPaymentNotCapturable',
    'PAGI-BAT-008',
    'refused with another message text where the profile pins it',
    'capture',
    () =>
      lifecycle(
        'capture',
        (s) =>
          (s.captureAfterCancel = withMessage(
            batchExchange('capture', [item('T2', 'O2')], () => 'cancelled'),
            'capture_orders',
            'error_message',
            `${profile.batch.itemFailures.cancelled.code}:Voided`,
          )),
      ),
    ['ITEM_MESSAGE'],
    () => context({ profile: (p) => void (p.batch.itemFailures.cancelled.pinned = true) }),
  ),
  pass('cancelledPaymentNotCapturable', 'PAGI-BAT-008', 'another message text, not pinned', 'capture', () =>
    lifecycle(
      'capture',
      (s) =>
        (s.captureAfterCancel = withMessage(
          batchExchange('capture', [item('T2', 'O2')], () => 'cancelled'),
          'capture_orders',
          'error_message',
          `${profile.batch.itemFailures.cancelled.code}:Voided`,
        )),
    ),
  ),
  pass(
    'capturedPaymentNotCapturedAgain',
    'PAGI-PRF-007',
    "captured and partly refunded payments refused with the profile's failures",
    'capture',
    () => lifecycle('capture'),
  ),
  fail(
    'capturedPaymentNotCapturedAgain',
    'PAGI-PRF-007',
    'a captured payment captured again',
    'capture',
    () =>
      lifecycle(
        'capture',
        (s) => (s.captureAgain = batchExchange('capture', [item('T1', 'O1', { amount: '100.00' })])),
      ),
    ['TRANSITION_ALLOWED'],
  ),
  fail(
    'capturedPaymentNotCapturedAgain',
    'PAGI-PRF-007',
    'a partly refunded payment refused with the listed failure instead of otherRefusal',
    'capture',
    () =>
      lifecycle(
        'capture',
        (s) =>
          (s.captureAfterRefunds = batchExchange(
            'capture',
            [item('T1', 'O1', { amount: '100.00' })],
            () => 'alreadyCaptured',
          )),
      ),
    ['ITEM_MESSAGE'],
  ),
  fail(
    'capturedPaymentNotCapturedAgain',
    'PAGI-PRF-007',
    'already captured with another message text where the profile pins it',
    'capture',
    () =>
      lifecycle(
        'capture',
        (s) =>
          (s.captureAgain = withMessage(
            batchExchange('capture', [item('T1', 'O1')], () => 'alreadyCaptured'),
            'capture_orders',
            'error_message',
            `${profile.batch.itemFailures.alreadyCaptured.code}:Done`,
          )),
      ),
    ['ITEM_MESSAGE'],
    () => context({ profile: (p) => void (p.batch.itemFailures.alreadyCaptured.pinned = true) }),
  ),
  pass('fullRefundSettlesPayment', 'PAGI-QRY-007', 'refunded in full, one more refund refused', 'refund', () =>
    lifecycle('refund'),
  ),
  fail(
    'fullRefundSettlesPayment',
    'PAGI-QRY-007',
    'still partly refunded after the rest',
    'refund',
    () => lifecycle('refund', (s) => (s.queryAfterFullRefund = queryExchange([orderRecord(P1, t.refund.toPartial)]))),
    ['STATUS_VALUE'],
  ),
  fail(
    'fullRefundSettlesPayment',
    'PAGI-QRY-007',
    'the rest refused',
    'refund',
    () => lifecycle('refund', (s) => (s.refundRest = refund('50.00', 3, 'overRefund'))),
    ['TRANSITION_REFUSED'],
  ),
  fail(
    'fullRefundSettlesPayment',
    'PAGI-PRF-007',
    'a refund of a fully refunded payment accepted',
    'refund',
    () => lifecycle('refund', (s) => (s.refundAfterFull = refund('0.01', 4))),
    ['TRANSITION_ALLOWED'],
  ),
  fail(
    'fullRefundSettlesPayment',
    'PAGI-PRF-007',
    'refused as another state where the profile lists the refunded one',
    'refund',
    () =>
      lifecycle(
        'refund',
        (s) =>
          (s.refundAfterFull = batchExchange(
            'refund',
            [item('T1', 'O1', { refund_amount: '0.01' })],
            () => 'invalidState',
          )),
      ),
    ['ITEM_MESSAGE'],
  ),
  fail(
    'fullRefundSettlesPayment',
    'PAGI-PRF-007',
    'otherRefusal where the profile lists no failure for the refunded state',
    'refund',
    () => lifecycle('refund'),
    ['ITEM_MESSAGE'],
    () => context({ profile: (p) => void delete (p.transitions.refund.refusals as Record<string, string>).refunded }),
  ),
  fail(
    'cancelledPaymentNotCapturable',
    'PAGI-CNL-002',
    'captured',
    'cancel',
    () => lifecycle('cancel', (s) => (s.captureAfterCancel = batchExchange('capture', [item('T2', 'O2')]))),
    ['TRANSITION_ALLOWED'],
  ),
  pass('flaggedPaymentSettledByReview', 'PAGI-REV-002', 'held, then approved', 'review', () => review()),
  fail(
    'flaggedPaymentSettledByReview',
    'PAGI-REV-002',
    'approved at once',
    'review',
    () =>
      review((s) => {
        s.authorise = happyExchange('authoriseDirect');
        s.queryBeforeReview = queryExchange([orderRecord(P1, 'authorised')]);
      }),
    ['STATUS_VALUE'],
  ),
  fail(
    'flaggedPaymentSettledByReview',
    'PAGI-REV-002',
    'review refused',
    'review',
    () => review((s) => (s.review = batchExchange('review', [item('T1', 'O1')], () => 'notUnderReview'))),
    ['TRANSITION_REFUSED'],
  ),
  pass(
    'settledPaymentReviewedPerProfile',
    'PAGI-PRF-007',
    "approved and rejected payments refused with the profile's failures",
    'review',
    () => review(),
  ),
  fail(
    'settledPaymentReviewedPerProfile',
    'PAGI-PRF-007',
    'an approved payment reviewed again',
    'review',
    () => review((s) => (s.reviewAgain = batchExchange('review', [item('T1', 'O1')]))),
    ['TRANSITION_ALLOWED'],
  ),
  fail(
    'settledPaymentReviewedPerProfile',
    'PAGI-PRF-007',
    'a rejected payment refused with otherRefusal where the profile lists its state',
    'review',
    () => review((s) => (s.reviewAfterReject = batchExchange('review', [item('T2', 'O2')], () => 'notUnderReview'))),
    ['ITEM_MESSAGE'],
  ),
  fail(
    'settledPaymentReviewedPerProfile',
    'PAGI-PRF-007',
    'not under review with another message text where the profile pins it',
    'review',
    () =>
      review(
        (s) =>
          (s.reviewAgain = withMessage(
            batchExchange('review', [item('T1', 'O1')], () => 'notUnderReview'),
            'review_orders',
            'error_message',
            `${profile.batch.itemFailures.notUnderReview.code}:Nope`,
          )),
      ),
    ['ITEM_MESSAGE'],
    () => context({ profile: (p) => void (p.batch.itemFailures.notUnderReview.pinned = true) }),
  ),
  fail(
    'settledPaymentReviewedPerProfile',
    'PAGI-PRF-007',
    'refused where the profile reviews from the approved state',
    'review',
    () => review(),
    ['TRANSITION_REFUSED'],
    () => context({ profile: (p) => void (p.transitions.review.from = ['pendingReview', 'authorised']) }),
  ),
  pass('rejectingReviewSettlesPayment', 'PAGI-PRF-008', "rejected into the profile's state", 'review', () => review()),
  fail(
    'rejectingReviewSettlesPayment',
    'PAGI-PRF-008',
    'still held after the rejecting flag',
    'review',
    () => review((s) => (s.queryAfterReject = queryExchange([orderRecord(P2, 'pendingReview')]))),
    ['STATUS_VALUE'],
  ),
  fail(
    'rejectingReviewSettlesPayment',
    'PAGI-PRF-008',
    'the rejecting flag refused',
    'review',
    () => review((s) => (s.reviewReject = batchExchange('review', [item('T2', 'O2')], () => 'invalidItem'))),
    ['TRANSITION_REFUSED'],
  ),
  pass('payoutFailureReported', 'PAGI-PO-008', "the profile's failure", 'payout', () => payout()),
  fail(
    'payoutFailureReported',
    'PAGI-PO-005',
    'failed without a reason',
    'payout',
    () =>
      payout(
        (s) =>
          (s.failing = happyExchange('payout', (b) =>
            Object.assign(b.response, { status: 'FAILED', failure_type: '', failure_reason: '' }),
          )),
      ),
    ['PAYOUT_FAILURE'],
  ),
  fail(
    'payoutFailureReported',
    'PAGI-PO-008',
    'completed',
    'payout',
    () => payout((s) => (s.failing = happyExchange('payout'))),
    ['PAYOUT_FAILURE'],
  ),
  fail(
    'payoutFailureReported',
    'PAGI-PO-008',
    'refused',
    'payout',
    () => payout((s) => (s.failing = errorExchange('payout', 'invalidInput'))),
    ['PAYOUT_FAILURE'],
  ),
  pass('payoutReplayIdempotent', 'PAGI-PO-007', 'the first answer again', 'payout', () => payout()),
  fail(
    'payoutReplayIdempotent',
    'PAGI-PO-007',
    'a second payout',
    'payout',
    () => payout((s) => (s.replay = happyExchange('payout', (b) => (b.response.transaction_id = 'PO-2')))),
    ['REPLAY_DIFFERS'],
  ),
  fail(
    'payoutReplayIdempotent',
    'PAGI-PO-007',
    'a changed replay accepted',
    'payout',
    () => payout((s) => (s.replayChanged = happyExchange('payout'))),
    ['REPLAY_DIFFERS'],
  ),
  pass('declinedCardDeclinedPerProfile', 'PAGI-PAY-013', 'declined', 'authoriseDirect', () =>
    declined(profile.statusValues.order_status.declined, `${DECLINED.code}:${DECLINED.message}`),
  ),
  fail(
    'declinedCardDeclinedPerProfile',
    'PAGI-PAY-013',
    'approved',
    'authoriseDirect',
    () => declined(profile.statusValues.order_status.approved, '0000:Approved'),
    ['STATUS_VALUE'],
  ),
  pass('tokenPaymentSucceeds', 'PAGI-PAY-010', 'token given and paid by', 'authoriseDirect', () => token('TK-1', true)),
  fail('tokenPaymentSucceeds', 'PAGI-PAY-010', 'no token', 'authoriseDirect', () => token('', true), [
    'RESULT_MISSING',
  ]),
  fail(
    'tokenPaymentSucceeds',
    'PAGI-PAY-010',
    'payment by token declined',
    'authoriseDirect',
    () => token('TK-1', false),
    ['STATUS_VALUE'],
  ),
  pass('issuerUrlRequestable', 'PAGI-APM-003', 'page served', 'authoriseApm', () => flow('authoriseApm', 200, PAID)),
  fail(
    'issuerUrlRequestable',
    'PAGI-APM-003',
    'page not found',
    'authoriseApm',
    () => flow('authoriseApm', 404, PAID),
    ['PAGE_NOT_SERVED'],
  ),
  {
    ...pass('issuerUrlRequestable', 'PAGI-APM-003', 'the client cannot follow pages', 'authoriseApm', () =>
      flow('authoriseApm', 200, PAID, { cannotFollow: 'no follow' }),
    ),
    expect: 'notApplicable',
  },
  pass('apmPaymentCompletedViaIssuerPage', 'PAGI-APM-008', 'completed', 'authoriseApm', () =>
    flow('authoriseApm', 200, PAID),
  ),
  fail(
    'apmPaymentCompletedViaIssuerPage',
    'PAGI-APM-008',
    'not in the query',
    'authoriseApm',
    () => flow('authoriseApm', 200, []),
    ['PAYMENT_NOT_COMPLETED'],
  ),
  pass('apmPaymentDeclinedViaIssuerPage', 'PAGI-APM-008', "declined into the profile's state", 'authoriseApm', () =>
    declinedFlow([orderRecord({ ...P2 }, t.afterIssuerPage.declined)]),
  ),
  fail(
    'apmPaymentDeclinedViaIssuerPage',
    'PAGI-APM-008',
    'paid although declined',
    'authoriseApm',
    () => declinedFlow([orderRecord({ ...P2 }, t.afterIssuerPage.paid)]),
    ['STATUS_VALUE'],
  ),
  fail('apmPaymentDeclinedViaIssuerPage', 'PAGI-APM-008', 'not in the query', 'authoriseApm', () => declinedFlow([]), [
    'RECORD_NOT_FOUND',
  ]),
  {
    ...pass('apmPaymentDeclinedViaIssuerPage', 'PAGI-APM-008', 'no declining button', 'authoriseApm', () =>
      declinedFlow([], {
        declineCompletion: { formsFollowed: 0, stoppedAt: 'a page without a button matching /decline/' },
      }),
    ),
    expect: 'notApplicable',
  },
  {
    ...pass('apmPaymentCompletedViaIssuerPage', 'PAGI-APM-008', 'no form to submit', 'authoriseApm', () =>
      flow('authoriseApm', 200, [], { completion: { formsFollowed: 0, stoppedAt: 'a page without a form' } }),
    ),
    expect: 'notApplicable',
  },
  pass('checkoutPostBackCompletesPayment', 'PAGI-CHK-011', 'completed', 'checkout', () => flow('checkout', 200, PAID)),
  fail(
    'checkoutPostBackCompletesPayment',
    'PAGI-CHK-011',
    'still pending',
    'checkout',
    () => flow('checkout', 200, [orderRecord(P1, 'pendingReview')]),
    ['PAYMENT_NOT_COMPLETED'],
  ),
];
