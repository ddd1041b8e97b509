/**
 * The catalogue of signature schemes the profile format can state (`signature` of schemas/profile.schema.json), and
 * how discovery searches it: a received `encryption_data` is identified OFFLINE (no request: every scheme of the
 * catalogue is computed over the answer with the account's secret), and the request scheme is searched online in
 * the order `requestListCandidates` ranks the field lists.
 *
 * The catalogue: SHA-256 with the secret appended after one of `JOINS`, or HMAC-SHA256; per-operation field lists
 * joined by one of `SEPARATORS` (absent fields as empty values or left out), or sorted `name=value` pairs; hex in
 * either case or base64. Sorted pairs whose separators the catalogue lacks are searched offline over the whole
 * punctuation space (`pairsSpace`) when nothing of the catalogue explains an answer; a request separator outside the
 * lists is found online, one separator away from the recipe an answer showed (signature-lists.ts `sweepCandidates`).
 */
import { createHash, createHmac, type Hash } from 'node:crypto';
import type { OperationKey } from '../core/model.js';
import { type SignatureProfile, urlEncodedValue } from '../core/signing.js';

/** Texts tried between two signed values (and between the string to sign and an appended secret). */
export const SEPARATORS = ['', '|', '&', ',', ';', ':', '#'] as const;
/**
 * Texts tried between the string to sign and the appended secret of plain SHA-256: the separators, and the
 * `&key=` / `&secret=` of gateways that sign `pairs&key=SECRET`.
 */
export const JOINS = [...SEPARATORS, '&key=', '&secret='] as const;

/** The digest algorithm and how the secret enters it. */
export type Algorithm = SignatureProfile['algorithm'];
/** Encoding of `encryption_data`. */
export type Encoding = SignatureProfile['encoding'];
/** Sorted-pairs rule (request or response). */
export type PairsRule = {
  mode: 'sortedPairs';
  keyValueSeparator: string;
  pairSeparator: string;
  skipEmpty: boolean;
  exclude: string[];
  valueEncoding: 'raw' | 'urlEncoded';
  /** JSON types left out of the string to sign (absent: every scalar counts). */
  leaveOut?: ('boolean' | 'null')[];
};
/** Field-list rule of one operation. */
export type ListRule = { separator: string; missingField: 'emptyString' | 'omitted'; fields: string[] };

/**
 * Printable ASCII punctuation: the space of one-character separators. A recipe whose separators the catalogue lacks
 * is searched over it (offline on a signed answer, then online on the capture), one separator at a time.
 */
export const PUNCTUATION = [...'!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'] as const;

/** Algorithms in the order they are tried: the plain hash with the common joins, then HMAC. */
export const ALGORITHMS: readonly Algorithm[] = [
  { name: 'sha256', secretJoin: '' },
  { name: 'hmac-sha256' },
  ...JOINS.filter((j) => j !== '').map((secretJoin) => ({ name: 'sha256' as const, secretJoin })),
];

/** Sorted-pairs variants of the catalogue (the separators the format's examples use, both empty-value rules). */
export function pairsVariants(): PairsRule[] {
  const out: PairsRule[] = [];
  for (const [kv, pair] of [
    ['=', '&'],
    [':', '|'],
    ['=', '|'],
    ['=', ';'],
    [':', ','],
  ] as const)
    for (const skipEmpty of [false, true])
      for (const valueEncoding of ['raw', 'urlEncoded'] as const)
        out.push({
          mode: 'sortedPairs',
          keyValueSeparator: kv,
          pairSeparator: pair,
          skipEmpty,
          exclude: ['encryption_data'],
          valueEncoding,
        });
  return out;
}

/**
 * Sorted-pairs rules over the whole punctuation space: every key-value separator with every pair separator (or none), both
 * empty-value rules and both value encodings. Searched offline only, when no rule of the catalogue explains a
 * signed answer (a thousand digests of one short text: milliseconds).
 */
