/**
 * Stateful scenarios, linked by response values. Each runs once per run (memoised per client) and answers every
 * operation it covers with its own `main` step:
 * - payment: authorise → query → capture → query → capture again → two partial refunds (as the profile allows them;
 *   a refused one is still sent) → query → refund search → over-refund → capture and cancel of the partly refunded
 *   payment → refund of the rest (unless the profile refunds a partly refunded payment no more) → query → one more refund;
 *   and authorise → over-capture → cancel → query → capture of the cancelled payment;
 * - review: a payment the profile's review rule flags → query → review approve → query → review again; a second one
 *   → review reject → query → review of the rejected payment;
 * - payout: a payout the profile's failure rule matches; a payout and its replay (same and changed body);
 * - APM: the payment, its issuer_url requested again, the page's forms followed, a query; a second payment declined
 *   on its issuer page, a query;
 * - checkout: the page, its form posted back, the following forms, a query.
 */
import type { CheckContext, Exchange, ObservationFacts, OperationKey, ProbeClient } from '../../core/model.js';
import { FIELD } from '../fields.js';
import {
  batchResults,
  cents,
  absoluteUrl,
  itemSucceeded,
  money,
  notFollowable,
  responseObject,
  text,
} from '../observe.js';
import { freeTextFields, paymentBody, recordFacts } from './basic.js';
import {
  Inconclusive,
  type PaymentRecord,
  Steps,
  authorise,
  batch,
  cannotFollow,
  defineProbe,
  describe,
  followForms,
  freshRequestId,
  once,
  pay,
  queryOrder,
  refundRules,
  select,
} from './support.js';
import { ProfilePointNotStated, ScenarioStopped } from '../../core/types/errors.js';

/** The steps of `paymentLifecycle`: the refund scenario, then the cancel scenario on a payment of its own. */
export const PAYMENT_STEPS = {
  authorise: 'the payment the refund scenario acts on',
  queryAfterAuthorise: 'the query after the payment',
  capture: 'its capture',
  queryAfterCapture: 'the query after the capture',
  captureAgain: 'a capture of the captured payment',
  refund1: 'the first partial refund',
  refund2: 'the second partial refund (where the profile allows one)',
  queryAfterRefunds: 'the query after the partial refunds',
  refundSearch: 'the refund search after them',
  overRefund: 'a refund of one cent more than remains',
  captureAfterRefunds: 'a capture of the partly refunded payment',
  cancelAfterRefunds: 'a cancel of the partly refunded payment',
  refundRest: 'the refund of the rest',
  queryAfterFullRefund: 'the query after the refund in full',
  refundSearchAfterFull: 'the refund search after it (where no refund preceded the first)',
  refundAfterFull: 'one more refund of the fully refunded payment',
  authorise2: 'the payment the cancel scenario acts on',
  overCapture: 'a capture above the authorised amount',
  cancel: 'its cancel',
  queryAfterCancel: 'the query after the cancel',
  captureAfterCancel: 'a capture of the cancelled payment',
} as const;

/** The steps of `reviewLifecycle`. */
export const REVIEW_STEPS = {
  authorise: "a payment the profile's review rule flags",
  queryBeforeReview: 'the query before its review',
  review: 'the approving review',
  queryAfterReview: 'the query after it',
  reviewAgain: 'a review of the approved payment',
  authoriseReject: 'a second flagged payment',
  reviewReject: 'the rejecting review of it',
  queryAfterReject: 'the query after it',
  reviewAfterReject: 'a review of the rejected payment',
} as const;

type PaymentStep = keyof typeof PAYMENT_STEPS;
type ReviewStep = keyof typeof REVIEW_STEPS;

/** Steps and facts of a scenario, shared by every operation it answers. */
interface Scenario<S extends string> {
  steps: Partial<Record<S, Exchange>>;
  facts: ObservationFacts;
}

