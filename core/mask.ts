/**
 * Masking of card numbers, security codes and secrets. Evidence is masked when it is recorded, so nothing
 * downstream (reporters, logs) ever holds the clear values; and every text leaving the process (report files,
 * stdout, stderr, error messages, results handed to a caller) passes through `maskOutgoing`, with the rules of the
 * runs under way (`protectOutput`).
 */

/** Field names whose values are always replaced (security codes, full card numbers, secrets), lower-cased. */
const SENSITIVE_FIELDS = new Set([
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
const COMPACT_TIMESTAMP =
  /^(19|20)[0-9]{2}(0[1-9]|1[0-2])(0[1-9]|[12][0-9]|3[01])([01][0-9]|2[0-3])[0-5][0-9][0-5][0-9]$/;

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

// 13-19 digits, optionally grouped by single spaces, dashes, dots or underscores (also the URL-encoded space '+'
// and '%20').
const SEPARATOR = String.raw`(?:[ .\-_+]|%20)`;
// A digit run inside a word (a hex digest or signature) is no card number; known test cards are masked anywhere.
const PAN_RUN = new RegExp(`(?<![0-9A-Za-z])[0-9](?:${SEPARATOR}?[0-9]){12,18}(?![0-9A-Za-z])`, 'g');

/** A known card number written with any separators between its digits, wherever it appears (even inside a longer run). */
function cardPattern(card: string): RegExp {
  const digits = card.replace(/\D/g, '').split('');
  return new RegExp(digits.join(`${SEPARATOR}?`), 'g');
}

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
  cards: RegExp[];
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
  const cards = (rules.cards ?? []).filter((c) => c.replace(/\D/g, '').length >= 8);
  const forms = (rules.secrets ?? []).filter(Boolean).flatMap(secretForms);
  const fields = [...SENSITIVE_FIELDS, ...(rules.fields ?? [])].map(escapeRegExp).join('|');
  const literals = forms.map(escapeRegExp);
  const cardPatterns = cards.map(cardPattern);
  m = {
    cards: cardPatterns,
    secrets: forms.map((form) => new RegExp(escapeRegExp(form), 'g')),
    // A digit run long enough for a card number (a known card may be shorter), a secret, or a sensitive field name.
    maybe: new RegExp([`[0-9](?:${SEPARATOR}?[0-9]){7}`, ...literals, fields].join('|'), 'i'),
    // name=value (form, query string, curl -d) and "name":"value" (JSON) forms of sensitive fields.
    // The value stops before a backslash and markup too: inside JSON text `\"` ends the quoted string, and in XML or
    // HTML text `<` starts the next tag; both must stay as they are.
    pairs: new RegExp(`((?:^|[?&\\s"'])(?:${fields})=)[^&\\s"'<>\\\\]*`, 'gi'),
    json: new RegExp(`("(?:${fields})"\\s*:\\s*)("(?:[^"\\\\]|\\\\.)*"|-?[0-9]+)`, 'gi'),
    xml: new RegExp(`(<(${fields})>)[^<]*(</\\2>)`, 'gi'),
  };
  maskers.set(rules, m);
  return m;
}

// ------------------------------------------------------------------ card values the kit sent

/**
 * A value sent in a card field with at least this many characters is masked wherever it appears (as the run's test
 * cards are); a shorter one (an expiry month or year, a security code) only where the exact-place rule puts it
 * (`maskEchoedValues`): everywhere would destroy unrelated text (a status `12`, a year in a date).
 */
export const LONG_CARD_VALUE = 8;
/** Most distinct long values remembered (a run sends a handful: its test cards and the deliberately wrong ones). */
const SENT_MAX = 1000;

const sentLong = new Set<string>();
let sentMasker: { size: number; patterns: { re: RegExp; digits: boolean }[]; maybe?: RegExp } = {
  size: 0,
  patterns: [],
};

/**
 * Remember the values this process sent in card fields (number, expiry, security code; valid or not): every later
 * `maskText` of this process, so `maskOutgoing` and the evidence, masks the long ones wherever they appear, in any
 * written form. Returns the short ones, for the exact-place rule of the exchange that sent them.
 */
export function noteSentCardValues(values: readonly unknown[]): string[] {
  const short: string[] = [];
  for (const v of values) {
    if (typeof v !== 'string' && typeof v !== 'number') continue;
    const text = String(v).trim();
    if (text === '') continue;
    if (text.length < LONG_CARD_VALUE) short.push(text);
    else if (sentLong.size < SENT_MAX) sentLong.add(text);
  }
  return short;
}

/** The long sent values as patterns (rebuilt when one was added). */
function sentPatterns(): typeof sentMasker {
  if (sentMasker.size === sentLong.size) return sentMasker;
  const patterns = [...sentLong].map((v) =>
    /^[0-9]+$/.test(v) ? { re: cardPattern(v), digits: true } : { re: new RegExp(escapeRegExp(v), 'g'), digits: false },
  );
  sentMasker = {
    size: sentLong.size,
    patterns,
    maybe: patterns.length ? new RegExp(patterns.map((p) => p.re.source).join('|')) : undefined,
  };
  return sentMasker;
}

/** JSON, XML/HTML and form positions of a whole value `v` (its text escaped for a regular expression). */
function echoPattern(v: string): RegExp {
  return new RegExp(
    [
      String.raw`(?<=[:\[,]\s*)"${v}"(?=\s*[,}\]])`, // a JSON string value (not a key)
      String.raw`(?<=:\s*)${v}(?=\s*[,}\]])`, // a JSON number value
      String.raw`(?<=>)\s*${v}\s*(?=<)`, // an element's whole text
      String.raw`(?<==\s*)"${v}"|(?<==\s*)'${v}'`, // a quoted attribute value
      String.raw`(?<=(?:^|[?&])[^=&\s"'<>]*=)${v}(?=&|$)`, // a form or query value
    ].join('|'),
    'g',
  );
}

const WHOLE = '***';

/**
 * The exact-place rule for short card values (shorter than `LONG_CARD_VALUE`): in the answer to the request that
 * sent them, a value equal to one of them is masked where it is a whole value: a JSON string or number, an element's
 * whole text, an attribute value, a form or query value (and a whole header value, `maskEchoedHeaders`). The same
 * characters inside longer text (a date, an amount) and in other answers stay.
 */
export function maskEchoedValues(text: string, values: readonly string[]): string {
  let out = text;
  for (const v of values) {
    if (!out.includes(v)) continue;
    out = out.replace(echoPattern(escapeRegExp(v)), (m) =>
      m.startsWith('"') ? `"${WHOLE}"` : m.startsWith("'") ? `'${WHOLE}'` : WHOLE,
    );
  }
  return out;
}

/** Header values equal to a short sent card value (`maskEchoedValues`'s rule for headers). */
export function maskEchoedHeaders(headers: Record<string, string>, values: readonly string[]): Record<string, string> {
  if (!values.length || !Object.values(headers).some((h) => values.includes(h.trim()))) return headers;
  return Object.fromEntries(Object.entries(headers).map(([k, h]) => [k, values.includes(h.trim()) ? WHOLE : h]));
}

/** Mask card-like digit runs and secrets in free text (bodies, URLs, curl lines, log lines). */
export function maskText(text: string, rules: MaskRules = NO_RULES): string {
  const m = maskerOf(rules);
  const sent = sentPatterns();
  if (!m.maybe.test(text) && !sent.maybe?.test(text)) return text;
  let out = text;
  for (const p of sent.patterns) out = out.replace(p.re, (run) => (p.digits ? maskPan(run) : WHOLE));
  for (const card of m.cards) out = out.replace(card, (run) => maskPan(run));
  out = out.replace(PAN_RUN, (run) => (looksLikePan(run) ? maskPan(run) : run));
  for (const secret of m.secrets) out = out.replace(secret, '[SECRET]');
  out = out.replace(m.pairs, '$1***');
  out = out.replace(m.json, '$1"***"');
  out = out.replace(m.xml, '$1***$3');
  return out;
}

/**
 * Deep copy of a structured value (a body, headers, a whole result) with sensitive fields replaced and card
 * numbers/secrets masked in strings, in card-like integers and in keys (JSON keys, header names).
 */
export function maskValue<T>(value: T, rules: MaskRules = NO_RULES): T {
  const extra = new Set((rules.fields ?? []).map((f) => f.toLowerCase()));
  const walk = (v: unknown, key?: string): unknown => {
    if (
      key &&
      (SENSITIVE_FIELDS.has(key.toLowerCase()) || extra.has(key.toLowerCase())) &&
      v !== null &&
      v !== undefined &&
      typeof v !== 'object'
    )
      return '***';
    if (typeof v === 'string') return maskText(v, rules);
    // A card number sent as a JSON number: kept as a number unless masking changes its digits (then the masked text).
    if (typeof v === 'number' && Number.isInteger(v)) {
      const text = String(v);
      const out = maskText(text, rules);
      return out === text ? v : out;
    }
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [maskText(k, rules), walk(x, k)]));
    return v;
  };
  return walk(value) as T;
}

