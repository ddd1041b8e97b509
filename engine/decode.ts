/** Decoding of response bodies by the operation's response media: XML, the checkout HTML page, or JSON. */
import { readPageTextNodes } from '../core/codecs/html.js';
import { htmlReader } from '../core/codecs/html-reader.js';
import { duplicateMembers } from '../core/codecs/json.js';
import { HTML_LIMITS, jsonOverLimit, markupOverLimit } from '../core/codecs/limits.js';
import { normaliseArrays, readXml, xmlOverLimit } from '../core/codecs/xml.js';
import type { DecodedBody, OperationKey, ReceivedResponse } from '../core/model.js';
import type { Profile } from '../core/profile/load.js';
import type { OperationModel, SpecModel } from '../core/spec/load.js';
import { resolveRef } from '../core/spec/pointer.js';
import { SpecError } from '../core/types/errors.js';

/** Body formats the kit reads. */
export type BodyFormat = 'json' | 'xml' | 'html';

/** Formats of the media types seen, by media type (an answer's few content types recur on every exchange). */
const formatsSeen = new Map<string, BodyFormat | undefined>();

/** The format a media type names (`application/xml`, `text/xml; charset=…` → xml), if any. */
export function formatOfMediaType(type: string | undefined): BodyFormat | undefined {
  const key = type ?? '';
  if (formatsSeen.has(key)) return formatsSeen.get(key);
  const essence = key.split(';')[0]!.trim().toLowerCase();
  const format = /^[a-z]+\/([a-z0-9.+-]*\+)?json$/.test(essence)
    ? 'json'
    : /^[a-z]+\/([a-z0-9.+-]*\+)?xml$/.test(essence)
      ? 'xml'
      : essence === 'text/html'
        ? 'html'
        : undefined;
  if (formatsSeen.size >= 64) formatsSeen.clear();
  formatsSeen.set(key, format);
  return format;
}

/** The format of an operation's 200 response, from the spec's response media. */
function responseFormat(op: OperationModel): BodyFormat {
  for (const media of op.responseMedia) {
    const format = formatOfMediaType(media.type);
    if (format) return format;
  }
  throw new SpecError(`spec: ${op.key} has no JSON, XML or HTML response media`);
}

type Node = Record<string, any>;

function isArraySchema(spec: SpecModel, node: Node | undefined, base: string, depth = 0): boolean {
  if (!node || depth > 8) return false;
  if (node.type === 'array' || node.items) return true;
  if (typeof node.$ref === 'string') {
    const target = resolveRef(spec.schemas, node.$ref, base);
    return isArraySchema(spec, target.node, target.base, depth + 1);
  }
  return (node.allOf ?? []).some((sub: Node) => isArraySchema(spec, sub, base, depth + 1));
}

const arrayFieldCache = new WeakMap<SpecModel, Map<string, string[]>>();

/** Top-level properties of a schema (following `$ref` and `allOf`) whose values are arrays. */
function arrayFieldsOf(spec: SpecModel, schemaId: string): string[] {
  let cache = arrayFieldCache.get(spec);
  if (!cache) arrayFieldCache.set(spec, (cache = new Map()));
  const hit = cache.get(schemaId);
  if (hit) return hit;
  const fields = new Set<string>();
  const walk = (node: Node | undefined, base: string, depth: number): void => {
    if (!node || depth > 8) return;
    for (const [name, sub] of Object.entries<Node>(node.properties ?? {}))
      if (isArraySchema(spec, sub, base)) fields.add(name);
    for (const sub of node.allOf ?? []) walk(sub, base, depth + 1);
    if (typeof node.$ref === 'string') {
      const target = resolveRef(spec.schemas, node.$ref, base);
      walk(target.node, target.base, depth + 1);
    }
  };
  walk(spec.schemas.get(schemaId), schemaId, 0);
  const list = [...fields];
  cache.set(schemaId, list);
  return list;
}