export function pairsSpace(): PairsRule[] {
  const out: PairsRule[] = [];
  // Pairs may also be joined with nothing between them (`a=1b=2`).
  for (const kv of PUNCTUATION)
    for (const pair of ['', ...PUNCTUATION])
      for (const skipEmpty of [false, true])
        for (const valueEncoding of ['raw', 'urlEncoded'] as const)
          out.push({
            mode: 'sortedPairs',
            keyValueSeparator: kv,
            pairSeparator: pair,
            skipEmpty,
            exclude: ['encryption_data'],
            valueEncoding,
          });
  return out;
}

/** The text of a top-level scalar as the format signs it (strings as they are, numbers and booleans as text). */
export function scalarText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** The string a sorted-pairs rule signs (the same construction as core/signing.ts). */
export function pairsText(rule: PairsRule, body: Record<string, unknown>): string {
  const pairs: string[] = [];
  for (const name of Object.keys(body).sort()) {
    if (rule.exclude.includes(name)) continue;
    const v = body[name];
    if (v !== null && typeof v === 'object') continue;
    const text = scalarText(v);
    if ((text === undefined || text === '') && rule.skipEmpty) continue;
    const value = rule.valueEncoding === 'urlEncoded' ? urlEncodedValue(text ?? '') : (text ?? '');
    pairs.push(`${name}${rule.keyValueSeparator}${value}`);
  }
  return pairs.join(rule.pairSeparator);
}

/** The string a field list signs. */
export function listText(rule: ListRule, body: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const f of rule.fields) {
    const text = scalarText(body[f]);
    if (text === undefined && rule.missingField === 'omitted') continue;
    parts.push(text ?? '');
  }
  return parts.join(rule.separator);
}

/** The bytes an `encryption_data` value stands for under an encoding, or undefined when it is not in that encoding. */
export function signatureBytes(value: string, encoding: Encoding): Buffer | undefined {
  if (encoding === 'base64') {
    if (!/^[A-Za-z0-9+/]{43}=$/.test(value)) return undefined;
    return Buffer.from(value, 'base64');
  }
  if (!/^[0-9A-Fa-f]{64}$/.test(value)) return undefined;
  return Buffer.from(value, 'hex');
}

/** The encodings an `encryption_data` value can be in (hex of one case, either hex case when no letter, base64). */
export function encodingsOf(value: string): Encoding[] {
  if (/^[0-9a-f]{64}$/.test(value) && /^[0-9A-F]{64}$/.test(value)) return ['hex-lower', 'hex-upper'];
  if (/^[0-9a-f]{64}$/.test(value)) return ['hex-lower'];
  if (/^[0-9A-F]{64}$/.test(value)) return ['hex-upper'];
  if (/^[A-Za-z0-9+/]{43}=$/.test(value)) return ['base64'];
  return [];
}

const BLOCK = 64;

/** A keyed digest whose message can be extended piece by piece and copied (prefix sharing in the searches). */
class Digest {
  private constructor(
    private readonly alg: Algorithm,
    private readonly secret: string,
    private readonly state: Hash,
    private readonly opad?: Buffer,
  ) {}

  static start(alg: Algorithm, secret: string): Digest {
    if (alg.name === 'sha256') return new Digest(alg, secret, createHash('sha256'));
    let key = Buffer.from(secret, 'utf8');
    if (key.length > BLOCK) key = createHash('sha256').update(key).digest();
    const padded = Buffer.alloc(BLOCK);
    key.copy(padded);
    const ipad = Buffer.from(padded.map((b) => b ^ 0x36));
    const opad = Buffer.from(padded.map((b) => b ^ 0x5c));
    return new Digest(alg, secret, createHash('sha256').update(ipad), opad);
  }

  extend(text: string): Digest {
    return new Digest(this.alg, this.secret, this.state.copy().update(text, 'utf8'), this.opad);
  }

  /** The plain SHA-256 of the message so far with `tail` (a join and the secret, as bytes) appended. */
  finishWith(tail: Buffer): Buffer {
    return this.state.copy().update(tail).digest();
  }

  finish(): Buffer {
    if (this.alg.name === 'sha256')
      return this.state.copy().update(`${this.alg.secretJoin}${this.secret}`, 'utf8').digest();
    const inner = this.state.copy().digest();
    return createHash('sha256').update(this.opad!).update(inner).digest();
  }
}

