/**
 * The neighbourhood of the personalities (issue #34, point 7): for each personality under spec/profiles, profiles
 * that differ from it in ONE choice. The choices are derived from the profile format's schema, not from a list of
 * values: an enum's other members, a boolean's other value, an integer within its bounds, another variant of a
 * `oneOf` of scalars, a list of enum members with one member added, dropped or two of them swapped, a signed field
 * list with one field dropped or two swapped, a field name in another naming convention, a separator of another
 * punctuation character, an error code of the same form, or the code of another kind of the same catalogue (one code
 * shared by two kinds), a status value of the same form, a message worded otherwise. Every candidate the format's
 * schema or its consistency rules reject (`profileProblems`, what `profile validate` runs) is dropped: it is no
 * neighbour; so is one whose gateway would depart from a `must` or an `expected` statement of the document (no
 * notification after an operation PAGI-EVT-001 names; an `encryption_data` not of the form PAGI-AUTH-003 gives: a
 * fault, which the self-test's faults cover). The pick is deterministic given a seed: for each personality, first one neighbour of each kind the issue
 * names (card field names, expiry forms, signature recipe, a shared error code, notifications of each kind), then one
 * per point, round robin over the points in a seeded order.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { LABEL_LEAVES, UNORDERED_LISTS } from '../../core/profile/agreement.js';
import { profileProblems } from '../../core/profile/load.js';
import { digest, type SignatureProfile } from '../../core/signing.js';
import { kitSpec } from '../../core/spec/load.js';
import { SCHEMAS_DIR, SPEC_DIR } from '../../core/spec/paths.js';

type Json = Record<string, unknown>;

/** The part of a JSON Schema the generator reads. */
interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  oneOf?: Schema[];
  properties?: Record<string, Schema>;
  patternProperties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  required?: string[];
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
}

/** One profile one choice away from a personality. */
export interface Neighbour {
  /** `<personality>~<point>~<n>`: unique, a file name. */
  id: string;
  personality: string;
  /** The leaf changed (dotted path, as `profileLeafValues` names leaves). */
  point: string;
  /** The rule that made the choice (`enum`, `boolean`, `sharedCode`, `listDrop`, ...). */
  rule: string;
  /** What changed, in words (`"MM" → "M"`). */
  change: string;
  /** The neighbour's profile: its truth. */
  profile: Json;
}

/** A change of one leaf: its path, the rule and the new value. */
interface Candidate {
  point: string;
  rule: string;
  from: unknown;
  to: unknown;
  /** The leaf is an HTTP status (`httpStatus`). */
  status?: boolean;
}

let schemaRoot: Schema & { $defs?: Record<string, Schema> };
function root() {
  schemaRoot ??= JSON.parse(fs.readFileSync(path.join(SCHEMAS_DIR, 'profile.schema.json'), 'utf8'));
  return schemaRoot;
}

/** The `$defs` name a node refers to (the schema type of a leaf: `fieldName`, `errorCode`, ...). */
const refName = (s: Schema | undefined) => (s?.$ref ? /^#\/\$defs\/(.+)$/.exec(s.$ref)?.[1] : undefined);

function resolve(s: Schema): Schema {
  let node = s;
  for (let i = 0; node.$ref && i < 16; i++) {
    const target = root().$defs?.[refName(node)!];
    if (!target) return {};
    node = { ...target, $ref: target.$ref };
  }
  return node;
}

const isObject = (v: unknown): v is Json => Boolean(v) && typeof v === 'object' && !Array.isArray(v);

function typeMatches(s: Schema, v: unknown): boolean {
  if ('const' in s) return s.const === v;
  if (s.enum) return s.enum.includes(v);
  const types = s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type];
  if (!types.length) return isObject(v) && (s.required ?? []).every((k) => k in v);
  return types.some((t) =>
    t === 'null'
      ? v === null
      : t === 'integer'
        ? Number.isInteger(v)
        : t === 'array'
          ? Array.isArray(v)
          : t === 'object'
            ? isObject(v)
            : typeof v === t,
  );
}

/** The variant of a `oneOf` a value is an instance of (the first whose type, consts and required keys it has). */
function variantOf(s: Schema, v: unknown): Schema | undefined {
  return s.oneOf?.map(resolve).find((x) => {
    if (!typeMatches(x, v)) return false;
    if (!isObject(v) || !x.properties) return true;
    return (
      (x.required ?? []).every((k) => k in v) &&
      Object.entries(x.properties).every(([k, p]) => !('const' in resolve(p)) || resolve(p).const === v[k]) &&
      (x.additionalProperties !== false || Object.keys(v).every((k) => k in x.properties!))
    );
  });
}

