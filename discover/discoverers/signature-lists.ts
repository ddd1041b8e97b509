/**
 * The field-list search of the signature row (signature.ts): the catalogue families, candidate lists tried against
 * the gateway one request at a time, lists built up field by field, and the fields of a full body a list must cover.
 */
import type { OperationKey } from '../../core/model.js';
import type { SignatureProfile } from '../../core/signing.js';
import { isRefusal, sameRefusal, type Refusal } from '../answers.js';
import { attempt, candidateSignature, seen, wrongSignature, type Facts } from '../context.js';
import {
  ALGORITHMS,
  PUNCTUATION,
  SEPARATORS,
  pairsVariants,
  requestListCandidates,
  type Algorithm,
  type Encoding,
  type PairsRule,
} from '../scheme.js';
import type { Session } from '../session.js';
import { requiredFields } from '../fields.js';
import { CARD_FIELD_CANDIDATES } from '../vocabulary.js';
import type { SelectingOperation } from '../../core/profile/operations.js';
import { operationSet } from '../../core/spec/operations.js';

export type Family = { algorithm: Algorithm; encoding: Encoding; pairs?: PairsRule; separator?: string };

/** The operations signing only the merchant and account fields in a list: the spec's batches and selections, the capture aside (its list is found first). */
export function simpleOperations(s: Session): OperationKey[] {
  const spec = s.spec;
  return [...operationSet(spec, 'batch'), ...operationSet(spec, 'selecting')].filter((op) => op !== 'capture');
}
export const PAYMENT_OPS: OperationKey[] = ['authoriseDirect', 'authoriseApm', 'checkout'];
/** Fields of a payment request that stand for the same thing in a payout (to map a list found on one to the other). */
export const PAYOUT_ROLES: Record<string, string> = {
  order_no: 'request_id',
  amount: 'payment_amount',
  currency: 'payment_currency',
};
/** Request fields most likely signed besides the key fields, most likely first. */
export const EXTRA_PREFERENCE = [
  'notify_url',
  'payment_method',
  'beneficiary_id',
  'request_id',
  'order_no',
  'transaction_id',
  'payment_date',
  'reference',
  'source_amount',
  'source_currency',
  'return_url',
  'website',
  'shopper_email',
  'client_data',
  'reason',
  'payment_method',
  'fund_source',
  'swift_charge_option',
];

/** The merchant and account fields in both orders: the list of an operation signing only them. */
export const KEY_PAIRS: string[][] = [
  ['merchant_id', 'account_id'],
  ['account_id', 'merchant_id'],
];

/** The signature family of a working profile. */
export function _familyOf(sig: SignatureProfile): Family {
  return sig.request.mode === 'sortedPairs'
    ? { algorithm: sig.algorithm, encoding: sig.encoding, pairs: sig.request as PairsRule }
    : { algorithm: sig.algorithm, encoding: sig.encoding, separator: sig.request.separator };
}

export function listRule(f: Family, op: OperationKey, fields: string[], missing: 'emptyString' | 'omitted') {
  return candidateSignature(f.algorithm, f.encoding, {
    mode: 'fieldList',
    separator: f.separator ?? '',
    missingField: missing,
    fields: { [op]: fields } as never,
  });
}

