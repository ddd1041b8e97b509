/**
 * lifecycle: what the stateful scenarios show. Transitions the document leaves unspecified are judged at `expected`
 * (payment invariants) or `profile` level (the profile's states, codes and numbering), never `must`.
 */
import type { Check, CheckContext, Exchange, Observation, OperationKey } from '../../src/model.js';
import type { PAYMENT_STEPS, REVIEW_STEPS } from '../probes/lifecycle.js';
import { type DeclineFacts, declineOutcome, declineRuleOf } from '../../src/profile/choices.js';
import { FIELD } from '../fields.js';
import {
  type Report,
  defineCheck,
  onlyWhen,
  onlyWithSteps,
  outcomeOf,
  stepNamed,
  quote,
  quoted,
  succeeded,
  wrap,
} from '../findings.js';
import {
  batchResults,
  sameValue,
  type CodeMessagePair,
  expectedCodeMessage,
  isObject,
  matchesCodeMessage,
  itemSucceeded,
  operationOf,
  paymentStatusCode,
  queryRecords,
  responseObject,
  stateOfCode,
  statusOf,
  text,
} from '../observe.js';
import { refundRules, refundsMade, stateAfterRefunds } from '../probes/support.js';
import { codeOfState, errorKindOf, sentBody } from './common.js';
import { declinedPayment, tokenPayment } from '../probes/basic.js';
import {
  apmCompletion,
  checkoutCompletion,
  paymentLifecycle,
  payoutLifecycle,
  reviewLifecycle,
} from '../probes/lifecycle.js';

type PaymentStep = keyof typeof PAYMENT_STEPS;
type ReviewStep = keyof typeof REVIEW_STEPS;

/** The single batch result of a scenario step. */
function resultOf(ctx: CheckContext, exchange: Exchange, op: OperationKey): Record<string, unknown> | undefined {
  return batchResults(ctx.spec, op, responseObject(exchange, ctx.spec))?.[0];
}

/** The payment facts of a scenario (`facts.record`, `facts.record2`). */
function recordOf(o: Observation, key: 'record' | 'record2' | 'rejected' = 'record'): Record<string, unknown> {
  return (o.facts[key] as Record<string, unknown> | undefined) ?? {};
}

/** Report unless a query step shows the payment in `state` (the profile's payment_status code). */
function expectState(
  ctx: CheckContext,
  report: Report,
  exchange: Exchange,
  transactionId: unknown,
  state: string,
  requirement: string,
  after: string,
): void {
  const code = codeOfState(ctx, state);
  const [record] = queryRecords(ctx, responseObject(exchange, ctx.spec), { [FIELD.transactionId]: transactionId });
  if (!record) {
    report({
      code: 'RECORD_NOT_FOUND',
      requirement,
      exchange,
      expected: `the payment ${String(transactionId)} after ${after}`,
      received: `${outcomeOf(exchange)} without it`,
    });
  } else if (record[FIELD.paymentStatus] !== code) {
    report({
      code: 'STATUS_VALUE',
      requirement,
      exchange,
      pointer: `/${FIELD.ordersList}`,
      expected: `${FIELD.paymentStatus} ${code} (${state}) after ${after}`,
      received: `${quote(ctx, record[FIELD.paymentStatus])} (${stateOfCode(ctx, record[FIELD.paymentStatus]) ?? 'unknown state'})`,
    });
  }
}

/**
 * Report TRANSITION_REFUSED unless a batch step's item succeeded; true when it did. `shown`: what of the item's
 * result the finding quotes (default: the whole result).
 */
function expectItemSucceeded(
  ctx: CheckContext,
  report: Report,
  exchange: Exchange,
  op: OperationKey,
  requirement: string,
  expected: string,
  shown: (result: Record<string, unknown> | undefined) => unknown = (result) => result,
): boolean {
  const result = resultOf(ctx, exchange, op);
  if (itemSucceeded(ctx, op, result)) return true;
  report({
    code: 'TRANSITION_REFUSED',
    requirement,
    exchange,
    expected,
    received: `${outcomeOf(exchange)}, ${quote(ctx, shown(result))}`,
  });
  return false;
}

/** Report unless a batch step's item failed with the profile's failure for `reason` (`refusal` given: its code and message). */
function expectItemRefused(
  ctx: CheckContext,
  report: Report,
  exchange: Exchange,
  op: OperationKey,
  requirement: string,
  what: string,
  refusal?: { key: string; requirement: string },
): void {
  const batch = operationOf(ctx.spec, op).batch!;
  const result = resultOf(ctx, exchange, op);
  if (succeeded(exchange) && result && itemSucceeded(ctx, op, result)) {
    report({
      code: 'TRANSITION_ALLOWED',
      requirement,
      exchange,
      pointer: `/${batch.orders}/0/${batch.status}`,
      expected: `${what} refused`,
      received: quoted(result[batch.status], 'success '),
    });
    return;
  }
  if (!refusal || !result) return;
  // A failed refund item carries no reference id, or empty ones, as the profile says (refunds.referenceId.failedItems).
  if (op === 'refund') {
    const omitted = ctx.profile.refunds.referenceId.failedItems === 'omitted';
    const id = result[FIELD.refundReferenceId];
    if (omitted ? id !== undefined : id !== '') {
      report({
        code: 'REFERENCE_ID_NUMBERING',
        requirement: refusal.requirement,
        exchange,
        pointer: `/${batch.orders}/0/${FIELD.refundReferenceId}`,
        expected: omitted
          ? 'no refund_reference_id on a failed item (profile)'
          : 'an empty refund_reference_id on a failed item (profile)',
        received: quoted(id),
      });
    }
  }
  const failure = (ctx.profile.batch.itemFailures as Record<string, CodeMessagePair>)[refusal.key];
  if (failure && !matchesCodeMessage(failure, result[batch.message])) {
    report({
      code: 'ITEM_MESSAGE',
      requirement: refusal.requirement,
      exchange,
      pointer: `/${batch.orders}/0/${batch.message}`,
      expected: `${expectedCodeMessage(failure)} (the profile's ${refusal.key})`,
      received: quoted(result[batch.message]),
    });
  }
}

