/** Helpers several check families share: requirement choice per operation, profile error answers, follow-ups. */
import { decodeForm, sniffBody } from '../../src/codecs/form.js';
import type { CheckContext, Exchange, Observation, OperationKey } from '../../src/model.js';
import type { Profile } from '../../src/profile/load.js';
import { FIELD } from '../fields.js';
import { type Report, outcomeOf, quote } from '../findings.js';
import { type FollowUp, formatOfMediaType, headerOf, isObject, operationOf, paymentStatusCode, queryRecords, responseObject, stateOfCode, statusOf } from '../observe.js';

/** The first of `candidates` the operation's requirements include (the catalogue ties requirements to operations). */
export function requirementFor(ctx: CheckContext, operation: OperationKey, candidates: readonly string[]): string {
  const op = operationOf(ctx.spec, operation);
  return candidates.find((id) => op.requirements.includes(id)) ?? candidates[0]!;
}

/**
 * The body as the gateway received it: the encoded text read back (JSON or form; a raw text only as far as it reads
 * as either), else the structured body.
 */
export function sentBody(exchange: Exchange): Record<string, unknown> {
  const { bodyText, encoding, body } = exchange.request;
  if (encoding === 'raw') return sniffBody(bodyText)?.value ?? {};
  try {
    if (encoding === 'json') {
      const value = JSON.parse(bodyText);
      if (isObject(value)) return value;
    }
    if (encoding === 'form') return decodeForm(bodyText);
  } catch {
    // the structured body below
  }
  return body ?? {};
}

/** Error kinds of the profile. */
export type ErrorKind = keyof Profile['errors']['kinds'];

function render(template: string, vars: Record<string, string>, request: Record<string, unknown>): string | undefined {
  let unknown = false;
  const out = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (name.startsWith('request.')) {
      const v = request[name.slice('request.'.length)];
      if (v === undefined) unknown = true;
      return v === undefined ? '' : String(v);
    }
    return vars[name] ?? `{${name}}`;
  });
  return unknown ? undefined : out;
}

/**
 * Report where an answer differs from the profile's answer to an error kind: HTTP status, content type and body
 * (JSON and XML templates field by field; HTML by its message text). Fields whose template names a request field the
 * request did not carry are not compared.
 */
