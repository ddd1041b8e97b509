/** Helpers several check families share: requirement choice per operation, profile error answers, follow-ups. */
import { readPageTextNodes, readPageTexts } from '../../core/codecs/html.js';
import { decodedText } from '../../engine/decode.js';
import type { CheckContext, Exchange, Observation, OperationKey } from '../../core/model.js';
import { type Pinned, definedKinds, errorKindSpec } from '../../core/profile/choices.js';
import type { ErrorKind } from '../../core/profile/load.js';
import { placeholderText, requestFieldOf, templateParts } from '../../core/profile/template.js';
import { childPointer } from '../../core/spec/pointer.js';
import { FIELD } from '../fields.js';
import { type Report, outcomeOf, quote, quoted } from '../findings.js';
import {
  formatOfMediaType,
  headerOf,
  isObject,
  matchesMessage,
  operationOf,
  paymentStatusCode,
  queryRecords,
  responseObject,
  stateOfCode,
  statusOf,
} from '../observe.js';
import { ProfileError } from '../../core/types/errors.js';

/** The first of `candidates` the operation's requirements include (the catalogue ties requirements to operations). */
export function requirementFor(ctx: CheckContext, operation: OperationKey, candidates: readonly string[]): string {
  const op = operationOf(ctx.spec, operation);
  return candidates.find((id) => op.requirements.includes(id)) ?? candidates[0]!;
}

import { sentBody } from '../../core/codecs/sent-body.js';

export { sentBody };

export type { ErrorKind };

/**
 * Kinds refusing a request before its body is read (an unreadable body, a refused path or method): the gateway could
 * not have read the fields it sent, nor the account whose key signs.
 */
const UNREAD: readonly ErrorKind[] = ['unknownPath', 'methodNotAllowed', 'bodyTooLarge', 'malformedBody'];