/** The digest of a whole string under an algorithm (what `core/signing.ts` computes, as bytes). */
export function digestBytes(alg: Algorithm, secret: string, text: string): Buffer {
  return alg.name === 'sha256'
    ? createHash('sha256').update(`${text}${alg.secretJoin}${secret}`, 'utf8').digest()
    : createHmac('sha256', secret).update(text, 'utf8').digest();
}

/** One signed message discovery collected: its operation, its top-level fields, and the signature as received. */
export interface SignedSample {
  operation: OperationKey;
  body: Record<string, unknown>;
  signature: string;
  /** Top-level fields the operation's answer documents (a field it lacks may still be signed, as an empty value). */
  documented?: readonly string[];
}

/** A scheme found for responses: the algorithm and encoding shared by every operation, and each operation's rule. */
export interface ResponseScheme {
  algorithm: Algorithm;
  encoding: Encoding;
  pairs?: PairsRule;
  separator?: string;
  missingField?: 'emptyString' | 'omitted';
  fields: Partial<Record<OperationKey, string[]>>;
}

/**
 * Every ordered arrangement (length 1..maxLength) of `pool` whose joined values digest to `target`, for one
 * algorithm and separator; absent fields count as '' (`emptyString`) or are left out of the pool (`omitted`).
 * Prefixes are hashed once and copied (a depth-first walk), so tens of thousands of arrangements cost milliseconds.
 */
export function findLists(
  alg: Algorithm,
  secret: string,
  separator: string,
  missingField: 'emptyString' | 'omitted',
  pool: readonly string[],
  body: Record<string, unknown>,
  target: Buffer,
  maxLength = pool.length,
  limit = 4,
  minLength = 1,
): string[][] {
  const usable = missingField === 'omitted' ? pool.filter((f) => scalarText(body[f]) !== undefined) : [...pool];
  const found: string[][] = [];
  const walk = (prefix: Digest, list: string[], used: Set<string>) => {
    if (found.length >= limit) return;
    if (list.length >= minLength && prefix.finish().equals(target)) found.push([...list]);
    if (list.length >= maxLength) return;
    for (const f of usable) {
      if (used.has(f)) continue;
      const piece = (list.length ? separator : '') + (scalarText(body[f]) ?? '');
      used.add(f);
      list.push(f);
      walk(prefix.extend(piece), list, used);
      list.pop();
      used.delete(f);
    }
  };
  walk(Digest.start(alg, secret), [], new Set());
  return found;
}

/** Whether a sample verifies under a sorted-pairs rule with an algorithm and encoding. */
function pairsMatch(alg: Algorithm, secret: string, rule: PairsRule, sample: SignedSample, target: Buffer): boolean {
  return digestBytes(alg, secret, pairsText(rule, sample.body)).equals(target);
}

/**
 * The candidate fields of a signed message: the preferred fields it carries, then its other top-level scalars, then
 * preferred fields its operation documents but the message lacks (they count as empty values), at most `max`.
 */
function poolOf(sample: SignedSample, max: number): string[] {
  const preferred: readonly string[] = SIGNED_FIELD_PREFERENCE;
  const keys = Object.keys(sample.body).filter(
    (k) => k !== 'encryption_data' && scalarText(sample.body[k]) !== undefined,
  );
  const ordered = [...preferred.filter((f) => keys.includes(f)), ...keys.filter((k) => !preferred.includes(k))];
  const absent = (sample.documented ?? []).filter((f) => preferred.includes(f) && !keys.includes(f));
  return [...ordered.slice(0, max), ...absent].slice(0, Math.max(max, Math.min(ordered.length, max) + absent.length));
}

/** Fields an operation's signature most likely covers, in the order they are tried (identifiers, money, statuses). */
export const SIGNED_FIELD_PREFERENCE = [
  'merchant_id',
  'account_id',
  'order_no',
  'transaction_id',
  'request_id',
  'amount',
  'currency',
  'payment_amount',
  'payment_currency',
  'order_status',
  'status',
  'failure_type',
  'return_status',
  'return_message',
  'result_info',
] as const;

