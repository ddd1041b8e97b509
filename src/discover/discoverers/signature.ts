/**
 * How to be heard: the request media of the capture, a header the gateway requires, the request signature (the
 * scheme found on the capture, then each operation's field list), and the card fields of the direct payment (the
 * card data must be valid before a gateway checking fields first says anything about the signature).
 */
import type { OperationKey } from '../../model.js';
import type { SignatureProfile } from '../../signing.js';
import { sameRefusal, type Refusal } from '../answers.js';
import {
  attempt,
  candidateSignature,
  noteKind,
  seen,
  wrongSignature,
  type Discoverer,
  type Facts,
} from '../context.js';
import {
  ALGORITHMS,
  SEPARATORS,
  rankResponseSchemes,
  pairsVariants,
  requestListCandidates,
  type Algorithm,
  type Encoding,
  type PairsRule,
} from '../scheme.js';
import type { Session } from '../session.js';
import { requiredFields } from '../fields.js';
import { CARD_FIELD_CANDIDATES, HEADER_CANDIDATES } from '../vocabulary.js';
import { searchCards } from './cards.js';

type Family = { algorithm: Algorithm; encoding: Encoding; pairs?: PairsRule; separator?: string };

const BATCH_LIKE: OperationKey[] = ['review', 'cancel', 'refund', 'retrievalTrans', 'retrievalRefund'];
const PAYMENT_OPS: OperationKey[] = ['authoriseDirect', 'authoriseApm', 'checkout'];
/** Fields of a payment request that stand for the same thing in a payout (to map a list found on one to the other). */
const PAYOUT_ROLES: Record<string, string> = {
  order_no: 'request_id',
  amount: 'payment_amount',
  currency: 'payment_currency',
};
/** Request fields most likely signed besides the key fields, most likely first. */
const EXTRA_PREFERENCE = [
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

/** The signature family of a working profile. */
function _familyOf(sig: SignatureProfile): Family {
  return sig.request.mode === 'sortedPairs'
    ? { algorithm: sig.algorithm, encoding: sig.encoding, pairs: sig.request as PairsRule }
    : { algorithm: sig.algorithm, encoding: sig.encoding, separator: sig.request.separator };
}

function listRule(f: Family, op: OperationKey, fields: string[], missing: 'emptyString' | 'omitted') {
  return candidateSignature(f.algorithm, f.encoding, {
    mode: 'fieldList',
    separator: f.separator ?? '',
    missingField: missing,
    fields: { [op]: fields } as never,
  });
}

/** Candidate schemes of the capture (merchant_id and account_id are its only scalars), most likely first. */
function captureCandidates(hints: readonly Family[]): { sig: SignatureProfile; family: Family }[] {
  const out: { sig: SignatureProfile; family: Family }[] = [];
  const lists = [['merchant_id', 'account_id'], ['account_id', 'merchant_id'], ['merchant_id'], ['account_id']];
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

/** Whether a candidate was accepted: the operation did its work, or refused otherwise than a wrong signature. */
function accepted(refusal: Refusal | undefined, wrong: Refusal | undefined): boolean {
  if (refusal?.status === 0) return false; // no answer
  return !refusal || (wrong !== undefined && !sameRefusal(refusal, wrong));
}

/** Set the working profile's request rule for one operation (and the family). */
function adopt(
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
async function wrongFor(s: Session, facts: Facts, op: OperationKey, body: Record<string, unknown>) {
  const r = await attempt(s, op, body, { signature: () => wrongSignature(s.work.signature.encoding) });
  if (r.refusal && !facts.wrongSignature[op]) facts.wrongSignature[op] = seen(s, op, r.x, r.refusal, body);
  return r.refusal;
}

/**
 * Find the field list of one operation: candidates ranked by `requestListCandidates`, each sent signed with the
 * family; the first accepted wins. `optional` fields present in `body` may also be covered.
 */
async function searchList(
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
const SLOT = 'unknown_field_';
const isSlot = (f: string) => f.startsWith(SLOT);

/** Lists of `k` slots holding merchant_id and account_id at two places, the likeliest places first. */
function slotLists(): string[][] {
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
  return out;
}

/**
 * The list of a gateway that checks the signature before the fields, built up: a body with merchant_id and
 * account_id only (every other field absent counts as an empty value, or nothing), then each key field sent in
 * turn, placed in a free slot or between the known fields, or found unsigned (the same list still accepted).
 */
async function incrementalList(
  s: Session,
  facts: Facts,
  f: Family,
  op: OperationKey,
  key: string[],
  hints: string[][] = [],
): Promise<{ fields: string[]; evidence: string; tried: number } | undefined> {
  const full = s.body(op);
  // A list found on another operation, tried whole on this one's key fields first.
  if (hints.length) {
    const keyed: Record<string, unknown> = Object.fromEntries(
      key.filter((k) => full[k] !== undefined).map((k) => [k, full[k]]),
    );
    const wrongKeyed = await wrongFor(s, facts, op, keyed);
    for (const hint of hints.slice(0, 2)) {
      const r = await attempt(s, op, keyed, { sign: listRule(f, op, hint, 'emptyString') });
      if (accepted(r.refusal, wrongKeyed)) return { fields: hint, evidence: s.evidence(r.x), tried: 1 };
    }
  }
  const body: Record<string, unknown> = { merchant_id: full.merchant_id, account_id: full.account_id };
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
  for (const candidate of slotLists())
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
async function simpleLists(s: Session, facts: Facts, f: Family, capture: string[]): Promise<void> {
  const orders = [capture, [...capture].reverse(), ['merchant_id', 'account_id'], ['account_id', 'merchant_id']];
  for (const op of BATCH_LIKE) {
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
async function coveredSelectors(
  s: Session,
  facts: Facts,
  f: Family,
  op: 'retrievalTrans' | 'retrievalRefund',
): Promise<void> {
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
function minimalPayment(s: Session, op: OperationKey, card: Record<string, string>): Record<string, unknown> {
  const full = s.body(op);
  const keep = ['merchant_id', 'account_id', 'order_no', 'currency', 'amount', 'notify_url', 'payment_method'];
  const out: Record<string, unknown> = {};
  for (const k of keep) if (full[k] !== undefined) out[k] = full[k];
  if (op === 'authoriseDirect') Object.assign(out, card);
  return out;
}

/** Fields of `full` a signed minimal body lacks, one at a time until the full body is accepted (group testing). */
async function coverFull(
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

/** Whether a refusal is the unreadable-body one (same code, or same status and form when no code shows). */
function isMalformed(facts: Facts, r: Refusal | undefined): boolean {
  const m = facts.malformed;
  if (!m || !r) return false;
  if (m.code !== undefined && r.code !== undefined) return m.code === r.code;
  return m.status === r.status && m.form === r.form;
}

/**
 * The media each operation reads (a sample body in JSON and in form, signed wrongly: read = refused otherwise than
 * an unreadable body), whether a body the other media can read is accepted, and how the media is told (a JSON
 * body declared as form: read when sniffed). Leaves each operation's wrong-signature refusal in `facts`.
 */
async function requestMedia(s: Session, facts: Facts, zeros: () => string): Promise<void> {
  const d = s.draft;
  const ops = [...s.spec.operations.keys()];
  const readable = new Map<OperationKey, Partial<Record<'json' | 'form', Refusal>>>();
  const evidence = new Map<OperationKey, string>();
  for (const op of ops) {
    const body = s.body(op);
    const got: Partial<Record<'json' | 'form', Refusal>> = {};
    for (const encoding of ['json', 'form'] as const) {
      const r = await attempt(s, op, body, { encoding, signature: zeros });
      if (r.refusal && !isMalformed(facts, r.refusal)) {
        got[encoding] = r.refusal;
        if (!facts.wrongSignature[op] || encoding === s.defaults.requestMedia.types[op])
          facts.wrongSignature[op] = seen(s, op, r.x, r.refusal, body);
      }
      evidence.set(op, `${evidence.get(op) ?? ''}${encoding}: ${s.evidence(r.x)}; `);
    }
    readable.set(op, got);
    const both = got.json && got.form;
    const type = both ? s.defaults.requestMedia.types[op] : got.json ? 'json' : got.form ? 'form' : undefined;
    if (!type) {
      d.unknown(`requestMedia.types.${op}`, `neither JSON nor form was read for ${op}`, undefined, evidence.get(op));
      continue;
    }
    s.work.requestMedia.types[op] = type;
    facts.wrongSignature[op] = { ...got[type]!, evidence: facts.wrongSignature[op]?.evidence ?? '', op, request: body };
    if (both)
      d.unknown(
        `requestMedia.types.${op}`,
        `both media are read for ${op}: which one the gateway documents no probe can tell (the draft sends ${type})`,
        type,
        evidence.get(op),
      );
    else d.set(`requestMedia.types.${op}`, type, `only ${type} is read: ${evidence.get(op)}`);
  }
  const all = [...readable.values()];
  const acceptOther = all.every((g) => g.json && g.form);
  d.set(
    'requestMedia.acceptOther',
    acceptOther,
    acceptOther
      ? 'every operation reads JSON and form bodies'
      : `${ops.filter((op) => !(readable.get(op)!.json && readable.get(op)!.form)).join(', ')} read only one media`,
  );
  // How the media is told: a JSON body under a form content type.
  const op: OperationKey = readable.get('capture')?.json
    ? 'capture'
    : (ops.find((o) => readable.get(o)!.json) ?? 'capture');
  const r = await attempt(s, op, s.body(op), {
    encoding: 'json',
    contentType: 'application/x-www-form-urlencoded',
    signature: zeros,
  });
  const sniffed = !!r.refusal && !isMalformed(facts, r.refusal);
  s.work.requestMedia.detection = sniffed ? 'sniffed' : 'declared';
  d.set('requestMedia.detection', s.work.requestMedia.detection, s.evidence(r.x, 'a JSON body declared as form'));
}

async function run(s: Session, facts: Facts): Promise<void> {
  const d = s.draft;
  const capture = s.body('capture');
  // An unreadable body: the malformed-body refusal every other answer is told apart from.
  const m = await attempt(s, 'capture', capture, {
    rawBody: '{"capture_orders":',
    contentType: 'application/json',
    sign: false,
  });
  if (m.refusal) {
    facts.malformed = seen(s, 'capture', m.x, m.refusal, {});
    noteKind(facts, 'malformedBody', facts.malformed);
  }
  const zeros = () => wrongSignature('hex-lower');
  // A header the gateway requires: the refusal of a wrong signature changes once it is there.
  let base = await attempt(s, 'capture', capture, { encoding: 'json', signature: zeros });
  const captureMedia = isMalformed(facts, base.refusal) ? 'form' : 'json';
  if (captureMedia === 'form') base = await attempt(s, 'capture', capture, { encoding: 'form', signature: zeros });
  // Every request carries a signature (Authentication 1): a target taking a capture with a wrong one, or an
  // unreadable body, alike is no gateway discovery can describe.
  if (!base.refusal || !m.refusal)
    throw new Error(
      `the target took a capture ${!m.refusal ? 'with an unreadable body' : 'with a wrong signature'} (${s.evidence(base.x)}): it is no PAGI gateway, or checks nothing`,
    );
  s.work.requestMedia.types.capture = captureMedia;
  s.work.requestHeaders.headers = {};
  for (const [name, template] of HEADER_CANDIDATES) {
    s.work.requestHeaders.headers = { [name]: template };
    const r = await attempt(s, 'capture', capture, { signature: zeros });
    if (!sameRefusal(r.refusal, base.refusal) && base.refusal) {
      facts.headerMissing = seen(s, 'capture', base.x, base.refusal, capture);
      d.set('requestHeaders.headers', { [name]: template }, s.evidence(r.x, `with ${name} the refusal changes`));
      break;
    }
    s.work.requestHeaders.headers = {};
  }
  if (!Object.keys(s.work.requestHeaders.headers).length)
    d.set(
      'requestHeaders.headers',
      {},
      `no header of ${HEADER_CANDIDATES.map(([n]) => n).join(', ')} changes the refusal of a wrong signature`,
    );
  // Which media each operation reads: a wrong signature in each (readable: refused otherwise than unreadable).
  await requestMedia(s, facts, zeros);
  const wrong = facts.wrongSignature.capture as Refusal | undefined;
  // A signed refusal tells the scheme offline; else the catalogue, most likely first.
  const hints: Family[] = rankResponseSchemes(s.samples, s.options.secret).map((o) =>
    o.pairs
      ? { algorithm: o.algorithm, encoding: o.encoding, pairs: { ...o.pairs, valueEncoding: 'raw' } }
      : { algorithm: o.algorithm, encoding: o.encoding, separator: o.separator! },
  );
  s.options.log(`signature: ${hints.length} scheme(s) explain the signed refusal`);
  let family: Family | undefined;
  let captureList: string[] = [];
  for (const c of captureCandidates(hints)) {
    const r = await attempt(s, 'capture', capture, { sign: c.sig });
    // The capture of unknown transactions is answered item by item once the signature is right: nothing less counts
    // (a signature in another encoding may be refused as invalid input by a gateway checking fields first).
    if (!r.refusal) {
      family = c.family;
      captureList = c.sig.request.mode === 'fieldList' ? c.sig.request.fields.capture : [];
      adopt(s, family, 'capture', captureList.length ? captureList : undefined);
      const how = family.pairs ? 'sorted pairs' : `fields ${captureList.join(', ')}`;
      d.set('signature.algorithm', family.algorithm, s.evidence(r.x, `capture accepted with ${how}`));
      if (!family.pairs) {
        d.set('signature.request.mode', 'fieldList', s.evidence(r.x, 'accepted'));
        d.set('signature.request.separator', family.separator, s.evidence(r.x, 'accepted'));
        d.set('signature.request.fields.capture', captureList, s.evidence(r.x, 'accepted'));
      }
      d.set('signature.encoding', family.encoding, s.evidence(r.x, 'accepted'));
      break;
    }
  }
  if (!family) {
    d.unknown(
      'signature',
      'no scheme of the catalogue was accepted: state the signature from the gateway documentation',
    );
    throw new Error('no signature scheme of the catalogue was accepted by the capture; discovery cannot go on');
  }
  s.options.log(`signature: capture scheme found after ${s.requests} requests`);
  if (wrong) noteKind(facts, 'badSignature', facts.wrongSignature.capture!);
  // Case of hex signatures.
  if (family.encoding !== 'base64') {
    const r = await attempt(s, 'capture', capture, {
      signature: (v) => (family.encoding === 'hex-lower' ? v?.toUpperCase() : v?.toLowerCase()),
    });
    const insensitive = !r.refusal;
    s.work.signature.caseInsensitiveCompare = insensitive;
    d.set(
      'signature.caseInsensitiveCompare',
      insensitive,
      s.evidence(r.x, 'the same signature in the other letter case'),
    );
  } else {
    s.work.signature.caseInsensitiveCompare = false;
    d.set('signature.caseInsensitiveCompare', false, 'base64 signatures are compared exactly (the format requires it)');
  }
  // Which is checked first, the signature or the fields: a request with both faults.
  const invalid = { ...capture, capture_orders: 'not-a-list' };
  const inputOnly = await attempt(s, 'capture', invalid);
  const both = await attempt(s, 'capture', invalid, { signature: zeros });
  if (inputOnly.refusal) noteKind(facts, 'invalidInput', seen(s, 'capture', inputOnly.x, inputOnly.refusal, invalid));
  facts.inputFirst =
    !!inputOnly.refusal && sameRefusal(both.refusal, inputOnly.refusal) && !sameRefusal(inputOnly.refusal, wrong);
  // Sorted pairs: empty values and encoded values, on the direct payment (many kinds of fields).
  if (family.pairs) await pairsDetails(s, facts, family);
  else await simpleLists(s, facts, family, captureList);
  if (!family.pairs) {
    await coveredSelectors(s, facts, family, 'retrievalTrans');
    await coveredSelectors(s, facts, family, 'retrievalRefund');
  }
  s.options.log(`signature: simple lists done, ${s.requests} requests`);
  await payments(s, facts, family);
  s.options.log(`signature: payments done, ${s.requests} requests`);
  if (!family.pairs) await payoutList(s, facts, family);
  if (family.pairs) {
    d.set(
      'signature.request',
      s.work.signature.request,
      'sorted pairs accepted on every operation tried (capture, payments, payout)',
    );
  }
}

/** Sorted pairs: whether empty values are skipped and values URL-encoded (a payment with an empty and an encoded field). */
async function pairsDetails(s: Session, facts: Facts, f: Family): Promise<void> {
  const pairs = f.pairs!;
  const body = { ...s.body('capture'), note: '' };
  void facts;
  for (const skipEmpty of [pairs.skipEmpty, !pairs.skipEmpty]) {
    const r = await attempt(s, 'capture', body, {
      sign: candidateSignature(f.algorithm, f.encoding, { ...pairs, skipEmpty }),
    });
    if (!r.refusal) {
      pairs.skipEmpty = skipEmpty;
      s.draft.set('signature.request.skipEmpty', skipEmpty, s.evidence(r.x, 'an empty field'));
      break;
    }
  }
  const encodedBody = { ...s.body('capture'), note: 'a b&c=d/é' };
  for (const valueEncoding of ['raw', 'urlEncoded'] as const) {
    const r = await attempt(s, 'capture', encodedBody, {
      sign: candidateSignature(f.algorithm, f.encoding, { ...pairs, valueEncoding }),
    });
    if (!r.refusal) {
      pairs.valueEncoding = valueEncoding;
      s.draft.set('signature.request.valueEncoding', valueEncoding, s.evidence(r.x, 'a value with spaces, & and ='));
      break;
    }
  }
  // Booleans and nulls: counted as text, or left out of the string to sign (a field the gateway ignores carries them).
  // A JSON body (a form body has no boolean or null): the capture when it is read as JSON, else the direct payment.
  const op = s.work.requestMedia.types.capture === 'json' ? 'capture' : 'authoriseDirect';
  const typed = {
    ...s.body(op),
    ...(op === 'authoriseDirect' ? s.cardBody() : {}),
    pagi_probe_flag: true,
    pagi_probe_none: null,
  };
  for (const leaveOut of [[], ['boolean', 'null'], ['boolean'], ['null']] as ('boolean' | 'null')[][]) {
    const rule = { ...pairs, ...(leaveOut.length ? { leaveOut } : {}) };
    const r = await attempt(s, op, typed, {
      sign: candidateSignature(f.algorithm, f.encoding, rule),
      encoding: 'json',
    });
    if (r.refusal) continue;
    const why = s.evidence(r.x, 'a body carrying true and null');
    if (leaveOut.length) {
      pairs.leaveOut = leaveOut;
      s.draft.set('signature.request.leaveOut', leaveOut, why);
    } else s.draft.remove('signature.request.leaveOut', `booleans and nulls are signed as text: ${why}`);
    break;
  }
  s.work.signature.request = structuredClone(pairs);
}

/** The three payments: card fields and field lists (in the order the gateway's checks allow), then the full bodies. */
async function payments(s: Session, facts: Facts, f: Family): Promise<void> {
  const d = s.draft;
  const key = ['merchant_id', 'account_id', 'order_no', 'currency', 'amount'];
  const canonical = [
    key,
    ['merchant_id', 'account_id', 'order_no', 'amount', 'currency'],
    ['order_no', 'currency', 'amount', 'merchant_id', 'account_id'],
    ['order_no', 'amount', 'currency', 'merchant_id', 'account_id'],
  ];
  const captureFields = s.work.signature.request.mode === 'fieldList' ? s.work.signature.request.fields.capture : [];
  const idsHint =
    captureFields.length === 2
      ? [
          [...captureFields, 'order_no', 'currency', 'amount'],
          [...captureFields, 'order_no', 'amount', 'currency'],
        ]
      : [];
  const found: string[][] = [];
  const search = async (op: OperationKey, body: Record<string, unknown>, hints: string[][]) =>
    facts.inputFirst
      ? searchList(s, facts, f, op, body, key, canonical, hints, 250)
      : incrementalList(
          s,
          facts,
          f,
          op,
          key,
          hints.filter((h) => h.every((x) => key.includes(x))),
        );
  const directList = async (card: Record<string, string>) => {
    if (f.pairs) return true;
    const r = await search('authoriseDirect', minimalPayment(s, 'authoriseDirect', card), idsHint);
    if (!r) return false;
    adopt(s, f, 'authoriseDirect', r.fields);
    d.set('signature.request.fields.authoriseDirect', r.fields, `${r.evidence} (${r.tried} lists tried)`);
    found.push(r.fields);
    return true;
  };
  // A gateway checking the fields first says nothing about the signature of a payment with unusable card data.
  let listDone = false;
  if (!facts.inputFirst) listDone = await directList(unionCard(s));
  await searchCards(s, facts);
  if (!listDone && !f.pairs && !(await directList(s.cardBody()))) {
    d.unknown(
      'signature.request.fields.authoriseDirect',
      'no field list of the catalogue was accepted for the direct payment: check the signed fields',
    );
  }
  for (const op of ['authoriseApm', 'checkout'] as const) {
    if (f.pairs) break;
    const body = minimalPayment(s, op, {});
    const extras = Object.keys(body).filter((k) => !key.includes(k));
    const hints = found.flatMap((l) => {
      const core = l.filter((x) => key.includes(x));
      return [l, core, ...extras.map((e) => [...core, e])];
    });
    const r = await search(op, body, [...hints, ...idsHint]);
    if (!r) {
      d.unknown(
        `signature.request.fields.${op}`,
        `no field list of the catalogue was accepted for ${op}: check its signed fields`,
      );
      continue;
    }
    adopt(s, f, op, r.fields);
    d.set(`signature.request.fields.${op}`, r.fields, `${r.evidence} (${r.tried} lists tried)`);
    found.push(r.fields);
  }
  // The full bodies the kit sends: a field signed only when present shows here.
  if (!f.pairs)
    for (const op of PAYMENT_OPS) {
      const list = (s.work.signature.request as { fields: Record<OperationKey, string[]> }).fields[op];
      const minimal = minimalPayment(s, op, op === 'authoriseDirect' ? s.cardBody() : {});
      const full = s.body(op);
      const fields = await coverFull(s, facts, f, op, list, full, minimal);
      if (fields.join() !== list.join()) {
        adopt(s, f, op, fields);
        d.set(
          `signature.request.fields.${op}`,
          fields,
          `the full request body is accepted only with ${fields.filter((x) => !list.includes(x)).join(', ')} signed`,
        );
      }
    }
}

/** The payout's list: its key fields mapped from the payments' lists first. */
async function payoutList(s: Session, facts: Facts, f: Family): Promise<void> {
  const sig = s.work.signature.request;
  if (sig.mode !== 'fieldList') return;
  const key = ['merchant_id', 'account_id', 'request_id', 'payment_amount', 'payment_currency'];
  const mapped = PAYMENT_OPS.map((op) => sig.fields[op].map((x) => PAYOUT_ROLES[x] ?? x));
  const body = s.body('payout');
  delete body.fee_paid_by; // its accepted values are not known yet: optional, so left out
  const canonical = [
    key,
    ['merchant_id', 'account_id', 'request_id', 'payment_currency', 'payment_amount'],
    ['request_id', 'payment_amount', 'payment_currency', 'merchant_id', 'account_id'],
    ['request_id', 'payment_currency', 'payment_amount', 'merchant_id', 'account_id'],
  ];
  const extras = Object.keys(body).filter((k) => !key.includes(k) && typeof body[k] === 'string');
  const hints = mapped.flatMap((l) => {
    const core = l.filter((x) => key.includes(x));
    return [l, core, ...extras.slice(0, 3).map((e) => [...core, e])];
  });
  const r = facts.inputFirst
    ? await searchList(s, facts, f, 'payout', body, key, canonical, hints, 220)
    : await incrementalList(s, facts, f, 'payout', key);
  if (!r) {
    s.draft.unknown(
      'signature.request.fields.payout',
      'no field list of the catalogue was accepted for the payout: check its signed fields',
    );
    return;
  }
  const minimal: Record<string, unknown> =
    'body' in r ? (r.body as Record<string, unknown>) : Object.fromEntries(key.map((k) => [k, body[k]]));
  const fields = await coverFull(s, facts, f, 'payout', r.fields, body, minimal);
  adopt(s, f, 'payout', fields);
  s.draft.set('signature.request.fields.payout', fields, `${r.evidence} (${r.tried} lists tried)`);
}

/** Every candidate card field name filled (the approve test card, December, four-digit year, the security code). */
function unionCard(s: Session): Record<string, string> {
  const year = String(new Date().getUTCFullYear() + 3);
  const out: Record<string, string> = {};
  for (const n of CARD_FIELD_CANDIDATES.number) out[n] = s.config.cards.approve!;
  for (const n of CARD_FIELD_CANDIDATES.expiryMonth) out[n] = '12';
  for (const n of CARD_FIELD_CANDIDATES.expiryYear) out[n] = year;
  for (const n of CARD_FIELD_CANDIDATES.securityCode) out[n] = s.options.cardSecurityCode;
  return out;
}

export const signatureDiscoverer: Discoverer = {
  id: 'signature',
  decides: [
    'requestHeaders.headers',
    'signature.algorithm',
    'signature.encoding',
    'signature.caseInsensitiveCompare',
    'signature.request',
    'fields.card',
  ],
  after: [],
  run,
};
