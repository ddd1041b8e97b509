/** Reading exchanges for checks and probes: decoded bodies as JSON views, statuses, amounts, batch results, records. */
import { normaliseArrays } from '../core/codecs/xml.js';
import type { CheckContext, CheckoutFormModel, Exchange, OperationKey } from '../core/model.js';
import type { OperationModel, SpecModel } from '../core/spec/load.js';
import { FIELD } from './fields.js';
import { arrayProperties } from '../core/spec/schema-walk.js';
import { SpecError } from '../core/types/errors.js';

/** Body formats of responses. */
export type BodyFormat = 'json' | 'xml' | 'html';

/** The format a media type names (`application/xml`, `text/xml; charset=…`, `application/problem+json`), if any. */
export function formatOfMediaType(type: string | undefined): BodyFormat | undefined {
  const essence = (type ?? '').split(';')[0]!.trim().toLowerCase();
  if (/^[a-z]+\/([a-z0-9.+-]*\+)?json$/.test(essence)) return 'json';
  if (/^(application|text)\/([a-z0-9.+-]*\+)?xml$/.test(essence)) return 'xml';
  if (essence === 'text/html') return 'html';
  return undefined;
}

/** The body format of an operation's 200 response, from the spec's response media. */
export function expectedFormat(op: OperationModel): BodyFormat | undefined {
  for (const media of op.responseMedia) {
    const format = formatOfMediaType(media.type);
    if (format) return format;
  }
  return undefined;
}

/** The operation model, or a kit error. */
export function operationOf(spec: SpecModel, key: OperationKey): OperationModel {
  const op = spec.operations.get(key);
  if (!op) throw new SpecError(`spec: no operation ${key}`);
  return op;
}

/** HTTP status of an exchange, or undefined when there was no response. */
export function statusOf(exchange: Exchange | undefined): number | undefined {
  return exchange?.response?.status;
}

/** A header value (names compared case-insensitively). */
export function headerOf(headers: Record<string, string> | undefined, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers ?? {})) if (k.toLowerCase() === name.toLowerCase()) return v;
  return undefined;
}

const arrayFieldsCache = new WeakMap<SpecModel, Map<string, string[]>>();

function arrayFields(spec: SpecModel, schemaId: string): string[] {
  let bySchema = arrayFieldsCache.get(spec);
  if (!bySchema) arrayFieldsCache.set(spec, (bySchema = new Map()));
  let fields = bySchema.get(schemaId);
  if (!fields) bySchema.set(schemaId, (fields = arrayProperties(spec, schemaId)));
  return fields;
}

/**
 * The response body as an object: JSON as is, XML mapped to JSON (repeated elements as arrays where the response
 * schema has arrays), the checkout page as its form model. `undefined` when there is no decodable object.
 */
export function responseObject(exchange: Exchange | undefined, spec?: SpecModel): Record<string, unknown> | undefined {
  const decoded = exchange?.response?.decoded;
  if (!decoded) return undefined;
  if (decoded.kind === 'json') return isObject(decoded.value) ? decoded.value : undefined;
  if (decoded.kind === 'xml') {
    const op = spec && exchange.operation !== 'external' ? spec.operations.get(exchange.operation) : undefined;
    return op && spec ? normaliseArrays(decoded.value, arrayFields(spec, op.responseSchemaId)) : decoded.value;
  }
  if (decoded.kind === 'html') return decoded.form as unknown as Record<string, unknown>;
  return undefined;
}

/** The checkout form model of an exchange, when its body is an HTML page with a form. */
export function formOf(exchange: Exchange | undefined): CheckoutFormModel | undefined {
  const decoded = exchange?.response?.decoded;
  return decoded?.kind === 'html' ? decoded.form : undefined;
}

/** Whether a value is a plain object. */
export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * The objects of an array field of an answer; none when the field is absent or not an array (a gateway answering
 * another shape fails the schema check; the checks reading the list find nothing in it).
 */
export function objectsIn(obj: Record<string, unknown> | undefined, field: string): Record<string, unknown>[] {
  const v = obj?.[field];
  return Array.isArray(v) ? v.filter(isObject) : [];
}

/**
 * `value` as an absolute URL (resolved against `base`), or undefined when it does not parse as one. A URL of another
 * scheme or host is still a URL: following it, the client refuses it (off-target) and the checks report that.
 */