export function checkErrorAnswer(ctx: CheckContext, report: Report, exchange: Exchange, operation: OperationKey, kind: ErrorKind, requirement: string): void {
  const spec = ctx.profile.errors.kinds[kind];
  const status = statusOf(exchange);
  if (status !== spec.status) {
    report({ code: 'ERROR_ANSWER', requirement, exchange, expected: `HTTP ${spec.status} (the profile's ${kind})`, received: outcomeOf(exchange) });
    return;
  }
  const format = ctx.profile.errors.formatByOperation[operation];
  const bodySpec = ctx.profile.errors.bodies[format];
  const contentType = headerOf(exchange.response?.headers, 'content-type');
  if (formatOfMediaType(contentType) !== formatOfMediaType(bodySpec.contentType)) {
    report({ code: 'ERROR_ANSWER', requirement, exchange, expected: `a ${bodySpec.contentType} error body`, received: `content type ${quote(ctx, contentType)}` });
    return;
  }
  const vars = { code: spec.code, message: spec.message, httpStatus: String(spec.status) };
  const request = sentBody(exchange);
  if (format === 'html') {
    const message = render(ctx.profile.errors.bodies.html.message, vars, request);
    const page = exchange.response?.bodyText ?? '';
    if (message !== undefined && !page.includes(escapeHtml(message)) && !page.includes(message)) {
      report({ code: 'ERROR_ANSWER', requirement, exchange, expected: `an error page showing ${JSON.stringify(message)}`, received: 'a page without it' });
    }
    return;
  }
  const template = format === 'json' ? ctx.profile.errors.bodies.json.body : ctx.profile.errors.bodies.xml.body;
  const decoded = exchange.response?.decoded;
  if (format === 'xml' && decoded?.kind === 'xml' && decoded.root !== ctx.profile.errors.bodies.xml.root) {
    report({ code: 'ERROR_ANSWER', requirement, exchange, expected: `XML root <${ctx.profile.errors.bodies.xml.root}>`, received: `<${decoded.root}>` });
  }
  const body = responseObject(exchange, ctx.spec);
  for (const [field, value] of Object.entries(template as Record<string, unknown>)) {
    if (typeof value !== 'string') continue;
    const expected = render(value, vars, request);
    if (expected === undefined) continue;
    if (body?.[field] !== expected) {
      report({ code: 'ERROR_ANSWER', requirement, exchange, pointer: `/${field}`, expected: `${field} ${JSON.stringify(expected)}`, received: quote(ctx, body?.[field]) });
    }
  }
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * The profile error kind an answer is, read from its status and its `<code>:` (JSON `return_message`, XML
 * `result_info`, or the HTML page's text); undefined when it is none of them.
 */
export function errorKindOf(ctx: CheckContext, exchange: Exchange): ErrorKind | undefined {
  const status = statusOf(exchange);
  const body = responseObject(exchange, ctx.spec);
  const text = [body?.[FIELD.returnMessage], body?.[FIELD.resultInfo], exchange.response?.bodyText].filter((v) => typeof v === 'string').join(' ');
  return (Object.entries(ctx.profile.errors.kinds) as [ErrorKind, { status: number; code: string }][]).find(([, k]) => k.status === status && text.includes(`${k.code}:`))?.[0];
}

/** Whether an answer is a refusal: a 4xx status (a 2xx is an acceptance; a 5xx is a server error, reported as such). */
export function isClientRefusal(exchange: Exchange): boolean {
  const status = statusOf(exchange);
  return status !== undefined && status >= 400 && status < 500;
}

/**
 * Report when an answer that should refuse does not: no answer, a server error or an acceptance. Returns whether it
 * was a refusal.
 */
export function expectRefusal(report: Report, exchange: Exchange, requirement: string, what: string): boolean {
  const status = statusOf(exchange);
  if (status === undefined) report({ code: 'NO_RESPONSE', requirement, exchange, expected: `a 4xx refusal of ${what}`, received: outcomeOf(exchange) });
  else if (status >= 500) report({ code: 'SERVER_ERROR', requirement, exchange, expected: `a 4xx refusal of ${what}`, received: `HTTP ${status}` });
  else if (status < 400) report({ code: 'NOT_REFUSED', requirement, exchange, expected: `a 4xx refusal of ${what}`, received: `HTTP ${status}` });
  return isClientRefusal(exchange);
}

/** Report when the follow-up of a refused request shows a change (a payment created, a payment's state moved). */
export function checkFollowUp(ctx: CheckContext, report: Report, observation: Observation, requirement: string): void {
  const f = observation.facts.followUp as FollowUp | undefined;
  const exchange = observation.steps.followUp;
  if (!f || f.kind === 'none' || !exchange) return;
  const body = responseObject(exchange, ctx.spec);
  if (f.kind === 'absent') {
    const found = statusOf(exchange) === 200 ? queryRecords(ctx, body, { [FIELD.orderNo]: f.orderNo }) : [];
    if (found.length) {
      report({ code: 'STATE_CHANGED', requirement, exchange, expected: `no payment for the refused order ${f.orderNo}`, received: `${found.length} payment(s) in the query` });
    }
    return;
  }
  const [record] = queryRecords(ctx, body, { [FIELD.transactionId]: f.transactionId });
  const code = record?.[FIELD.paymentStatus];
  if (record && f.expectedCode !== undefined && code !== f.expectedCode) {
    report({
      code: 'STATE_CHANGED',
      requirement,
      exchange,
      pointer: `/${FIELD.ordersList}`,
      expected: `${FIELD.paymentStatus} ${f.expectedCode} (${stateOfCode(ctx, f.expectedCode)}) unchanged`,
      received: `${quote(ctx, code)} (${stateOfCode(ctx, code) ?? 'unknown state'})`,
    });
  }
}

/** Whether the observation carries a usable follow-up. */
export function followUpReason(observation: Observation): string | undefined {
  const f = observation.facts.followUp as FollowUp | undefined;
  if (!f) return 'the probe made no follow-up';
  if (f.kind === 'none') return f.reason;
  return observation.steps.followUp ? undefined : 'the follow-up request was not made';
}

/** The payment-status code of a state, or a kit error naming the profile gap. */
export function codeOfState(ctx: CheckContext, state: string): string {
  const code = paymentStatusCode(ctx, state);
  if (code === undefined) throw new Error(`profile: no payment_status value for state ${state}`);
  return code;
}
