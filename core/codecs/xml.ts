import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { XML_LIMITS, markupOverLimit } from './limits.js';

/** Why an XML body could not be read. */
export type XmlProblem =
  | { kind: 'doctype'; detail: string }
  | { kind: 'malformed'; detail: string }
  | { kind: 'limit'; detail: string }
  | { kind: 'root'; detail: string; root: string | undefined };

/** Result of reading an XML response body. */
export type XmlReadResult =
  | { ok: true; root: string; value: Record<string, unknown> }
  | { ok: false; problem: XmlProblem };

const parser = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false, // values stay strings: "00012" must not become 12
  parseAttributeValue: false,
  processEntities: false, // only the five predefined entities are decoded below; no DOCTYPE entity is ever expanded
  htmlEntities: false,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  removeNSPrefix: false,
});

const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(lt|gt|amp|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);/g, (_, name: string) => {
    if (name[0] !== '#') return PREDEFINED[name]!;
    const code = name[1] === 'x' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return String.fromCodePoint(code);
  });
}

function decodeTree(node: unknown): unknown {
  // Most values hold no reference at all: left as they are (every direct payment answer is read so).
  if (typeof node === 'string') return node.includes('&') ? decodeEntities(node) : node;
  if (Array.isArray(node)) return node.map(decodeTree);
  if (node && typeof node === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(node)) {
      const value = decodeTree((node as Record<string, unknown>)[key]);
      // An element named __proto__ stays a field, as Object.fromEntries made it.
      if (key === '__proto__')
        Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      else out[key] = value;
    }
    return out;
  }
  return node;
}

/**
 * The document with each CDATA section written as escaped text, which reads back as exactly the section's characters
 * (the parser would merge a section into its element's text, and the references it holds would then be decoded).
 * Comments are left as they are. One pass; the document is well-formed (checked before).
 */
export function cdataAsText(text: string): string {
  if (!text.includes('<![CDATA[')) return text;
  let out = '';
  let at = 0;
  let comment = text.indexOf('<!--');
  for (;;) {
    const cdata = text.indexOf('<![CDATA[', at);
    if (cdata < 0) break;
    if (comment >= 0 && comment < at) comment = text.indexOf('<!--', at);
    if (comment >= 0 && comment < cdata) {
      const end = text.indexOf('-->', comment + 4);
      const stop = end < 0 ? text.length : end + 3;
      out += text.slice(at, stop);
      at = stop;
      continue;
    }
    const end = text.indexOf(']]>', cdata + 9);
    if (end < 0) break;
    out += text.slice(at, cdata) + text.slice(cdata + 9, end).replace(/[&<>]/g, (c) => XML_ESCAPES[c]!);
    at = end + 3;
  }
  return out + text.slice(at);
}

/** The problem of a document past the XML reader's bounds (`markupOverLimit`, or a `MarkupScan` as it arrived). */
export function xmlOverLimit(over: string): { kind: 'limit'; detail: string } {
  return { kind: 'limit', detail: `document has ${over}; the kit reads no further` };
}

/**
 * Read an untrusted XML body: no DOCTYPE and no entity declarations (refused, never expanded), no more elements
 * nor deeper nesting than XML_LIMITS (refused, never parsed), well-formedness checked, values kept as strings, one
 * root element expected.
 */
export function readXml(text: string, expectedRoot?: string): XmlReadResult {
  if (/<!DOCTYPE|<!ENTITY/i.test(text))
    return { ok: false, problem: { kind: 'doctype', detail: 'document declares a DOCTYPE or an entity' } };
  const over = markupOverLimit(text, XML_LIMITS);
  if (over) return { ok: false, problem: xmlOverLimit(over) };
  const valid = XMLValidator.validate(text, { allowBooleanAttributes: true });
  if (valid !== true) {
    return {
      ok: false,
      problem: { kind: 'malformed', detail: `${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col})` },
    };
  }
  const tree = parser.parse(cdataAsText(text)) as Record<string, unknown>;
  const roots = Object.keys(tree);
  if (roots.length !== 1)
    return {
      ok: false,
      problem: { kind: 'root', detail: `expected one root element, found ${roots.length}`, root: roots[0] },
    };
  const root = roots[0]!;
  if (expectedRoot && root !== expectedRoot)
    return { ok: false, problem: { kind: 'root', detail: `root element is <${root}>`, root } };
  const body = tree[root];
  const value =
    body && typeof body === 'object' && !Array.isArray(body) ? (decodeTree(body) as Record<string, unknown>) : {};
  return { ok: true, root, value };
}

/**
 * Shape repeated or wrapped elements as arrays where the schema has arrays: a single element becomes a one-item
 * array, and a wrapper holding one repeated child (`<risk_reasons><risk_reason>…</risk_reason></risk_reasons>`)
 * is unwrapped, so both nestings read the same.
 */
export function normaliseArrays(
  value: Record<string, unknown>,
  arrayFields: readonly string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...value };
  for (const field of arrayFields) {
    let v = out[field];
    if (v === undefined) continue;
    if (v === '') {
      out[field] = [];
      continue;
    }
    if (!Array.isArray(v) && v && typeof v === 'object') {
      const keys = Object.keys(v);
      const only = keys.length === 1 ? (v as Record<string, unknown>)[keys[0]!] : undefined;
      const isItemObject = (x: unknown) => x !== null && typeof x === 'object';
      if (only !== undefined && (Array.isArray(only) ? only.every(isItemObject) : isItemObject(only))) v = only;
    }
    out[field] = Array.isArray(v) ? v : [v];
  }
  return out;
}

const XML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

/** Escape the five XML special characters of a text value. */
function escapeXml(text: string): string {
  return /[&<>"']/.test(text) ? text.replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!) : text;
}

/** Element names the writer accepts (XML names without namespaces or non-ASCII letters), and those already seen. */
const XML_NAME = /^[A-Za-z_][A-Za-z0-9._-]*$/;
const checkedNames = new Set<string>();

function element(name: string, value: unknown): string {
  if (value === undefined) return '';
  if (!checkedNames.has(name)) {
    if (!XML_NAME.test(name)) throw new TypeError(`not an XML element name: ${JSON.stringify(name).slice(0, 40)}`);
    if (checkedNames.size < 10_000) checkedNames.add(name);
  }
  if (value === null) return `<${name}/>`;
  if (Array.isArray(value)) {
    let out = '';
    for (const item of value) out += element(name, item);
    return out;
  }
  if (typeof value === 'object' && !(value instanceof Date)) {
    let out = `<${name}>`;
    for (const key in value)
      if (Object.hasOwn(value, key)) out += element(key, (value as Record<string, unknown>)[key]);
    return `${out}</${name}>`;
  }
  return `<${name}>${escapeXml(String(value))}</${name}>`;
}

/**
 * Serialise a flat-or-nested object as `<?xml …?><root>…</root>`, escaping every value: an array becomes repeated
 * elements, `null` an empty element, `undefined` nothing. The same output as fast-xml-parser's XMLBuilder with
 * `ignoreAttributes` and `suppressEmptyNode: false` (test/codecs/xml.test.ts compares them on generated values),
 * written here because that builder took a third of the reference gateway's time per direct payment.
 */
export function writeXml(root: string, value: Record<string, unknown>): string {
  return `<?xml version="1.0" encoding="UTF-8"?>${element(root, value)}`;
}