/** A rendered template: the text expected, and whether a received value matches it (an unpinned message matches any text). */
interface Rendered {
  text: string;
  matches(value: unknown): boolean;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Render a template of the profile; undefined when it names a request field the request did not carry. `{message}`
 * matches any text unless the error kind is `pinned` (the kit compares the code alone by default).
 */
function render(
  template: string,
  vars: { code: string; message: string; httpStatus: string; pinned: Pinned },
  request: Record<string, unknown>,
): Rendered | undefined {
  const text: string[] = [];
  const pattern: string[] = [];
  for (const part of templateParts(template)) {
    if ('text' in part) {
      text.push(part.text);
      pattern.push(escapeRegExp(part.text));
      continue;
    }
    const field = requestFieldOf(part.placeholder);
    if (field !== undefined && request[field] === undefined) return undefined;
    if (part.placeholder === 'message' && !vars.pinned) {
      text.push('<any message>');
      pattern.push('[\\s\\S]*');
      continue;
    }
    if (part.placeholder === 'message' && vars.pinned === 'prefix') {
      text.push(`${vars.message}…`);
      pattern.push(`${escapeRegExp(vars.message)}[\\s\\S]*`);
      continue;
    }
    const v = placeholderText(part.placeholder, request, {
      code: vars.code,
      message: vars.message,
      httpStatus: vars.httpStatus,
    });
    text.push(v);
    pattern.push(escapeRegExp(v));
  }
  const re = new RegExp(`^${pattern.join('')}$`);
  return { text: text.join(''), matches: (value) => typeof value === 'string' && re.test(value) };
}

/** The refusal forms the profile declares for an operation (`errors.refusalForms`). */
function refusalForms(ctx: CheckContext, operation: OperationKey): readonly RefusalForm[] {
  return ctx.profile.errors.refusalForms[operation] as RefusalForm[];
}

/** A refusal form of the profile. */
export type RefusalForm = 'httpError' | 'statusInBody' | 'failureType' | 'httpFailureType';

/** Whether a refusal form is answered with the kind's HTTP status (else HTTP 200). */
function httpForm(form: RefusalForm): boolean {
  return form === 'httpError' || form === 'httpFailureType';
}

/** The result list an operation's answer carries (a batch's orders, a query's or refund search's records), if any. */
function resultListOf(ctx: CheckContext, operation: OperationKey): string | undefined {
  const op = operationOf(ctx.spec, operation);
  if (op.batch) return op.batch.orders;
  if (!op.selectionLimit) return undefined;
  return operation === 'retrievalTrans' ? FIELD.ordersList : FIELD.refundOrders;
}

/** One difference between an answer's body and the profile's error body of a kind. */
interface BodyDifference {
  pointer: string;
  expected: string;
  received: unknown;
}

/**
 * Where an answer's body differs from the profile's error body of `kind` for the operation (JSON and XML templates
 * field by field, HTML by its message text; the `failureType` form by `status`, `failure_type` and `failure_reason`).
 * Fields whose template names a request field the request did not carry are not compared. `carriesCode`: whether
 * the body shows the kind's code at all (what tells a refusal answered with HTTP 200 from a success).
 */
function errorBodyDifferences(
  ctx: CheckContext,
  exchange: Exchange,
  operation: OperationKey,
  kind: ErrorKind,
  form: RefusalForm,
): { differences: BodyDifference[]; carriesCode: boolean } {
  const spec = errorKindSpec(ctx.profile, kind, operation);
  const pinned = spec.pinned ?? false;
  const body = responseObject(exchange, ctx.spec);
  if (form === 'failureType' || form === 'httpFailureType') {
    const expected: [string, string, (v: unknown) => boolean][] = [
      [
        FIELD.payoutStatus,
        ctx.profile.statusValues.payout_status.failed,
        (v) => v === ctx.profile.statusValues.payout_status.failed,
      ],
      [FIELD.failureType, spec.code, (v) => v === spec.code],
      [
        FIELD.failureReason,
        spec.pinned === 'prefix' ? `${spec.message}…` : spec.message,
        (v) => matchesMessage(spec, v),
      ],
    ];
    const differences = expected
      .filter(([field, , matches]) => !matches(body?.[field]))
      .map(([field, value]) => ({
        pointer: `/${field}`,
        expected: `${field} ${JSON.stringify(value)}`,
        received: body?.[field],
      }));
    return { differences, carriesCode: body?.[FIELD.failureType] === spec.code };
  }
  // {httpStatus} is the status of the answer: 200 for a refusal carried in the body.
  const vars = {
    code: spec.code,
    message: spec.message,
    httpStatus: httpForm(form) ? String(spec.status) : '200',
    pinned,
  };
  // A refusal given before the body is read as a request (a wrong method, an unknown path, a body over the size limit
  // or malformed) cannot echo its fields: they fill no template, and a template naming one is not compared.
  const request = UNREAD.includes(kind) ? {} : sentBody(exchange);
  const format = ctx.profile.errors.formatByOperation[operation];
  if (format === 'html') {
    const message = render(ctx.profile.errors.bodies.html.message, vars, request);
    // The page as read (character references decoded, attributes in any quoting), never its raw text.
    const shown = pageTexts(exchange).nodes;
    const carriesCode = shown.some((t) => t.includes(spec.code));
    if (message !== undefined && !shown.some((t) => message.matches(t)))
      return {
        differences: [
          {
            pointer: '',
            expected: `an error page showing ${JSON.stringify(message.text)}`,
            received: 'a page without it',
          },
        ],
        carriesCode,
      };
    return { differences: [], carriesCode };
  }
  const differences: BodyDifference[] = [];
  const template = format === 'json' ? ctx.profile.errors.bodies.json.body : ctx.profile.errors.bodies.xml.body;
  const decoded = exchange.response?.decoded;
  if (format === 'xml' && decoded?.kind === 'xml' && decoded.root !== ctx.profile.errors.bodies.xml.root) {
    differences.push({
      pointer: '',
      expected: `XML root <${ctx.profile.errors.bodies.xml.root}>`,
      received: `<${decoded.root}>`,
    });
  }
  let carriesCode = false;
  const walk = (shape: Record<string, unknown>, value: Record<string, unknown> | undefined, at: string) => {
    for (const [field, t] of Object.entries(shape)) {
      const got = value?.[field];
      if (typeof t !== 'string') {
        walk(t as Record<string, unknown>, isObject(got) ? got : undefined, childPointer(at, field));
        continue;
      }
      const expected = render(t, vars, request);
      if (expected === undefined) continue;
      if (!expected.matches(got))
        differences.push({
          pointer: childPointer(at, field),
          expected: `${field} ${JSON.stringify(expected.text)}`,
          received: got,
        });
      else if (t.includes('{code}')) carriesCode = true;
    }
  };
  walk(template as Record<string, unknown>, body, '');
  // The operation's result list, empty, where the profile's JSON error envelopes carry one (bodies.json.emptyResults).
  const list =
    format === 'json' && ctx.profile.errors.bodies.json.emptyResults ? resultListOf(ctx, operation) : undefined;
  if (list !== undefined && !(Array.isArray(body?.[list]) && (body[list] as unknown[]).length === 0))
    differences.push({ pointer: `/${list}`, expected: `${list} [] (an empty result list)`, received: body?.[list] });
  return { differences, carriesCode };
}

const pagesRead = new WeakMap<Exchange, ReturnType<typeof readPageTexts> & { nodes: string[] }>();

/** An HTML answer as read by the HTML parser: its title, the text of each element with an id, its text nodes. */
function pageTexts(exchange: Exchange): ReturnType<typeof readPageTexts> & { nodes: string[] } {
  let read = pagesRead.get(exchange);
  if (!read) {
    const page = exchange.response?.bodyText ?? '';
    pagesRead.set(exchange, (read = { ...readPageTexts(page), nodes: readPageTextNodes(page) }));
  }
  return read;
}

/**
 * The refusal an answer is in one of the operation's declared body forms other than the plain HTTP error: HTTP 200
 * with `statusInBody` or `failureType`, or the kind's HTTP status with the payout failure fields (`httpFailureType`);
 * the form and the error kind its code names; undefined when it is none.
 */
export function refusalInBody(
  ctx: CheckContext,
  exchange: Exchange,
  operation: OperationKey,
): { form: RefusalForm; kind: ErrorKind } | undefined {
  const status = statusOf(exchange);
  for (const form of refusalForms(ctx, operation).filter((f) => f !== 'httpError')) {
    if (form !== 'httpFailureType' && status !== 200) continue;
    for (const kind of definedKinds(ctx.profile)) {
      if (form === 'httpFailureType' && status !== errorKindSpec(ctx.profile, kind, operation).status) continue;
      const { differences, carriesCode } = errorBodyDifferences(ctx, exchange, operation, kind, form);
      if (carriesCode && differences.length === 0) return { form, kind };
    }
  }
  return undefined;
}

/**
 * Report where an answer differs from the profile's answer to an error kind, in the forms the profile declares for
 * the operation: an HTTP error (the kind's status, content type and body), or HTTP 200 with the failure in the body.
 */
export function checkErrorAnswer(
  ctx: CheckContext,
  report: Report,
  exchange: Exchange,
  operation: OperationKey,
  kind: ErrorKind,
  requirement: string,
): void {
  const spec = errorKindSpec(ctx.profile, kind, operation);
  const forms = refusalForms(ctx, operation);
  const status = statusOf(exchange);
  const declared = `the profile's ${kind}: ${forms.map((f) => (f === 'httpError' ? `HTTP ${spec.status}` : `HTTP ${httpForm(f) ? spec.status : 200} (${f})`)).join(' or ')}`;
  const bodyForms = forms.filter((f) => f !== 'httpError' && (status === 200 ? !httpForm(f) : f === 'httpFailureType'));
  const inBody = bodyForms.length ? refusalInBody(ctx, exchange, operation) : undefined;
  if (inBody?.kind === kind) {
    checkErrorSignature(ctx, report, exchange, operation, kind, requirement);
    return;
  }
  if (bodyForms.length && (status === 200 || !forms.includes('httpError'))) {
    const form = bodyForms[0]!;
    const [first] = errorBodyDifferences(ctx, exchange, operation, kind, form).differences;
    report({
      code: 'ERROR_ANSWER',
      requirement,
      exchange,
      pointer: first?.pointer ?? '',
      expected: `${declared}${first ? `; ${first.expected}` : ''}`,
      received: inBody ? `the profile's ${inBody.kind}` : first ? quoted(first.received) : outcomeOf(exchange),
    });
    return;
  }
  if (status !== spec.status || !forms.includes('httpError')) {
    report({ code: 'ERROR_ANSWER', requirement, exchange, expected: declared, received: outcomeOf(exchange) });
    return;
  }
  const format = ctx.profile.errors.formatByOperation[operation];
  const bodySpec = ctx.profile.errors.bodies[format];
  const contentType = headerOf(exchange.response?.headers, 'content-type');
  if (formatOfMediaType(contentType) !== formatOfMediaType(bodySpec.contentType)) {
    report({
      code: 'ERROR_ANSWER',
      requirement,
      exchange,
      expected: `a ${bodySpec.contentType} error body`,
      received: quoted(contentType, 'content type '),
    });
    return;
  }
  if (format === 'html') checkErrorPage(ctx, report, exchange, operation, kind, requirement);
  for (const d of errorBodyDifferences(ctx, exchange, operation, kind, 'httpError').differences) {
    report({
      code: 'ERROR_ANSWER',
      requirement,
      exchange,
      pointer: d.pointer,
      expected: d.expected,
      received: d.pointer === '' ? String(d.received) : quoted(d.received),
    });
  }
  checkErrorSignature(ctx, report, exchange, operation, kind, requirement);
}

/** An HTML error page's title and the id of the element holding the message, as the profile's `bodies.html` says. */
function checkErrorPage(
  ctx: CheckContext,
  report: Report,
  exchange: Exchange,
  operation: OperationKey,
  kind: ErrorKind,
  requirement: string,
): void {
  const spec = errorKindSpec(ctx.profile, kind, operation);
  const html = ctx.profile.errors.bodies.html;
  const vars = {
    code: spec.code,
    message: spec.message,
    httpStatus: String(spec.status),
    pinned: spec.pinned ?? false,
  };
  const page = pageTexts(exchange);
  const title = render(html.title, vars, {});
  const shownTitle = page.title ?? '';
  if (title && !title.matches(shownTitle))
    report({
      code: 'ERROR_ANSWER',
      requirement,
      exchange,
      pointer: '/title',
      expected: `title ${JSON.stringify(title.text)}`,
      received: quoted(shownTitle),
    });
  if (page.byId[html.messageElementId] === undefined) {
    report({
      code: 'ERROR_ANSWER',
      requirement,
      exchange,
      pointer: `/${html.messageElementId}`,
      expected: `an element with id ${JSON.stringify(html.messageElementId)} holding the message`,
      received: 'no such element',
    });
  }
}

/**
 * Where the profile signs error bodies (`errors.signed`), the error answering a readable request of a known account
 * carries an encryption_data that verifies as the operation's response would.
 */
function checkErrorSignature(
  ctx: CheckContext,
  report: Report,
  exchange: Exchange,
  operation: OperationKey,
  kind: ErrorKind,
  requirement: string,
): void {
  if (!ctx.profile.errors.signed || UNREAD.includes(kind) || kind === ctx.profile.errors.unknownMerchant) return;
  // An HTML error page has no field for encryption_data: only JSON and XML error bodies carry one.
  const kindOfBody = exchange.response?.decoded?.kind;
  if (kindOfBody !== 'json' && kindOfBody !== 'xml') return;
  const body = responseObject(exchange, ctx.spec);
  const valid = body && ctx.verifySignature?.(operation, 'response', body);
  if (body && valid === false) {
    report({
      code: 'SIGNATURE_INVALID',
      requirement,
      exchange,
      pointer: `/${FIELD.signature}`,
      expected: "an error body signed as the profile's responses are (errors.signed)",
      received: quoted(body[FIELD.signature]),
    });
  }
}

/**
 * The profile error kind an answer is, read from its status and its `<code>:` (JSON `return_message`, XML
 * `result_info`, or the HTML page's text), or from a refusal in the body the profile declares; undefined when it is none.
 */
export function errorKindOf(ctx: CheckContext, exchange: Exchange, operation?: OperationKey): ErrorKind | undefined {
  if (operation) {
    const inBody = refusalInBody(ctx, exchange, operation);
    if (inBody) return inBody.kind;
  }
  const status = statusOf(exchange);
  const kinds = definedKinds(ctx.profile).filter(
    (kind) => errorKindSpec(ctx.profile, kind, operation).status === status,
  );
  if (kinds.length === 0) return undefined;
  // The answer decoded (read only when its status is some kind's): a code written with escapes is the same code.
  const body = responseObject(exchange, ctx.spec);
  const text = [body?.[FIELD.returnMessage], body?.[FIELD.resultInfo], decodedText(exchange.response)]
    .filter((v) => typeof v === 'string')
    .join(' ');
  return kinds.find((kind) => text.includes(`${errorKindSpec(ctx.profile, kind, operation).code}:`));
}

/** Whether an answer is a refusal: a 4xx status (a 2xx is an acceptance; a 5xx is a server error, reported as such). */
function isClientRefusal(exchange: Exchange): boolean {
  const status = statusOf(exchange);
  return status !== undefined && status >= 400 && status < 500;
}

/**
 * Report when an answer that should refuse does not: no answer, a server error or an acceptance. A 4xx refuses; so
 * does an HTTP 200 in a refusal form the profile declares for the operation (`errors.refusalForms`: outside the APM
 * payment the document requires no 4xx). Returns whether it was a refusal.
 */
export function expectRefusal(
  report: Report,
  exchange: Exchange,
  requirement: string,
  what: string,
  inBody?: { ctx: CheckContext; operation: OperationKey },
): boolean {
  const status = statusOf(exchange);
  const accepted =
    inBody && status !== undefined && status < 300 ? refusalInBody(inBody.ctx, exchange, inBody.operation) : undefined;
  if (accepted) return true;
  const forms = inBody ? refusalForms(inBody.ctx, inBody.operation).filter((f) => f !== 'httpError') : [];
  const wanted = `a refusal of ${what} (a 4xx${forms.length ? `, or HTTP 200 ${forms.join(' / ')} as the profile says` : ''})`;
  if (status === undefined)
    report({ code: 'NO_RESPONSE', requirement, exchange, expected: wanted, received: outcomeOf(exchange) });
  else if (status >= 500)
    report({ code: 'SERVER_ERROR', requirement, exchange, expected: wanted, received: `HTTP ${status}` });
  else if (status < 400) {
    // What the answer says of itself, where it carries a failure text the profile does not declare.
    const body = inBody ? responseObject(exchange, inBody.ctx.spec) : undefined;
    const said = [FIELD.returnMessage, FIELD.resultInfo, FIELD.failureType].find((f) => typeof body?.[f] === 'string');
    report({
      code: 'NOT_REFUSED',
      requirement,
      exchange,
      expected: wanted,
      received: said ? `HTTP ${status}, ${said} ${quote(inBody!.ctx, body![said])}` : `HTTP ${status}`,
    });
  }
  return isClientRefusal(exchange);
}

/** Report when the follow-up of a refused request shows a change (a payment created, a payment's state moved). */
export function checkFollowUp(ctx: CheckContext, report: Report, observation: Observation, requirement: string): void {
  const f = observation.facts.followUp;
  const exchange = observation.steps.followUp;
  if (!f || f.kind === 'none' || !exchange) return;
  const body = responseObject(exchange, ctx.spec);
  if (f.kind === 'absent') {
    const found = statusOf(exchange) === 200 ? queryRecords(ctx, body, { [FIELD.orderNo]: f.orderNo }) : [];
    if (found.length) {
      report({
        code: 'STATE_CHANGED',
        requirement,
        exchange,
        expected: `no payment for the refused order ${f.orderNo}`,
        received: `${found.length} payment(s) in the query`,
      });
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
  const f = observation.facts.followUp;
  if (!f) return 'the probe made no follow-up';
  if (f.kind === 'none') return f.reason;
  return observation.steps.followUp ? undefined : 'the follow-up request was not made';
}

/** The checks of `batch.checkOrder` that compare an item with its transaction (they need it found). */
const TRANSACTION_CHECKS: readonly string[] = ['currencyMismatch', 'amountMismatch', 'state', 'overAmount'];

/**
 * Of per-item failures an item earns, the one the profile's `batch.checkOrder` reaches first. A check comparing the
 * item with its transaction finds an unknown transaction unknown, so `unknownTransaction` is reached at the first of
 * those checks if that comes before its own place.
 */
export function firstItemFailure<T extends string>(ctx: CheckContext, failures: readonly T[]): T {
  const order = ctx.profile.batch.checkOrder as string[];
  const at = (failure: string): number => {
    const own = order.indexOf(failure);
    if (failure !== 'unknownTransaction') return own < 0 ? order.length : own;
    const needing = order.findIndex((step) => TRANSACTION_CHECKS.includes(step));
    return Math.min(own < 0 ? order.length : own, needing < 0 ? order.length : needing);
  };
  return [...failures].sort((a, b) => at(a) - at(b))[0]!;
}

/** The payment-status code of a state, or a kit error naming the profile gap. */
export function codeOfState(ctx: CheckContext, state: string): string {
  const code = paymentStatusCode(ctx, state);
  if (code === undefined) throw new ProfileError(`profile: no payment_status value for state ${state}`);
  return code;
}
