/**
 * The error catalogue, decided once every row that sees refusals has run: each kind's status, code and message
 * (pinned when repeated probes gave the same text), the body templates fitted over every refusal seen, whether
 * refusals are signed, the kind of an unknown merchant, of a missing header and of an unknown token, and the order
 * of the checks (`errors.precedence`: requests carrying two faults answer the kind checked first).
 */
import type { OperationKey } from '../../core/model.js';
import type { ErrorKind } from '../../core/profile/load.js';
import { fitBodyTemplate, fitTemplate, isHttpForm, type TemplateValues } from '../answers.js';
import {
  attempt,
  isWrongSignature,
  seen,
  textAt,
  wrongSignature,
  type Discoverer,
  type Facts,
  type SeenRefusal,
} from '../context.js';
import type { SendOptions, Session } from '../session.js';
import { selectingField, unmatchedValue } from '../world.js';
import { items, kindOf, KINDS, LONE_SURROGATE } from './errors.js';
import { isBatchOperation, isSelectingOperation, operationSet } from '../../core/spec/operations.js';
import { isSelecting, type SelectingOperation } from '../../core/profile/operations.js';

async function run(s: Session, facts: Facts): Promise<void> {
  // Whether the unknown merchant is refused as a kind of its own: this discovery's, never shared between discoveries
  // running at once in one process.
  let ownMerchantKind = false;
  const d = s.draft;
  const decideKind = (r: SeenRefusal | undefined, path: string, what: string, none: string) => {
    const k = kindOf(facts, r);
    if (k) d.set(path, k, r!.evidence);
    else d.unknown(path, r ? `${what} got a refusal of no kind seen otherwise` : none, undefined, r?.evidence ?? '');
  };
  if (facts.unmatchedRefusal && !kindOf(facts, facts.unmatchedRefusal))
    (facts.kinds.unknownRecord ??= []).push(facts.unmatchedRefusal);
  const stranger = facts.unknownMerchant;
  if (stranger?.code !== undefined && !kindOf(facts, stranger)) {
    // A refusal of its own: the unknownMerchant kind (placed before badSignature: no secret checks a stranger).
    ownMerchantKind = true;
    d.set('errors.unknownMerchant', 'unknownMerchant', stranger.evidence);
    if (stranger.form === 'httpError') d.set('errors.kinds.unknownMerchant.status', stranger.status, stranger.evidence);
    else
      d.unknown(
        'errors.kinds.unknownMerchant.status',
        'the unknown merchant was refused in an HTTP 200 body: its HTTP status no probe can tell',
        400,
      );
    d.set('errors.kinds.unknownMerchant.code', stranger.code, stranger.evidence);
    d.set('errors.kinds.unknownMerchant.message', stranger.message ?? '', stranger.evidence);
    const again = facts.unknownMerchantAgain;
    if (again?.code === stranger.code && again.message === stranger.message)
      d.set(
        'errors.kinds.unknownMerchant.pinned',
        true,
        `the same message for two unknown merchants: ${again.evidence}`,
      );
  } else {
    decideKind(stranger, 'errors.unknownMerchant', 'an unknown merchant_id', 'an unknown merchant_id was not refused');
    // The kind of its own is optional: a gateway answering strangers as another kind may still define one unused.
    if (!d.covers('errors.kinds.unknownMerchant'))
      d.unknown(
        'errors.kinds.unknownMerchant',
        'an unknown merchant is answered as another kind: whether the gateway defines a kind unknownMerchant it does not use no probe can tell',
      );
  }
  if (facts.headerMissing)
    decideKind(facts.headerMissing, 'requestHeaders.onMissing', 'a request without the header', '');
  else
    d.unknown(
      'requestHeaders.onMissing',
      'no header is required: the kind a missing header would get no probe can tell',
    );
  if (d.has('payments.token.requestValue'))
    decideKind(
      facts.unknownToken,
      'payments.token.unknownToken',
      'an unknown token_id',
      'an unknown token_id was not refused',
    );
  await precedence(s, facts, ownMerchantKind);
  decideKinds(s, facts);
  await wordingByOperation(s, facts);
  decideBodies(s, facts);
  payoutFailures(s, facts);
  envelopeFailure(s, facts);
}

/**
 * A failed payout's status and the failure types: from payouts refused in the `failureType` forms and from payouts
 * failed by a trigger of the format's list (payout.ts).
 */