export function absoluteUrl(value: unknown, base?: string): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    return new URL(value, base).href;
  } catch {
    return undefined;
  }
}

/** Why the kit cannot follow an answer's URL field holding `value`: the format check of its schema reports the value. */
export function notFollowable(field: string, value: string): string {
  const shown = value.length > 80 ? `${value.slice(0, 80)}…` : value;
  return `the answer's ${field} ${JSON.stringify(shown)} is not a URL; the schema's format check (fieldFormatsFollowConventions) reports it`;
}

/** A field as a string, or undefined when absent or not a string. */
export function text(obj: Record<string, unknown> | undefined, field: string): string | undefined {
  const v = obj?.[field];
  return typeof v === 'string' ? v : undefined;
}

/** An amount string (`10.36`) in cents, or undefined when it is not of that form. */
export function cents(amount: unknown): number | undefined {
  if (typeof amount !== 'string') return undefined;
  const m = /^([0-9]+)\.([0-9]{2})$/.exec(amount);
  return m ? Number(m[1]) * 100 + Number(m[2]) : undefined;
}

/** An amount written in any decimal form (`10`, `10.5`, `10.50`) as a number of hundredths; undefined otherwise. */
export function hundredths(value: unknown): number | undefined {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^-?[0-9]+(\.[0-9]+)?$/.test(text.trim())) return undefined;
  return Math.round(Number(text) * 100);
}

/** Fields whose values are amounts of money (compared as numbers by `sameValue`). */
const AMOUNT_FIELDS: ReadonlySet<string> = new Set([
  FIELD.amount,
  FIELD.refundAmount,
  FIELD.paymentAmount,
  FIELD.sourceAmount,
]);
/** Fields whose values are currency codes (compared in any case by `sameValue`). */
const CURRENCY_FIELDS: ReadonlySet<string> = new Set([FIELD.currency, FIELD.paymentCurrency, FIELD.sourceCurrency]);

/** Whether a field holds money (an amount or a currency): another value of it moves other money than was asked. */
export function holdsMoney(field: string): boolean {
  return AMOUNT_FIELDS.has(field) || CURRENCY_FIELDS.has(field);
}

/**
 * Whether two values of a field are the same value, however written: amounts as numbers (`10.0` is `10.00`),
 * currency codes in any case, anything else exactly. What tells another value (an integrity failure) from another
 * writing of the same one (a format or echo finding at the document's level).
 */
export function sameValue(field: string, a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (CURRENCY_FIELDS.has(field))
    return typeof a === 'string' && typeof b === 'string' && a.toUpperCase() === b.toUpperCase();
  if (AMOUNT_FIELDS.has(field)) return hundredths(a) !== undefined && hundredths(a) === hundredths(b);
  return false;
}

/** Cents as an amount string. */
export function money(value: number): string {
  return `${Math.floor(value / 100)}.${String(value % 100).padStart(2, '0')}`;
}

/** The per-order results of a batch response (the operation's result array), or undefined when absent. */
export function batchResults(
  spec: SpecModel,
  operation: OperationKey,
  body: Record<string, unknown> | undefined,
): Record<string, unknown>[] | undefined {
  const batch = operationOf(spec, operation).batch;
  const list = batch ? body?.[batch.orders] : undefined;
  return Array.isArray(list) ? list.filter(isObject) : undefined;
}

/** The request items of a batch request. */
export function batchItems(
  spec: SpecModel,
  operation: OperationKey,
  body: Record<string, unknown> | undefined,
): Record<string, unknown>[] {
  const batch = operationOf(spec, operation).batch;
  const list = batch ? body?.[batch.orders] : undefined;
  return Array.isArray(list) ? list.filter(isObject) : [];
}

/** The key fields a result answers a request item by (`echoItems.key`). */
function itemKey(spec: SpecModel, operation: OperationKey): string[] {
  return operationOf(spec, operation).echoItems?.key ?? [FIELD.transactionId, FIELD.orderNo];
}

/** Results answering a request item (same key fields). */
export function resultsFor(
  spec: SpecModel,
  operation: OperationKey,
  results: readonly Record<string, unknown>[],
  item: Record<string, unknown>,
) {
  const key = itemKey(spec, operation);
  return results.filter((r) => key.every((k) => r[k] === item[k]));
}

