/** Error replies exactly as the profile's `errors` section shapes them, and response signing. */
import type { OperationKey } from '../core/model.js';
import { sign } from '../core/signing.js';
import { errorKindSpec } from '../core/profile/choices.js';
import { renderTemplate } from '../core/profile/template.js';
import type { ErrorKind, Gateway } from './context.js';
import type { Reply } from './reply.js';

type TemplateObject = { [key: string]: string | TemplateObject };

function fill(
  template: string,
  values: { code: string; message: string; httpStatus: number; request: Record<string, unknown> },
): string {
  return renderTemplate(template, values.request, {
    code: values.code,
    message: values.message,
    httpStatus: String(values.httpStatus),
  });
}

function fillObject(shape: TemplateObject, values: Parameters<typeof fill>[1]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(shape)) out[k] = typeof v === 'string' ? fill(v, values) : fillObject(v, values);
  return out;
}

/** `encryption_data` of a response body when the profile signs that operation's responses; the body otherwise unchanged. */
export function signResponse(
  gw: Gateway,
  op: OperationKey,
  body: Record<string, unknown>,
  secret: string,
): Record<string, unknown> {
  const signature = sign(gw.profile.signature, 'response', op, body, secret);
  if (signature !== undefined) body.encryption_data = signature;
  return body;
}

/**
 * The profile's error reply of `kind` for an operation (`undefined` = no operation known: the profile's
 * `unknownOperationFormat`), filled from the request as received, in the operation's first refusal form
 * (`errors.refusalForms`). The gateway's own pages ask for `html`, always as an HTTP error; `asHttpError` also when
 * the body selects no variant of a shared path.
 */
export function errorReply(
  gw: Gateway,
  kind: ErrorKind,
  op: OperationKey | undefined,
  request: Record<string, unknown> = {},
  secret?: string,
  page?: 'html',
  asHttpError = false,
  detail?: string,
): Reply {
  const errors = gw.profile.errors;
  const format = page ?? (op ? errors.formatByOperation[op] : errors.unknownOperationFormat);
  const form = op && !page && !asHttpError ? errors.refusalForms[op][0]! : 'httpError';
  const spec = errorKindSpec(gw.profile, kind, op);
  const { code } = spec;
  // A message pinned as a prefix goes on with the refusal's detail (the reason, which never quotes a value).
  const message = spec.pinned === 'prefix' && detail ? `${spec.message}: ${detail}` : spec.message;
  // A refusal in the body (statusInBody, failureType) is answered with HTTP 200.
  const status = form === 'httpError' || form === 'httpFailureType' ? spec.status : 200;
  const values = { code, message, httpStatus: status, request };
  const signIt = (body: Record<string, unknown>) =>
    errors.signed && op && secret ? signResponse(gw, op, body, secret) : body;
  if (form === 'failureType' || form === 'httpFailureType') {
    const key = gw.profile.payout.idempotencyKey;
    const body: Record<string, unknown> = {
      merchant_id: fill('{request.merchant_id}', values),
      account_id: fill('{request.account_id}', values),
    };
    if (typeof request[key] === 'string') body[key] = request[key];
    Object.assign(body, {
      status: gw.profile.statusValues.payout_status.failed,
      failure_type: code,
      failure_reason: message,
    });
    return { kind: 'json', status, contentType: errors.bodies.json.contentType, body: signIt(body) };
  }
  if (format === 'json') {
    const shape = errors.bodies.json;
    const body = fillObject(shape.body as TemplateObject, values);
    // The operation's result list, empty, where the profile's error envelopes carry it.
    const list = op && shape.emptyResults ? resultListOf(gw, op) : undefined;
    if (list !== undefined) body[list] = [];
    return { kind: 'json', status, contentType: shape.contentType, body: signIt(body) };
  }
  if (format === 'xml') {
    const shape = errors.bodies.xml;
    return {
      kind: 'xml',
      status,
      contentType: shape.contentType,
      root: shape.root,
      body: signIt(fillObject(shape.body as TemplateObject, values)),
    };
  }
  const shape = errors.bodies.html;
  return {
    kind: 'html',
    status,
    contentType: shape.contentType,
    page: {
      title: fill(shape.title, values),
      autoSubmit: false,
      paragraphs: [{ id: shape.messageElementId, text: fill(shape.message, values) }],
    },
  };
}

/** The result list of an operation's answer: a batch's orders, a query's or refund search's records; else undefined. */
function resultListOf(gw: Gateway, op: OperationKey): string | undefined {
  const facts = gw.facts.get(op);
  return facts?.model.batch?.orders ?? facts?.records?.list;
}

/** `<code>:<message>` of a profile code/message pair. */
export function codeMessage(pair: { code: string; message: string }): string {
  return `${pair.code}:${pair.message}`;
}