function payoutFailures(s: Session, facts: Facts): void {
  const d = s.draft;
  const r = facts.wrongSignature.payout;
  const refused = r?.form === 'failureType' || r?.form === 'httpFailureType' ? r : undefined;
  const triggered = facts.payoutFailures ?? [];
  if (!refused && !triggered.length) {
    d.unknown(
      'statusValues.payout_status.failed',
      "no payout failed where discovery could see it (failure rules are the gateway's test data)",
    );
    d.unknown(
      'payout.failureTypes',
      'no payout failed where discovery could see it: list the failure types the gateway documents',
    );
    return;
  }
  const failedStatus = triggered.find((t) => t.status)?.status;
  if (failedStatus) d.set('statusValues.payout_status.failed', failedStatus, triggered[0]!.evidence);
  else if (refused) d.set('statusValues.payout_status.failed', textAt(refused.answer.body, 'status'), refused.evidence);
  const codes = refused
    ? KINDS.filter((k) => k !== 'unknownPath' && k !== 'methodNotAllowed').flatMap((k) => {
        const c = facts.kinds[k]?.[0]?.code;
        return c ? [c] : [];
      })
    : [];
  const success = d.get<string>('payout.successFailureType');
  // Every failure type the gateway uses is a closed set no probe can close (a type no probe causes is never
  // answered): the types seen are shown, not stated.
  d.partial(
    'payout.failureTypes',
    `list every failure type the gateway uses: the probes saw ${refused ? 'the codes of the error kinds a payout is refused with and ' : ''}those of the failure rules found, not the ones no probe causes`,
    [
      ...new Set([
        ...triggered.map((t) => t.rule.failureType).filter((t) => t !== ''),
        ...codes,
        ...(success ? [success] : []),
      ]),
    ],
    refused?.evidence ?? triggered[0]!.evidence,
  );
}

/**
 * The failure value of `return_status`: the envelope of a batch whose items fail, where it is not the success value
 * (the items row). Where failing items leave the envelope a success, the value is the envelope's of nothing a probe
 * can send, and error bodies carry their own (`errors.bodies`): it is left unstated, never read off an error body.
 */
function envelopeFailure(s: Session, facts: Facts): void {
  const d = s.draft;
  if (d.has('statusValues.return_status.failure')) return;
  if (d.get('batch.envelopeOnItemFailure') === 'success') {
    d.unknown(
      'statusValues.return_status.failure',
      "a batch whose items fail answers with the success value, and error bodies carry their own return_status (errors.bodies): the envelope's failure value no probe saw",
    );
    return;
  }
  const success = d.get<string>('statusValues.return_status.success') ?? '1';
  for (const k of KINDS)
    for (const r of facts.kinds[k] ?? []) {
      const v = textAt(r.answer.body, 'return_status');
      if (v && v !== success) {
        d.set('statusValues.return_status.failure', v, r.evidence);
        return;
      }
    }
  d.unknown('statusValues.return_status.failure', 'no envelope or refusal showed a failed return_status');
}

type Pair = { first: ErrorKind; second: ErrorKind; winner?: ErrorKind; evidence: string };

/** What the two-fault probes share: the pairs decided so far, and the wrong signature they send. */
interface PrecedenceProbe {
  s: Session;
  facts: Facts;
  pairs: Pair[];
  zeros: () => string;
}

/** Send a request carrying faults `a` and `b` (both kinds seen before) and keep the pair when one of them answers. */
async function tryPair(
  p: PrecedenceProbe,
  a: ErrorKind,
  b: ErrorKind,
  op: OperationKey,
  body: Record<string, unknown>,
  options: SendOptions = {},
): Promise<void> {
  const { s, facts } = p;
  if (!facts.kinds[a]?.length || !facts.kinds[b]?.length) return;
  const r = await attempt(s, op, body, options);
  // A wrong signature worded as this operation words it (its own code, errors.byOperation) is the kind too.
  const k = kindOf(facts, r.refusal) ?? (isWrongSignature(facts, op, r.refusal) ? 'badSignature' : undefined);
  if (k === a || k === b) p.pairs.push({ first: a, second: b, winner: k, evidence: s.evidence(r.x, `${a} and ${b}`) });
}

/**
 * The order of the checks: requests carrying two faults, the kind answered is the one checked first. `ownMerchantKind`:
 * the unknown merchant is refused as a kind of its own, placed before badSignature (no secret checks a stranger).
 */