/**
 * Every scheme of the catalogue the most telling sample (fewest candidate fields) verifies under, each completed with
 * the lists of the other samples' operations, best first: the scheme verifying the most samples, then the one
 * needing the fewest fields absent from the samples, then the shortest lists, then the catalogue's order. Two
 * schemes may explain one sample alike (`9|` + secret is `9` joined by `|` to the secret): the other samples decide.
 */
export function rankResponseSchemes(
  samples: readonly SignedSample[],
  secret: string,
  memo?: SchemeMemo,
): ResponseScheme[] {
  const usable = samples.filter((s) => encodingsOf(s.signature).length);
  if (!usable.length) return [];
  const first = [...usable].sort((a, b) => poolOf(a, 8).length - poolOf(b, 8).length)[0]!;
  // Each sample's key once per ranking (a sample's list is looked up under every family).
  const keys = new Map<SignedSample, string>();
  const keyOf = (x: SignedSample) => keys.get(x) ?? keys.set(x, sampleKey(x, secret)).get(x)!;
  const explanations = memoized(memo, `explain ${keyOf(first)}`, () => explain(first, secret));
  // The other operations' lists, found once per family (algorithm, encoding, separator, absent-field rule) on the
  // first sample of each operation; then every sample verified.
  const firstOf = new Map<OperationKey, SignedSample>();
  for (const s of usable) if (!firstOf.has(s.operation)) firstOf.set(s.operation, s);
  const familyLists = new Map<string, Partial<Record<OperationKey, string[]>>>();
  // Once a family explains every operation, a later family only competes with lists at most one field longer than
  // that family's: the search of each later family stops there (the search of a family explaining nothing is the
  // whole tree of arrangements, and the catalogue has tens of families explaining the first sample alike).
  let bound: Partial<Record<OperationKey, number>> | undefined;
  const scored = explanations.map((scheme, order) => {
    if (!scheme.pairs) {
      const family = JSON.stringify([scheme.algorithm, scheme.encoding, scheme.separator, scheme.missingField]);
      let lists = familyLists.get(family);
      if (!lists) {
        lists = {};
        for (const [op, s] of firstOf) {
          if (op === first.operation) continue;
          const most = bound?.[op];
          const list = memoized(memo, `list ${family} ${most} ${keyOf(s)}`, () =>
            responseListOf(scheme, s, secret, most === undefined ? undefined : most + 1),
          );
          if (list) lists[op] = list;
        }
        familyLists.set(family, lists);
        const found = lists;
        if (!bound && [...firstOf.keys()].every((op) => op === first.operation || found[op]))
          bound = Object.fromEntries(Object.entries(found).map(([op, list]) => [op, list!.length]));
      }
      for (const [op, list] of Object.entries(lists))
        if (!scheme.fields[op as OperationKey]) scheme.fields[op as OperationKey] = list;
    }
    const verified = usable.filter((s) => verifiesUnder(scheme, s, secret)).length;
    const lists = Object.entries(scheme.fields);
    const absent = lists.reduce(
      (n, [op, list]) =>
        n + list!.filter((f) => !usable.some((s) => s.operation === op && scalarText(s.body[f]) !== undefined)).length,
      0,
    );
    const length = lists.reduce((n, [, list]) => n + list!.length, 0);
    return { scheme, key: [-verified, absent, length, order] };
  });
  scored.sort((a, b) => {
    for (let i = 0; i < a.key.length; i++) if (a.key[i] !== b.key[i]) return a.key[i]! - b.key[i]!;
    return 0;
  });
  return scored.map((x) => x.scheme);
}

/**
 * Results of the costly searches of `rankResponseSchemes` (a sample's explanations, an operation's list under a
 * family), by everything they are computed from: the searches are pure, so a hit is the result itself. A ranking
 * made early over the samples then seen (discover/scheme-ranker.ts) leaves the later ranking over every sample only
 * the searches of samples it did not see.
 */