/**
 * A body past a bound of its reader, as that reader answers it: found in the whole text (`jsonOverLimit`,
 * `markupOverLimit`) or as the body arrived (`JsonScan`, `MarkupScan`).
 */
export function overLimitBody(format: BodyFormat, over: string): DecodedBody {
  if (format === 'json') return { kind: 'undecodable', format, problem: `JSON with ${over}; the kit reads no further` };
  if (format === 'html') return { kind: 'undecodable', format, problem: `page with ${over}; the kit reads no further` };
  const problem = xmlOverLimit(over);
  return { kind: 'undecodable', format, problem: `${problem.kind}: ${problem.detail}` };
}

function decodeJson(text: string): DecodedBody {
  const over = jsonOverLimit(text);
  if (over) return overLimitBody('json', over);
  try {
    const value: unknown = JSON.parse(text);
    // JSON.parse keeps the last value of a repeated name: the names an object repeats are read from the text.
    const duplicates = duplicateMembers(text);
    return duplicates.length ? { kind: 'json', value, duplicates } : { kind: 'json', value };
  } catch (e) {
    return { kind: 'undecodable', format: 'json', problem: `not JSON: ${(e as Error).message}` };
  }
}

function decodeXml(spec: SpecModel, op: OperationModel, text: string): DecodedBody {
  const read = readXml(text);
  if (!read.ok) return { kind: 'undecodable', format: 'xml', problem: `${read.problem.kind}: ${read.problem.detail}` };
  return { kind: 'xml', root: read.root, value: normaliseArrays(read.value, arrayFieldsOf(spec, op.responseSchemaId)) };
}

async function decodeHtml(text: string): Promise<DecodedBody> {
  const over = markupOverLimit(text, HTML_LIMITS);
  if (over) return overLimitBody('html', over);
  try {
    return { kind: 'html', form: await htmlReader().read(text) };
  } catch (e) {
    return { kind: 'undecodable', format: 'html', problem: (e as Error).message };
  }
}

/** Whether a Content-Encoding names a coding: the kit sends no Accept-Encoding, so it asked for none. */
function encoded(contentEncoding: string | undefined): boolean {
  return contentEncoding !== undefined && !/^\s*(identity)?\s*$/i.test(contentEncoding);
}

function encodedProblem(contentEncoding: string): string {
  return `body sent with Content-Encoding ${contentEncoding.slice(0, 40)}, which the kit did not accept; it is not inflated`;
}

/**
 * The reader a whole body (not cut, not encoded) of this answer goes to: `decodeBody`'s choice of format
 * (`operation` 'external': `decodeExternal`'s); undefined when none.
 */
export function readerOf(
  spec: SpecModel,
  profile: Profile,
  operation: OperationKey | 'external',
  status: number,
  contentType: string | undefined,
  contentEncoding: string | undefined,
): BodyFormat | undefined {
  if (encoded(contentEncoding)) return undefined;
  if (operation === 'external') return formatOfMediaType(contentType);
  return formatFor(spec, profile, operation, status, contentType);
}

function formatFor(
  spec: SpecModel,
  profile: Profile,
  operation: OperationKey,
  status: number,
  contentType: string | undefined,
): BodyFormat {
  const expected = responseFormat(spec.operations.get(operation)!);
  return status >= 200 && status < 300
    ? expected
    : (formatOfMediaType(contentType) ??
        (profile.errors.formatByOperation as Partial<Record<OperationKey, BodyFormat>>)[operation] ??
        expected);
}

/**
 * Decode a response body. A 2xx body is read as the operation's response media says; any other status as its
 * Content-Type names, else as the profile's error format of the operation. A truncated body is undecodable.
 */
