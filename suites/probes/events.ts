/**
 * Event recipes: payments (direct, APM, checkout) and a payout carrying the kit receiver's `notify_url`, then the
 * notifications received for them; and a payment whose notifications the receiver refuses, to observe retries.
 * Without a public notification URL the observations are inconclusive (the family is skipped with that reason).
 */
import type { CheckContext, Exchange, OperationKey, ProbeClient } from '../../core/model.js';
import { FIELD } from '../fields.js';
import { absoluteUrl, notFollowable, responseObject, text } from '../observe.js';
import { paymentBody } from './basic.js';
import { Inconclusive, type Steps, cannotFollow, defineProbe, followForms } from './support.js';

function notifyUrl(ctx: CheckContext): string {
  const url = ctx.config.notifyUrl;
  if (!url) throw new Inconclusive('no public notification URL is configured (notifyUrl): events cannot be observed');
  return url;
}

/** Complete an APM or checkout payment by following its page as the shopper. */
async function complete(
  client: ProbeClient,
  ctx: CheckContext,
  steps: Steps<'issuerPage'>,
  payment: Exchange,
): Promise<void> {
  const issuerUrl = absoluteUrl(text(responseObject(payment, ctx.spec), FIELD.issuerUrl));
  const start = issuerUrl ? steps.add('issuerPage', await client.follow!(issuerUrl, { method: 'GET' })) : payment;
  const { pages } = await followForms(client, ctx, steps, start);
  steps.facts.formsFollowed = pages.length;
}

/**
 * Record received notifications as steps and facts, with each one's signature verdict (the client holds the secret):
 * `asResponse` as the response of the kind's `bodyFrom` operation, `sortedPairs` with the request rule.
 */
function recordNotifications(
  client: ProbeClient,
  ctx: CheckContext,
  steps: Steps<'notification'>,
  op: OperationKey,
  received: Exchange[],
): void {
  const n = ctx.profile.notifications;
  const kind = Object.values(n.kinds).find((k) => (k.sentAfter as string[]).includes(op));
  const signatures: Record<string, boolean | undefined> = {};
  for (const x of received) {
    steps.add('notification', x);
    if (client.verifySignature && kind && n.signature !== 'none' && x.request.body) {
      signatures[x.id] = client.verifySignature(
        kind.bodyFrom as OperationKey,
        n.signature === 'asResponse' ? 'response' : 'request',
        x.request.body,
      );
    }
  }
  steps.facts.notifications = received.length;
  steps.facts.signatures = signatures;
}

/**
 * What the kit's receiver refused so far for passing its bounds (a flood, oversized bodies), as a fact. When the
 * probe received nothing meanwhile, its notification may have been among the refused: the observation cannot count.
 */
async function recordRefusals(client: ProbeClient, steps: Steps): Promise<void> {
  const refusals = await client.notificationRefusals?.();
  if (!refusals || refusals.tooLarge + refusals.overCount + refusals.overRate === 0) return;
  steps.facts.receiverRefusals = refusals;
  if (!steps.facts.notifications) {
    throw new Inconclusive(
      `the notification receiver refused ${refusals.tooLarge + refusals.overCount + refusals.overRate} request(s) past its bounds; the notification may have been one of them`,
    );
  }
}

/** `notified`: an operation carrying the receiver's notify_url, then the notifications received for its key. */
export const notified = defineProbe(
  'notified',
  ['authoriseDirect', 'authoriseApm', 'checkout', 'payout'],
  {
    issuerPage: 'the APM issuer page, requested to complete the payment',
    notification: 'a notification the kit received (numbered)',
  },
  async (op, client, ctx, steps) => {
    const url = notifyUrl(ctx);
    const body = paymentBody(client, ctx, op, { [FIELD.notifyUrl]: url });
    const key = String(body[op === 'payout' ? FIELD.requestId : FIELD.orderNo]);
    steps.facts.key = key;
    const main = steps.add(op, await client.send(op, body));
    if (op === 'authoriseApm' || op === 'checkout') {
      const why = cannotFollow(client);
      // A page payment is completed by the shopper; when the kit cannot act as one, waiting would only cost time.
      const given = text(responseObject(main, ctx.spec), FIELD.issuerUrl);
      const unusable = given !== undefined && !absoluteUrl(given) ? notFollowable(FIELD.issuerUrl, given) : undefined;
      if (why ?? unusable) {
        steps.facts.cannotComplete = (why ?? unusable)!;
        return main;
      }
      await complete(client, ctx, steps, main);
    }
    recordNotifications(client, ctx, steps, op, await client.notifications(key, ctx.config.notifyWaitMs));
    await recordRefusals(client, steps);
    return main;
  },
  { waitsOnTarget: true },
);

/** How long the retry probe waits after the last scheduled attempt (for an attempt too many). */
export const GRACE_MS = 250;
/**
 * Slack past the schedule while attempts are still missing (a loaded machine delays them; the wait ends as soon as
 * the profile's number of attempts has arrived, so the slack costs nothing when they come on time).
 */
const SLACK_MS = 1500;

/** The delays between the attempts a profile's retry rule (`notifications.retry`) makes. */
export function retryDelays(r: CheckContext['profile']['notifications']['retry']): number[] {
  return Array.from({ length: Math.max(0, r.maxAttempts - 1) }, (_, i) => r.initialDelayMs * r.factor ** i);
}

/** `notificationRetry`: a direct payment whose notifications the receiver refuses; every attempt within the schedule. */
export const notificationRetry = defineProbe(
  'notificationRetry',
  ['authoriseDirect'],
  {
    issuerPage: 'the APM issuer page, requested to complete the payment',
    notification: 'a notification the kit received (numbered)',
  },
  async (op, client, ctx, steps) => {
    const url = notifyUrl(ctx);
    const body = paymentBody(client, ctx, op, { [FIELD.notifyUrl]: url });
    const key = String(body[FIELD.orderNo]);
    steps.facts.key = key;
    if (!client.refuseNotifications) {
      steps.facts.cannotRefuse = "the kit's receiver cannot refuse notifications";
      return steps.add(op, await client.send(op, body));
    }
    client.refuseNotifications(key);
    const main = steps.add(op, await client.send(op, body));
    const started = Date.now();
    await client.notifications(key, ctx.config.notifyWaitMs);
    // Every scheduled attempt, or the schedule's end (with slack); then a moment more, for an attempt too many.
    const attempts = ctx.profile.notifications.retry.maxAttempts;
    const schedule =
      retryDelays(ctx.profile.notifications.retry).reduce((a, b) => a + b, 0) +
      ctx.profile.notifications.retry.timeoutMs / 10 +
      SLACK_MS;
    await client.notifications(key, Math.max(0, schedule - (Date.now() - started)), attempts);
    // A moment more, for an attempt too many (a wait the kit times, like the schedule's).
    await client.notifications(key, GRACE_MS, attempts + 1);
    recordNotifications(client, ctx, steps, op, await client.notifications(key, 0));
    await recordRefusals(client, steps);
    return main;
  },
  { waitsOnTarget: true },
);