export type SchemeMemo = Map<string, unknown>;

/** Entries a memo holds before it is emptied (a discovery fills a few hundred). */
const MEMO_MAX = 20_000;

function memoized<T>(memo: SchemeMemo | undefined, key: string, compute: () => T): T {
  if (!memo) return compute();
  if (memo.has(key)) return structuredClone(memo.get(key)) as T;
  const value = compute();
  if (memo.size >= MEMO_MAX) memo.clear();
  memo.set(key, structuredClone(value));
  return value;
}

/** What a sample's searches are computed from: the sample and the secret. */
function sampleKey(s: SignedSample, secret: string): string {
  return JSON.stringify([s.operation, s.body, s.signature, s.documented ?? null, secret]);
}

/** Every scheme one signed sample verifies under, its list for the sample's operation alone (catalogue order). */
function explain(first: SignedSample, secret: string): ResponseScheme[] {
  const explanations: ResponseScheme[] = [];
  for (const encoding of encodingsOf(first.signature)) {
    const target = signatureBytes(first.signature, encoding)!;
    for (const alg of ALGORITHMS) {
      for (const rule of pairsVariants())
        if (pairsMatch(alg, secret, rule, first, target))
          explanations.push({ algorithm: alg, encoding, pairs: rule, fields: {} });
      const pool = poolOf(first, 7);
      for (const separator of SEPARATORS)
        for (const missingField of ['emptyString', 'omitted'] as const)
          for (const list of findLists(alg, secret, separator, missingField, pool, first.body, target, pool.length, 3))
            explanations.push({
              algorithm: alg,
              encoding,
              separator,
              missingField,
              fields: { [first.operation]: list },
            });
    }
  }
  // No rule of the catalogue explains the sample: sorted pairs over the whole punctuation space (offline, cheap).
  if (!explanations.length) {
    // Rules giving one text are digested once (a body without empty or encoded values: a quarter of them).
    const texts = new Map<string, PairsRule[]>();
    for (const rule of pairsSpace()) {
      const text = pairsText(rule, first.body);
      texts.set(text, [...(texts.get(text) ?? []), rule]);
    }
    for (const encoding of encodingsOf(first.signature)) {
      const target = signatureBytes(first.signature, encoding)!;
      for (const alg of ALGORITHMS)
        for (const [text, rules] of texts)
          if (digestBytes(alg, secret, text).equals(target))
            for (const rule of rules) explanations.push({ algorithm: alg, encoding, pairs: rule, fields: {} });
    }
  }
  // Nor any of the catalogue's joins: the secret's join searched over the punctuation space (joinSearch).
  if (!explanations.length) explanations.push(...joinSearch(first, secret));
  return explanations;
}

/**
 * The joins the offline search tries between the string to sign and the appended secret: none, each punctuation
 * character, then (`length` 2) each text of two punctuation characters (`::`, `|#`, …), shortest first.
 */
export function joinSpace(length: 1 | 2): string[] {
  const singles = ['', ...PUNCTUATION];
  if (length === 1) return singles;
  return [...singles, ...PUNCTUATION.flatMap((a) => PUNCTUATION.map((b) => `${a}${b}`))];
}

/** Digests the join search may compute for one signed answer (about 1.5 µs each: half a second at most). */
export const JOIN_SEARCH_BUDGET = 300_000;

/** Nodes of the walk over ordered arrangements of `n` fields of lengths 1..`depth` (each one digest per join). */
export function arrangementCount(n: number, depth: number): number {
  let total = 0;
  let level = 1;
  for (let k = 0; k < Math.min(n, depth); k++) {
    level *= n - k;
    total += level;
  }
  return total;
}

/**
 * Every ordered arrangement of `pool` (length 1..maxLength) whose values, joined by `separator`, digest under plain
 * SHA-256 with one of `joins` and the secret appended to `target`: each found list with its join. The prefix walk of
 * `findLists`, each node finished once per join.
 */