/** Whether a text holds a secret of the rules in any written form (the gateway echoed it). */
export function holdsSecret(text: string, rules: MaskRules): boolean {
  return maskerOf(rules).secrets.some((r) => {
    r.lastIndex = 0;
    return r.test(text);
  });
}

// ------------------------------------------------------------------ egress: text leaving the process

/** Rules of the runs under way in this process: what must never leave it. */
const outgoing = new Set<MaskRules>();
let merged: MaskRules = NO_RULES;

/**
 * Protect the process's output with a run's rules until the returned function is called: `maskOutgoing` masks
 * their secrets and cards from then on.
 */
export function protectOutput(rules: MaskRules): () => void {
  const own = { ...rules }; // a new object: one entry per call, released by its own function
  outgoing.add(own);
  const merge = () => {
    const all = [...outgoing];
    merged = all.length
      ? {
          secrets: all.flatMap((r) => r.secrets ?? []),
          cards: all.flatMap((r) => r.cards ?? []),
          fields: all.flatMap((r) => r.fields ?? []),
        }
      : NO_RULES;
  };
  merge();
  return () => {
    outgoing.delete(own);
    merge();
  };
}

/**
 * The one masking function of text leaving the process: report files, stdout and stderr lines, error messages.
 * Card-like digit runs and sensitive field values always; the secrets and cards of the runs under way.
 */