/** The per-item failure the profile gives an operation on a payment in `state`. */
function refusalFor(ctx: CheckContext, op: 'capture' | 'cancel' | 'refund' | 'review', state: string): string {
  const t = ctx.profile.transitions[op];
  return (t.refusals as Record<string, string>)[state] ?? t.otherRefusal;
}

export const queryShowsAuthorisedPayment = wrap(
  defineCheck({
    id: 'queryShowsAuthorisedPayment',
    family: 'lifecycle',
    probe: paymentLifecycle,
    operations: ['retrievalTrans'],
    requirements: ['PAGI-INV-004', 'PAGI-ST-002'],
    description:
      'A payment made through the interface is found by the query with its order_no, amount and currency, in the profile’s approved state.',
    verify(o, ctx, report) {
      const fact = recordOf(o);
      const exchange = o.steps.queryAfterAuthorise!;
      const [record] = queryRecords(ctx, responseObject(exchange, ctx.spec), {
        [FIELD.transactionId]: fact[FIELD.transactionId],
      });
      if (!record) {
        report({
          code: 'RECORD_NOT_FOUND',
          requirement: 'PAGI-INV-004',
          exchange,
          expected: `the payment ${String(fact[FIELD.transactionId])} in the query`,
          received: `${outcomeOf(exchange)} without it`,
        });
        return;
      }
      for (const field of [FIELD.orderNo, FIELD.amount, FIELD.currency]) {
        // Another writing of the same amount or currency (`10.0`, `usd`) is the format checks' to report, not another value.
        if (!sameValue(field, record[field], fact[field])) {
          report({
            code: 'RECORD_MISMATCH',
            requirement: 'PAGI-INV-004',
            exchange,
            pointer: `/${FIELD.ordersList}`,
            expected: `${field} ${quote(ctx, fact[field])} as paid`,
            received: quoted(record[field]),
          });
        }
      }
      expectState(
        ctx,
        report,
        exchange,
        fact[FIELD.transactionId],
        ctx.profile.transitions.afterAuthorise.approved,
        'PAGI-ST-002',
        'an approved payment',
      );
    },
  }),
  onlyWithSteps('queryAfterAuthorise'),
);

/** The query step and the state the profile gives a payment after an operation of the scenario. */
function transitionOf(
  ctx: CheckContext,
  op: OperationKey,
): { step: PaymentStep; state: string; after: string; record: 'record' | 'record2' } | undefined {
  const t = ctx.profile.transitions;
  if (op === 'capture') return { step: 'queryAfterCapture', state: t.capture.to, after: 'capture', record: 'record' };
  if (op === 'refund')
    return refundRules(ctx).partial === true
      ? { step: 'queryAfterRefunds', state: t.refund.toPartial, after: 'a partial refund', record: 'record' }
      : { step: 'queryAfterFullRefund', state: t.refund.toFull, after: 'a refund in full', record: 'record' };
  if (op === 'cancel') return { step: 'queryAfterCancel', state: t.cancel.to, after: 'cancel', record: 'record2' };
  return undefined;
}

export const queryShowsStatusAfterTransitions = wrap(
  defineCheck({
    id: 'queryShowsStatusAfterTransitions',
    family: 'lifecycle',
    probe: paymentLifecycle,
    operations: ['capture', 'refund', 'cancel'],
    requirements: ['PAGI-QRY-007'],
    description:
      'After capture, a partial refund or cancel the query shows the payment_status the profile gives the new state.',
    verify(o, ctx, report) {
      const t = transitionOf(ctx, o.operation)!;
      expectState(
        ctx,
        report,
        o.steps[t.step]!,
        recordOf(o, t.record)[FIELD.transactionId],
        t.state,
        'PAGI-QRY-007',
        t.after,
      );
    },
  }),
  onlyWhen(
    (o, ctx) => {
      const t = transitionOf(ctx, o.operation);
      return !!t && o.steps[t.step] !== undefined;
    },
    (o) =>
      `the scenario stopped before the query after ${o.operation}${o.facts.stoppedBecause ? ` (${String(o.facts.stoppedBecause)})` : ''}`,
  ),
);