export function findJoinedLists(
  secret: string,
  separator: string,
  missingField: 'emptyString' | 'omitted',
  pool: readonly string[],
  body: Record<string, unknown>,
  target: Buffer,
  joins: readonly string[],
  maxLength = pool.length,
  limit = 4,
): { join: string; list: string[] }[] {
  const usable = missingField === 'omitted' ? pool.filter((f) => scalarText(body[f]) !== undefined) : [...pool];
  const tails = joins.map((join) => ({ join, bytes: Buffer.from(`${join}${secret}`, 'utf8') }));
  const found: { join: string; list: string[] }[] = [];
  const walk = (prefix: Digest, list: string[], used: Set<string>) => {
    if (found.length >= limit) return;
    if (list.length)
      for (const t of tails)
        if (prefix.finishWith(t.bytes).equals(target)) found.push({ join: t.join, list: [...list] });
    if (list.length >= maxLength) return;
    for (const f of usable) {
      if (used.has(f)) continue;
      const piece = (list.length ? separator : '') + (scalarText(body[f]) ?? '');
      used.add(f);
      list.push(f);
      walk(prefix.extend(piece), list, used);
      list.pop();
      used.delete(f);
    }
  };
  walk(Digest.start({ name: 'sha256', secretJoin: '' }, secret), [], new Set());
  return found;
}

/**
 * The schemes of plain SHA-256 with a join outside the catalogue that explain one signed answer, found offline by
 * elimination (no request): every join of `joinSpace` with the catalogue's sorted pairs and with field lists under
 * each separator of the catalogue. Two-character joins are searched only when the answer's candidate fields are
 * few enough for `JOIN_SEARCH_BUDGET`, and lists are cut to the longest length the budget allows; single characters
 * first, so a shorter join ranks before a longer one explaining the answer alike.
 */
export function joinSearch(sample: SignedSample, secret: string): ResponseScheme[] {
  const pool = poolOf(sample, 7);
  const families = SEPARATORS.length * 2;
  const catalogue = new Set<string>(JOINS);
  const out: ResponseScheme[] = [];
  for (const length of [1, 2] as const) {
    const joins = joinSpace(length).filter((j) => !catalogue.has(j) && (length === 1 || j.length === 2));
    // The longest lists the budget allows (at least two fields: one value and the secret tell little).
    let depth = pool.length;
    while (depth > 2 && arrangementCount(pool.length, depth) * families * joins.length > JOIN_SEARCH_BUDGET) depth--;
    if (length === 2 && arrangementCount(pool.length, depth) * families * joins.length > JOIN_SEARCH_BUDGET) break;
    for (const encoding of encodingsOf(sample.signature)) {
      const target = signatureBytes(sample.signature, encoding)!;
      for (const rule of pairsVariants()) {
        const text = pairsText(rule, sample.body);
        for (const secretJoin of joins)
          if (digestBytes({ name: 'sha256', secretJoin }, secret, text).equals(target))
            out.push({ algorithm: { name: 'sha256', secretJoin }, encoding, pairs: rule, fields: {} });
      }
      for (const separator of SEPARATORS)
        for (const missingField of ['emptyString', 'omitted'] as const)
          for (const { join, list } of findJoinedLists(
            secret,
            separator,
            missingField,
            pool,
            sample.body,
            target,
            joins,
            depth,
            3,
          ))
            out.push({
              algorithm: { name: 'sha256', secretJoin: join },
              encoding,
              separator,
              missingField,
              fields: { [sample.operation]: list },
            });
    }
    if (out.length) break;
  }
  return out;
}

/** The best scheme of `rankResponseSchemes`, or undefined when no scheme of the catalogue verifies any sample. */
export function identifyResponseScheme(samples: readonly SignedSample[], secret: string): ResponseScheme | undefined {
  return rankResponseSchemes(samples, secret)[0];
}