async function precedence(s: Session, facts: Facts, ownMerchantKind: boolean): Promise<void> {
  const p: PrecedenceProbe = { s, facts, pairs: [], zeros: () => wrongSignature(s.work.signature.encoding) };
  await fieldPairs(p);
  await addressPairs(p);
  await tryPair(
    p,
    'unknownPath',
    'methodNotAllowed',
    'capture',
    {},
    { method: 'GET', rawBody: '', path: '/v1/pagi-discovery-unknown' },
  );
  // A JSON body cut short and longer than the limit: unreadable and too large at once.
  const limit = s.draft.get<number>('limits.maxBodyBytes');
  if (limit)
    await tryPair(
      p,
      'bodyTooLarge',
      'malformedBody',
      'authoriseApm',
      {},
      {
        rawBody: `{"note":"${'x'.repeat(limit + 1)}`,
        contentType: 'application/json',
        sign: false,
      },
    );
  const base = [...(s.defaults.errors.precedence as ErrorKind[])];
  if (ownMerchantKind && !base.includes('unknownMerchant'))
    base.splice(Math.max(0, base.indexOf('badSignature')), 0, 'unknownMerchant');
  const order = orderKinds(base, p.pairs);
  const decided = p.pairs.filter((q) => q.winner);
  const untested = KINDS.filter((k) => !decided.some((q) => q.first === k || q.second === k));
  const evidence = decided.map((q) => `${q.winner} before ${q.winner === q.first ? q.second : q.first}`).join(', ');
  const open = undecidedPairs(order, decided);
  const placedByDefault =
    untested.length &&
    untested.some((k) => !['unknownPath', 'methodNotAllowed', 'bodyTooLarge', 'malformedBody'].includes(k));
  await precedenceByOperation(s, facts, order, p.zeros, !placedByDefault && !open.length);
  if (placedByDefault)
    s.draft.unknown(
      'errors.precedence',
      `the place of ${untested.join(', ')} is the format default's (no request with two faults could tell it); seen: ${evidence}`,
      order,
    );
  else if (open.length)
    s.draft.partial(
      'errors.precedence',
      `which of ${open.map(([a, b]) => `${a} and ${b}`).join(', ')} is checked first no request with both faults told (the order shown is the format default's there); seen: ${evidence}`,
      order,
    );
  else
    s.draft.set(
      'errors.precedence',
      order,
      `requests with two faults: ${evidence}; a request whose path, method or body cannot be read is refused before its fields are checked (the format default's order)`,
    );
}

/** The signature and the fields against each other, and each against too many items and an unknown record. */
async function fieldPairs(p: PrecedenceProbe): Promise<void> {
  const { s, facts, zeros } = p;
  const limit = s.spec.operations.get('capture')!.batch!.maxItems;
  const tooMany = items(s, 'capture', limit + 1);
  const withSurrogate = (list: unknown[]) => {
    const copy = structuredClone(list) as Record<string, unknown>[];
    copy[0]!.order_no = `${String(copy[0]!.order_no)}${LONE_SURROGATE}`;
    return copy;
  };
  // Signature and fields (the signature row saw it).
  if (facts.inputFirst !== undefined && facts.kinds.invalidInput?.length)
    p.pairs.push({
      first: 'badSignature',
      second: 'invalidInput',
      winner: facts.inputFirst ? 'invalidInput' : 'badSignature',
      evidence: 'a capture with a wrong signature and no list of orders',
    });
  const capture = s.body('capture');
  await tryPair(
    p,
    'badSignature',
    'overLimit',
    'capture',
    { ...capture, capture_orders: tooMany },
    { signature: zeros },
  );
  await tryPair(p, 'invalidInput', 'overLimit', 'capture', { ...capture, capture_orders: withSurrogate(tooMany) });
  const apm = s.body('authoriseApm', { payment_method: s.options.paymentMethods.unknown });
  await tryPair(p, 'badSignature', 'unknownRecord', 'authoriseApm', apm, { signature: zeros });
  await tryPair(p, 'invalidInput', 'unknownRecord', 'authoriseApm', { ...apm, amount: 'ten' });
  // Too many values, each matching nothing, where a selection over the limit is refused whole and one matching
  // nothing is refused: both faults in one query.
  if (s.draft.get('limits.overLimit.refuseWhole') !== true) return;
  for (const op of operationSet(s.spec, 'selecting')) {
    if (!isSelecting(s.spec, op) || s.draft.get(`selection.${op}.unmatched`) !== 'unknownRecordIfNone') continue;
    const max = s.spec.operations.get(op)!.selectionLimit!.maxOrders;
    await tryPair(p, 'overLimit', 'unknownRecord', op, { ...s.body(op), ...unmatchedSelection(s, op, max + 1) });
    return;
  }
}