export const partialRefundsSucceedTwice = wrap(
  defineCheck({
    id: 'partialRefundsSucceedTwice',
    family: 'lifecycle',
    probe: paymentLifecycle,
    operations: ['refund'],
    requirements: ['PAGI-REF-003'],
    description:
      'A captured payment is refunded in part, twice, as the profile allows (refunds.partial; a second refund where transitions.refund.from holds the partly refunded state); a refund the profile refuses fails with its per-item failure.',
    verify(o, ctx, report) {
      const rules = refundRules(ctx);
      const t = ctx.profile.transitions.refund;
      const part = String((o.facts.refunds as string[] | undefined)?.[0]);
      // What the profile says of each partial refund: it succeeds, or it fails with this failure.
      const plan: ['refund1' | 'refund2', true | string][] =
        rules.partial !== true
          ? [['refund1', rules.partial]]
          : [
              ['refund1', true],
              ['refund2', rules.repeated || refusalFor(ctx, 'refund', t.toPartial)],
            ];
      for (const [step, outcome] of plan) {
        const exchange = o.steps[step];
        if (!exchange) {
          report({
            code: 'TRANSITION_REFUSED',
            requirement: 'PAGI-REF-003',
            expected: `${step} (a partial refund) to be sent`,
            received: String(o.facts.stoppedBecause ?? 'the scenario stopped before it'),
          });
          continue;
        }
        if (outcome === true)
          expectItemSucceeded(
            ctx,
            report,
            exchange,
            'refund',
            'PAGI-REF-003',
            `${step} (a partial refund of ${part}) to succeed`,
            (r) => r?.[FIELD.refundReferenceId] ?? r,
          );
        else
          expectItemRefused(
            ctx,
            report,
            exchange,
            'refund',
            'PAGI-REF-003',
            `${step} (a partial refund of ${part}; the profile: ${rules.partial === true ? 'no refund of a partly refunded payment' : `refunds.partial ${rules.partial}`})`,
            { key: outcome, requirement: 'PAGI-REF-003' },
          );
      }
    },
  }),
  onlyWithSteps('capture'),
);

export const overRefundRefused = wrap(
  defineCheck({
    id: 'overRefundRefused',
    family: 'lifecycle',
    probe: paymentLifecycle,
    operations: ['refund'],
    requirements: ['PAGI-INV-001', 'PAGI-BAT-008'],
    description: 'Refunds never add up to more than the captured amount: one more cent than what remains is refused.',
    verify(o, ctx, report) {
      // A payment the profile refunds no further (partly refunded, not in transitions.refund.from) is refused for its
      // state or for the amount, whichever batch.checkOrder checks first.
      const state = stateAfterRefunds(ctx);
      const refusable = (ctx.profile.transitions.refund.from as string[]).includes(state);
      expectItemRefused(
        ctx,
        report,
        o.steps.overRefund!,
        'refund',
        'PAGI-INV-001',
        `a refund of ${String(o.facts.overRefund)} (more than remains)`,
        {
          key: refusable ? 'overRefund' : stateOrOverAmount(ctx, 'refund', state, 'overRefund'),
          requirement: 'PAGI-BAT-008',
        },
      );
    },
  }),
  onlyWithSteps('overRefund'),
);

/** The reference id the profile gives the n-th refund of a transaction. */
function expectedReferenceId(ctx: CheckContext, transactionId: string, n: number): string {
  const r = ctx.profile.refunds.referenceId;
  return `${transactionId}-${String(r.sequenceStart + n).padStart(2, '0')}`;
}

export const refundReferenceIdsNumberedPerProfile = wrap(
  defineCheck({
    id: 'refundReferenceIdsNumberedPerProfile',
    family: 'lifecycle',
    probe: paymentLifecycle,
    operations: ['refund'],
    requirements: ['PAGI-REF-004'],
    description:
      'Successive refunds of a transaction get distinct refund_reference_id numbers as the profile numbers them, and the refund_reference the profile says.',
    verify(o, ctx, report) {
      const tx = String(recordOf(o)[FIELD.transactionId]);
      refundsMade(ctx).forEach((step, n) => {
        const exchange = o.steps[step]!;
        const result = resultOf(ctx, exchange, 'refund');
        const got = result?.[FIELD.refundReferenceId];
        const expected = expectedReferenceId(ctx, tx, n);
        if (got !== expected)
          report({
            code: 'REFERENCE_ID_NUMBERING',
            requirement: 'PAGI-REF-004',
            exchange,
            pointer: `/${FIELD.refundOrders}/0/${FIELD.refundReferenceId}`,
            expected,
            received: quoted(got),
          });
        // refund_reference: the reference id itself, or an opaque non-empty value of the gateway (refunds.reference).
        const reference = result?.[FIELD.refundReference];
        const same = ctx.profile.refunds.reference === 'sameAsReferenceId';
        if (same ? reference !== got : typeof reference !== 'string' || reference === '') {
          report({
            code: 'REFERENCE_ID_NUMBERING',
            requirement: 'PAGI-REF-004',
            exchange,
            pointer: `/${FIELD.refundOrders}/0/${FIELD.refundReference}`,
            expected: same
              ? `${FIELD.refundReference} equal to ${FIELD.refundReferenceId} (profile)`
              : `a non-empty ${FIELD.refundReference} (profile: opaque)`,
            received: quoted(reference),
          });
        }
      });
    },
  }),
  onlyWhen(
    (o, ctx) => refundsMade(ctx).every((step) => o.steps[step] !== undefined),
    (o, ctx) =>
      `the scenario stopped before ${refundsMade(ctx).join(' and ')}${o.facts.stoppedBecause ? ` (${String(o.facts.stoppedBecause)})` : ''}`,
  ),
);

/** The refund search step to judge and the refund steps it must show. */
function searchedRefunds(o: Observation<PaymentStep>, ctx: CheckContext): [Exchange, PaymentStep[]] {
  const before = refundsMade(ctx, true);
  return before.length ? [o.steps.refundSearch!, before] : [o.steps.refundSearchAfterFull!, refundsMade(ctx)];
}

