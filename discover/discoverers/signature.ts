/**
 * How to be heard: the request media of the capture, a header the gateway requires, the request signature (the
 * scheme found on the capture, then each operation's field list), and the card fields of the direct payment (the
 * card data must be valid before a gateway checking fields first says anything about the signature).
 */
import type { OperationKey } from '../../core/model.js';
import { isRefusal, sameRefusal, type Refusal } from '../answers.js';
import {
  attempt,
  candidateSignature,
  noteKind,
  seen,
  wrongSignature,
  type Discoverer,
  type Facts,
} from '../context.js';
import { encodingsOf, joinSpace } from '../scheme.js';
import { schemeRanker } from '../scheme-ranker.js';
import type { Session } from '../session.js';
import { CARD_FIELD_CANDIDATES, HEADER_CANDIDATES } from '../vocabulary.js';
import {
  type Family,
  PAYMENT_OPS,
  PAYOUT_ROLES,
  blindCandidates,
  KEY_PAIRS,
  captureCandidates,
  sweepCandidates,
  adopt,
  searchList,
  incrementalList,
  simpleLists,
  coveredSelectors,
  minimalPayment,
  coverFull,
  _familyOf,
  accepted,
  listRule,
  wrongFor,
  simpleOperations,
} from './signature-lists.js';
import { searchCards } from './cards.js';
import type { SelectingOperation } from '../../core/profile/operations.js';
import { operationSet } from '../../core/spec/operations.js';
import { SetupError } from '../../core/types/errors.js';
import type { SignatureProfile } from '../../core/signing.js';
import { fromStates } from '../from.js';

