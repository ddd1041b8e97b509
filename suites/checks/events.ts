/**
 * events: a payment carrying notify_url (direct, APM, checkout) and a payout each bring at least one notification
 * within the configured wait (must); method, body and signature as the profile says, and retries of an
 * unacknowledged notification as the profile schedules them (profile).
 */
import type { CheckContext, Exchange, Observation, OperationKey } from '../../core/model.js';
import { expectedNotificationFields, notificationSchemaValidator } from '../../core/profile/notification-shape.js';
import { valueAt } from '../../core/spec/pointer.js';
import { FIELD } from '../fields.js';
import { defineCheck, stepEntries, onlyWhen, quoted, wrap, type Report } from '../findings.js';
import { formatOfMediaType, headerOf, isObject, responseObject } from '../observe.js';
import { retryDelays } from '../probes/events.js';
import { notificationRetry, notified } from '../probes/events.js';
import { ProfileError } from '../../core/types/errors.js';

/** The notifications a probe received, in arrival order. */
function notificationsOf(o: Observation): Exchange[] {
  return stepEntries(o)
    .filter(([name]) => /^notification[0-9]*$/.test(name))
    .map(([, x]) => x)
    .sort((a, b) => a.startedAt.localeCompare(b.startedAt));
}

export const notificationDelivered = defineCheck({
  id: 'notificationDelivered',
  family: 'events',
  probe: notified,
  operations: { requirement: 'PAGI-EVT-001' },
  requirements: ['PAGI-EVT-001'],
  description:
    'A payment or payout carrying notify_url brings at least one notification to that URL within the configured wait.',
  verify(o, ctx, report) {
    if (typeof o.facts.cannotComplete === 'string')
      return { notApplicable: `the ${o.operation} payment is completed by the shopper, and ${o.facts.cannotComplete}` };
    if (
      (o.operation === 'authoriseApm' || o.operation === 'checkout') &&
      !o.facts.formsFollowed &&
      notificationsOf(o).length === 0
    ) {
      return {
        notApplicable: `the ${o.operation} payment could not be completed by the kit and brought no notification before completion`,
      };
    }
    if (notificationsOf(o).length === 0) {
      report({
        code: 'NOTIFICATION_MISSING',
        requirement: 'PAGI-EVT-001',
        expected: `a notification for ${String(o.facts.key)} within ${ctx.config.notifyWaitMs} ms`,
        received: 'none',
      });
    }
  },
});

export const notificationFollowsProfile = wrap(
  defineCheck({
    id: 'notificationFollowsProfile',
    family: 'events',
    probe: notified,
    operations: { requirement: 'PAGI-EVT-002' },
    requirements: ['PAGI-EVT-002'],
    description:
      "Notifications use the profile's method, body media type and signature, and a body in the gateway's own shape follows the profile's schema and template.",
    verify(o, ctx, report) {
      reportFlood(o, 'PAGI-EVT-002', report);
      const n = ctx.profile.notifications;
      const kind = Object.values(n.kinds).find((k) => (k.sentAfter as string[]).includes(o.operation));
      for (const x of notificationsOf(o)) {
        if (x.request.method.toUpperCase() !== n.method.toUpperCase()) {
          report({
            code: 'NOTIFICATION_FORM',
            requirement: 'PAGI-EVT-002',
            exchange: x,
            expected: `method ${n.method}`,
            received: x.request.method,
          });
        }
        const type = headerOf(x.request.headers, 'content-type');
        const body = x.request.body;
        if (
          formatOfMediaType(type) !== n.mediaType &&
          !(n.mediaType === 'form' && /x-www-form-urlencoded/i.test(type ?? ''))
        ) {
          report({
            code: 'NOTIFICATION_FORM',
            requirement: 'PAGI-EVT-002',
            exchange: x,
            expected: `a ${n.mediaType} body`,
            received: quoted(type, 'content type '),
          });
        }
        if (!isObject(body)) {
          report({
            code: 'NOTIFICATION_FORM',
            requirement: 'PAGI-EVT-002',
            exchange: x,
            expected: `a readable ${n.mediaType} object`,
            received: 'a body that is not one',
          });
          continue;
        }
        if (kind?.ownShape) checkOwnShape(o, ctx, report, x, body, kind as OwnShapeKind);
        if (n.signature === 'none' || !kind) continue;
        if (verifyNotification(o, x) === false) {
          report({
            code: 'SIGNATURE_INVALID',
            requirement: 'PAGI-EVT-002',
            exchange: x,
            pointer: `/${FIELD.signature}`,
            expected: `a signature verifying as the profile's ${n.signature}`,
            received: quoted(body[FIELD.signature]),
          });
        }
      }
    },
  }),
  onlyWhen((o) => notificationsOf(o).length > 0, 'no notification was received; notificationDelivered reports it'),
);