export const refundSearchShowsEveryRefund = wrap(
  defineCheck({
    id: 'refundSearchShowsEveryRefund',
    family: 'lifecycle',
    probe: paymentLifecycle,
    operations: ['retrievalRefund'],
    requirements: ['PAGI-INV-005', 'PAGI-RFS-003', 'PAGI-REF-004'],
    description:
      'Refund search shows the refunds made before it (two partial ones where the profile allows them, else the refund in full) with the reference ids and amounts they were answered with, each -NN distinct.',
    verify(o, ctx, report) {
      // Where the profile refunds only whole amounts, the search after the refund in full.
      const [search, made] = searchedRefunds(o, ctx);
      const list = responseObject(search, ctx.spec)?.[FIELD.refundOrders];
      const items = Array.isArray(list) ? list.filter(isObject) : [];
      const ids: unknown[] = [];
      const claimed = new Set<Record<string, unknown>>();
      for (const step of made) {
        const refund = resultOf(ctx, o.steps[step]!, 'refund');
        const id = refund?.[FIELD.refundReferenceId];
        const amount = refund?.[FIELD.refundAmount];
        ids.push(id);
        const shown = items.find((i) => id !== undefined && i[FIELD.refundReferenceId] === id);
        if (shown) claimed.add(shown);
        if (!shown) {
          // Shown under another reference id (same transaction and amount): the refund is there, its id is not.
          const other = items.find(
            (i) =>
              !claimed.has(i) &&
              i[FIELD.transactionId] === refund?.[FIELD.transactionId] &&
              sameValue(FIELD.refundAmount, i[FIELD.refundAmount], amount),
          );
          if (other) claimed.add(other);
          report({
            code: 'RECORD_NOT_FOUND',
            requirement: other ? 'PAGI-RFS-003' : 'PAGI-INV-005',
            exchange: search,
            pointer: `/${FIELD.refundOrders}`,
            expected: `the refund ${quote(ctx, id)} of ${step}`,
            received: other
              ? `a refund of the same transaction and amount under ${FIELD.refundReferenceId} ${quote(ctx, other[FIELD.refundReferenceId])}`
              : `${items.length} refund(s) without it`,
          });
        } else if (shown[FIELD.refundAmount] !== amount) {
          // Another number is another amount of money; another writing of the same amount only breaks the echo.
          const same = sameValue(FIELD.refundAmount, shown[FIELD.refundAmount], amount);
          report({
            code: 'RECORD_MISMATCH',
            requirement: same ? 'PAGI-RFS-003' : 'PAGI-INV-005',
            exchange: search,
            pointer: `/${FIELD.refundOrders}/${items.indexOf(shown)}/${FIELD.refundAmount}`,
            expected: `${FIELD.refundAmount} ${quote(ctx, amount)}`,
            received: quoted(shown[FIELD.refundAmount]),
          });
        }
      }
      if (ids.length > 1 && ids[0] !== undefined && ids[0] === ids[1]) {
        report({
          code: 'REFERENCE_ID_NUMBERING',
          requirement: 'PAGI-REF-004',
          exchange: o.steps.refund2,
          expected: 'distinct refund_reference_id values',
          received: quoted(ids[0], 'both '),
        });
      }
    },
  }),
  onlyWithSteps('refundSearch'),
  onlyWhen(
    (o, ctx) => {
      const [search, made] = searchedRefunds(o, ctx);
      return search !== undefined && made.length > 0 && made.every((s) => o.steps[s] !== undefined);
    },
    (o) =>
      `the scenario stopped before the refunds and their search${o.facts.stoppedBecause ? ` (${String(o.facts.stoppedBecause)})` : ''}`,
  ),
);

export const cancelAfterRefundRefused = wrap(
  defineCheck({
    id: 'cancelAfterRefundRefused',
    family: 'lifecycle',
    probe: paymentLifecycle,
    operations: ['cancel'],
    requirements: ['PAGI-CNL-003'],
    description:
      "A payment can be cancelled only before capture: cancelling a captured, partly refunded payment is refused with the profile's failure.",
    verify(o, ctx, report) {
      const state = stateAfterRefunds(ctx);
      const key = refusalFor(ctx, 'cancel', state);
      expectItemRefused(
        ctx,
        report,
        o.steps.cancelAfterRefunds!,
        'cancel',
        'PAGI-CNL-003',
        `a cancel of a ${state} payment`,
        { key, requirement: 'PAGI-CNL-003' },
      );
    },
  }),
  onlyWithSteps('cancelAfterRefunds'),
  onlyWhen(
    (_, ctx) => !(ctx.profile.transitions.cancel.from as string[]).includes(stateAfterRefunds(ctx)),
    (_, ctx) => `the profile allows cancel of a ${stateAfterRefunds(ctx)} payment`,
  ),
);

export const overCaptureRefused = wrap(
  defineCheck({
    id: 'overCaptureRefused',
    family: 'lifecycle',
    probe: paymentLifecycle,
    operations: ['capture'],
    requirements: ['PAGI-INV-002', 'PAGI-CAP-002', 'PAGI-BAT-008'],
    description: 'A capture never takes more than the authorised amount: a capture of one unit more is refused.',
    verify(o, ctx, report) {
      // Capturing an amount of one's own: over the authorised amount, which no gateway may accept; where the profile
      // says an item carries the original amount, an item with another amount is refused as its transitions say.
      const ownAmount = ctx.profile.transitions.capture.itemAmount === 'operationAmount';
      const key = ownAmount ? 'overCapture' : 'amountMismatch';
      expectItemRefused(
        ctx,
        report,
        o.steps.overCapture!,
        'capture',
        ownAmount ? 'PAGI-INV-002' : 'PAGI-CAP-002',
        'a capture above the authorised amount',
        { key, requirement: 'PAGI-BAT-008' },
      );
    },
  }),
  onlyWithSteps('overCapture'),
);

