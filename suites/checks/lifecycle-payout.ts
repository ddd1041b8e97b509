/** lifecycle, the payout scenario (`payoutLifecycle`): a payout the profile's failure rule matches, and replays. */
import { ifStated } from '../../core/profile/reads.js';
import { FIELD } from '../fields.js';
import { defineCheck, onlyWhen, onlyWithSteps, outcomeOf, quote, quoted, succeeded, wrap } from '../findings.js';
import { responseObject, statusOf, text } from '../observe.js';
import { errorKindOf } from './common.js';
import { payoutLifecycle } from '../probes/lifecycle.js';

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
      const rule = o.facts.failureRule!;
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
      // The rule's type is one of the failure types (a consistency rule of the format); another answered type is
      // judged against them, which a profile may leave unstated (reading them then says the check is not judged).
      const stated = ifStated(() => ctx.profile.payout.failureTypes);
      const types = () => stated ?? ctx.profile.payout.failureTypes;
      if (body[FIELD.failureType] !== rule.failureType && !types().includes(body[FIELD.failureType] as string)) {
        report({
          code: 'PAYOUT_FAILURE',
          requirement: 'PAGI-PO-008',
          exchange,
          pointer: `/${FIELD.failureType}`,
          expected: `one of the profile's failure types ${types().join(', ')}`,
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