/** A selection of `count` values of the operation's selecting field, each matching nothing. */
function unmatchedSelection(s: Session, op: SelectingOperation, count: number): Record<string, string> {
  const field = selectingField(s, op);
  const sep = s.draft.get<string>(`selection.${op}.listSeparator`) ?? ',';
  const values = Array.from({ length: count }, (_, i) => unmatchedValue(field, i));
  return { [field]: values.join(sep) };
}

/** A refused source address against a wrong signature, an invalid field and too many items or records. */
async function addressPairs(p: PrecedenceProbe): Promise<void> {
  const { s, zeros } = p;
  const restricted = s.draft.get<OperationKey[]>('addressRestriction.operations') ?? [];
  const from = s.options.unregisteredAddress;
  if (!from || !restricted.length) return;
  const op = restricted[0]!;
  const body = s.body(op);
  await tryPair(p, 'badSignature', 'refusedAddress', op, body, { signature: zeros, localAddress: from });
  if (s.work.requestMedia.types[op] === 'json' || s.draft.get('requestMedia.acceptOther'))
    await tryPair(
      p,
      'invalidInput',
      'refusedAddress',
      op,
      { ...body, note: LONE_SURROGATE },
      { encoding: 'json', localAddress: from },
    );
  if (isSelecting(s.spec, op) && s.draft.get(`selection.${op}.unmatched`) === 'unknownRecordIfNone')
    await tryPair(
      p,
      'refusedAddress',
      'unknownRecord',
      op,
      { ...body, ...unmatchedSelection(s, op, 1) },
      { localAddress: from },
    );
  const batch = s.spec.operations.get(op)?.batch;
  const selection = s.spec.operations.get(op)?.selectionLimit;
  if (batch)
    await tryPair(
      p,
      'overLimit',
      'refusedAddress',
      op,
      { ...body, [batch.orders]: items(s, op, batch.maxItems + 1) },
      {
        localAddress: from,
      },
    );
  else if (selection && isSelecting(s.spec, op)) {
    const sep = s.draft.get<string>(`selection.${op}.listSeparator`) ?? ',';
    const values = Array.from({ length: selection.maxOrders + 1 }, (_, i) => `T${String(i).padStart(10, '0')}`);
    await tryPair(
      p,
      'overLimit',
      'refusedAddress',
      op,
      { ...body, [selectingField(s, op)]: values.join(sep) },
      { localAddress: from },
    );
  }
}

/** Bodies with an invalid field, per operation, for the two-fault probes of `precedenceByOperation`. */
/** A body of `op` invalid otherwise than `invalidBody`'s: an empty list of orders, an amount in words. */
function otherInvalidBody(s: Session, op: OperationKey): Record<string, unknown> | undefined {
  const batch = s.spec.operations.get(op)?.batch;
  if (batch) return { ...s.body(op), [batch.orders]: [] };
  if (op === 'authoriseDirect' || op === 'authoriseApm' || op === 'checkout')
    return { ...s.body(op), ...(op === 'authoriseDirect' ? s.cardBody() : {}), amount: 'ten' };
  if (op === 'payout') return { ...s.body(op), payment_amount: 'ten' };
  return undefined;
}

function invalidBody(s: Session, op: OperationKey): Record<string, unknown> | undefined {
  const batch = s.spec.operations.get(op)?.batch;
  if (batch) return { ...s.body(op), [batch.orders]: 'not-a-list' };
  if (op === 'authoriseDirect' || op === 'authoriseApm' || op === 'checkout')
    return { ...s.body(op), ...(op === 'authoriseDirect' ? s.cardBody() : {}), currency: 'us dollars' };
  if (op === 'payout') return { ...s.body(op), payment_currency: 'us dollars' };
  return undefined;
}

/**
 * A wrong signature and an invalid field in one request of each operation: where the field wins although the
 * signature comes first in the common order (or the other way), the operation has an order of its own
 * (`errors.precedenceByOperation`): stated where the common order is, else shown only.
 */