export const cancelledPaymentNotCapturable = wrap(
  defineCheck({
    id: 'cancelledPaymentNotCapturable',
    family: 'lifecycle',
    probe: paymentLifecycle,
    operations: ['capture', 'cancel'],
    requirements: ['PAGI-CNL-002', 'PAGI-BAT-008'],
    description: 'A cancelled payment cannot be captured.',
    verify(o, ctx, report) {
      expectItemRefused(
        ctx,
        report,
        o.steps.captureAfterCancel!,
        'capture',
        'PAGI-CNL-002',
        'a capture of a cancelled payment',
        { key: refusalFor(ctx, 'capture', ctx.profile.transitions.cancel.to), requirement: 'PAGI-BAT-008' },
      );
    },
  }),
  onlyWithSteps('captureAfterCancel'),
);

/** The per-item failure an item with a refused state and an amount over what remains gets: whichever the profile checks first. */
function stateOrOverAmount(ctx: CheckContext, op: 'capture' | 'refund', state: string, over: string): string {
  const order = ctx.profile.batch.checkOrder as string[];
  const overFirst = order.includes('overAmount') && order.indexOf('overAmount') < order.indexOf('state');
  return overFirst ? over : refusalFor(ctx, op, state);
}

export const capturedPaymentNotCapturedAgain = wrap(
  defineCheck({
    id: 'capturedPaymentNotCapturedAgain',
    family: 'lifecycle',
    probe: paymentLifecycle,
    operations: ['capture'],
    requirements: ['PAGI-PRF-007'],
    description:
      "A captured payment, and one partly refunded, cannot be captured again: each capture is refused with the profile's failure for that state (transitions.capture.refusals, otherRefusal).",
    verify(o, ctx, report) {
      const t = ctx.profile.transitions;
      const cases: [PaymentStep, string][] = [
        ['captureAgain', t.capture.to],
        ['captureAfterRefunds', stateAfterRefunds(ctx)],
      ];
      const judged = cases.filter(([step, state]) => o.steps[step] && !(t.capture.from as string[]).includes(state));
      if (!judged.length) return { notApplicable: `the profile allows capture from ${t.capture.from.join(', ')}` };
      for (const [step, state] of judged) {
        const exchange = o.steps[step]!;
        expectItemRefused(ctx, report, exchange, 'capture', 'PAGI-PRF-007', `a capture of a ${state} payment`, {
          key: refusalFor(ctx, 'capture', state),
          requirement: 'PAGI-PRF-007',
        });
      }
    },
  }),
  onlyWithSteps('captureAgain'),
);

export const fullRefundSettlesPayment = wrap(
  defineCheck({
    id: 'fullRefundSettlesPayment',
    family: 'lifecycle',
    probe: paymentLifecycle,
    operations: ['refund'],
    requirements: ['PAGI-QRY-007', 'PAGI-PRF-007'],
    description:
      "Refunding the rest of a partly refunded payment succeeds and the query shows the profile's fully refunded payment_status; one more refund is refused with the profile's failure.",
    verify(o, ctx, report) {
      const t = ctx.profile.transitions.refund;
      const rest = o.steps.refundRest!;
      if (
        !expectItemSucceeded(
          ctx,
          report,
          rest,
          'refund',
          'PAGI-QRY-007',
          `the refund of the rest (${String(o.facts.fullRefund)}) to succeed`,
        )
      )
        return;
      const tx = recordOf(o)[FIELD.transactionId];
      if (o.steps.queryAfterFullRefund)
        expectState(ctx, report, o.steps.queryAfterFullRefund, tx, t.toFull, 'PAGI-QRY-007', 'a refund in full');
      const after = o.steps.refundAfterFull;
      if (after && !(t.from as string[]).includes(t.toFull)) {
        expectItemRefused(ctx, report, after, 'refund', 'PAGI-PRF-007', `a refund of a ${t.toFull} payment`, {
          key: stateOrOverAmount(ctx, 'refund', t.toFull, 'overRefund'),
          requirement: 'PAGI-PRF-007',
        });
      }
    },
  }),
  onlyWithSteps('refundRest'),
);

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

export const payoutFailureReported = wrap(
  defineCheck({
    id: 'payoutFailureReported',
    family: 'lifecycle',
    probe: payoutLifecycle,
    operations: ['payout'],
    requirements: ['PAGI-PO-005', 'PAGI-PO-008'],
    description:
      "A payout the profile's failure rule matches fails with the profile's status and failure_type, and a failure_reason.",
    verify(o, ctx, report) {
      const exchange = o.steps.failing!;
      const rule = o.facts.failureRule as { failureType: string; failureReason: string };
      const body = responseObject(exchange, ctx.spec);
      const failed = ctx.profile.statusValues.payout_status.failed;
      if (!body || !succeeded(exchange)) {
        report({
          code: 'PAYOUT_FAILURE',
          requirement: 'PAGI-PO-008',
          exchange,
          expected: `a payout answer with ${FIELD.payoutStatus} ${failed} (profile's failure rule)`,
          received: outcomeOf(exchange),
        });
        return;
      }
      if (body[FIELD.payoutStatus] !== ctx.profile.statusValues.payout_status.completed) {
        for (const field of [FIELD.failureReason, FIELD.failureType]) {
          if (typeof body[field] !== 'string' || body[field] === '') {
            report({
              code: 'PAYOUT_FAILURE',
              requirement: 'PAGI-PO-005',
              exchange,
              pointer: `/${field}`,
              expected: `a non-empty ${field} for a failed payout`,
              received: quoted(body[field]),
            });
          }
        }
      }
      const expected: [string, string][] = [
        [FIELD.payoutStatus, failed],
        [FIELD.failureType, rule.failureType],
        [FIELD.failureReason, rule.failureReason],
      ];
      for (const [field, value] of expected) {
        if (body[field] !== value)
          report({
            code: 'PAYOUT_FAILURE',
            requirement: 'PAGI-PO-008',
            exchange,
            pointer: `/${field}`,
            expected: `${field} ${JSON.stringify(value)} (profile)`,
            received: quoted(body[field]),
          });
      }
      const types = ctx.profile.payout.failureTypes;
      if (body[FIELD.failureType] !== rule.failureType && !types.includes(body[FIELD.failureType] as string)) {
        report({
          code: 'PAYOUT_FAILURE',
          requirement: 'PAGI-PO-008',
          exchange,
          pointer: `/${FIELD.failureType}`,
          expected: `one of the profile's failure types ${types.join(', ')}`,
          received: quoted(body[FIELD.failureType]),
        });
      }
    },
  }),
  onlyWhen(
    (o) => o.steps.failing !== undefined,
    (o) => String(o.facts.noFailureRule ?? 'no failing payout was sent'),
  ),
);