/** A request sent: its exchange and its refusal (undefined: taken). */
type Attempt = Awaited<ReturnType<typeof attempt>>;

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
      if (isRefusal(r.refusal) && !isMalformed(facts, r.refusal)) {
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
    // Both read: which one the gateway documents shows in no answer. Not stated; a run sends either (acceptOther).
    if (both)
      d.partial(
        `requestMedia.types.${op}`,
        `both media are read for ${op}: which one the gateway documents no probe can tell (discovery sent ${type})`,
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
  const zeros = () => wrongSignature('hex-lower');
  const base = await firstRefusals(s, facts, capture, zeros);
  await requiredHeader(s, facts, capture, base, zeros);
  // Which media each operation reads: a wrong signature in each (readable: refused otherwise than unreadable).
  await requestMedia(s, facts, zeros);
  const wrong = facts.wrongSignature.capture as Refusal | undefined;
  const vendor = await vendorScheme(s, capture);
  const { family, captureList } = vendor ?? (await captureScheme(s, facts, capture));
  if (!Object.keys(s.work.requestHeaders.headers).length)
    d.set(
      'requestHeaders.headers',
      {},
      `the signed capture was accepted with no header of ${HEADER_CANDIDATES.map(([n]) => n).join(', ')}, none of which changed the refusal of a wrong signature`,
    );
  const stated = vendor ? s.options.from!.loaded.profile.signature : undefined;
  s.options.log(`signature: capture scheme found after ${s.requests} requests`);
  if (wrong) noteKind(facts, 'badSignature', facts.wrongSignature.capture!);
  await signatureCase(s, capture, family);
  await inputFirst(s, facts, capture, wrong, zeros);
  // Sorted pairs: empty values and encoded values, on the direct payment (many kinds of fields).
  if (family.pairs && !stated) await pairsDetails(s, facts, family);
  else if (!family.pairs) await simpleLists(s, facts, family, captureList);
  if (!family.pairs) {
    for (const op of operationSet(s.spec, 'selecting'))
      await coveredSelectors(s, facts, family, op as SelectingOperation);
  }
  s.options.log(`signature: simple lists done, ${s.requests} requests`);
  await payments(s, facts, family, stated);
  s.options.log(`signature: payments done, ${s.requests} requests`);
  if (!family.pairs) await payoutList(s, facts, family, stated);
  if (family.pairs) {
    d.set(
      'signature.request',
      s.work.signature.request,
      `sorted pairs accepted on every operation tried (capture, payments, payout)${stated ? `, as ${s.options.from!.file} states them` : ''}`,
    );
  }
}

/**
 * The refusals of an unreadable capture and of one with a wrong signature (in the media the capture reads), which
 * every later answer is told apart from; throws when either is taken. Returns the wrong-signature attempt.
 */
async function firstRefusals(
  s: Session,
  facts: Facts,
  capture: Record<string, unknown>,
  zeros: () => string,
): Promise<Attempt> {
  // An unreadable body: the malformed-body refusal every other answer is told apart from.
  const m = await attempt(s, 'capture', capture, {
    rawBody: '{"capture_orders":',
    contentType: 'application/json',
    sign: false,
  });
  if (isRefusal(m.refusal)) {
    facts.malformed = seen(s, 'capture', m.x, m.refusal, {});
    noteKind(facts, 'malformedBody', facts.malformed);
  }
  // A header the gateway requires: the refusal of a wrong signature changes once it is there.
  let base = await attempt(s, 'capture', capture, { encoding: 'json', signature: zeros });
  const captureMedia = isMalformed(facts, base.refusal) ? 'form' : 'json';
  if (captureMedia === 'form') base = await attempt(s, 'capture', capture, { encoding: 'form', signature: zeros });
  // Every request carries a signature (Authentication 1): a target taking a capture with a wrong one, or an
  // unreadable body, alike is no gateway discovery can describe.
  if (!base.refusal || !m.refusal)
    throw new SetupError(
      `the target took a capture ${!m.refusal ? 'with an unreadable body' : 'with a wrong signature'} (${s.evidence(base.x)}): it is no PAGI gateway, or checks nothing`,
    );
  s.work.requestMedia.types.capture = captureMedia;
  return base;
}

/** A header of the list the gateway requires: with it, the refusal of a wrong signature changes. */
async function requiredHeader(
  s: Session,
  facts: Facts,
  capture: Record<string, unknown>,
  base: Attempt,
  zeros: () => string,
): Promise<void> {
  s.work.requestHeaders.headers = {};
  for (const [name, template] of HEADER_CANDIDATES) {
    s.work.requestHeaders.headers = { [name]: template };
    const r = await attempt(s, 'capture', capture, { signature: zeros });
    if (isRefusal(r.refusal) && isRefusal(base.refusal) && !sameRefusal(r.refusal, base.refusal)) {
      facts.headerMissing = seen(s, 'capture', base.x, base.refusal, capture);
      s.draft.set('requestHeaders.headers', { [name]: template }, s.evidence(r.x, `with ${name} the refusal changes`));
      break;
    }
    s.work.requestHeaders.headers = {};
  }
  // No header changing the refusal of a wrong signature is no finding yet (a gateway may check the signature first):
  // the capture accepted without one is (run).
}

/**
 * The recipe `--from` states (algorithm, encoding and request rule), tried first on the capture: taken, it is
 * confirmed and the catalogue is not searched (each operation's list is then tried as stated before any search).
 */
async function vendorScheme(
  s: Session,
  capture: Record<string, unknown>,
): Promise<{ family: Family; captureList: string[] } | undefined> {
  const from = s.options.from;
  if (!['signature.algorithm', 'signature.encoding', 'signature.request'].every((p) => fromStates(from, p)))
    return undefined;
  const sig = structuredClone(from!.loaded.profile.signature);
  const r = await attempt(s, 'capture', capture, { sign: sig });
  if (r.refusal) {
    s.options.log(`signature: the capture signed as ${from!.file} states is refused: searching the catalogue`);
    return undefined;
  }
  const family = _familyOf(sig);
  const captureList = sig.request.mode === 'fieldList' ? sig.request.fields.capture : [];
  adopt(s, family, 'capture', captureList.length ? captureList : undefined);
  const d = s.draft;
  const why = s.evidence(r.x, `capture accepted signed as ${from!.file} states`);
  d.set('signature.algorithm', family.algorithm, why);
  d.set('signature.encoding', family.encoding, why);
  if (!family.pairs) {
    d.set('signature.request.mode', 'fieldList', why);
    d.set('signature.request.separator', family.separator, why);
    d.set('signature.request.fields.capture', captureList, why);
  }
  return { family, captureList };
}

/** The capture's scheme: a signed refusal tells it offline, else the catalogue, most likely first; throws if none. */
async function captureScheme(
  s: Session,
  facts: Facts,
  capture: Record<string, unknown>,
): Promise<{ family: Family; captureList: string[] }> {
  const d = s.draft;
  const hints: Family[] = (await schemeRanker().rank(s.samples, s.options.secret)).map((o) =>
    o.pairs
      ? { algorithm: o.algorithm, encoding: o.encoding, pairs: { ...o.pairs, valueEncoding: 'raw' } }
      : { algorithm: o.algorithm, encoding: o.encoding, separator: o.separator! },
  );
  s.options.log(`signature: ${hints.length} scheme(s) explain the signed refusal`);
  // The recipes the signed answer showed, then those with every other separator (their algorithm and encoding are
  // the request's), then the rest of the catalogue; with no signed answer, then its neighbours.
  const catalogue = captureCandidates(hints);
  const hinted = catalogue.filter((c) => hints.includes(c.family));
  const seenSig = new Set<string>();
  const blind = hints.length ? [] : blindCandidates();
  const ordered = [...hinted, ...sweepCandidates(hints), ...catalogue, ...blind].filter((c) => {
    const id = JSON.stringify(c.sig);
    return !seenSig.has(id) && Boolean(seenSig.add(id));
  });
  // The search is counted apart from the budget (SWEEP_BUDGET): without a signed answer it may take thousands.
  let headerTries = HEADER_TRIES;
  for (const c of ordered) {
    let r = await attempt(s, 'capture', capture, { sign: c.sig, sweep: true });
    // Refused otherwise than a wrong signature: a header the gateway checks after the signature may be missing.
    const otherRefusal =
      r.refusal && accepted(r.refusal, facts.wrongSignature.capture) && !isMalformed(facts, r.refusal);
    if (otherRefusal && headerTries > 0 && !Object.keys(s.work.requestHeaders.headers).length) {
      headerTries--;
      r = await withHeader(s, facts, capture, c.sig, r);
    }
    // The capture of unknown transactions is answered item by item once the signature is right: nothing less counts
    // (a signature in another encoding may be refused as invalid input by a gateway checking fields first).
    if (!r.refusal) {
      const family = c.family;
      const captureList = c.sig.request.mode === 'fieldList' ? c.sig.request.fields.capture : [];
      adopt(s, family, 'capture', captureList.length ? captureList : undefined);
      const how = family.pairs ? 'sorted pairs' : `fields ${captureList.join(', ')}`;
      d.set('signature.algorithm', family.algorithm, s.evidence(r.x, `capture accepted with ${how}`));
      if (!family.pairs) {
        d.set('signature.request.mode', 'fieldList', s.evidence(r.x, 'accepted'));
        d.set('signature.request.fields.capture', captureList, s.evidence(r.x, 'accepted'));
        // A list of one field joins nothing: the separator shows only on a list of two.
        if (captureList.length > 1) d.set('signature.request.separator', family.separator, s.evidence(r.x, 'accepted'));
        else await separatorOfPair(s, facts, family, captureList);
      }
      d.set('signature.encoding', family.encoding, s.evidence(r.x, 'accepted'));
      return { family, captureList };
    }
  }
  const tried = `no scheme of the catalogue${blind.length ? ' or one choice away from it' : ''} was accepted (${ordered.length} tried)`;
  d.unknown('signature', `${tried}: state the signature from the gateway documentation`);
  throw new SetupError(`${tried} by the capture; discovery cannot go on: give the recipe with --from`);
}

/** Candidates of the capture's recipe refused otherwise than a wrong signature that are tried with each header. */
const HEADER_TRIES = 20;

/**
 * A capture signed as `sig`, refused otherwise than a wrong signature (`without`), sent again with each header of the
 * list: one it is taken with is the header the gateway requires (checked after the signature), the refusal without it
 * the answer to a missing header. Returns the attempt taken, else `without`.
 */
async function withHeader(
  s: Session,
  facts: Facts,
  capture: Record<string, unknown>,
  sig: SignatureProfile,
  without: Attempt,
): Promise<Attempt> {
  for (const [name, template] of HEADER_CANDIDATES) {
    s.work.requestHeaders.headers = { [name]: template };
    const r = await attempt(s, 'capture', capture, { sign: sig, sweep: true });
    if (!r.refusal) {
      facts.headerMissing = seen(s, 'capture', without.x, without.refusal!, capture);
      s.draft.set(
        'requestHeaders.headers',
        { [name]: template },
        `${s.evidence(r.x, `taken with ${name}`)}; ${s.evidence(without.x, `refused without it`)}`,
      );
      return r;
    }
  }
  s.work.requestHeaders.headers = {};
  return without;
}

/**
 * The separator of a field-list scheme whose capture signs one field: the simple operations' merchant and account
 * fields joined by each punctuation character (or nothing), until one is accepted. Sets `family.separator`; unknown
 * (the family's kept) when none is.
 */
async function separatorOfPair(s: Session, facts: Facts, family: Family, captureList: string[]): Promise<void> {
  for (const op of simpleOperations(s).filter((o) => o !== 'capture')) {
    const body = s.body(op);
    const wrong = await wrongFor(s, facts, op, body);
    for (const separator of joinSpace(1))
      for (const fields of KEY_PAIRS) {
        const trial = { ...family, separator };
        const r = await attempt(s, op, body, { sign: listRule(trial, op, fields, 'emptyString') });
        if (!accepted(r.refusal, wrong)) continue;
        family.separator = separator;
        adopt(s, family, 'capture', captureList);
        adopt(s, family, op, fields);
        s.draft.set(
          'signature.request.separator',
          separator,
          s.evidence(r.x, `${op} accepted with ${fields.join(', ')}`),
        );
        return;
      }
  }
  s.draft.unknown(
    'signature.request.separator',
    'the capture signs one field, and no operation signing two was accepted with any separator: state it',
  );
}

/** Whether hex signatures are compared in either letter case (base64 ones exactly). */
async function signatureCase(s: Session, capture: Record<string, unknown>, family: Family): Promise<void> {
  const d = s.draft;
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
    // Compared in either case, a request tells no case: the signed answers do (the format shares the encoding).
    if (insensitive) {
      const cases = new Set(
        s.samples.map((x) => encodingsOf(x.signature)).flatMap((e) => (e.length === 1 && e[0] !== 'base64' ? e : [])),
      );
      const seen = cases.size === 1 ? [...cases][0]! : undefined;
      if (seen) {
        family.encoding = seen;
        s.work.signature.encoding = seen;
        d.set('signature.encoding', seen, `hex compared in either case; every signed answer is written ${seen}`);
      } else
        d.unknown(
          'signature.encoding',
          `hex is compared in either letter case and ${cases.size ? 'the signed answers show both cases' : 'no signed answer shows a case'}: which case the gateway writes no probe tells`,
        );
    }
  } else {
    s.work.signature.caseInsensitiveCompare = false;
    d.set('signature.caseInsensitiveCompare', false, 'base64 signatures are compared exactly (the format requires it)');
  }
}