async function precedenceByOperation(
  s: Session,
  facts: Facts,
  order: readonly ErrorKind[],
  zeros: () => string,
  /** Whether requests with two faults told the whole common order (an operation's own order is built on it). */
  settled: boolean,
): Promise<void> {
  const d = s.draft;
  const sigFirst = order.indexOf('badSignature') < order.indexOf('invalidInput');
  for (const op of s.spec.operations.keys()) {
    const body = invalidBody(s, op);
    if (!body || !facts.kinds.invalidInput?.length || !facts.kinds.badSignature?.length) continue;
    if (op === 'payout') delete body.fee_paid_by;
    const r = await attempt(s, op, body, { signature: zeros });
    const k = kindOf(facts, r.refusal);
    if (k !== 'badSignature' && k !== 'invalidInput') continue;
    if ((k === 'badSignature') === sigFirst) continue;
    const own = [...order];
    own.splice(own.indexOf('invalidInput'), 1);
    // The invalid field first: before the kinds a readable request's identity decides (merchant, signature).
    const at =
      k === 'invalidInput'
        ? Math.min(...['unknownMerchant', 'badSignature'].map((x) => own.indexOf(x as ErrorKind)).filter((i) => i >= 0))
        : own.indexOf('badSignature') + 1;
    own.splice(at, 0, 'invalidInput');
    const ev = s.evidence(r.x, `a wrong signature and an invalid field on ${op}: ${k}`);
    if (settled) d.set(`errors.precedenceByOperation.${op}`, own, ev);
    else
      d.partial(
        `errors.precedenceByOperation.${op}`,
        `${op} checks ${k} first, against the common order; the rest of its order is the common one, which requests with two faults did not wholly tell (errors.precedence)`,
        own,
        ev,
      );
  }
}

/** A total order of the kinds: every pair seen respected, the default's order for the rest. */
/**
 * The pairs of kinds whose order `order` holds but no decided pair gives, directly or through others (`a` before `b`
 * before `c`), but those the draft takes from the format's default order: a request whose path, method or body cannot
 * be read is refused before its fields are read, and its path and method before its body (docs/profiles.md, "What
 * discovery cannot decide").
 */
export function undecidedPairs(order: readonly ErrorKind[], decided: readonly Pair[]): [ErrorKind, ErrorKind][] {
  const front: readonly ErrorKind[] = ['unknownPath', 'methodNotAllowed', 'bodyTooLarge', 'malformedBody'];
  const after = new Map<ErrorKind, Set<ErrorKind>>();
  for (const q of decided) {
    const loser = q.winner === q.first ? q.second : q.first;
    after.set(q.winner!, (after.get(q.winner!) ?? new Set()).add(loser));
  }
  const reaches = (a: ErrorKind, b: ErrorKind, seen = new Set<ErrorKind>()): boolean => {
    if (seen.has(a)) return false;
    seen.add(a);
    return [...(after.get(a) ?? [])].some((x) => x === b || reaches(x, b, seen));
  };
  const out: [ErrorKind, ErrorKind][] = [];
  for (let i = 0; i < order.length; i++)
    for (let j = i + 1; j < order.length; j++) {
      const a = order[i]!;
      const b = order[j]!;
      const byFormat =
        (front.includes(a) && !front.includes(b)) ||
        (['unknownPath', 'methodNotAllowed'].includes(a) && ['bodyTooLarge', 'malformedBody'].includes(b));
      if (!byFormat && !reaches(a, b) && !reaches(b, a)) out.push([a, b]);
    }
  return out;
}

export function orderKinds(defaults: readonly ErrorKind[], pairs: readonly Pair[]): ErrorKind[] {
  const before = (a: ErrorKind, b: ErrorKind): boolean =>
    pairs.some((p) => p.winner === a && (p.first === b || p.second === b));
  const out: ErrorKind[] = [];
  const left = [...defaults];
  while (left.length) {
    // The first kind (in the default order) that no remaining kind must precede.
    const next = left.find((k) => !left.some((o) => o !== k && before(o, k))) ?? left[0]!;
    out.push(next);
    left.splice(left.indexOf(next), 1);
  }
  return out;
}

/**
 * A wrong signature worded otherwise on some operations (`errors.byOperation`): the wording most operations give is
 * the kind's own, each other one is its operation's. Only where the signature is checked before the fields (else an
 * operation's refusal of a wrong signature may be a refusal of its fields).
 */
