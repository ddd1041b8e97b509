/**
 * A notification the gateway sent to the proxy's receiver (`proxy --notify`): recorded as the kit records the ones
 * its own receiver gets (an incoming exchange, masked evidence), judged by the check a run applies to a notification
 * (`notificationFollowsProfile`: the profile's method, media type, body and signature) on the observation it reads,
 * and described in one console line with where it was forwarded and what the merchant answered.
 */
import { sniffBody } from '../core/codecs/form.js';
import { maskValue } from '../core/mask.js';
import type { Check, Exchange, Finding, Observation, OperationKey, SentRequest } from '../core/model.js';
import { buildEvidence } from '../engine/evidence.js';
import { CHECKS } from '../suites/registry.js';
import type { ProxySession } from './session.js';

/** The check a notification is judged by. */
export const NOTIFICATION_CHECK: Check = CHECKS.find((c) => c.id === 'notificationFollowsProfile')!;

/** One notification the proxy received and forwarded. */
export interface SeenNotification {
  route: { url: string; operation: OperationKey; payment: Exchange | undefined; key: string };
  method: string;
  headers: Record<string, string>;
  body: Buffer;
  /** The merchant's answer, passed back to the gateway, or why there is none. */
  answer: { status: number; headers: Record<string, string>; body: Buffer } | { error: string };
  started: number;
  durationMs: number;
  id: string;
}

/** The notification as an incoming exchange (the request is the gateway's, the response the merchant's). */
function incoming(session: ProxySession, n: SeenNotification): Exchange {
  const text = n.body.toString('utf8');
  const read = sniffBody(text);
  const request: SentRequest = {
    method: n.method,
    url: n.route.url,
    headers: n.headers,
    body: read?.value,
    bodyText: text,
    encoding: read?.encoding ?? 'raw',
  };
  const response =
    'status' in n.answer
      ? {
          status: n.answer.status,
          headers: n.answer.headers,
          bodyText: n.answer.body.toString('utf8'),
          truncated: false,
          decoded: { kind: 'empty' as const },
        }
      : undefined;
  return {
    id: n.id,
    operation: 'external',
    request,
    ...(response
      ? { response }
      : { error: { kind: 'network' as const, message: (n.answer as { error: string }).error } }),
    startedAt: new Date(n.started).toISOString(),
    durationMs: Math.round(n.durationMs * 10) / 10,
    evidence: buildEvidence(request, response, session.options.rules),
    incoming: true,
  };
}

/** Judge one notification: its findings (sided as the gateway's), the console line, the check and the exchange. */
export async function judgeNotification(
  session: ProxySession,
  n: SeenNotification,
): Promise<{ findings: Finding[]; line: string; check: Check | undefined; exchange: Exchange }> {
  const x = incoming(session, n);
  const ctx = session.ctx;
  const op = n.route.operation;
  const notifications = ctx.profile.notifications;
  const kind = Object.values(notifications.kinds).find((k) => (k.sentAfter as string[]).includes(op));
  const signatures: Record<string, boolean | undefined> = {};
  if (kind && notifications.signature !== 'none' && x.request.body)
    signatures[x.id] = ctx.verifySignature?.(
      kind.bodyFrom as OperationKey,
      notifications.signature === 'asResponse' ? 'response' : 'request',
      x.request.body,
    );
  let findings: Finding[] = [];
  if (n.route.payment) {
    const o: Observation = {
      probeId: 'notified',
      operation: op,
      main: n.route.payment,
      steps: { [op]: n.route.payment, notification: x },
      facts: { key: n.route.key, signatures },
    };
    const outcome = NOTIFICATION_CHECK.run(o, ctx);
    findings = Array.isArray(outcome)
      ? outcome.map((f) => maskValue({ ...f, side: 'answer' as const }, session.options.rules))
      : [];
  }
  const answered =
    'status' in n.answer
      ? `the merchant answered ${n.answer.status}`
      : `the merchant did not answer (${n.answer.error})`;
  const where = new URL(n.route.url);
  const line = `notification ${n.method} for ${n.route.key} (${op}) -> forwarded to ${where.origin}${where.pathname}, ${answered}; ${findings.length} finding(s) on the gateway's notification`;
  return { findings, line, check: n.route.payment ? NOTIFICATION_CHECK : undefined, exchange: x };
}
