/** lifecycle, the review scenario (`reviewLifecycle`): a flagged payment approved or rejected by review, and reviewed again. */
import type { CheckContext, Observation } from '../../core/model.js';
import { FIELD } from '../fields.js';
import { type Report, defineCheck, onlyWhen, onlyWithSteps, quoted, wrap } from '../findings.js';
import { expectedCodeMessage, matchesCodeMessage, responseObject } from '../observe.js';
import { reviewLifecycle } from '../probes/lifecycle.js';
import {
  type ReviewStep,
  expectItemRefused,
  expectItemSucceeded,
  expectState,
  recordOf,
  refusalFor,
} from './lifecycle-common.js';

/**
 * Without a review hold: the payment is not held; a review of it is refused as the profile's review transition says,
 * or, where the profile lets an approved payment be reviewed, settles it as the approving flag says.
 */
function verifyNoHold(ctx: CheckContext, report: Report, o: Observation<ReviewStep>): void {
  const payment = responseObject(o.steps.authorise, ctx.spec);
  const approved = ctx.profile.statusValues.order_status.approved;
  if (payment?.[FIELD.orderStatus] !== approved) {
    report({
      code: 'STATUS_VALUE',
      requirement: 'PAGI-REV-002',
      exchange: o.steps.authorise,
      pointer: `/${FIELD.orderStatus}`,
      expected: `${FIELD.orderStatus} ${approved}: the profile holds no payment for review`,
      received: quoted(payment?.[FIELD.orderStatus]),
    });
  }
  const state = ctx.profile.transitions.afterAuthorise.approved;
  if (!(ctx.profile.transitions.review.from as string[]).includes(state)) {
    expectItemRefused(
      ctx,
      report,
      o.steps.review!,
      'review',
      'PAGI-REV-002',
      `a review of a payment never held (${state})`,
      { key: refusalFor(ctx, 'review', state), requirement: 'PAGI-REV-002' },
    );
    return;
  }
  expectItemSucceeded(
    ctx,
    report,
    o.steps.review!,
    'review',
    'PAGI-REV-002',
    `the approving review of a ${state} payment to succeed (profile)`,
  );
  if (o.steps.queryAfterReview)
    expectState(
      ctx,
      report,
      o.steps.queryAfterReview,
      recordOf(o)[FIELD.transactionId],
      ctx.profile.review.approve.to,
      'PAGI-REV-002',
      'the approving review',
    );
}

export const flaggedPaymentSettledByReview = wrap(
  defineCheck({
    id: 'flaggedPaymentSettledByReview',
    family: 'lifecycle',
    probe: reviewLifecycle,
    operations: ['review'],
    requirements: ['PAGI-REV-002'],
    description:
      "A payment the profile's review rule flags waits for review, and the approving review_flag settles it as the profile says; without a review hold, no payment waits and a review fails as the profile says.",
    verify(o, ctx, report) {
      if (o.facts.noHold === true) return verifyNoHold(ctx, report, o);
      const tx = recordOf(o)[FIELD.transactionId];
      const payment = responseObject(o.steps.authorise, ctx.spec);
      const pending = ctx.profile.statusValues.order_status.pendingReview;
      if (payment?.[FIELD.orderStatus] !== pending) {
        report({
          code: 'STATUS_VALUE',
          requirement: 'PAGI-REV-002',
          exchange: o.steps.authorise,
          pointer: `/${FIELD.orderStatus}`,
          expected: `${FIELD.orderStatus} ${pending} (pending review) for a flagged payment`,
          received: quoted(payment?.[FIELD.orderStatus]),
        });
      }
      const held = ctx.profile.payments.resultInfo.pendingReview;
      if (!matchesCodeMessage(held, payment?.[FIELD.resultInfo])) {
        report({
          code: 'STATUS_VALUE',
          requirement: 'PAGI-REV-002',
          exchange: o.steps.authorise,
          pointer: `/${FIELD.resultInfo}`,
          expected: `${FIELD.resultInfo} ${expectedCodeMessage(held)} (pending review)`,
          received: quoted(payment?.[FIELD.resultInfo]),
        });
      }
      const action = ctx.profile.payments.risk.action.pendingReview;
      if (payment?.risk_action !== undefined && payment.risk_action !== action) {
        report({
          code: 'STATUS_VALUE',
          requirement: 'PAGI-REV-002',
          exchange: o.steps.authorise,
          pointer: '/risk_action',
          expected: `risk_action ${JSON.stringify(action)} (pending review)`,
          received: quoted(payment.risk_action),
        });
      }
      if (o.steps.queryBeforeReview)
        expectState(
          ctx,
          report,
          o.steps.queryBeforeReview,
          tx,
          ctx.profile.transitions.afterAuthorise.pendingReview,
          'PAGI-REV-002',
          'the flagged payment',
        );
      expectItemSucceeded(ctx, report, o.steps.review!, 'review', 'PAGI-REV-002', 'the approving review to succeed');
      if (o.steps.queryAfterReview)
        expectState(
          ctx,
          report,
          o.steps.queryAfterReview,
          tx,
          ctx.profile.review.approve.to,
          'PAGI-REV-002',
          'the approving review',
        );
    },
  }),
  onlyWithSteps('authorise', 'review'),
);