export async function decodeBody(
  spec: SpecModel,
  profile: Profile,
  operation: OperationKey,
  status: number,
  contentType: string | undefined,
  text: string,
  truncated: boolean,
  contentEncoding?: string,
): Promise<DecodedBody> {
  const op = spec.operations.get(operation)!;
  const format = formatFor(spec, profile, operation, status, contentType);
  if (truncated) return { kind: 'undecodable', format, problem: 'body exceeded the response size cap and was cut' };
  if (encoded(contentEncoding)) return { kind: 'undecodable', format, problem: encodedProblem(contentEncoding!) };
  if (text.trim() === '') return { kind: 'empty' };
  if (format === 'json') return decodeJson(text);
  if (format === 'xml') return decodeXml(spec, op, text);
  return decodeHtml(text);
}

/**
 * Decode the body of a page outside the operations (an issuer page, a form's action) by its Content-Type: an
 * HTML page into the form model (`forms` 0 when it holds none), JSON, or XML as read.
 */
export async function decodeExternal(
  contentType: string | undefined,
  text: string,
  truncated: boolean,
  contentEncoding?: string,
): Promise<DecodedBody> {
  const format = formatOfMediaType(contentType);
  if (truncated)
    return {
      kind: 'undecodable',
      format: format ?? 'unknown',
      problem: 'body exceeded the response size cap and was cut',
    };
  if (encoded(contentEncoding))
    return { kind: 'undecodable', format: format ?? 'unknown', problem: encodedProblem(contentEncoding!) };
  if (text.trim() === '') return { kind: 'empty' };
  if (format === 'json') return decodeJson(text);
  if (format === 'html') return decodeHtml(text);
  if (format === 'xml') {
    const read = readXml(text);
    return read.ok
      ? { kind: 'xml', root: read.root, value: read.value }
      : { kind: 'undecodable', format: 'xml', problem: `${read.problem.kind}: ${read.problem.detail}` };
  }
  return { kind: 'undecodable', format: 'unknown', problem: `no reader for content type ${contentType ?? '(none)'}` };
}

/** The string and number values of a decoded JSON or XML value, in document order. */
function leafTexts(value: unknown, out: string[]): string[] {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string' || typeof v === 'number') out.push(String(v));
    else if (Array.isArray(v)) for (let i = v.length - 1; i >= 0; i--) stack.push(v[i]);
    else if (v && typeof v === 'object') {
      const values = Object.values(v);
      for (let i = values.length - 1; i >= 0; i--) stack.push(values[i]);
    }
  }
  return out;
}

/**
 * The values a decoded body holds, one per line, without reading the page again: the string and number values of a
 * JSON or XML body, the input and button values and the action of a checkout form; '' for an empty or undecodable
 * body. What a search for a secret or a card number reads beside the raw text (a value written with escapes or
 * character references is found decoded).
 */
export function decodedValues(decoded: DecodedBody): string {
  if (decoded.kind === 'json' || decoded.kind === 'xml') return leafTexts(decoded.value, []).join('\n');
  if (decoded.kind !== 'html') return '';
  const { form } = decoded;
  return [form.action, ...Object.values(form.inputs), ...(form.buttons ?? []).map((b) => b.value)].join('\n');
}

const decodedTexts = new WeakMap<ReceivedResponse, string>();

/**
 * What an answer says, decoded, one value per line: the string and number values of a JSON or XML body (escapes and
 * character references decoded), the text an HTML page shows (references decoded, scripts aside); the body as
 * received only when nothing was decoded from it (empty or undecodable). Checks search it for a code or a message,
 * never the raw text: a JSON `\u0031` is a `1`.
 */
export function decodedText(response: ReceivedResponse | undefined): string {
  if (!response) return '';
  let text = decodedTexts.get(response);
  if (text !== undefined) return text;
  const d = response.decoded;
  text =
    d.kind === 'json' || d.kind === 'xml'
      ? leafTexts(d.value, []).join('\n')
      : d.kind === 'html'
        ? readPageTextNodes(response.bodyText).join('\n')
        : response.bodyText;
  decodedTexts.set(response, text);
  return text;
}