export function maskOutgoing(text: string): string {
  return maskText(text, merged);
}

/** `maskOutgoing` applied to every string and key of a structured value (a result handed to reporters or a caller). */
export function maskOutgoingValue<T>(value: T): T {
  return maskValue(value, merged);
}

let guards = 0;
let restoreStreams: (() => void) | undefined;
/** The writers the last wrap installed, to tell whether something replaced them since. */
let installed: { stdout?: unknown; stderr?: unknown } = {};

/** Wrap a stream's write in `maskOutgoing`; the function restoring the write it wrapped. */
function wrapStream(stream: NodeJS.WriteStream): { restore: () => void; writer: unknown } {
  const original = stream.write;
  stream.write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]) {
    const text =
      typeof chunk === 'string'
        ? chunk
        : Buffer.isBuffer(chunk) || chunk instanceof Uint8Array
          ? Buffer.from(chunk).toString('utf8')
          : undefined;
    const out = text === undefined ? chunk : maskOutgoing(text);
    return (original as (...args: unknown[]) => boolean).call(this, out, ...rest);
  } as NodeJS.WriteStream['write'];
  return {
    writer: stream.write,
    restore: () => {
      stream.write = original;
    },
  };
}

/**
 * Pass every write to stdout and stderr through `maskOutgoing` until the returned function is called (nested
 * calls share one wrapper). Each write is masked whole: the kit writes whole lines. A guard taken after something
 * replaced a stream's write (a library, a test's capture) wraps the replacement too, so no write escapes.
 */
export function guardStandardStreams(): () => void {
  const replaced = process.stdout.write !== installed.stdout || process.stderr.write !== installed.stderr;
  if (guards++ === 0 || replaced) {
    const out = wrapStream(process.stdout);
    const err = wrapStream(process.stderr);
    installed = { stdout: out.writer, stderr: err.writer };
    // Released, the last wrap gives back what it wrapped (an earlier wrap beneath a replacement keeps masking).
    restoreStreams = () => {
      out.restore();
      err.restore();
      installed = {};
    };
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--guards === 0) restoreStreams?.();
  };
}

/** Keys whose values an error message never shows. */
const SECRET_KEY = /secret|password|token|security.?code|cvc|cvv|private|cards?\b/i;

/**
 * A value as an error message shows it ("the value seen"): a scalar as written (strings quoted, cut after 40
 * characters), card-like digit runs masked, the value of a key that names a secret replaced; a collection as its
 * kind. `key` is the last key of the value's path, or the flag, variable or key the value was given as.
 */
export function shownValue(value: unknown, key?: string): string {
  if (key && SECRET_KEY.test(key) && value !== null && typeof value !== 'object') return '[SECRET]';
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (value && typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') {
    const text = maskText(value);
    return `'${text.length > 40 ? `${text.slice(0, 37)}...` : text}'`;
  }
  return maskText(String(value));
}