async function wordingByOperation(s: Session, facts: Facts): Promise<void> {
  const byOp = (list: readonly SeenRefusal[]) => {
    const out = new Map<OperationKey, SeenRefusal[]>();
    for (const r of list) out.set(r.op, [...(out.get(r.op) ?? []), r]);
    return out;
  };
  // An operation whose wording differs from the others', seen once, is asked once more: one text tells neither
  // whether it is fixed nor where a detail starts.
  const again = async (
    lists: Map<OperationKey, SeenRefusal[]>,
    request: (op: OperationKey) => { body: Record<string, unknown>; options?: SendOptions } | undefined,
  ) => {
    const firsts = [...lists.values()].map((l) => `${l[0]!.code}:${l[0]!.message ?? ''}`);
    for (const [op, list] of lists) {
      const first = list[0]!;
      if (list.length > 1 || firsts.filter((f) => f === `${first.code}:${first.message ?? ''}`).length > 1) continue;
      const req = request(op);
      if (!req) continue;
      const r = await attempt(s, op, req.body, req.options);
      if (r.refusal && r.refusal.code === first.code) list.push(seen(s, op, r.x, r.refusal, req.body));
    }
    return lists;
  };
  if (!facts.inputFirst) {
    const wrong = Object.entries(facts.wrongSignature).filter((e): e is [OperationKey, SeenRefusal] => !!e[1]);
    const lists = await again(new Map(wrong.map(([op, r]) => [op, [r]])), (op) => {
      const body = s.body(op);
      if (op === 'payout') delete body.fee_paid_by;
      return { body, options: { signature: () => wrongSignature(s.work.signature.encoding) } };
    });
    wordingOf(s, 'badSignature', lists);
  }
  // Another fault than the first (a detail names its field and reason: the same fault twice repeats it).
  const invalid = await again(byOp(facts.kinds.invalidInput ?? []), (op) => {
    const body = otherInvalidBody(s, op);
    return body ? { body } : undefined;
  });
  wordingOf(s, 'invalidInput', invalid);
}

/**
 * How an operation words a kind, from its own refusals of the kind's code: two or more with one text, that text
 * pinned; two or more starting alike, then differing, the start pinned as a prefix; one alone, its text, pinned as
 * the kind is where the kind's text is a prefix of it or the kind is pinned as a prefix, else left open (one message
 * tells neither whether it is fixed nor where a detail starts).
 */
function wordingOf(s: Session, kind: ErrorKind, refusals: ReadonlyMap<OperationKey, readonly SeenRefusal[]>): void {
  const d = s.draft;
  const seenByOp = [...refusals]
    .map(([op, list]) => [op, list.filter((r) => r.code !== undefined)] as const)
    .filter(([, list]) => list.length > 0);
  if (seenByOp.length < 2) return;
  const pinned = d.get<boolean | 'prefix'>(`errors.kinds.${kind}.pinned`);
  // A kind pinned by prefix compares its wordings by code (the detail after the prefix varies).
  const key = (r: SeenRefusal) => (pinned === 'prefix' ? `${r.code}` : `${r.code}:${r.message ?? ''}`);
  const counts = new Map<string, number>();
  for (const [, list] of seenByOp) counts.set(key(list[0]!), (counts.get(key(list[0]!)) ?? 0) + 1);
  if (counts.size < 2) return;
  const common = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
  const own = seenByOp.find(([, list]) => key(list[0]!) === common)![1][0]!;
  d.set(`errors.kinds.${kind}.code`, own.code, `${counts.get(common)} operations: ${own.evidence}`);
  if (pinned !== 'prefix') d.set(`errors.kinds.${kind}.message`, own.message ?? '', own.evidence);
  // The kind's HTTP status (one for every operation): shown by an operation of the common wording refusing as an
  // HTTP error, where every such operation showed the same.
  const http = seenByOp.flatMap(([, list]) =>
    key(list[0]!) === common && isHttpForm(list[0]!.form) ? [list[0]!] : [],
  );
  const statusPath = `errors.kinds.${kind}.status`;
  if (!d.has(statusPath) && http.length && http.every((r) => r.status === http[0]!.status))
    d.set(statusPath, http[0]!.status, `${http.length} operations: ${http[0]!.evidence}`);
  for (const [op, list] of seenByOp) {
    const r = list[0]!;
    if (key(r) === common) continue;
    const path = `errors.byOperation.${op}.${kind}`;
    const texts = list.filter((x) => x.code === r.code).map((x) => x.message ?? '');
    const wording: Record<string, unknown> = {};
    if (r.code !== own.code) wording.code = r.code!;
    if (texts.length >= 2 && texts.every((t) => t === texts[0])) {
      if (texts[0] !== (own.message ?? '')) wording.message = texts[0];
      wording.pinned = true;
    } else if (texts.length >= 2 && sharedStart(texts).length >= 3) {
      wording.message = sharedStart(texts);
      wording.pinned = 'prefix';
    } else if (pinned === 'prefix') {
      // One message, the kind pinned by prefix: its detail is taken to follow the first colon.
      wording.message = (r.message ?? '').split(':')[0]!.trim();
      wording.pinned = 'prefix';
    } else if ((r.message ?? '') === (own.message ?? '')) {
      if (pinned === true) wording.pinned = true;
    } else {
      const seenOnce = `${kind} on ${op} was seen once, as ${JSON.stringify(r.message ?? '')}: whether it is fixed, or a start followed by a detail, one message does not tell`;
      if (!Object.keys(wording).length) {
        d.unknown(path, seenOnce, undefined, r.evidence);
        continue;
      }
      d.set(path, wording, `${kind} on ${op}: ${r.evidence}`);
      d.unknown(`${path}.message`, seenOnce, undefined, r.evidence);
      d.unknown(
        `${path}.pinned`,
        `${kind} on ${op} was seen once: whether its text is fixed one message does not tell`,
      );
      continue;
    }
    d.set(path, wording, `${kind} on ${op}: ${r.evidence}`);
  }
}

