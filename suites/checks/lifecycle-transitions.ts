/**
 * lifecycle, the payment scenario (`paymentLifecycle`): capture, partial and full refunds, refund search, cancel, and
 * the transitions the profile refuses (over-capture, over-refund, capture of a cancelled payment, ...).
 */
import type { CheckContext, Exchange, Observation, OperationKey } from '../../core/model.js';
import { FIELD } from '../fields.js';
import { defineCheck, onlyWhen, onlyWithSteps, outcomeOf, quote, quoted, wrap } from '../findings.js';
import { sameValue, isObject, queryRecords, responseObject } from '../observe.js';
import { refundRules, refundsMade, stateAfterRefunds } from '../probes/support.js';
import { paymentLifecycle } from '../probes/lifecycle.js';
import {
  type PaymentStep,
  expectItemRefused,
  expectItemSucceeded,
  expectState,
  recordOf,
  refusalFor,
  resultOf,
  stateOrOverAmount,
} from './lifecycle-common.js';

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
      const part = String(o.facts.refunds?.[0]);
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
    operations: { requirement: 'PAGI-RFS-003', within: 'selecting' },
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
    operations: { requirement: 'PAGI-CNL-002' },
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
