import { createHmac, hash } from 'node:crypto';
import type { OperationKey } from './model.js';
import type { PAGIProfile } from './types/generated.js';
import { ProfileError } from './types/errors.js';

/** The signature section of a profile. */
export type SignatureProfile = PAGIProfile['signature'];
type PairsRule = Extract<SignatureProfile['request'], { mode: 'sortedPairs' }>;
type ListRule = {
  separator: string;
  missingField: 'emptyString' | 'omitted';
  fields: Partial<Record<OperationKey, string[]>>;
  leaveOut?: readonly ('boolean' | 'null')[];
};

/**
 * A value URL-encoded for a sorted-pairs string. A lone surrogate (a hostile or cut text) is encoded as U+FFFD, the
 * way a UTF-8 encoder writes it, instead of throwing URIError.
 */
export function urlEncodedValue(text: string): string {
  return encodeURIComponent(
    text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'),
  );
}

/** Whether a rule leaves a value out of the string to sign for its JSON type (`leaveOut`: booleans, nulls). */
function leftOut(rule: { leaveOut?: readonly ('boolean' | 'null')[] }, value: unknown): boolean {
  const types = rule.leaveOut;
  if (!types?.length) return false;
  return (value === null && types.includes('null')) || (typeof value === 'boolean' && types.includes('boolean'));
}

/** Whether a message is a request (signed by the merchant) or a response (signed by the gateway). */
export type Direction = 'request' | 'response';

function scalarText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined; // objects and arrays are not scalars
}

function fromFieldList(rule: ListRule, operation: OperationKey, body: Record<string, unknown>): string {
  const fields = rule.fields[operation];
  if (!fields) throw new ProfileError(`signature: the profile has no field list for ${operation}`);
  const parts: string[] = [];
  for (const field of fields) {
    if (leftOut(rule, body[field])) continue;
    const text = scalarText(body[field]);
    if (text === undefined && rule.missingField === 'omitted') continue;
    parts.push(text ?? '');
  }
  return parts.join(rule.separator);
}

function fromSortedPairs(rule: Omit<PairsRule, 'mode'>, body: Record<string, unknown>): string {
  const pairs: string[] = [];
  for (const name of Object.keys(body).sort()) {
    if (rule.exclude.includes(name) || leftOut(rule, body[name])) continue;
    const text = scalarText(body[name]);
    if (text === undefined && typeof body[name] === 'object' && body[name] !== null) continue;
    if ((text === undefined || text === '') && rule.skipEmpty) continue;
    const value = rule.valueEncoding === 'urlEncoded' ? urlEncodedValue(text ?? '') : (text ?? '');
    pairs.push(`${name}${rule.keyValueSeparator}${value}`);
  }
  return pairs.join(rule.pairSeparator);
}

/**
 * A request body as a gateway reading it signs it (`encoding` of the request, `requestMedia.formNestedValues`): a
 * JSON body as it is; a form body as its fields read back, every scalar as its text and `null` left out (a form
 * carries text only), and each nested value as the object it decodes to (`decoded`) or the JSON text sent (`text`).
 */
export function signedView(
  body: Record<string, unknown>,
  encoding: 'json' | 'form',
  nestedValues: 'decoded' | 'text' = 'decoded',
): Record<string, unknown> {
  if (encoding === 'json') return body;
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body)) {
    if (value === undefined || value === null) continue;
    const text = typeof value === 'object' ? (nestedValues === 'text' ? JSON.stringify(value) : value) : String(value);
    Object.defineProperty(out, name, { value: text, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * The string to sign of a message, as the profile builds it; undefined when the profile does not sign
 * that direction of that operation.
 */
export function stringToSign(
  sig: SignatureProfile,
  direction: Direction,
  operation: OperationKey,
  body: Record<string, unknown>,
): string | undefined {
  if (direction === 'request') {
    const rule = sig.request;
    return rule.mode === 'fieldList' ? fromFieldList(rule as ListRule, operation, body) : fromSortedPairs(rule, body);
  }
  const rule = sig.response;
  if (!rule.signed) return undefined;
  if ('pairs' in rule) {
    if (rule.pairs.mode !== 'sortedPairs') throw new ProfileError('signature: response pairs without mode sortedPairs');
    return fromSortedPairs(rule.pairs, body);
  }
  if (rule.mode !== 'fieldList')
    throw new ProfileError('signature: a signed response rule is either sorted pairs or field lists');
  if (!(rule.fields as Record<string, unknown>)[operation]) return undefined;
  return fromFieldList(rule as ListRule, operation, body);
}

/** Digest of a string to sign with the profile's algorithm and encoding. */
export function digest(sig: SignatureProfile, text: string, secret: string): string {
  const encoding = sig.encoding === 'base64' ? 'base64' : 'hex';
  const out =
    sig.algorithm.name === 'hmac-sha256'
      ? createHmac('sha256', secret).update(text, 'utf8').digest(encoding)
      : hash('sha256', text + sig.algorithm.secretJoin + secret, encoding); // one-shot: the gateway signs twice per request
  return sig.encoding === 'hex-upper' ? out.toUpperCase() : out;
}

/** `encryption_data` for a message, or undefined when the profile does not sign it. */
export function sign(
  sig: SignatureProfile,
  direction: Direction,
  operation: OperationKey,
  body: Record<string, unknown>,
  secret: string,
): string | undefined {
  const text = stringToSign(sig, direction, operation, body);
  return text === undefined ? undefined : digest(sig, text, secret);
}

/** Whether a received `encryption_data` matches the message; false when it is missing or not a string. */
export function verify(
  sig: SignatureProfile,
  direction: Direction,
  operation: OperationKey,
  body: Record<string, unknown>,
  secret: string,
): boolean {
  const received = body.encryption_data;
  const expected = sign(sig, direction, operation, body, secret);
  if (typeof received !== 'string' || expected === undefined) return false;
  return sig.caseInsensitiveCompare ? received.toLowerCase() === expected.toLowerCase() : received === expected;
}