/** The schema of the value under key `k` of an object of schema `s`. */
function propertySchema(s: Schema, k: string): Schema | undefined {
  if (s.properties?.[k]) return s.properties[k];
  for (const [re, p] of Object.entries(s.patternProperties ?? {})) if (new RegExp(re).test(k)) return p;
  return isObject(s.additionalProperties) ? s.additionalProperties : undefined;
}

/** A field name in the naming conventions other than its own (snake, camel, upper, the last word). */
function otherNames(name: string): string[] {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .split(/_+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
  const camel = words.map((w, i) => (i ? w[0]!.toUpperCase() + w.slice(1) : w)).join('');
  const initials = words.length > 1 ? words.map((w) => w[0]).join('') : `${name}_value`;
  return [words.join('_'), camel, name.toUpperCase(), words.at(-1)!, initials].filter((n) => n && n !== name);
}

/** Printable ASCII punctuation: the space of one-character separators. */
const PUNCTUATION = [...'!#$%&*+,-./:;=?@^_|~'];

/** Other values of a string of the same form (digits of the same length, a word, one character, a line). */
function otherStrings(v: string, taken: ReadonlySet<unknown>): string[] {
  if (/^\d+$/.test(v)) {
    const width = v.length;
    const out: string[] = [];
    for (let n = Number(v) + 1; out.length < 2 && n < Number(v) + 10 ** width; n++) {
      const s = String(n % 10 ** width).padStart(width, '0');
      if (!taken.has(s)) out.push(s);
    }
    return out;
  }
  if (v.length <= 1) return PUNCTUATION.filter((c) => c !== v).concat(v ? [''] : []);
  if (/^[0-9]+\.[0-9]{2}$/.test(v)) return [(Number(v) * 2).toFixed(2), (Number(v) + 1).toFixed(2)];
  if (/^[A-Z_]+$/.test(v)) return [`${v}_X`, v.toLowerCase()];
  return [v.toUpperCase(), `${v} (sandbox)`].filter((s) => s !== v);
}

function otherIntegers(v: number, s: Schema): number[] {
  const min = s.minimum ?? Number.NEGATIVE_INFINITY;
  const max = s.maximum ?? Number.POSITIVE_INFINITY;
  return [...new Set([v + 1, v - 1, v * 2, s.minimum, s.maximum])].filter(
    (n): n is number => typeof n === 'number' && Number.isFinite(n) && n !== v && n >= min && n <= max,
  );
}

const unordered = (point: string) =>
  UNORDERED_LISTS.some((p) => {
    const a = p.split('.');
    const b = point.split('.');
    return a.length === b.length && a.every((x, i) => x === '*' || x === b[i]);
  });

/** Changes of a list: a member dropped, one of the schema's enum added, two neighbours swapped (ordered lists). */
function listChanges(point: string, v: unknown[], s: Schema): Candidate[] {
  const item = resolve(s.items ?? {});
  if (v.some((x) => typeof x !== 'string')) return [];
  const out: Candidate[] = [];
  if (v.length > (s.minItems ?? 0))
    for (const i of v.keys()) out.push({ point, rule: 'listDrop', from: v, to: v.filter((_, j) => j !== i) });
  for (const x of item.enum ?? [])
    if (!v.includes(x) && v.length < (s.maxItems ?? Number.POSITIVE_INFINITY))
      out.push({ point, rule: 'listAdd', from: v, to: [...v, x] });
  if (!unordered(point))
    for (let i = 0; i + 1 < v.length; i++) {
      const to = [...v];
      [to[i], to[i + 1]] = [to[i + 1], to[i]];
      out.push({ point, rule: 'listSwap', from: v, to });
    }
  return out;
}

/** Every value at a leaf of schema type `def` in the profile (the codes of a catalogue, the values of a field). */
function valuesOfType(profile: unknown, def: string, s: Schema = root(), out = new Map<string, unknown>(), at = '') {
  if (refName(s) === def && typeof profile === 'string') out.set(at, profile);
  const r = resolve(s);
  const node = r.oneOf ? variantOf(r, profile) : r;
  if (node && isObject(profile))
    for (const [k, v] of Object.entries(profile)) {
      const p = propertySchema(node, k);
      if (p) valuesOfType(v, def, p, out, at ? `${at}.${k}` : k);
    }
  return out;
}

/** The changes of one scalar or list leaf the schema node `s` allows. */
function leafChanges(point: string, v: unknown, s: Schema, profile: Json): Candidate[] {
  const node = resolve(s);
  const def = refName(s);
  if (node.oneOf && !isObject(v)) {
    const mine = variantOf(node, v);
    const others = node.oneOf.map(resolve).filter((x) => x !== mine && !('type' in x && x.type === 'null'));
    const alt = others.flatMap((x) =>
      'const' in x ? [x.const] : x.type === 'integer' ? [x.minimum ?? 1, x.maximum ?? 2] : [],
    );
    const inside = mine ? leafChanges(point, v, mine, profile) : [];
    return [...inside, ...alt.map((to) => ({ point, rule: 'variant', from: v, to }))];
  }
  if (node.enum) return node.enum.filter((x) => x !== v).map((to) => ({ point, rule: 'enum', from: v, to }));
  if (typeof v === 'boolean') return [{ point, rule: 'boolean', from: v, to: !v }];
  if (typeof v === 'number' && Number.isInteger(v))
    return otherIntegers(v, node).map((to) => ({ point, rule: 'integer', from: v, to, status: def === 'httpStatus' }));
  if (Array.isArray(v)) return listChanges(point, v, node);
  if (typeof v !== 'string' || 'const' in node || v.includes('{') || v.includes('/')) return [];
  const re = node.pattern ? new RegExp(node.pattern) : undefined;
  const fits = (x: string) =>
    (!re || re.test(x)) && x.length >= (node.minLength ?? 0) && x.length <= (node.maxLength ?? 1e9);
  if (def === 'fieldName')
    return otherNames(v)
      .filter(fits)
      .map((to) => ({ point, rule: 'fieldName', from: v, to }));
  const siblings = point.split('.').slice(0, -1).join('.');
  const taken = new Set(valuesOfType(profile, def ?? '').values());
  const out: Candidate[] = otherStrings(v, taken)
    .filter(fits)
    .map((to) => ({ point, rule: def === 'errorCode' ? 'otherCode' : 'string', from: v, to }));
  // One code shared by two kinds of one catalogue: the code of another kind of the same mapping's parent.
  if (def === 'errorCode') {
    const catalogue = siblings.split('.').slice(0, -1).join('.');
    for (const [at, code] of valuesOfType(profile, 'errorCode'))
      if (at.startsWith(`${catalogue}.`) && at !== point && code !== v)
        out.push({ point, rule: 'sharedCode', from: v, to: code });
  }
  return out;
}

/** Every single-leaf change the schema allows, over the whole profile (labels and `format` left alone). */
export function candidates(profile: Json): Candidate[] {
  const out: Candidate[] = [];
  const walk = (v: unknown, s: Schema, at: string) => {
    const node = resolve(s);
    if (isObject(v) && Object.keys(v).length) {
      const obj = node.oneOf ? variantOf(node, v) : node;
      if (!obj) return;
      for (const [k, x] of Object.entries(v)) {
        const p = propertySchema(obj, k);
        if (p) walk(x, p, at ? `${at}.${k}` : k);
      }
      return;
    }
    if (at && !(LABEL_LEAVES as readonly string[]).includes(at) && at !== 'format')
      out.push(...leafChanges(at, v, s, profile));
  };
  walk(profile, root(), '');
  return out;
}

function setAt(root: Json, dotted: string, value: unknown): void {
  const parts = dotted.split('.');
  let node = root;
  for (const part of parts.slice(0, -1)) node = node[part] as Json;
  node[parts.at(-1)!] = structuredClone(value);
}

/** A small seeded generator (mulberry32): the same seed, the same neighbourhood. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled<T>(xs: readonly T[], next: () => number): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The kinds of choice the issue names: each personality's neighbourhood holds one of each first. */
export const NAMED_KINDS: readonly { kind: string; matches: (c: Candidate) => boolean }[] = [
  {
    kind: 'card field name',
    matches: (c) => /^fields\.card\.(number|expiryMonth|expiryYear|securityCode)$/.test(c.point),
  },
  { kind: 'expiry form', matches: (c) => /^fields\.card\.expiry(Month|Year)Format$/.test(c.point) },
  { kind: 'signature recipe (request)', matches: (c) => c.point.startsWith('signature.request.') },
  { kind: 'signature recipe (algorithm, encoding)', matches: (c) => /^signature\.(algorithm|encoding)/.test(c.point) },
  {
    kind: 'one code shared by two kinds of error',
    matches: (c) => c.rule === 'sharedCode' && c.point.startsWith('errors.kinds.'),
  },
  { kind: 'payment notifications', matches: (c) => c.point.startsWith('notifications.kinds.payment.') },
  { kind: 'payout notifications', matches: (c) => c.point.startsWith('notifications.kinds.payout.') },
];

const show = (v: unknown) => JSON.stringify(v);

/** The personalities: the profiles under spec/profiles. */
export function personalityNames(): string[] {
  return fs
    .readdirSync(path.join(SPEC_DIR, 'profiles'))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.slice(0, -5))
    .sort();
}