export const payoutReplayIdempotent = wrap(
  defineCheck({
    id: 'payoutReplayIdempotent',
    family: 'lifecycle',
    probe: payoutLifecycle,
    operations: ['payout'],
    requirements: ['PAGI-PO-007'],
    description:
      'A payout replayed with the same request_id gets the first answer again (no second payout); a changed replay the profile’s answer.',
    verify(o, ctx, report) {
      const first = responseObject(o.steps.first, ctx.spec);
      const replay = responseObject(o.steps.replay, ctx.spec);
      if (JSON.stringify(first) !== JSON.stringify(replay)) {
        report({
          code: 'REPLAY_DIFFERS',
          requirement: 'PAGI-PO-007',
          exchange: o.steps.replay,
          expected: `the first answer again (${FIELD.transactionId} ${quote(ctx, first?.[FIELD.transactionId])})`,
          received: `${outcomeOf(o.steps.replay)} with ${FIELD.transactionId} ${quote(ctx, replay?.[FIELD.transactionId])}`,
        });
      }
      const changed = o.steps.replayChanged;
      if (!changed) return;
      if (ctx.profile.payout.replayWithDifferentBody === 'invalidInput') {
        // Refused as invalid input, in a refusal form the profile declares for the payout.
        const kind =
          statusOf(changed) === ctx.profile.errors.kinds.invalidInput.status
            ? 'invalidInput'
            : errorKindOf(ctx, changed, 'payout');
        if (kind !== 'invalidInput') {
          report({
            code: 'REPLAY_DIFFERS',
            requirement: 'PAGI-PO-007',
            exchange: changed,
            expected: `the profile's invalidInput refusal (HTTP ${ctx.profile.errors.kinds.invalidInput.status}, or the payout's refusal form) for the same request_id with another ${String(o.facts.changedField)}`,
            received: outcomeOf(changed),
          });
        }
      } else if (text(responseObject(changed, ctx.spec), FIELD.transactionId) !== first?.[FIELD.transactionId]) {
        report({
          code: 'REPLAY_DIFFERS',
          requirement: 'PAGI-PO-007',
          exchange: changed,
          expected: 'the first answer again',
          received: outcomeOf(changed),
        });
      }
    },
  }),
  onlyWithSteps('first', 'replay'),
  onlyWhen(
    (o) => succeeded(o.steps.first),
    (o) => `the first payout was not answered with success (${outcomeOf(o.steps.first)})`,
  ),
);

/** What a sent payment shows the profile's decline rules (its card number, security code, e-mail and amount). */
function declineFacts(ctx: CheckContext, sent: Record<string, unknown>): DeclineFacts {
  const card = ctx.profile.fields.card;
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return {
    cardNumber: text(sent[card.number]),
    securityCode: text(sent[card.securityCode]),
    shopperEmail: sent[FIELD.shopperEmail],
    amount: sent[FIELD.amount],
  };
}