/** The start several texts share, cut at the last separator (`:`, `,`, `;`, ` `) and trimmed. */
export function sharedStart(texts: readonly string[]): string {
  if (!texts.length) return '';
  let n = 0;
  while (texts.every((t) => n < t.length && t[n] === texts[0]![n])) n++;
  const start = texts[0]!.slice(0, n);
  if (texts.every((t) => t.length === n)) return start;
  const cut = Math.max(start.lastIndexOf(':'), start.lastIndexOf(','), start.lastIndexOf(';'), start.lastIndexOf(' '));
  return (cut > 0 ? start.slice(0, cut) : start).replace(/[\s:,;]+$/, '');
}

/** Status, code, message (pinned when repeated probes gave the same text) of every kind seen. */
function decideKinds(s: Session, facts: Facts): void {
  const d = s.draft;
  for (const kind of KINDS) {
    const seenList = (facts.kinds[kind] ?? []).filter((r) => r.code !== undefined);
    if (!seenList.length) {
      if (!d.covers(`errors.kinds.${kind}`))
        d.unknown(`errors.kinds.${kind}`, `no probe gave a ${kind} refusal: state its status, code and message`);
      continue;
    }
    // The code most refusals of the kind carry (several operations may word a kind otherwise: errors.byOperation).
    const byCode = new Map<string, number>();
    for (const r of seenList) byCode.set(r.code!, (byCode.get(r.code!) ?? 0) + 1);
    const top = [...byCode].sort((a, b) => b[1] - a[1])[0]![0];
    const first = seenList.find((r) => r.code === top)!;
    const http = seenList.find((r) => isHttpForm(r.form));
    if (http) d.set(`errors.kinds.${kind}.status`, http.status, http.evidence);
    else
      d.unknown(
        `errors.kinds.${kind}.status`,
        `every ${kind} refusal seen was in an HTTP 200 body: its HTTP status no probe can tell`,
      );
    d.set(`errors.kinds.${kind}.code`, first.code, first.evidence);
    d.set(`errors.kinds.${kind}.message`, first.message ?? '', first.evidence);
    const sameCode = seenList.filter((r) => r.code === first.code);
    const same = sameCode.filter((r) => r.message === first.message).length;
    // Pinned or not is told by the refusals of the kind's own code (an operation wording the kind otherwise,
    // errors.byOperation, carries another code and says nothing of this one's message).
    if (sameCode.length >= 2 && same === sameCode.length)
      d.set(`errors.kinds.${kind}.pinned`, true, `the same message on ${sameCode.length} probes`);
    else if (sameCode.length >= 2) {
      // Messages of one code that differ after a shared start: a pinned prefix and a variable detail.
      const prefix = sharedStart(sameCode.map((r) => r.message ?? ''));
      if (prefix.length >= 3) {
        d.set(`errors.kinds.${kind}.message`, prefix, `${sameCode.length} probes: ${first.evidence}`);
        d.set(
          `errors.kinds.${kind}.pinned`,
          'prefix',
          `${sameCode.length} messages of ${first.code} start alike, then differ`,
        );
      }
    }
  }
}

function templateValues(r: SeenRefusal): TemplateValues {
  return { code: r.code ?? '', message: r.message ?? '', httpStatus: r.status, request: r.request };
}

/**
 * Whether the JSON refusals of the operations answering with a result list (the batches' orders, the queries' lists)
 * carry that list, empty, every one of them (`errors.bodies.json.emptyResults`; left at its default otherwise). The
 * list is not the request's fault: a refusal of an unknown path carries none.
 */