export function personality(name: string): Json {
  return parse(fs.readFileSync(path.join(SPEC_DIR, 'profiles', `${name}.yaml`), 'utf8')) as Json;
}

/**
 * The operations whose results the document says the gateway sends to notify_url (PAGI-EVT-001, a `must`), and
 * those of them no notification kind of `profile` is sent after: a gateway run by such a profile breaks the
 * requirement, so it is a fault, no neighbour (a run with its draft rightly fails notificationDelivered).
 */
function unnotified(profile: Json): string[] {
  const notified = kitSpec().requirements.get('PAGI-EVT-001')?.operations ?? [];
  const kinds = Object.values(((profile.notifications as Json | undefined)?.kinds ?? {}) as Record<string, Json>);
  return notified.filter((op) => !kinds.some((k) => (k.sentAfter as string[] | undefined)?.includes(op)));
}

/**
 * The requirements (must or expected) the form of `encryption_data` a gateway run by `profile` signs with departs from:
 * the patterns schemas/common.schema.json gives `encryptionData`, each with the requirement it comes from, tried on a
 * digest made with the profile's algorithm and encoding. A base64 digest departs from PAGI-AUTH-003 (64 hexadecimal
 * characters): every signed answer of such a gateway rightly fails that check, so it is a fault, no neighbour.
 */