/** Candidate schemes of the capture (merchant_id and account_id are its only scalars), most likely first. */
export function captureCandidates(hints: readonly Family[]): { sig: SignatureProfile; family: Family }[] {
  const out: { sig: SignatureProfile; family: Family }[] = [];
  const lists = [...KEY_PAIRS, ['merchant_id'], ['account_id']];
  const pairsOnline = pairsVariants().filter((p) => p.valueEncoding === 'raw');
  const seenSig = new Set<string>();
  const push = (sig: SignatureProfile, family: Family) => {
    const id = JSON.stringify(sig);
    if (!seenSig.has(id)) {
      seenSig.add(id);
      out.push({ sig, family });
    }
  };
  const add = (family: Family) => {
    if (family.pairs) push(candidateSignature(family.algorithm, family.encoding, family.pairs), family);
    else
      for (const fields of lists)
        if (fields.length > 1 || family.separator === SEPARATORS[0])
          push(listRule(family, 'capture', fields, 'emptyString'), family);
  };
  for (const hint of hints) add(hint);
  for (const encoding of ['hex-lower', 'hex-upper', 'base64'] as const)
    for (const algorithm of ALGORITHMS) {
      const join = algorithm.name === 'sha256' ? algorithm.secretJoin : '';
      const seps = [join, ...SEPARATORS.filter((x) => x !== join)];
      for (const separator of seps.slice(0, 3)) add({ algorithm, encoding, separator });
      for (const pairs of pairsOnline.slice(0, 2)) add({ algorithm, encoding, pairs });
      for (const separator of seps.slice(3)) add({ algorithm, encoding, separator });
    }
  return out;
}

/**
 * Schemes one separator away from the recipes a signed answer showed (`hints`: their algorithm and encoding are the
 * request's too, the format sharing them), tried on the capture when no scheme of the catalogue is taken: a field
 * list joined by any punctuation character, sorted pairs with any pair separator or any key-value separator. The
 * request's separator is found by elimination over the punctuation space, not from a list of vendors' choices.
 */
export function sweepCandidates(hints: readonly Family[]): { sig: SignatureProfile; family: Family }[] {
  const out: { sig: SignatureProfile; family: Family }[] = [];
  const seenSig = new Set<string>();
  const push = (sig: SignatureProfile, family: Family) => {
    const id = JSON.stringify(sig);
    if (!seenSig.has(id)) {
      seenSig.add(id);
      out.push({ sig, family });
    }
  };
  const bases = hints.filter(
    (h, i) =>
      hints.findIndex(
        (o) => JSON.stringify([o.algorithm, o.encoding]) === JSON.stringify([h.algorithm, h.encoding]),
      ) === i,
  );
  for (const h of bases.slice(0, 2)) {
    const { algorithm, encoding } = h;
    for (const separator of ['', ...PUNCTUATION])
      for (const fields of KEY_PAIRS) {
        const family = { algorithm, encoding, separator };
        push(listRule(family, 'capture', fields, 'emptyString'), family);
      }
    const like: PairsRule = h.pairs ?? { ...pairsVariants()[0]! };
    const rules = [
      ...['', ...PUNCTUATION].map((pairSeparator) => ({ ...like, pairSeparator, valueEncoding: 'raw' as const })),
      ...PUNCTUATION.map((keyValueSeparator) => ({ ...like, keyValueSeparator, valueEncoding: 'raw' as const })),
    ];
    for (const pairs of rules) push(candidateSignature(algorithm, encoding, pairs), { algorithm, encoding, pairs });
  }
  return out;
}

/**
 * With no signed answer to go by, tried on the capture after the catalogue: schemes one choice away from the
 * catalogue's families. For each encoding, the plain hash with the secret appended and HMAC, the capture's two fields
 * joined by any punctuation character (or nothing); then the plain hash with the secret joined by any punctuation
 * character, the values joined as the catalogue joins them. A recipe is found by elimination over the punctuation
 * space, one choice at a time, not from a list of vendors' recipes (about 1,700 requests at most, sent apart from the
 * discovery's budget: session.ts `SWEEP_BUDGET`).
 */