/** A notification kind of the profile with a body in the gateway's own shape. */
type OwnShapeKind = { bodyFrom: OperationKey; ownShape: { schema: object; template: Record<string, unknown> } };

/**
 * A notification in the gateway's own shape (`notifications.kinds.*.ownShape`): the body follows the profile's JSON
 * Schema, and where the probe's own answer is the response the body is filled from, each template field whose
 * response fields that answer carries holds the value the template gives.
 */
function checkOwnShape(
  o: Observation,
  ctx: CheckContext,
  report: Report,
  x: Exchange,
  body: Record<string, unknown>,
  kind: OwnShapeKind,
): void {
  const validate = notificationSchemaValidator(kind.ownShape.schema);
  if (validate instanceof Error)
    throw new ProfileError(`profile: the notification schema does not compile: ${validate.message}`);
  if (!validate(body)) {
    for (const e of (validate.errors ?? []).slice(0, 5)) {
      report({
        code: 'NOTIFICATION_FORM',
        requirement: 'PAGI-EVT-002',
        exchange: x,
        pointer: e.instancePath,
        expected: `a body following the profile's notification schema (${e.schemaPath}: ${e.message ?? e.keyword})`,
        received: quoted(valueAt(body, e.instancePath)),
      });
    }
  }
  const response = o.operation === kind.bodyFrom ? responseObject(o.main, ctx.spec) : undefined;
  if (!response) return;
  const template = kind.ownShape.template as Parameters<typeof expectedNotificationFields>[0];
  for (const [pointer, expected] of expectedNotificationFields(template, response)) {
    const got = valueAt(body, pointer);
    if (got !== expected)
      report({
        code: 'NOTIFICATION_FORM',
        requirement: 'PAGI-EVT-002',
        exchange: x,
        pointer,
        expected: `${JSON.stringify(expected)} (the profile's notification template, from the ${kind.bodyFrom} answer)`,
        received: quoted(got),
      });
  }
}

/**
 * Requests the kit's receiver refused while the probe ran (more notifications, faster or larger than any profile
 * schedules): reported at the check's profile level, never as a `must`, since the document shows no bound.
 */
function reportFlood(o: Observation, requirement: string, report: Report): void {
  const r = o.facts.receiverRefusals;
  if (!r) return;
  const received = [
    r.tooLarge ? `${r.tooLarge} larger than the receiver's body bound (413)` : '',
    r.overCount ? `${r.overCount} past its count per run (429)` : '',
    r.overRate ? `${r.overRate} past its rate (429)` : '',
  ]
    .filter(Boolean)
    .join(', ');
  report({
    code: 'NOTIFICATION_FLOOD',
    requirement,
    expected: 'notifications within the receiver’s bounds (body size, count per run, rate)',
    received: `requests refused: ${received}`,
  });
}

/** The signature verdict the probe recorded for a notification (`facts.signatures`, by exchange id). */
function verifyNotification(o: Observation, x: Exchange): boolean | undefined {
  const verdicts = o.facts.signatures;
  return verdicts?.[x.id];
}

export const notificationRetriedPerProfile = wrap(
  defineCheck({
    id: 'notificationRetriedPerProfile',
    family: 'events',
    probe: notificationRetry,
    operations: ['authoriseDirect'],
    requirements: ['PAGI-EVT-003'],
    description:
      "An unacknowledged notification is retried as the profile schedules it: the profile's number of attempts, spaced by its back-off.",
    verify(o, ctx, report) {
      reportFlood(o, 'PAGI-EVT-003', report);
      const attempts = notificationsOf(o);
      const max = ctx.profile.notifications.retry.maxAttempts;
      if (attempts.length !== max) {
        report({
          code: 'NOTIFICATION_RETRIES',
          requirement: 'PAGI-EVT-003',
          expected: `${max} attempts for an unacknowledged notification`,
          received: `${attempts.length}`,
        });
      }
      const delays = retryDelays(ctx.profile.notifications.retry);
      for (let i = 1; i < attempts.length && i <= delays.length; i++) {
        const gap = Date.parse(attempts[i]!.startedAt) - Date.parse(attempts[i - 1]!.startedAt);
        if (gap < delays[i - 1]! / 2) {
          report({
            code: 'NOTIFICATION_RETRIES',
            requirement: 'PAGI-EVT-003',
            exchange: attempts[i],
            expected: `attempt ${i + 1} about ${delays[i - 1]} ms after the previous one`,
            received: `${gap} ms`,
          });
        }
      }
    },
  }),
  onlyWhen(
    (o) => o.facts.cannotRefuse === undefined,
    (o) => String(o.facts.cannotRefuse),
  ),
);