/** Run a scenario body with its own steps; a step it could not pass is recorded in `facts.stoppedBecause`. */
async function scenario<S extends string>(body: (steps: Steps<S>) => Promise<void>): Promise<Scenario<S>> {
  const steps = new Steps<S>();
  try {
    await body(steps);
  } catch (error) {
    if (!(error instanceof ScenarioStopped)) throw error;
    steps.facts.stoppedBecause = error.message;
  }
  return { steps: steps.all as Partial<Record<S, Exchange>>, facts: steps.facts };
}

/** Send a batch for one payment and stop the scenario unless its item succeeded. */
async function mustPass<S extends string>(
  client: ProbeClient,
  ctx: CheckContext,
  steps: Steps<S>,
  op: OperationKey,
  record: PaymentRecord,
  extra: Record<string, unknown>,
  step: NoInfer<S>,
) {
  const exchange = await batch(client, ctx, steps, op, [record], () => extra, step);
  const [result] = batchResults(ctx.spec, op, responseObject(exchange, ctx.spec)) ?? [];
  if (!itemSucceeded(ctx, op, result))
    throw new ScenarioStopped(`step ${step} did not succeed (${describe(exchange)})`);
  return exchange;
}

/** Copy a memoised scenario into the probe's steps and answer the operation with its step (or the first one). */
function answer<S extends string>(steps: Steps<S>, s: Scenario<S>, mainStep: S | undefined): Exchange {
  Object.assign(steps.all, s.steps);
  Object.assign(steps.facts, s.facts);
  const main = (mainStep && s.steps[mainStep]) ?? (Object.values(s.steps) as Exchange[])[0];
  if (!main) throw new Inconclusive('the scenario made no request');
  return main;
}

async function refundScenario(client: ProbeClient, ctx: CheckContext, steps: Steps<PaymentStep>): Promise<void> {
  const record = await authorise(client, ctx, steps);
  const amount = cents(record.fields[FIELD.amount]);
  if (amount === undefined || amount < 4)
    throw new ScenarioStopped('the sample amount is too small to refund in parts');
  steps.facts.record = recordFacts(record);
  await select(client, ctx, steps, 'retrievalTrans', [record.fields], 'queryAfterAuthorise');
  await mustPass(client, ctx, steps, 'capture', record, {}, 'capture');
  await select(client, ctx, steps, 'retrievalTrans', [record.fields], 'queryAfterCapture');
  await batch(client, ctx, steps, 'capture', [record], () => ({}), 'captureAgain');
  const part = Math.floor(amount / 4);
  steps.facts.refunds = [money(part), money(part)];
  // Two partial refunds, as the profile allows them (refunds.partial, transitions.refund): each that the profile
  // refuses is still sent, and its refusal judged.
  const rules = refundRules(ctx);
  const refund = (step: 'refund1' | 'refund2', pass: boolean) =>
    pass
      ? mustPass(client, ctx, steps, 'refund', record, { [FIELD.refundAmount]: money(part) }, step)
      : batch(client, ctx, steps, 'refund', [record], () => ({ [FIELD.refundAmount]: money(part) }), step);
  await refund('refund1', rules.partial === true);
  if (rules.partial === true) await refund('refund2', rules.repeated);
  const refunded = rules.partial !== true ? 0 : rules.repeated ? 2 * part : part;
  await select(client, ctx, steps, 'retrievalTrans', [record.fields], 'queryAfterRefunds');
  await select(client, ctx, steps, 'retrievalRefund', [record.fields], 'refundSearch');
  steps.facts.overRefund = money(amount - refunded + 1);
  await batch(
    client,
    ctx,
    steps,
    'refund',
    [record],
    () => ({ [FIELD.refundAmount]: money(amount - refunded + 1) }),
    'overRefund',
  );
  await batch(client, ctx, steps, 'capture', [record], () => ({}), 'captureAfterRefunds');
  await batch(client, ctx, steps, 'cancel', [record], () => ({}), 'cancelAfterRefunds');
  // A partly refunded payment the profile refunds no more keeps the rest.
  if (refunded > 0 && !rules.repeated) return;
  // The rest of the captured amount: the payment is refunded in full, and a further refund has nothing to take.
  steps.facts.fullRefund = money(amount - refunded);
  await mustPass(
    client,
    ctx,
    steps,
    'refund',
    record,
    { [FIELD.refundAmount]: money(amount - refunded) },
    'refundRest',
  );
  await select(client, ctx, steps, 'retrievalTrans', [record.fields], 'queryAfterFullRefund');
  // No refund preceded the first search where the profile refunds only whole amounts: search again after this one.
  if (refunded === 0) await select(client, ctx, steps, 'retrievalRefund', [record.fields], 'refundSearchAfterFull');
  await batch(client, ctx, steps, 'refund', [record], () => ({ [FIELD.refundAmount]: money(1) }), 'refundAfterFull');
}