export function blindCandidates(): { sig: SignatureProfile; family: Family }[] {
  const out: { sig: SignatureProfile; family: Family }[] = [];
  const punctuation = ['', ...PUNCTUATION];
  const encodings = ['hex-lower', 'hex-upper', 'base64'] as const;
  const list = (family: Family) => {
    for (const fields of KEY_PAIRS) out.push({ sig: listRule(family, 'capture', fields, 'emptyString'), family });
  };
  for (const encoding of encodings) {
    for (const algorithm of [{ name: 'sha256', secretJoin: '' }, { name: 'hmac-sha256' }] as Algorithm[])
      for (const separator of punctuation) list({ algorithm, encoding, separator });
    for (const secretJoin of PUNCTUATION)
      for (const separator of SEPARATORS) list({ algorithm: { name: 'sha256', secretJoin }, encoding, separator });
  }
  return out;
}

/** Whether a candidate was accepted: the operation did its work, or refused otherwise than a wrong signature. */
export function accepted(refusal: Refusal | undefined, wrong: Refusal | undefined): boolean {
  if (refusal?.lost) return false; // no answer
  return !refusal || (wrong !== undefined && !sameRefusal(refusal, wrong));
}

/** Set the working profile's request rule for one operation (and the family). */
export function adopt(
  s: Session,
  f: Family,
  op: OperationKey,
  fields: string[] | undefined,
  missing?: 'emptyString' | 'omitted',
) {
  const sig = s.work.signature;
  sig.algorithm = f.algorithm;
  sig.encoding = f.encoding;
  if (f.pairs) {
    sig.request = structuredClone(f.pairs);
    return;
  }
  if (sig.request.mode !== 'fieldList' || sig.request.separator !== f.separator) {
    const base = s.defaults.signature.request;
    sig.request = {
      mode: 'fieldList',
      separator: f.separator!,
      missingField: 'emptyString',
      fields: structuredClone((base as { fields: Record<OperationKey, string[]> }).fields),
    };
  }
  if (sig.request.mode === 'fieldList') {
    if (fields) sig.request.fields[op] = fields;
    if (missing) sig.request.missingField = missing;
  }
}

/** The wrong-signature refusal of an operation's body (recorded as the operation's badSignature answer). */
export async function wrongFor(s: Session, facts: Facts, op: OperationKey, body: Record<string, unknown>) {
  const r = await attempt(s, op, body, { signature: () => wrongSignature(s.work.signature.encoding) });
  if (isRefusal(r.refusal) && !facts.wrongSignature[op]) facts.wrongSignature[op] = seen(s, op, r.x, r.refusal, body);
  return r.refusal;
}

/**
 * Find the field list of one operation: candidates ranked by `requestListCandidates`, each sent signed with the
 * family; the first accepted wins. `optional` fields present in `body` may also be covered.
 */
export async function searchList(
  s: Session,
  facts: Facts,
  f: Family,
  op: OperationKey,
  body: Record<string, unknown>,
  key: string[],
  canonical: string[][],
  hints: string[][],
  budget: number,
): Promise<{ fields: string[]; evidence: string; tried: number; body: Record<string, unknown> } | undefined> {
  const cardNames = new Set<string>(Object.values(CARD_FIELD_CANDIDATES).flat());
  const full = body;
  const wrongFull = await wrongFor(s, facts, op, full);
  // The fewest fields the gateway takes (key fields, nested values, card fields, the variant's selector): the
  // other fields are found signed or not afterwards, one group at a time (coverFull), not multiplied into the lists.
  const selector = s.spec.operations.get(op)?.when?.present;
  const required = requiredFields(s.spec, op);
  const reduced = Object.fromEntries(
    Object.entries(full).filter(
      ([k, v]) =>
        key.includes(k) ||
        required.includes(k) ||
        (v !== null && typeof v === 'object') ||
        cardNames.has(k) ||
        k === selector,
    ),
  );
  let wrong = wrongFull;
  if (Object.keys(reduced).length < Object.keys(full).length) {
    const r = await attempt(s, op, reduced, { signature: () => wrongSignature(s.work.signature.encoding) });
    if (sameRefusal(r.refusal, wrongFull)) {
      body = reduced;
      wrong = r.refusal;
    }
  }
  const present = Object.keys(body).filter((k) => typeof body[k] === 'string' || typeof body[k] === 'number');
  const extras = [
    ...EXTRA_PREFERENCE.filter((e) => present.includes(e) && !key.includes(e)),
    ...present.filter((p) => !key.includes(p) && !EXTRA_PREFERENCE.includes(p) && !cardNames.has(p)),
  ];
  const candidates = requestListCandidates(
    key.filter((k) => present.includes(k)),
    canonical,
    [...new Set(extras)],
    hints,
    budget,
  );
  let tried = 0;
  for (const fields of candidates) {
    tried++;
    const missing =
      s.work.signature.request.mode === 'fieldList' ? s.work.signature.request.missingField : 'emptyString';
    const r = await attempt(s, op, body, { sign: listRule(f, op, fields, missing) });
    if (accepted(r.refusal, wrong)) return { fields, evidence: s.evidence(r.x), tried, body };
  }
  return undefined;
}