function signatureFormDepartures(profile: Json): string[] {
  const def = (JSON.parse(fs.readFileSync(path.join(SCHEMAS_DIR, 'common.schema.json'), 'utf8')) as Json).$defs as Json;
  const rules = ((def.encryptionData as Schema & { allOf?: Json[] }).allOf ?? []).filter(
    (r) => typeof r.pattern === 'string' && typeof r['x-requirement'] === 'string',
  );
  const signed = digest(profile.signature as SignatureProfile, 'neighbour', 'secret');
  return rules
    .filter((r) => ['must', 'expected'].includes(kitSpec().requirements.get(r['x-requirement'] as string)?.level ?? ''))
    .filter((r) => !new RegExp(r.pattern as string).test(signed))
    .map((r) => r['x-requirement'] as string);
}

/** The neighbour a candidate makes, or undefined when `profile validate` would reject it or it breaks a `must`. */
function neighbourOf(name: string, base: Json, c: Candidate, n: number): Neighbour | undefined {
  const profile = structuredClone(base);
  setAt(profile, c.point, c.to);
  profile.name = `${name}-n${n}`;
  if (profileProblems(profile).length) return undefined;
  if (unnotified(profile).length > unnotified(base).length) return undefined;
  if (signatureFormDepartures(profile).length > signatureFormDepartures(base).length) return undefined;
  return {
    id: `${name}~${c.point}~${n}`,
    personality: name,
    point: c.point,
    rule: c.rule,
    change: `${show(c.from)} → ${show(c.to)}`,
    profile,
  };
}

/**
 * `perPersonality` neighbours of each personality, deterministic given `seed`: one of each named kind first, then
 * one per point (a point not picked twice for one personality) in a seeded order.
 */
export function neighbourhood(seed = 34, perPersonality = 30, names = personalityNames()): Neighbour[] {
  const out: Neighbour[] = [];
  for (const [i, name] of names.entries()) {
    const next = random(seed * 1000 + i);
    const base = personality(name);
    const all = shuffled(candidates(base), next);
    const picked: Neighbour[] = [];
    const points = new Set<string>();
    const take = (c: Candidate) => {
      if (points.has(c.point) || picked.length >= perPersonality || !answerable(c)) return false;
      const nb = neighbourOf(name, base, c, picked.length + 1);
      if (!nb) return false;
      picked.push(nb);
      points.add(c.point);
      return true;
    };
    for (const k of NAMED_KINDS) all.filter(k.matches).some(take);
    for (const c of all) if (picked.length < perPersonality) take(c);
    out.push(...picked);
  }
  return out;
}

/**
 * Whether a candidate can be served at all: an informational status (1xx) is no final answer (RFC 9110 §15.2), so no
 * gateway can refuse with one. Left out when picking (not from the candidates, whose seeded order stays as it was).
 */
function answerable(c: Candidate): boolean {
  return !(c.status && typeof c.to === 'number' && c.to < 200);
}

/** The named kind a neighbour is of, if any. */
export function kindOf(nb: Pick<Neighbour, 'point' | 'rule'>): string | undefined {
  return NAMED_KINDS.find((k) => k.matches({ ...nb, from: undefined, to: undefined }))?.kind;
}

/**
 * A sample of a neighbourhood for a fast test: one neighbour of each named kind but the last `NAMED_KINDS.length -
 * size`, the kinds taken in turn from the personalities in order (kind i from personality i modulo their count).
 */
export function neighbourhoodSample(all: readonly Neighbour[], size = 6): Neighbour[] {
  const names = [...new Set(all.map((n) => n.personality))];
  return NAMED_KINDS.slice(0, size).flatMap((k, i) => {
    const mine = all.filter((n) => n.personality === names[i % names.length] && kindOf(n) === k.kind);
    return mine.slice(0, 1);
  });
}