export const declinedCardDeclinedPerProfile = defineCheck({
  id: 'declinedCardDeclinedPerProfile',
  family: 'lifecycle',
  probe: declinedPayment,
  operations: ['authoriseDirect'],
  requirements: ['PAGI-PAY-013'],
  description:
    "A payment with the decline test card, and one per decline rule of the profile (card, security code, e-mail, amount), is answered with the profile's declined order_status, and the result_info and risk_action of the rule that declines it.",
  verify(o, ctx, report) {
    const declined = ctx.profile.statusValues.order_status.declined;
    const payments: [Exchange, string][] = [
      [o.main, 'the decline test card'],
      ...((o.facts.rules ?? []) as { step: string; trigger: string }[]).map((r): [Exchange, string] => [
        stepNamed(o, r.step)!,
        `the ${r.trigger} decline rule`,
      ]),
    ];
    for (const [exchange, what] of payments) {
      const body = responseObject(exchange, ctx.spec);
      // The first rule the payment triggers decides its decline, and may word it its own way (a fraud decline).
      const rule = declineRuleOf(ctx.profile, declineFacts(ctx, sentBody(exchange)));
      const { resultInfo: info, riskAction: action } = declineOutcome(ctx.profile, rule);
      const [trigger, value] = rule ? Object.entries(rule)[0]! : [];
      const which =
        rule?.resultInfo || rule?.riskAction ? `declined by the ${trigger} ${JSON.stringify(value)} rule` : 'declined';
      if (body?.[FIELD.orderStatus] !== declined) {
        report({
          code: 'STATUS_VALUE',
          requirement: 'PAGI-PAY-013',
          exchange,
          pointer: `/${FIELD.orderStatus}`,
          expected: `${FIELD.orderStatus} ${JSON.stringify(declined)} (profile: declined) for ${what}`,
          received: body ? quoted(body[FIELD.orderStatus]) : outcomeOf(exchange),
        });
      }
      if (!matchesCodeMessage(info, body?.[FIELD.resultInfo])) {
        report({
          code: 'STATUS_VALUE',
          requirement: 'PAGI-PAY-013',
          exchange,
          pointer: `/${FIELD.resultInfo}`,
          expected: `${FIELD.resultInfo} ${expectedCodeMessage(info)} (profile: ${which}) for ${what}`,
          received: body ? quoted(body[FIELD.resultInfo]) : outcomeOf(exchange),
        });
      }
      const query = exchange === o.main ? o.steps.query : undefined;
      if (query)
        expectState(
          ctx,
          report,
          query,
          body?.[FIELD.transactionId],
          ctx.profile.transitions.afterAuthorise.declined,
          'PAGI-PAY-013',
          'a declined payment',
        );
      if (body?.risk_action !== undefined && body.risk_action !== action) {
        report({
          code: 'STATUS_VALUE',
          requirement: 'PAGI-PAY-013',
          exchange,
          pointer: '/risk_action',
          expected: `risk_action ${JSON.stringify(action)} (profile: ${which}) for ${what}`,
          received: quoted(body.risk_action),
        });
      }
    }
  },
});

export const tokenPaymentSucceeds = defineCheck({
  id: 'tokenPaymentSucceeds',
  family: 'lifecycle',
  probe: tokenPayment,
  operations: ['authoriseDirect'],
  requirements: ['PAGI-PAY-010'],
  description:
    "A payment with the profile's token_flag gets a token_id, and a payment by that token without card fields is approved.",
  verify(o, ctx, report) {
    const first = o.steps.tokenise!;
    const token = text(responseObject(first, ctx.spec), FIELD.tokenId);
    if (!token) {
      report({
        code: 'RESULT_MISSING',
        requirement: 'PAGI-PAY-010',
        exchange: first,
        pointer: `/${FIELD.tokenId}`,
        expected: `a ${FIELD.tokenId} for ${FIELD.tokenFlag} ${JSON.stringify(ctx.profile.payments.token.requestValue)}`,
        received: outcomeOf(first),
      });
      return;
    }
    const second = o.steps.byToken!;
    const status = responseObject(second, ctx.spec)?.[FIELD.orderStatus];
    if (status !== ctx.profile.statusValues.order_status.approved) {
      report({
        code: 'STATUS_VALUE',
        requirement: 'PAGI-PAY-010',
        exchange: second,
        pointer: `/${FIELD.orderStatus}`,
        expected: `the payment by ${FIELD.tokenId} approved`,
        received: `${outcomeOf(second)}, ${FIELD.orderStatus} ${quote(ctx, status)}`,
      });
    }
  },
});

/** Why a page flow could not be judged, or undefined when it could. */
function flowGap(o: Observation): string | undefined {
  if (typeof o.facts.cannotFollow === 'string') return o.facts.cannotFollow;
  return undefined;
}

export const issuerUrlRequestable = wrap(
  defineCheck({
    id: 'issuerUrlRequestable',
    family: 'lifecycle',
    probe: apmCompletion,
    operations: ['authoriseApm'],
    requirements: ['PAGI-APM-003'],
    description: 'The issuer_url of an APM payment can be requested again and leads to a page.',
    verify(o, ctx, report) {
      const url = text(responseObject(o.main, ctx.spec), FIELD.issuerUrl);
      if (!url)
        return { notApplicable: `the payment answer has no ${FIELD.issuerUrl}; responseMatchesSchema reports it` };
      const page = o.steps.issuerPage!;
      if (!page.response || page.response.status >= 400) {
        report({
          code: 'PAGE_NOT_SERVED',
          requirement: 'PAGI-APM-003',
          exchange: page,
          expected: `${FIELD.issuerUrl} answered with a page`,
          received: outcomeOf(page),
        });
      }
    },
  }),
  onlyOnSuccessOf('payment'),
  onlyWhen(
    (o) => flowGap(o) === undefined,
    (o) => flowGap(o)!,
  ),
);

/** Not applicable unless a step got a 2xx answer. */
function onlyOnSuccessOf(step: string) {
  return onlyWhen(
    (o) => succeeded(o.steps[step]),
    (o) => `the ${step} step was not answered with success (${outcomeOf(o.steps[step])})`,
  );
}

/** Report unless the scenario's query shows the order's payment in `state` (the profile's state of a paid payment). */
function expectCompleted(
  ctx: CheckContext,
  report: Report,
  o: Observation<'query'>,
  requirement: string,
  state: string,
): void | { notApplicable: string } {
  if (typeof o.facts.cannotQuery === 'string') return { notApplicable: o.facts.cannotQuery };
  const completion = o.facts.completion as { formsFollowed: number; stoppedAt: string } | undefined;
  if (!completion || completion.formsFollowed === 0) {
    return {
      notApplicable: `the page offers no form the kit can submit as the shopper (stopped at ${completion?.stoppedAt ?? 'the first page'}); how it is completed is the gateway's`,
    };
  }
  const query = o.steps.query!;
  const [record] = queryRecords(ctx, responseObject(query, ctx.spec), { [FIELD.orderNo]: o.facts.orderNo });
  const code = paymentStatusCode(ctx, state);
  if (!record || record[FIELD.paymentStatus] !== code) {
    report({
      code: 'PAYMENT_NOT_COMPLETED',
      requirement,
      exchange: query,
      expected: `order ${String(o.facts.orderNo)} ${state} (${String(code)}) after ${completion.formsFollowed} form(s) submitted`,
      received: record ? `${FIELD.paymentStatus} ${quote(ctx, record[FIELD.paymentStatus])}` : 'no such payment',
    });
  }
}