/** A placeholder for a slot of a list whose field discovery has not sent (it counts as an empty value). */
export const SLOT = 'unknown_field_';
export const isSlot = (f: string) => f.startsWith(SLOT);

/**
 * Lists of `k` slots holding merchant_id and account_id at two places, the likeliest places first; with `selector`
 * (a field always sent), then each of those lists again with the selector in one of its slots.
 */
export function slotLists(selector?: string): string[][] {
  const out: string[][] = [
    ['merchant_id', 'account_id'],
    ['account_id', 'merchant_id'],
    ['merchant_id'],
    ['account_id'],
  ];
  for (const k of [5, 3, 4, 6, 7]) {
    const places: [number, number, number][] = [];
    for (let i = 0; i < k; i++)
      for (let j = 0; j < k; j++) {
        if (i === j) continue;
        const adjacent = Math.abs(i - j) === 1 ? 0 : 2;
        const edge = Math.min(i, j) === 0 || Math.max(i, j) === k - 1 ? 0 : 1;
        places.push([i, j, adjacent + edge + (i < j ? 0 : 0.5)]);
      }
    places.sort((a, b) => a[2] - b[2]);
    for (const [i, j] of places) {
      const list = Array.from({ length: k }, (_, n) => `${SLOT}${n + 1}`);
      list[i] = 'merchant_id';
      list[j] = 'account_id';
      out.push(list);
    }
  }
  if (!selector) return out;
  const withSelector = out.flatMap((list) =>
    list.flatMap((x, i) => (isSlot(x) ? [list.map((y, n) => (n === i ? selector : y))] : [])),
  );
  return [...out, ...withSelector];
}

/**
 * The list of a gateway that checks the signature before the fields, built up: a body with merchant_id and
 * account_id only (every other field absent counts as an empty value, or nothing), then each key field sent in
 * turn, placed in a free slot or between the known fields, or found unsigned (the same list still accepted).
 */