/** Which is checked first, the signature or the fields: a request with both faults (`facts.inputFirst`). */
async function inputFirst(
  s: Session,
  facts: Facts,
  capture: Record<string, unknown>,
  wrong: Refusal | undefined,
  zeros: () => string,
): Promise<void> {
  const invalid = { ...capture, capture_orders: 'not-a-list' };
  const inputOnly = await attempt(s, 'capture', invalid);
  const both = await attempt(s, 'capture', invalid, { signature: zeros });
  if (inputOnly.refusal) noteKind(facts, 'invalidInput', seen(s, 'capture', inputOnly.x, inputOnly.refusal, invalid));
  facts.inputFirst =
    !!inputOnly.refusal && sameRefusal(both.refusal, inputOnly.refusal) && !sameRefusal(inputOnly.refusal, wrong);
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
async function payments(s: Session, facts: Facts, f: Family, stated?: SignatureProfile): Promise<void> {
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
    (await statedList(s, facts, f, op, body, stated)) ??
    (facts.inputFirst
      ? searchList(s, facts, f, op, body, key, canonical, hints, 250)
      : incrementalList(
          s,
          facts,
          f,
          op,
          key,
          hints.filter((h) => h.every((x) => key.includes(x))),
        ));
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
async function payoutList(s: Session, facts: Facts, f: Family, stated?: SignatureProfile): Promise<void> {
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
  const r =
    (await statedList(s, facts, f, 'payout', body, stated)) ??
    (facts.inputFirst
      ? await searchList(s, facts, f, 'payout', body, key, canonical, hints, 220)
      : await incrementalList(s, facts, f, 'payout', key));
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

/** The list `--from` states for an operation, tried on `body` before any search: taken, it is the list. */
async function statedList(
  s: Session,
  facts: Facts,
  f: Family,
  op: OperationKey,
  body: Record<string, unknown>,
  stated: SignatureProfile | undefined,
): Promise<{ fields: string[]; evidence: string; tried: number; body: Record<string, unknown> } | undefined> {
  if (stated?.request.mode !== 'fieldList') return undefined;
  const list = stated.request.fields[op];
  const wrong = await wrongFor(s, facts, op, body);
  const r = await attempt(s, op, body, { sign: listRule(f, op, list, stated.request.missingField) });
  if (!accepted(r.refusal, wrong)) return undefined;
  return { fields: list, evidence: s.evidence(r.x, `signed as ${s.options.from!.file} states`), tried: 1, body };
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