export const apmPaymentCompletedViaIssuerPage = wrap(
  defineCheck({
    id: 'apmPaymentCompletedViaIssuerPage',
    family: 'lifecycle',
    probe: apmCompletion,
    operations: ['authoriseApm'],
    requirements: ['PAGI-APM-008'],
    description:
      'Completing the issuer page (submitting its forms as the shopper) completes the APM payment, as the query shows.',
    verify(o, ctx, report) {
      // The profile says which state a paid APM payment reaches (settled at once or authorised).
      return expectCompleted(ctx, report, o, 'PAGI-APM-008', ctx.profile.transitions.afterIssuerPage.paid);
    },
  }),
  onlyOnSuccessOf('payment'),
  onlyWhen(
    (o) => flowGap(o) === undefined,
    (o) => flowGap(o)!,
  ),
  onlyWithSteps('issuerPage'),
);

export const apmPaymentDeclinedViaIssuerPage = wrap(
  defineCheck({
    id: 'apmPaymentDeclinedViaIssuerPage',
    family: 'lifecycle',
    probe: apmCompletion,
    operations: ['authoriseApm'],
    requirements: ['PAGI-APM-008'],
    description:
      "Declining on the issuer page (its declining button) leaves the APM payment in the profile's declined state, as the query shows.",
    verify(o, ctx, report) {
      if (typeof o.facts.cannotQuery === 'string') return { notApplicable: o.facts.cannotQuery };
      const completion = o.facts.declineCompletion as { formsFollowed: number; stoppedAt: string } | undefined;
      if (!completion || completion.formsFollowed === 0) {
        return {
          notApplicable: `the issuer page offers no declining button the kit can press as the shopper (stopped at ${completion?.stoppedAt ?? 'the payment'})`,
        };
      }
      const state = ctx.profile.transitions.afterIssuerPage.declined;
      const query = o.steps.declinedQuery!;
      const [record] = queryRecords(ctx, responseObject(query, ctx.spec), { [FIELD.orderNo]: o.facts.declinedOrderNo });
      const code = paymentStatusCode(ctx, state);
      if (!record) {
        report({
          code: 'RECORD_NOT_FOUND',
          requirement: 'PAGI-APM-008',
          exchange: query,
          expected: `order ${String(o.facts.declinedOrderNo)} ${state} (${String(code)}) after the shopper declined on the issuer page`,
          received: `${outcomeOf(query)} without it`,
        });
      } else if (record[FIELD.paymentStatus] !== code) {
        report({
          code: 'STATUS_VALUE',
          requirement: 'PAGI-APM-008',
          exchange: query,
          pointer: `/${FIELD.ordersList}`,
          expected: `order ${String(o.facts.declinedOrderNo)} ${state} (${String(code)}) after the shopper declined on the issuer page`,
          received: `${FIELD.paymentStatus} ${quote(ctx, record[FIELD.paymentStatus])}`,
        });
      }
    },
  }),
  onlyWhen(
    (o) => succeeded(o.steps.declinedPayment),
    (o) => `the second APM payment was not answered with success (${outcomeOf(o.steps.declinedPayment)})`,
  ),
  onlyWhen(
    (o) => flowGap(o) === undefined,
    (o) => flowGap(o)!,
  ),
  onlyWithSteps('declinedIssuerPage', 'declinedQuery'),
);

export const checkoutPostBackCompletesPayment = wrap(
  defineCheck({
    id: 'checkoutPostBackCompletesPayment',
    family: 'lifecycle',
    probe: checkoutCompletion,
    operations: ['checkout'],
    requirements: ['PAGI-CHK-011'],
    description:
      'Posting the checkout form back and paying on the hosted page completes the payment, as the query shows.',
    verify(o, ctx, report) {
      return expectCompleted(ctx, report, o, 'PAGI-CHK-011', ctx.profile.transitions.afterAuthorise.approved);
    },
  }),
  onlyOnSuccessOf('checkout'),
  onlyWhen(
    (o) => flowGap(o) === undefined,
    (o) => flowGap(o)!,
  ),
);

/** The lifecycle family, in report order. */
export const LIFECYCLE_CHECKS: readonly Check[] = [
  queryShowsAuthorisedPayment,
  queryShowsStatusAfterTransitions,
  partialRefundsSucceedTwice,
  overRefundRefused,
  refundReferenceIdsNumberedPerProfile,
  refundSearchShowsEveryRefund,
  cancelAfterRefundRefused,
  overCaptureRefused,
  cancelledPaymentNotCapturable,
  capturedPaymentNotCapturedAgain,
  fullRefundSettlesPayment,
  flaggedPaymentSettledByReview,
  settledPaymentReviewedPerProfile,
  rejectingReviewSettlesPayment,
  payoutFailureReported,
  payoutReplayIdempotent,
  declinedCardDeclinedPerProfile,
  tokenPaymentSucceeds,
  issuerUrlRequestable,
  apmPaymentCompletedViaIssuerPage,
  apmPaymentDeclinedViaIssuerPage,
  checkoutPostBackCompletesPayment,
];