function emptyResults(s: Session, facts: Facts, list: readonly SeenRefusal[]): void {
  // An unknown path names no operation: its refusal has no list to carry.
  const listed = list.filter(
    (r) => kindOf(facts, r) !== 'unknownPath' && (isBatchOperation(s.spec, r.op) || isSelectingOperation(s.spec, r.op)),
  );
  const carries = (r: SeenRefusal) =>
    Object.values(r.answer.body ?? {}).some((v) => Array.isArray(v) && v.length === 0);
  if (listed.length >= 2 && listed.every(carries))
    s.draft.set(
      'errors.bodies.json.emptyResults',
      true,
      `${listed.length} JSON refusals of operations answering with a list each carry it empty, e.g. ${listed[0]!.evidence}`,
    );
}

/** Body templates of each format, fitted over every refusal seen in it; whether refusals are signed. */
function decideBodies(s: Session, facts: Facts): void {
  const d = s.draft;
  const all = KINDS.flatMap((k) => facts.kinds[k] ?? []).filter(
    (r) => r.code !== undefined && r.form !== 'failureType' && r.form !== 'httpFailureType',
  );
  for (const format of ['json', 'xml'] as const) {
    const list = all.filter((r) => r.format === format && r.answer.body);
    if (!list.length) {
      d.unknown(`errors.bodies.${format}`, `no refusal came as ${format}: the body shape no probe can tell`);
      continue;
    }
    const body = fitBodyTemplate(list.map((r) => ({ body: r.answer.body!, values: templateValues(r) })));
    const evidence = `fitted over ${list.length} refusals, e.g. ${list[0]!.evidence}`;
    d.set(`errors.bodies.${format}.contentType`, list[0]!.contentType, list[0]!.evidence);
    d.set(`errors.bodies.${format}.body`, body, evidence);
    if (format === 'xml' && list[0]!.answer.root) d.set('errors.bodies.xml.root', list[0]!.answer.root, evidence);
    if (format === 'json') emptyResults(s, facts, list);
  }
  const pages = all.filter((r) => r.format === 'html' && r.answer.page);
  if (pages.length) {
    const first = pages[0]!;
    const id = Object.entries(first.answer.page!.byId).find(([, text]) => text.includes(first.code!))?.[0];
    d.set('errors.bodies.html.contentType', first.contentType, first.evidence);
    const title = fitTemplate(pages.map((r) => ({ text: r.answer.page!.title ?? '', values: templateValues(r) })));
    if (title !== undefined) d.set('errors.bodies.html.title', title, `fitted over ${pages.length} error pages`);
    if (id) {
      d.set('errors.bodies.html.messageElementId', id, first.evidence);
      const message = fitTemplate(
        pages.map((r) => ({ text: r.answer.page!.byId[id] ?? '', values: templateValues(r) })),
      );
      if (message !== undefined)
        d.set('errors.bodies.html.message', message, `fitted over ${pages.length} error pages`);
    }
  } else if (!d.covers('errors.bodies.html'))
    d.unknown('errors.bodies.html', 'no refusal came as an HTML page: its title and message element no probe can tell');
  // Signed refusals: a readable request of the known account refused with a signed body.
  const signable = all.filter(
    (r) =>
      (r.format === 'json' || r.format === 'xml') && r.answer.body && r.request.merchant_id === s.config.merchantId,
  );
  const signed = signable.filter(
    (r) => typeof r.answer.body!.encryption_data === 'string' && r.answer.body!.encryption_data !== '',
  );
  if (signable.length)
    d.set(
      'errors.signed',
      signed.length > 0,
      signed.length
        ? `${signed[0]!.evidence}`
        : `${signable.length} refusals without encryption_data, e.g. ${signable[0]!.evidence}`,
    );
  else d.unknown('errors.signed', 'no refusal body of a readable request was seen');
}

export const catalogueDiscoverer: Discoverer = {
  id: 'catalogue',
  decides: [
    'errors.kinds',
    'errors.precedence',
    'errors.unknownMerchant',
    'errors.signed',
    'errors.bodies',
    'requestHeaders.onMissing',
    'payments.token.unknownToken',
    'payout.failureTypes',
    'statusValues.payout_status.failed',
    'statusValues.return_status.failure',
  ],
  after: [
    'errors',
    'payments',
    'address',
    'limits',
    'lifecycle',
    'selection',
    'payout',
    'checkout',
    'apm',
    'notifications',
  ],
  run,
};