/** The success and failure values of a status field, from the profile (`statusValues[field]`). */
export function statusValues(ctx: CheckContext, field: string): { success?: string; failure?: string } {
  const values = (ctx.profile.statusValues as unknown as Record<string, Record<string, string>>)[field];
  return { success: values?.success, failure: values?.failure };
}

/** Whether a batch result reports success, by the profile's success value of the operation's status field. */
export function itemSucceeded(
  ctx: CheckContext,
  operation: OperationKey,
  result: Record<string, unknown> | undefined,
): boolean {
  const batch = operationOf(ctx.spec, operation).batch;
  return !!batch && result?.[batch.status] === statusValues(ctx, batch.status).success;
}

/** Whether an envelope (batch, query or refund search) reports success by the profile's `return_status`. */
export function envelopeSucceeded(ctx: CheckContext, body: Record<string, unknown> | undefined): boolean {
  return body?.[FIELD.returnStatus] === ctx.profile.statusValues.return_status.success;
}

/** The payment-status code the profile gives a state. */
export function paymentStatusCode(ctx: CheckContext, state: string): string | undefined {
  return (ctx.profile.statusValues.payment_status as Record<string, string>)[state];
}

/** The state a payment-status code stands for in the profile. */
export function stateOfCode(ctx: CheckContext, code: unknown): string | undefined {
  return Object.entries(ctx.profile.statusValues.payment_status).find(([, v]) => v === code)?.[0];
}

/** Query order records matching a transaction (found records only: a `query_result` of the profile's notFound value is no record). */
export function queryRecords(
  ctx: CheckContext,
  body: Record<string, unknown> | undefined,
  match: Record<string, unknown>,
): Record<string, unknown>[] {
  const list = body?.[FIELD.ordersList];
  if (!Array.isArray(list)) return [];
  const notFound = ctx.profile.statusValues.query_result.notFound;
  return list
    .filter(isObject)
    .filter(
      (r) =>
        r[FIELD.queryResult] !== notFound && Object.entries(match).every(([k, v]) => v === undefined || r[k] === v),
    );
}

/** `<code>:<message>` of a profile code/message pair. */
export function codeMessage(pair: { code: string; message: string }): string {
  return `${pair.code}:${pair.message}`;
}

/**
 * A profile `<code>`/`<message>` pair; the message text is compared only when the pair is `pinned` (`prefix`: as
 * the start of the text, the gateway adding a variable detail after it).
 */
export type CodeMessagePair = { code: string; message: string; pinned?: boolean | 'prefix' };

/** Whether a message text is the profile's: any text unless pinned; exactly, or (`prefix`) starting with it. */
export function matchesMessage(pair: CodeMessagePair, text: unknown): boolean {
  if (typeof text !== 'string') return false;
  if (pair.pinned === 'prefix') return text.startsWith(pair.message);
  return pair.pinned ? text === pair.message : true;
}

/** Whether a `<code>:<message>` value is the profile's pair: the same code, and the same message where it is pinned. */
export function matchesCodeMessage(pair: CodeMessagePair, value: unknown): boolean {
  if (typeof value !== 'string' || codeOf(value) !== pair.code) return false;
  return matchesMessage(pair, value.slice(pair.code.length + 1));
}

/** What a pair expects, in words: the whole value when pinned, its start when pinned as a prefix, else the code with any message. */
export function expectedCodeMessage(pair: CodeMessagePair): string {
  if (pair.pinned === 'prefix') return `${JSON.stringify(`${codeMessage(pair)}…`)} (the message's start pinned)`;
  return pair.pinned
    ? JSON.stringify(codeMessage(pair))
    : `code ${JSON.stringify(pair.code)} ("${pair.code}:<any message>")`;
}

/** The code part of a `<code>:<message>` value. */
function codeOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.includes(':') ? value.slice(0, value.indexOf(':')) : undefined;
}

/** What a refused request must leave unchanged, and how a probe's follow-up reads it. */
export type FollowUp =
  | { kind: 'absent'; orderNo: string }
  | { kind: 'state'; transactionId: string; orderNo: string; expectedCode: string | undefined }
  | { kind: 'none'; reason: string };
