/**
 * Request bounds checked before a body is parsed: the number of form fields, the number of JSON keys and array
 * elements, and the nesting depth. Each is first bounded by counting characters with `indexOf` (native, no allocation;
 * not even that when the body is too short to exceed the cap); only a body whose counts exceed a cap is scanned
 * character by character, and the scan stops at the first cap crossed. A
 * body over a cap is never handed to `JSON.parse` or `URLSearchParams`. Also: lone UTF-16 surrogates (which only
 * JSON `\uD800`-style escapes can produce) are found after parsing, and refusal reasons are made safe for a
 * response header.
 */
import { childPointer } from '../core/spec/pointer.js';

/** The caps (gateway configuration `limits`). */
export interface BodyLimits {
  /** Most `&`-separated parts of a form body. */
  maxFormFields: number;
  /** Most object keys in a JSON body, or in all JSON-text values of a form body together. */
  maxJsonKeys: number;
  /** Most array elements in a JSON body (all arrays together; an empty array counts one), or in a form's JSON-text values. */
  maxJsonItems: number;
  /** Deepest nesting of objects and arrays (the top-level object is depth 1). */
  maxDepth: number;
}

/** How often `needle` occurs in `text`, counting stops once past `limit`. */
function countUpTo(text: string, needle: string, limit: number, from = 0): number {
  let n = 0;
  for (let i = text.indexOf(needle, from); i !== -1 && n <= limit; i = text.indexOf(needle, i + needle.length)) n += 1;
  return n;
}

/** The sum of the counts of several needles, stopping once past `limit`. */
function countAllUpTo(text: string, needles: readonly string[], limit: number): number {
  let n = 0;
  for (const needle of needles) {
    n += countUpTo(text, needle, limit - n);
    if (n > limit) break;
  }
  return n;
}

/**
 * Whether `text` is too short to hold more than `limit` of anything each occurrence of which takes a character of
 * its own (a key its `:`, an element its `,` or `[`, a level its `{` or `[`, a field its `&`): no need to count.
 */
function shorterThan(text: string, limit: number): boolean {
  return text.length <= limit;
}

/** Counts of a JSON scan so far (they add up across the JSON-text values of a form). */
interface JsonCounts {
  keys: number;
  items: number;
}

/**
 * Character-by-character scan of JSON text: nesting depth, keys (`:` outside strings) and array elements (`,`
 * inside an array, plus one per array), stopping at the first cap crossed.
 */
function scanJson(text: string, limits: BodyLimits, counts: JsonCounts): string | undefined {
  // Whether each open container is an array; never deeper than maxDepth.
  const inArray: boolean[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (inArray.length >= limits.maxDepth) return `nested deeper than ${limits.maxDepth} levels`;
      inArray.push(c === 91);
      if (c === 91 && ++counts.items > limits.maxJsonItems) return `more than ${limits.maxJsonItems} array elements`;
    } else if (c === 125 || c === 93) inArray.pop();
    else if (c === 58) {
      if (++counts.keys > limits.maxJsonKeys) return `more than ${limits.maxJsonKeys} keys`;
    } else if (c === 44 && inArray[inArray.length - 1] && ++counts.items > limits.maxJsonItems)
      return `more than ${limits.maxJsonItems} array elements`;
  }
  return undefined;
}

/** A bound on the array elements of JSON text: one per `[`, one per `,` after the first `[` (earlier commas separate keys). */
function jsonItemsUpTo(text: string, limit: number): number {
  const first = text.indexOf('[');
  if (first === -1) return 0;
  const arrays = countUpTo(text, '[', limit, first);
  return arrays > limit ? arrays : arrays + countUpTo(text, ',', limit - arrays, first);
}

/** Why a JSON body is over a cap, or undefined. Cost: a few `indexOf` passes unless a count exceeds a cap. */
export function jsonBodyProblem(text: string, limits: BodyLimits): string | undefined {
  const keysBound = shorterThan(text, limits.maxJsonKeys) ? 0 : countUpTo(text, ':', limits.maxJsonKeys);
  const depthBound = shorterThan(text, limits.maxDepth) ? 0 : countAllUpTo(text, ['{', '['], limits.maxDepth);
  const itemsBound = shorterThan(text, limits.maxJsonItems) ? 0 : jsonItemsUpTo(text, limits.maxJsonItems);
  if (keysBound <= limits.maxJsonKeys && depthBound <= limits.maxDepth && itemsBound <= limits.maxJsonItems)
    return undefined;
  const problem = scanJson(text, limits, { keys: 0, items: 0 });
  return problem && `JSON body ${problem}`;
}

const FORM_OPEN = ['{', '[', '%7B', '%7b', '%5B', '%5b'];
const FORM_COLON = [':', '%3A', '%3a'];
const FORM_ITEMS = [',', '%2C', '%2c', '[', '%5B', '%5b'];

/**
 * Why a form body is over a cap, or undefined. Fields are counted as `&` + 1 before any decoding; the JSON text
 * of nested values (a value starting with `{` or `[`) is bounded the same way as a JSON body, all values together.
 */