export async function incrementalList(
  s: Session,
  facts: Facts,
  f: Family,
  op: OperationKey,
  key: string[],
  hints: string[][] = [],
): Promise<{ fields: string[]; evidence: string; tried: number } | undefined> {
  const full = s.body(op);
  // The field that tells this operation from another on its path (the APM's payment_method) is always sent: a body
  // without it is the other operation's, and is signed by that operation's list.
  const selector = s.spec.operations.get(op)?.when?.present;
  const selected: Record<string, unknown> =
    selector && full[selector] !== undefined ? { [selector]: full[selector] } : {};
  // A list found on another operation, tried whole on this one's key fields first.
  if (hints.length) {
    const keyed: Record<string, unknown> = {
      ...Object.fromEntries(key.filter((k) => full[k] !== undefined).map((k) => [k, full[k]])),
      ...selected,
    };
    const wrongKeyed = await wrongFor(s, facts, op, keyed);
    for (const hint of hints.slice(0, 2)) {
      const r = await attempt(s, op, keyed, { sign: listRule(f, op, hint, 'emptyString') });
      if (accepted(r.refusal, wrongKeyed)) return { fields: hint, evidence: s.evidence(r.x), tried: 1 };
    }
  }
  const body: Record<string, unknown> = { merchant_id: full.merchant_id, account_id: full.account_id, ...selected };
  const wrong = await wrongFor(s, facts, op, body);
  let tried = 0;
  let evidence = '';
  const ok = async (b: Record<string, unknown>, list: string[], missing: 'emptyString' | 'omitted') => {
    tried++;
    const r = await attempt(s, op, b, { sign: listRule(f, op, list, missing) });
    evidence = s.evidence(r.x);
    return accepted(r.refusal, wrong);
  };
  let list: string[] | undefined;
  for (const candidate of slotLists(Object.keys(selected)[0]))
    if (await ok(body, candidate, 'emptyString')) {
      list = candidate;
      break;
    }
  if (!list) return undefined;
  for (const field of key.filter((k) => k !== 'merchant_id' && k !== 'account_id' && full[k] !== undefined)) {
    body[field] = full[field];
    if (await ok(body, list, 'emptyString')) continue; // not signed
    const options: string[][] = [];
    list.forEach((x, i) => {
      if (isSlot(x)) options.push(list!.map((y, n) => (n === i ? field : y)));
    });
    for (let i = 0; i <= list.length; i++) options.push([...list.slice(0, i), field, ...list.slice(i)]);
    let placed = false;
    for (const candidate of options)
      if (await ok(body, candidate, 'emptyString')) {
        list = candidate;
        placed = true;
        break;
      }
    if (!placed) return undefined;
  }
  return { fields: list, evidence, tried };
}

/** The lists of the simple operations (merchant and account fields only): the capture's order first. */
export async function simpleLists(s: Session, facts: Facts, f: Family, capture: string[]): Promise<void> {
  const base = [capture, [...capture].reverse(), ...KEY_PAIRS];
  for (const op of simpleOperations(s)) {
    // The working profile's list first (the one `--from` states; else the format's default, one of the orders).
    const sig = s.work.signature.request;
    const orders = sig.mode === 'fieldList' ? [[...sig.fields[op]], ...base] : base;
    const body = s.body(op);
    const wrong = await wrongFor(s, facts, op, body);
    let done = false;
    for (const fields of orders.filter((o, i) => orders.findIndex((p) => p.join() === o.join()) === i)) {
      const r = await attempt(s, op, body, { sign: listRule(f, op, fields, 'emptyString') });
      if (accepted(r.refusal, wrong)) {
        adopt(s, f, op, fields);
        s.draft.set(`signature.request.fields.${op}`, fields, s.evidence(r.x, 'accepted'));
        done = true;
        break;
      }
    }
    if (!done)
      s.draft.unknown(
        `signature.request.fields.${op}`,
        `no list of merchant_id/account_id was accepted for ${op}: find its signed fields in the gateway's documentation`,
      );
  }
}

/**
 * Selection fields covered by a query's signature (a field the gateway signs only when present): each of them
 * present in turn, inserted at every place of the list; the missing-field rule from a list holding both when only
 * one is present.
 */