async function cancelScenario(client: ProbeClient, ctx: CheckContext, steps: Steps<PaymentStep>): Promise<void> {
  const record = await authorise(client, ctx, steps, 'approved', {}, 'authorise2');
  steps.facts.record2 = recordFacts(record);
  const amount = cents(record.fields[FIELD.amount]) ?? 0;
  await batch(client, ctx, steps, 'capture', [record], () => ({ [FIELD.amount]: money(amount + 100) }), 'overCapture');
  await mustPass(client, ctx, steps, 'cancel', record, {}, 'cancel');
  await select(client, ctx, steps, 'retrievalTrans', [record.fields], 'queryAfterCancel');
  await batch(client, ctx, steps, 'capture', [record], () => ({}), 'captureAfterCancel');
}

/** The step each operation's observation reads first in the payment scenario. */
const PAYMENT_MAIN: Partial<Record<OperationKey, PaymentStep>> = {
  retrievalTrans: 'queryAfterAuthorise',
  capture: 'capture',
  refund: 'refund1',
  retrievalRefund: 'refundSearch',
  cancel: 'cancel',
};

/** `paymentLifecycle`: the refund and cancel scenarios (memoised: run once per run). */
export const paymentLifecycle = defineProbe(
  'paymentLifecycle',
  ['retrievalTrans', 'capture', 'refund', 'retrievalRefund', 'cancel'],
  PAYMENT_STEPS,
  async (op, client, ctx, steps) => {
    const s = await once(ctx, 'paymentLifecycle', async () => {
      // Two payments of their own: the scenarios run side by side.
      const [a, b] = await Promise.all([
        scenario<PaymentStep>((st) => refundScenario(client, ctx, st)),
        scenario<PaymentStep>((st) => cancelScenario(client, ctx, st)),
      ]);
      return {
        steps: { ...a.steps, ...b.steps },
        facts: {
          ...a.facts,
          ...b.facts,
          stoppedBecause: [a.facts.stoppedBecause, b.facts.stoppedBecause].filter(Boolean).join('; ') || undefined,
        },
      };
    });
    return answer(steps, s, PAYMENT_MAIN[op]);
  },
);

/**
 * `reviewLifecycle`: a payment the profile's review rule flags, queried, approved by review, queried again. Without a
 * review hold (`review.triggers: null`): an approved payment the review must refuse (`facts.noHold`).
 */