export function formBodyProblem(text: string, limits: BodyLimits): string | undefined {
  if (
    !shorterThan(text, limits.maxFormFields - 1) &&
    countUpTo(text, '&', limits.maxFormFields) + 1 > limits.maxFormFields
  )
    return `form body with more than ${limits.maxFormFields} fields`;
  const keysBound = shorterThan(text, limits.maxJsonKeys) ? 0 : countAllUpTo(text, FORM_COLON, limits.maxJsonKeys);
  const depthBound = shorterThan(text, limits.maxDepth) ? 0 : countAllUpTo(text, FORM_OPEN, limits.maxDepth);
  const itemsBound = shorterThan(text, limits.maxJsonItems) ? 0 : countAllUpTo(text, FORM_ITEMS, limits.maxJsonItems);
  if (keysBound <= limits.maxJsonKeys && depthBound <= limits.maxDepth && itemsBound <= limits.maxJsonItems)
    return undefined;
  // At most maxFormFields values to decode: bounded work.
  const counts = { keys: 0, items: 0 };
  for (const [name, value] of new URLSearchParams(text)) {
    const first = value.trimStart()[0];
    if (first !== '{' && first !== '[') continue;
    const problem = scanJson(value, limits, counts);
    if (problem) return `form field ${name}: JSON text ${problem}`;
  }
  return undefined;
}

/** Why a body is over a cap: read as JSON when it starts with `{`, as a form otherwise. */
export function bodyProblem(text: string, limits: BodyLimits, as?: 'json' | 'form'): string | undefined {
  const json = as ? as === 'json' : text.trimStart().startsWith('{');
  return json ? jsonBodyProblem(text, limits) : formBodyProblem(text, limits);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** A JSON escape of a surrogate code unit (paired or not). */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** JSON pointer of the first key or string holding a lone UTF-16 surrogate; undefined when none. */
function loneSurrogateAt(value: unknown, at = ''): string | undefined {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? at || '/' : undefined;
  if (!value || typeof value !== 'object') return undefined;
  for (const [key, v] of Object.entries(value)) {
    const path = childPointer(at, key);
    if (LONE_SURROGATE.test(key)) return path;
    const hit = loneSurrogateAt(v, path);
    if (hit) return hit;
  }
  return undefined;
}

/**
 * Lone surrogates of a parsed body (the keys and values are bounded by the caps above). A JSON body is walked
 * only when its text holds a surrogate escape; a form body's values come from UTF-8 and are well formed, but
 * its JSON-text values may hold escapes, so its nested values are walked.
 */
export function loneSurrogateProblem(
  text: string,
  body: Record<string, unknown>,
  encoding: 'json' | 'form',
): string | undefined {
  // `indexOf` first: far cheaper than the expression over a body without any `\u` escape.
  if (encoding === 'json' && (!text.includes('\\u') || !SURROGATE_ESCAPE.test(text))) return undefined;
  const at = loneSurrogateAt(
    encoding === 'json'
      ? body
      : Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null && typeof v === 'object')),
  );
  return at && `${at} holds a lone UTF-16 surrogate (not Unicode text)`;
}

/** JSON pointer of the first string (key or value) longer than `max` characters; undefined when none. */
function longTextAt(value: unknown, max: number, at = ''): string | undefined {
  if (typeof value === 'string') return value.length > max ? at || '/' : undefined;
  if (!value || typeof value !== 'object') return undefined;
  for (const [key, v] of Object.entries(value)) {
    const path = childPointer(at, key.length > max ? `${key.slice(0, 40)}...` : key);
    if (key.length > max) return path;
    const hit = longTextAt(v, max, path);
    if (hit) return hit;
  }
  return undefined;
}

/**
 * A field of a parsed body whose text is longer than `max` characters: the profile's `limits.maxFieldLength` (the
 * interface shows no lengths: a profile point), or the gateway configuration's when the profile does not state it.
 * A body whose text is no longer than `max` cannot hold one (a decoded value is never longer than its text) and is
 * not walked.
 */
export function longFieldProblem(
  text: string,
  body: Record<string, unknown>,
  { max, from }: { max: number | undefined; from: 'profile' | 'configuration' },
): string | undefined {
  if (max === undefined || text.length <= max) return undefined;
  const at = longTextAt(body, max);
  return (
    at &&
    `${at} is longer than ${max} characters (${from === 'profile' ? "the profile's limits.maxFieldLength" : "the gateway configuration's limits.maxFieldLength: the profile states none"})`
  );
}

/** Longest `x-pagi-reason` value sent. */
const REASON_MAX = 400;

/** A reason as a header value: printable ASCII only (others as `\uXXXX`), at most REASON_MAX characters. */
export function headerSafe(reason: string): string {
  const safe = reason.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return safe.length > REASON_MAX ? `${safe.slice(0, REASON_MAX - 3)}...` : safe;
}