export async function coveredSelectors(s: Session, facts: Facts, f: Family, op: SelectingOperation): Promise<void> {
  const sig = s.work.signature.request;
  if (sig.mode !== 'fieldList') return;
  const base = sig.fields[op];
  const selectors = ['order_no', 'transaction_id'];
  const body = { ...s.body(op), transaction_id: 'T0000000000', order_no: 'ORD-0' };
  const wrong = await wrongFor(s, facts, op, body);
  const first = await attempt(s, op, body, { sign: listRule(f, op, base, sig.missingField) });
  if (accepted(first.refusal, wrong)) return;
  // Both selectors present: the list with them at every place.
  const withBoth: string[][] = [];
  for (const order of [selectors, [...selectors].reverse()])
    for (let i = 0; i <= base.length; i++)
      for (let j = i; j <= base.length; j++) {
        const list = [...base];
        list.splice(j, 0, order[1]!);
        list.splice(i, 0, order[0]!);
        withBoth.push(list);
      }
  for (const only of selectors)
    for (let i = 0; i <= base.length; i++) {
      const list = [...base];
      list.splice(i, 0, only);
      withBoth.push(list);
    }
  for (const list of withBoth) {
    const r = await attempt(s, op, body, { sign: listRule(f, op, list, sig.missingField) });
    if (!accepted(r.refusal, wrong)) continue;
    adopt(s, f, op, list);
    s.draft.set(`signature.request.fields.${op}`, list, s.evidence(r.x, 'accepted with selecting fields present'));
    // One selector absent: the missing-field rule.
    const covered = list.filter((x) => selectors.includes(x));
    if (covered.length === 2) {
      const partial: Record<string, unknown> = { ...body };
      delete partial[covered[0]!];
      for (const missing of ['emptyString', 'omitted'] as const) {
        const m = await attempt(s, op, partial, { sign: listRule(f, op, list, missing) });
        if (accepted(m.refusal, wrong)) {
          adopt(s, f, op, list, missing);
          s.draft.set(
            'signature.request.missingField',
            missing,
            s.evidence(m.x, `${covered[0]} absent, list ${list.join(',')}`),
          );
          break;
        }
      }
    }
    return;
  }
}

/** Minimal payment bodies: key fields, notify_url, the APM's payment method, the card fields (every candidate name). */
export function minimalPayment(s: Session, op: OperationKey, card: Record<string, string>): Record<string, unknown> {
  const full = s.body(op);
  const keep = ['merchant_id', 'account_id', 'order_no', 'currency', 'amount', 'notify_url', 'payment_method'];
  const out: Record<string, unknown> = {};
  for (const k of keep) if (full[k] !== undefined) out[k] = full[k];
  if (op === 'authoriseDirect') Object.assign(out, card);
  return out;
}

/** Fields of `full` a signed minimal body lacks, one at a time until the full body is accepted (group testing). */
export async function coverFull(
  s: Session,
  facts: Facts,
  f: Family,
  op: OperationKey,
  list: string[],
  full: Record<string, unknown>,
  minimal: Record<string, unknown>,
): Promise<string[]> {
  const missing = () =>
    s.work.signature.request.mode === 'fieldList' ? s.work.signature.request.missingField : 'emptyString';
  const wrong = await wrongFor(s, facts, op, full);
  const ok = async (body: Record<string, unknown>, fields: string[]) =>
    accepted((await attempt(s, op, body, { sign: listRule(f, op, fields, missing()) })).refusal, wrong);
  let fields = [...list];
  for (let round = 0; round < 3; round++) {
    if (await ok(full, fields)) return fields;
    // A field of the full body the gateway signs: halve the added fields until one is left.
    let added = Object.keys(full).filter((k) => !(k in minimal) && typeof full[k] !== 'object');
    while (added.length > 1) {
      const half = added.slice(0, Math.ceil(added.length / 2));
      const probe = { ...minimal, ...Object.fromEntries(half.map((k) => [k, full[k]])) };
      added = (await ok(probe, fields)) ? added.slice(half.length) : half;
    }
    const extra = added[0];
    if (!extra) return fields;
    const options: string[][] = [];
    fields.forEach((x, i) => {
      if (isSlot(x)) options.push(fields.map((y, n) => (n === i ? extra : y)));
    });
    for (let i = fields.length; i >= 0; i--) options.push([...fields.slice(0, i), extra, ...fields.slice(i)]);
    const hit = await (async () => {
      for (const candidate of options) if (await ok(full, candidate)) return candidate;
      return undefined;
    })();
    if (!hit) return fields;
    fields = hit;
  }
  return fields;
}