export const reviewLifecycle = defineProbe(
  'reviewLifecycle',
  ['review'],
  REVIEW_STEPS,
  async (op, client, ctx, steps) => {
    const s = await once(ctx, 'reviewLifecycle', () =>
      scenario<ReviewStep>(async (st) => {
        const noHold = ctx.profile.review.triggers === null;
        st.facts.noHold = noHold;
        const held = (step?: 'authoriseReject') =>
          pay(client, ctx, st, noHold ? 'approved' : 'pendingReview', {}, step).catch((e: unknown) => {
            // A trigger the profile does not state: not judged (naming the point), not a stopped scenario.
            if (e instanceof ProfilePointNotStated) throw e;
            throw new ScenarioStopped(e instanceof Error ? e.message : String(e));
          });
        const review = (record: PaymentRecord, flag: unknown, step: ReviewStep) =>
          batch(client, ctx, st, 'review', [record], () => ({ [FIELD.reviewFlag]: flag }), step);
        const { approve, reject } = ctx.profile.review;
        const record = await held();
        st.facts.record = recordFacts(record);
        await select(client, ctx, st, 'retrievalTrans', [record.fields], 'queryBeforeReview');
        await review(record, approve.flag, 'review');
        await select(client, ctx, st, 'retrievalTrans', [record.fields], 'queryAfterReview');
        await review(record, approve.flag, 'reviewAgain');
        // A second payment in the same state, settled by the rejecting flag, then reviewed once more.
        const other = await held('authoriseReject');
        st.facts.rejected = recordFacts(other);
        await review(other, reject.flag, 'reviewReject');
        await select(client, ctx, st, 'retrievalTrans', [other.fields], 'queryAfterReject');
        await review(other, approve.flag, 'reviewAfterReject');
      }),
    );
    return answer(steps, s, op === 'review' ? 'review' : undefined);
  },
);

/** Set a dotted path (`beneficiary.last_name`) of a body. */
function setPath(body: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node: Record<string, unknown> = body;
  for (const part of parts.slice(0, -1)) {
    if (!node[part] || typeof node[part] !== 'object') node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts[parts.length - 1]!] = value;
}

/** `payoutLifecycle`: a payout the profile's first failure rule matches; a payout, its replay, and a changed replay. */
export const payoutLifecycle = defineProbe(
  'payoutLifecycle',
  ['payout'],
  {
    failing: "a payout the profile's first failure rule matches",
    first: 'a payout',
    replay: 'the same payout again (same request id)',
    beneficiaryPays: 'a payout whose fee the beneficiary pays',
    replayChanged: 'the payout again with the same request id and a changed field',
  },
  async (op, client, ctx, steps) => {
    const rule = ctx.profile.payout.failureRules[0];
    if (rule) {
      const failing = client.sample(op);
      setPath(failing, rule.field, rule.match === 'equals' ? rule.value : `${rule.value}probe`);
      steps.add('failing', await client.send(op, failing));
      steps.facts.failureRule = { field: rule.field, failureType: rule.failureType, failureReason: rule.failureReason };
    } else steps.facts.noFailureRule = 'the profile has no payout failure rule';
    const body = client.sample(op, { [ctx.profile.payout.idempotencyKey]: freshRequestId() });
    const first = steps.add('first', await client.send(op, body));
    steps.add('replay', await client.send(op, body));
    const key = ctx.profile.payout.idempotencyKey;
    steps.add(
      'beneficiaryPays',
      await client.send(
        op,
        client.sample(op, { [key]: freshRequestId(), [FIELD.feePaidBy]: ctx.profile.payout.feePaidBy.beneficiary }),
      ),
    );
    const [field] = freeTextFields(ctx, op, body);
    if (field) {
      steps.add('replayChanged', await client.send(op, { ...body, [field]: `${String(body[field])}-changed` }));
      steps.facts.changedField = field;
    }
    return first;
  },
);

/** Whether the payment of an order is shown completed by a query step (its state the profile's approved one). */
async function queryAfterCompletion(
  client: ProbeClient,
  ctx: CheckContext,
  steps: Steps<'query'>,
  orderNo: string,
): Promise<void> {
  const x = await queryOrder(client, ctx, steps, orderNo, 'query');
  if (!x) steps.facts.cannotQuery = `the profile's query does not select by ${FIELD.orderNo}`;
}

/**
 * `apmCompletion`: an APM payment, its issuer_url requested again, the issuer page's forms followed, then a query; then
 * a second payment declined on its issuer page, and a query.
 */
