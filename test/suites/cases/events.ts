/** Cases of the events family: notifications as the kit's receiver records them. */
import type { Exchange, Observation, ObservationFacts, OperationKey } from '../../../core/model.js';
import { exchange, happyExchange, observation, profile } from '../fixtures.js';
import { type Case, fail, pass } from './types.js';

/** A notification exchange as the kit's receiver records it. */
function notification(at: number, method = 'POST', type = 'application/json'): Exchange {
  return exchange('external', {
    method,
    request: { order_no: 'O1', order_status: '1' },
    requestHeaders: { 'content-type': type },
    startedAt: new Date(Date.UTC(2026, 0, 1) + at).toISOString(),
    status: 200,
    bodyText: '',
  });
}

function notified(
  op: OperationKey,
  list: Exchange[],
  signatures: Record<string, boolean> = {},
  facts: ObservationFacts = {},
): Observation {
  const main = happyExchange(op);
  const steps: Record<string, Exchange> = { [op]: main };
  list.forEach((n, i) => (steps[i === 0 ? 'notification' : `notification${i + 1}`] = n));
  return observation('notified', op, main, steps, { key: 'O1', notifications: list.length, signatures, ...facts });
}

function retried(gaps: number[]): Observation {
  let at = 0;
  const list = [notification(0), ...gaps.map((g) => notification((at += g)))];
  const o = notified('authoriseDirect', list);
  return { ...o, probeId: 'notificationRetry' };
}
const delays = Array.from(
  { length: profile.notifications.retry.maxAttempts - 1 },
  (_, i) => profile.notifications.retry.initialDelayMs * profile.notifications.retry.factor ** i,
);

export const EVENTS_CASES: Case[] = [
  pass('notificationDelivered', 'PAGI-EVT-001', 'one notification', 'payout', () =>
    notified('payout', [notification(0)]),
  ),
  fail('notificationDelivered', 'PAGI-EVT-001', 'none', 'authoriseDirect', () => notified('authoriseDirect', []), [
    'NOTIFICATION_MISSING',
  ]),
  {
    ...pass('notificationDelivered', 'PAGI-EVT-001', 'APM not completed, none yet', 'authoriseApm', () =>
      notified('authoriseApm', []),
    ),
    expect: 'notApplicable',
  },
  {
    ...pass('notificationDelivered', 'PAGI-EVT-001', 'the kit cannot complete a checkout', 'checkout', () =>
      notified('checkout', [], {}, { cannotComplete: 'no follow' }),
    ),
    expect: 'notApplicable',
  },
  fail(
    'notificationDelivered',
    'PAGI-EVT-001',
    'APM completed, none',
    'authoriseApm',
    () => notified('authoriseApm', [], {}, { formsFollowed: 1 }),
    ['NOTIFICATION_MISSING'],
  ),
  pass('notificationFollowsProfile', 'PAGI-EVT-002', 'POST JSON, signature verifies', 'checkout', () => {
    const n = notification(0);
    return notified('checkout', [n], { [n.id]: true });
  }),
  fail(
    'notificationFollowsProfile',
    'PAGI-EVT-002',
    'GET form, bad signature',
    'authoriseDirect',
    () => {
      const n = notification(0, 'GET', 'text/plain');
      return notified('authoriseDirect', [n], { [n.id]: false });
    },
    ['NOTIFICATION_FORM', 'SIGNATURE_INVALID'],
  ),
  pass('notificationRetriedPerProfile', 'PAGI-EVT-003', 'every attempt on schedule', 'authoriseDirect', () =>
    retried(delays),
  ),
  fail('notificationRetriedPerProfile', 'PAGI-EVT-003', 'one attempt only', 'authoriseDirect', () => retried([]), [
    'NOTIFICATION_RETRIES',
  ]),
  fail(
    'notificationRetriedPerProfile',
    'PAGI-EVT-003',
    'retries without back-off',
    'authoriseDirect',
    () => retried(delays.map(() => 5)),
    ['NOTIFICATION_RETRIES'],
  ),
  {
    ...pass('notificationRetriedPerProfile', 'PAGI-EVT-003', 'the receiver cannot refuse', 'authoriseDirect', () => ({
      ...retried(delays),
      facts: { cannotRefuse: 'no' },
    })),
    expect: 'notApplicable',
  },
];
