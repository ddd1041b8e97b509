/**
 * Masking of card numbers, security codes and secrets. Evidence is masked when it is recorded, so nothing
 * downstream (reporters, logs) ever holds the clear values.
 */

/** Field names whose values are always replaced (security codes, full card numbers, secrets), lower-cased. */
export const SENSITIVE_FIELDS = new Set([
  'card_number',
  'security_code',
  'cvv',
  'cvv2',
  'cvc',
  'cvc2',
  'card_cvv',
  'secret',
  'password',
]);

/** What to mask besides card-like digit runs: exact secret strings and extra sensitive field names. */
export interface MaskRules {
  secrets?: readonly string[];
  fields?: readonly string[];
  /** Known card numbers (test cards of the run), masked wherever they appear, Luhn-valid or not. */
  cards?: readonly string[];
}

/** Luhn checksum: card numbers pass it, most other digit runs do not. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

// A 14-digit run that reads as YYYYMMDDHHMMSS (the interface's compact timestamp) is not taken for a card number.
const COMPACT_TIMESTAMP = /^(19|20)[0-9]{2}(0[1-9]|1[0-2])(0[1-9]|[12][0-9]|3[01])([01][0-9]|2[0-3])[0-5][0-9][0-5][0-9]$/;

function looksLikePan(run: string): boolean {
  const d = run.replace(/\D/g, '');
  return luhnValid(d) && !COMPACT_TIMESTAMP.test(d);
}

/** Mask a card number keeping at most the first six and last four digits. */
export function maskPan(digits: string): string {
  const d = digits.replace(/\D/g, '');
  if (d.length < 13) return '*'.repeat(d.length);
  return `${d.slice(0, 6)}${'*'.repeat(d.length - 10)}${d.slice(-4)}`;
}

// 13-19 digits, optionally grouped by single spaces or dashes (also the URL-encoded space '+' and '%20').
const PAN_RUN = /(?<![0-9])[0-9](?:(?:[ \-+]|%20)?[0-9]){12,18}(?![0-9])/g;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Every written form of a secret: as is, URL-encoded (both space forms), JSON-escaped, HTML-escaped. */
function secretForms(secret: string): string[] {
  const forms = new Set([
    secret,
    encodeURIComponent(secret),
    encodeURIComponent(secret).replace(/%20/g, '+'),
    JSON.stringify(secret).slice(1, -1),
    secret.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'),
  ]);
  return [...forms].filter((f) => f.length >= 4).sort((a, b) => b.length - a.length);
}

/** The regular expressions of one set of rules, built once (rules objects live for a run). */
interface Masker {
  cards: string[];
  secrets: RegExp[];
  /** Quick test: could the text hold anything to mask at all? */
  maybe: RegExp;
  pairs: RegExp;
  json: RegExp;
  xml: RegExp;
}

const maskers = new WeakMap<MaskRules, Masker>();
const NO_RULES: MaskRules = {};

function maskerOf(rules: MaskRules): Masker {
  let m = maskers.get(rules);
  if (m) return m;
  const cards = (rules.cards ?? []).filter((c) => c.length >= 8);
  const forms = (rules.secrets ?? []).filter(Boolean).flatMap(secretForms);
  const fields = [...SENSITIVE_FIELDS, ...(rules.fields ?? [])].map(escapeRegExp).join('|');
  const literals = [...cards, ...forms].map(escapeRegExp);
  m = {
    cards,
    secrets: forms.map((form) => new RegExp(escapeRegExp(form), 'g')),
    // A digit run long enough for a card number, a known card or secret, or a sensitive field name.
    maybe: new RegExp([String.raw`[0-9](?:(?:[ \-+]|%20)?[0-9]){12}`, ...literals, fields].join('|'), 'i'),
    // name=value (form, query string, curl -d) and "name":"value" (JSON) forms of sensitive fields.
    pairs: new RegExp(`((?:^|[?&\\s"'])(?:${fields})=)[^&\\s"']*`, 'gi'),
    json: new RegExp(`("(?:${fields})"\\s*:\\s*)("(?:[^"\\\\]|\\\\.)*"|-?[0-9]+)`, 'gi'),
    xml: new RegExp(`(<(${fields})>)[^<]*(</\\2>)`, 'gi'),
  };
  maskers.set(rules, m);
  return m;
}

/** Mask card-like digit runs and secrets in free text (bodies, URLs, curl lines, log lines). */
export function maskText(text: string, rules: MaskRules = NO_RULES): string {
  const m = maskerOf(rules);
  if (!m.maybe.test(text)) return text;
  let out = text;
  for (const card of m.cards) out = out.split(card).join(maskPan(card));
  out = out.replace(PAN_RUN, (run) => (looksLikePan(run) ? maskPan(run) : run));
  for (const secret of m.secrets) out = out.replace(secret, '[SECRET]');
  out = out.replace(m.pairs, '$1***');
  out = out.replace(m.json, '$1"***"');
  out = out.replace(m.xml, '$1***$3');
  return out;
}

/** Deep copy of a structured body with sensitive fields replaced and card numbers/secrets masked in strings. */
export function maskValue<T>(value: T, rules: MaskRules = NO_RULES): T {
  const extra = new Set((rules.fields ?? []).map((f) => f.toLowerCase()));
  const walk = (v: unknown, key?: string): unknown => {
    if (key && (SENSITIVE_FIELDS.has(key.toLowerCase()) || extra.has(key.toLowerCase())) && v !== null && v !== undefined && typeof v !== 'object') return '***';
    if (typeof v === 'string') return maskText(v, rules);
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    return v;
  };
  return walk(value) as T;
}