/** The list of one more sample under a scheme whose algorithm and separator are known (undefined: none fits), of at most `maxLength` fields. */
export function responseListOf(
  scheme: ResponseScheme,
  sample: SignedSample,
  secret: string,
  maxLength = 7,
): string[] | undefined {
  const target = signatureBytes(sample.signature, scheme.encoding);
  if (!target || scheme.pairs) return undefined;
  const pool = poolOf(sample, 8);
  // The shortest list that verifies: a longer one differs only by fields absent from the sample. Searched length by
  // length (the walk digests only the arrangements of that length), so a list of five of eight fields costs the
  // arrangements up to five (a tenth of those up to seven), the first in the walk's order at the shortest length.
  for (let length = 1; length <= Math.min(pool.length, maxLength, 7); length++) {
    const lists = findLists(
      scheme.algorithm,
      secret,
      scheme.separator!,
      scheme.missingField!,
      pool,
      sample.body,
      target,
      length,
      1,
      length,
    );
    if (lists.length) return lists[0];
  }
  return undefined;
}

/** Whether a sample verifies under a scheme (its operation's list or the pairs). */
export function verifiesUnder(scheme: ResponseScheme, sample: SignedSample, secret: string): boolean {
  const target = signatureBytes(sample.signature, scheme.encoding);
  if (!target) return false;
  if (scheme.pairs) return digestBytes(scheme.algorithm, secret, pairsText(scheme.pairs, sample.body)).equals(target);
  const fields = scheme.fields[sample.operation];
  if (!fields) return false;
  const text = listText({ separator: scheme.separator!, missingField: scheme.missingField!, fields }, sample.body);
  return digestBytes(scheme.algorithm, secret, text).equals(target);
}

/** `encryption_data` of a text under an algorithm and encoding. */
export function encodeDigest(alg: Algorithm, encoding: Encoding, secret: string, text: string): string {
  const bytes = digestBytes(alg, secret, text);
  if (encoding === 'base64') return bytes.toString('base64');
  const hex = bytes.toString('hex');
  return encoding === 'hex-upper' ? hex.toUpperCase() : hex;
}

/** Inversions between a list and a reference order (fields missing from the reference count as placed last). */
function inversions(list: readonly string[], order: readonly string[]): number {
  const rank = (f: string) => {
    const i = order.indexOf(f);
    return i < 0 ? order.length : i;
  };
  let n = 0;
  for (let i = 0; i < list.length; i++)
    for (let j = i + 1; j < list.length; j++) if (rank(list[i]!) > rank(list[j]!)) n++;
  return n;
}

/** Every ordered arrangement of every subset of `fields` with at least `min` members. */
function arrangements(fields: readonly string[], min: number): string[][] {
  const out: string[][] = [];
  const walk = (list: string[], left: string[]) => {
    if (list.length >= min) out.push([...list]);
    for (const f of left)
      walk(
        [...list, f],
        left.filter((x) => x !== f),
      );
  };
  walk([], [...fields]);
  return out;
}

/**
 * Field lists to try for an operation's request signature, most likely first: the lists of `hints` (patterns seen
 * on this gateway, already mapped to this operation's fields), then arrangements of the operation's key fields
 * ranked by how far they are from the canonical orders (fewest inversions, fewest fields left out), then those
 * arrangements leaving out at most one key field with one more field of the request (`extras`, most likely first) at
 * the end.
 */
export function requestListCandidates(
  key: readonly string[],
  canonical: readonly (readonly string[])[],
  extras: readonly string[],
  hints: readonly (readonly string[])[] = [],
  budget = 400,
): string[][] {
  const scored = new Map<string, { list: string[]; score: number }>();
  const add = (list: string[], score: number) => {
    const id = list.join('\u0000');
    const known = scored.get(id);
    if (!known || known.score > score) scored.set(id, { list, score });
  };
  hints.forEach((h, i) => add([...h], -100 + i));
  const min = Math.min(2, key.length);
  for (const list of arrangements(key, min)) {
    const distance = Math.min(...canonical.map((c) => inversions(list, c)));
    const missing = key.length - list.length;
    const base = distance + 1.5 * missing;
    add(list, base);
    if (missing <= 1) extras.forEach((extra, i) => add([...list, extra], base + 2 + i * 0.5));
  }
  return [...scored.values()]
    .sort((a, b) => a.score - b.score)
    .slice(0, budget)
    .map((e) => e.list);
}