export const apmCompletion = defineProbe(
  'apmCompletion',
  ['authoriseApm'],
  {
    payment: 'the APM payment',
    issuerPage: 'its issuer_url requested',
    page: 'the forms of the issuer page submitted as the shopper (numbered)',
    query: 'the query after the completion',
    declinedPayment: 'a second APM payment',
    declinedIssuerPage: 'its issuer page',
    declinePage: 'its declining button pressed (numbered)',
    declinedQuery: 'the query after the decline',
  },
  async (op, client, ctx, steps) => {
    const body = paymentBody(client, ctx, op);
    const payment = steps.add('payment', await client.send(op, body));
    steps.facts.orderNo = body[FIELD.orderNo];
    const given = text(responseObject(payment, ctx.spec), FIELD.issuerUrl);
    const issuerUrl = absoluteUrl(given);
    const why = cannotFollow(client) ?? (given && !issuerUrl ? notFollowable(FIELD.issuerUrl, given) : undefined);
    if (why) steps.facts.cannotFollow = why;
    if (!issuerUrl || why) return payment;
    const page = steps.add('issuerPage', await client.follow!(issuerUrl, { method: 'GET' }));
    const { pages, stoppedAt } = await followForms(client, ctx, steps, page);
    steps.facts.completion = { formsFollowed: pages.length, stoppedAt };
    await queryAfterCompletion(client, ctx, steps, String(body[FIELD.orderNo]));
    await declineOnIssuerPage(client, ctx, steps, op);
    return payment;
  },
);

/** What a shopper's declining button says (its value or name). */
const DECLINE_BUTTON = /decline|refuse|reject|cancel/i;

/** A second APM payment whose issuer page the shopper declines (the page's declining button), then a query. */
async function declineOnIssuerPage(
  client: ProbeClient,
  ctx: CheckContext,
  steps: Steps<'declinedPayment' | 'declinedIssuerPage' | 'declinePage' | 'declinedQuery'>,
  op: OperationKey,
): Promise<void> {
  const body = paymentBody(client, ctx, op);
  const payment = steps.add('declinedPayment', await client.send(op, body));
  steps.facts.declinedOrderNo = body[FIELD.orderNo];
  const given = text(responseObject(payment, ctx.spec), FIELD.issuerUrl);
  const issuerUrl = absoluteUrl(given);
  if (given && !issuerUrl)
    steps.facts.declineCompletion = { formsFollowed: 0, stoppedAt: notFollowable(FIELD.issuerUrl, given) };
  if (!issuerUrl) return;
  const page = steps.add('declinedIssuerPage', await client.follow!(issuerUrl, { method: 'GET' }));
  const { pages, stoppedAt } = await followForms(client, ctx, steps, page, 4, DECLINE_BUTTON, 'declinePage');
  steps.facts.declineCompletion = { formsFollowed: pages.length, stoppedAt };
  if (pages.length) await queryOrder(client, ctx, steps, String(body[FIELD.orderNo]), 'declinedQuery');
}

/** `checkoutCompletion`: the checkout page, its form posted back as the browser would, the next forms, then a query. */
export const checkoutCompletion = defineProbe(
  'checkoutCompletion',
  ['checkout'],
  {
    checkout: 'the checkout page',
    page: 'its forms posted back as the browser would (numbered)',
    query: 'the query after the completion',
  },
  async (op, client, ctx, steps) => {
    const body = paymentBody(client, ctx, op);
    const page = steps.add('checkout', await client.send(op, body));
    steps.facts.orderNo = body[FIELD.orderNo];
    const why = cannotFollow(client);
    if (why) {
      steps.facts.cannotFollow = why;
      return page;
    }
    const { pages, stoppedAt } = await followForms(client, ctx, steps, page);
    steps.facts.completion = { formsFollowed: pages.length, stoppedAt };
    await queryAfterCompletion(client, ctx, steps, String(body[FIELD.orderNo]));
    return page;
  },
);