/** The review steps that review a payment settled by an earlier review, each with the state it was settled in. */
function settledReviews(ctx: CheckContext): [ReviewStep, string, 'record' | 'rejected'][] {
  const r = ctx.profile.review;
  return [
    ['reviewAgain', r.approve.to, 'record'],
    ['reviewAfterReject', r.reject.to, 'rejected'],
  ];
}

export const settledPaymentReviewedPerProfile = wrap(
  defineCheck({
    id: 'settledPaymentReviewedPerProfile',
    family: 'lifecycle',
    probe: reviewLifecycle,
    operations: ['review'],
    requirements: ['PAGI-PRF-007'],
    description:
      "A review of a payment an earlier review settled (approved, or rejected) is refused with the profile's failure for its state (transitions.review.refusals, otherRefusal), or succeeds where the profile allows review from that state.",
    verify(o, ctx, report) {
      const from = ctx.profile.transitions.review.from as string[];
      for (const [step, state] of settledReviews(ctx)) {
        const exchange = o.steps[step];
        if (!exchange) continue;
        if (!from.includes(state)) {
          expectItemRefused(ctx, report, exchange, 'review', 'PAGI-PRF-007', `a review of a ${state} payment`, {
            key: refusalFor(ctx, 'review', state),
            requirement: 'PAGI-PRF-007',
          });
          continue;
        }
        expectItemSucceeded(
          ctx,
          report,
          exchange,
          'review',
          'PAGI-PRF-007',
          `a review of a ${state} payment to succeed (the profile reviews from ${from.join(', ')})`,
        );
      }
    },
  }),
  onlyWithSteps('reviewAgain'),
);

export const rejectingReviewSettlesPayment = wrap(
  defineCheck({
    id: 'rejectingReviewSettlesPayment',
    family: 'lifecycle',
    probe: reviewLifecycle,
    operations: ['review'],
    requirements: ['PAGI-PRF-008'],
    description:
      "The profile's rejecting review_flag settles a payment waiting for review (or, without a hold, one the profile lets review) in the profile's rejected state, as the query shows.",
    verify(o, ctx, report) {
      const reject = ctx.profile.review.reject;
      const exchange = o.steps.reviewReject!;
      if (
        !expectItemSucceeded(
          ctx,
          report,
          exchange,
          'review',
          'PAGI-PRF-008',
          `the review with the rejecting ${FIELD.reviewFlag} ${JSON.stringify(reject.flag)} to succeed`,
        )
      )
        return;
      if (o.steps.queryAfterReject)
        expectState(
          ctx,
          report,
          o.steps.queryAfterReject,
          recordOf(o, 'rejected')[FIELD.transactionId],
          reject.to,
          'PAGI-PRF-008',
          'the rejecting review',
        );
    },
  }),
  onlyWithSteps('reviewReject'),
  onlyWhen(
    (o, ctx) =>
      o.facts.noHold !== true ||
      (ctx.profile.transitions.review.from as string[]).includes(ctx.profile.transitions.afterAuthorise.approved),
    'the profile holds no payment for review and allows no review of an approved payment',
  ),
);
