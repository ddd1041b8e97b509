/**
 * The response signature (`signature.response`) and the notifications' (`notifications.signature`), found offline:
 * every signed answer discovery collected is verified against the catalogue of schemes the format can state
 * (discover/scheme.ts); no request is sent.
 */
import type { Exchange, OperationKey } from '../../core/model.js';
import { verifiesUnder, type ResponseScheme } from '../scheme.js';
import { schemeRanker } from '../scheme-ranker.js';
import { textAt, type Discoverer, type Facts } from '../context.js';
import type { Session } from '../session.js';
import { answerOf, didWork } from '../answers.js';
import { pairsText, digestBytes, signatureBytes } from '../scheme.js';
import { operationSet } from '../../core/spec/operations.js';

/** The operations whose answers may carry `encryption_data`: their response schema declares it (APM and query too). */
function signedOps(s: Session): readonly OperationKey[] {
  return operationSet(s.spec, 'signedResponse');
}

/** Operations whose answers the format leaves unsigned unless the profile lists their fields. */
const UNSIGNED_BY_DEFAULT: OperationKey[] = ['authoriseApm', 'retrievalTrans'];

/** The signed answers the response signature is found from: successful ones only (a refusal is signed, when it is, over its own fields, told by the catalogue row). */
function workingSamples(s: Session): Session['samples'] {
  return s.samples.filter((x) => didWork(s.spec, s.work, x.operation, answerOf(x.exchange)));
}

async function run(s: Session, facts: Facts): Promise<void> {
  const d = s.draft;
  const secret = s.options.secret;
  const samples = workingSamples(s);
  const answered = new Set(
    s.samples.map((x) => x.operation).concat([...signedOps(s)].filter((op) => facts.wrongSignature[op] !== undefined)),
  );
  if (!samples.length) {
    d.set('signature.response', { signed: false }, `no answer of ${signedOps(s).join(', ')} carried encryption_data`);
    s.work.signature.response = { signed: false };
    notifications(s, facts, undefined);
    return;
  }
  const best = (await schemeRanker().rank(samples, secret))[0];
  if (!best) {
    d.unknown(
      'signature.response',
      `${samples.length} signed answers verify under no scheme of the catalogue: state the response signature`,
    );
    notifications(s, facts, undefined);
    return;
  }
  const verified = samples.filter((x) => verifiesUnder(best, x, secret));
  const ev = `${verified.length} of ${samples.length} signed answers verify, e.g. ${s.evidence(verified[0]?.exchange ?? samples[0]!.exchange)}`;
  if (best.algorithm.name !== s.work.signature.algorithm.name || best.encoding !== s.work.signature.encoding)
    d.unknown(
      'signature.response',
      'answers are signed with another algorithm or encoding than requests: the format states one for both',
      undefined,
      ev,
    );
  if (best.pairs) {
    d.set('signature.response', { signed: true, pairs: best.pairs }, ev);
    s.work.signature.response = { signed: true, pairs: best.pairs };
    const request = s.work.signature.request;
    if (request.mode === 'sortedPairs' && request.leaveOut?.length)
      d.unknown(
        'signature.response.pairs.leaveOut',
        "answers carry no boolean or null that would tell: the requests' rule is assumed",
        request.leaveOut,
      );
  } else {
    const fields: Partial<Record<OperationKey, string[]>> = {};
    for (const op of signedOps(s)) {
      if (best.fields[op]) fields[op] = best.fields[op]!;
    }
    const request = s.work.signature.request;
    // A rule for absent fields shows only when a listed field is absent from an answer: else the requests' rule.
    const absentShown = samples.some((x) =>
      (best.fields[x.operation] ?? []).some((f) => textAt(x.body, f) === '' && !(f in x.body)),
    );
    const missing = absentShown || request.mode !== 'fieldList' ? best.missingField! : request.missingField;
    const response = {
      signed: true as const,
      mode: 'fieldList' as const,
      separator: best.separator!,
      missingField: missing,
      fields,
    };
    const defaults = { ...((s.defaults.signature.response as { fields?: Record<string, string[]> }).fields ?? {}) };
    d.set('signature.response.signed', true, ev);
    d.set('signature.response.mode', 'fieldList', ev);
    d.set('signature.response.separator', best.separator, ev);
    if (absentShown || request.mode !== 'fieldList') d.set('signature.response.missingField', missing, ev);
    else
      d.unknown(
        'signature.response.missingField',
        "no signed answer lacked a listed field: the requests' rule is assumed",
        missing,
      );
    stateLists(s, { samples, verified, answered }, fields, defaults);
    s.work.signature.response = { ...response, fields: { ...defaults, ...fields } } as never;
  }
  notifications(s, facts, best);
}

/**
 * Each signed operation's response list in the draft: stated where answers verify it, shown where a listed field was
 * empty in all of them, left out (optional lists: removed) where no signed answer was seen. `defaults` loses the
 * optional lists removed (the working profile then signs none for them).
 */
function stateLists(
  s: Session,
  seen: { samples: Session['samples']; verified: Session['samples']; answered: Set<OperationKey> },
  fields: Partial<Record<OperationKey, string[]>>,
  defaults: Record<string, string[]>,
): void {
  const d = s.draft;
  const { samples, verified, answered } = seen;
  for (const op of signedOps(s)) {
    // A listed field empty in every answer that verifies adds nothing to what was signed: the answers verify with it
    // or without it, wherever it stands. The list is shown, not stated.
    const own = verified.filter((x) => x.operation === op);
    const blank = (fields[op] ?? []).filter((f) => own.every((x) => textAt(x.body, f) === ''));
    if (fields[op] && blank.length)
      d.partial(
        `signature.response.fields.${op}`,
        `${blank.join(', ')} ${blank.length === 1 ? 'was' : 'were'} empty in every signed answer of ${op} seen (${own.length}): whether ${blank.length === 1 ? 'it is' : 'they are'} signed, and where, no answer told`,
        fields[op],
        `a list that verifies ${own.length} answer(s) of ${op}`,
      );
    else if (fields[op])
      d.set(
        `signature.response.fields.${op}`,
        fields[op],
        `verifies ${samples.filter((x) => x.operation === op).length} answer(s) of ${op}`,
      );
    else if (UNSIGNED_BY_DEFAULT.includes(op)) {
      // Optional lists: absent, the operation's answers are not signed.
      d.remove(`signature.response.fields.${op}`, `no answer of ${op} carried encryption_data`);
      // Its answers then carry no encryption_data: responseFields.omitted says so (the responseFields row).
      delete defaults[op];
    } else
      d.unknown(
        `signature.response.fields.${op}`,
        answered.has(op) ? `no signed answer of ${op} was seen` : `${op} was never answered`,
        defaults[op],
      );
  }
}

/** Whether notifications are signed as responses, with the request's sorted pairs, or not at all. */
function notifications(s: Session, facts: Facts, scheme: ResponseScheme | undefined): void {
  const d = s.draft;
  const got = facts.notifications ?? [];
  const signed = got.filter(
    (x) => typeof x.request.body?.encryption_data === 'string' && x.request.body.encryption_data !== '',
  );
  if (!got.length) {
    if (!d.covers('notifications')) d.unknown('notifications.signature', 'no notification was received');
    return;
  }
  if (!signed.length) {
    d.set('notifications.signature', 'none', `${got.length} notifications without encryption_data`);
    return;
  }
  const secret = s.options.secret;
  const n = signed[0]!;
  const body = n.request.body as Record<string, unknown>;
  const sample = { body, signature: String(body.encryption_data) };
  const ops = [...s.spec.operations.keys()];
  // The operations whose answer's list verifies a notification: a kind's `bodyFrom` when one only verifies all of
  // that kind's (sorted pairs, or lists alike, tell none).
  const verifying = (x: Exchange) => {
    const b = x.request.body as Record<string, unknown>;
    const one = { body: b, signature: String(b.encryption_data) };
    return scheme ? ops.filter((op) => verifiesUnder(scheme, { ...one, operation: op }, secret)) : [];
  };
  let asResponse = verifying(n).length > 0;
  for (const kind of ['payment', 'payout'] as const) {
    const mine = (facts.notificationsOf?.[kind] ?? []).filter(
      (x) => typeof x.request.body?.encryption_data === 'string' && x.request.body.encryption_data !== '',
    );
    if (!mine.length || !scheme) continue;
    const fit = verifying(mine[0]!).filter((op) => mine.every((x) => verifying(x).includes(op)));
    if (!fit.length) continue;
    asResponse = true;
    if (fit.length === 1 && !scheme.pairs)
      d.set(
        `notifications.kinds.${kind}.bodyFrom`,
        fit[0],
        `${mine.length} ${kind} notification(s) verify as the ${fit[0]} answer only`,
      );
    else
      d.unknown(
        `notifications.kinds.${kind}.bodyFrom`,
        `a ${kind} notification verifies as the answer of ${scheme.pairs ? 'any operation (sorted pairs)' : fit.join(', ')}: which one its body is built from no probe tells`,
      );
  }
  if (asResponse) {
    d.set('notifications.signature', 'asResponse', 'a notification verifies as an answer');
    return;
  }
  const request = s.work.signature.request;
  const target = signatureBytes(sample.signature, s.work.signature.encoding);
  if (
    request.mode === 'sortedPairs' &&
    target &&
    digestBytes(s.work.signature.algorithm, secret, pairsText(request, body)).equals(target)
  ) {
    d.set('notifications.signature', 'sortedPairs', "a notification verifies under the requests' sorted pairs");
    return;
  }
  d.unknown('notifications.signature', 'notifications are signed under no scheme the format can state for them');
}

/**
 * The ranking made early, over the answers seen once every row but the notifications' is done, while their waits run:
 * it decides nothing, and leaves the response row's ranking (its result unchanged) only the answers the notification
 * rows added (scheme-ranker.ts).
 */
async function rankEarly(s: Session): Promise<void> {
  const samples = workingSamples(s);
  // A failure here is the response row's to meet: it ranks them again.
  if (samples.length)
    await schemeRanker()
      .rank(samples, s.options.secret)
      .catch(() => undefined);
}

/** The rows whose answers the response signature is found from, the notification rows aside. */
const BEFORE_RESPONSE = [
  'signature',
  'errors',
  'payments',
  'items',
  'lifecycle',
  'selection',
  'payout',
  'apm',
  'checkout',
  'limits',
  'address',
] as const;

/** The response row's ranking started before the notifications' waits end (decides nothing). */
export const responseEarlyDiscoverer: Discoverer = {
  id: 'responseEarly',
  decides: [],
  after: BEFORE_RESPONSE,
  run: rankEarly,
};

export const responseDiscoverer: Discoverer = {
  id: 'response',
  decides: [
    'signature.response',
    'notifications.signature',
    'notifications.kinds.payment.bodyFrom',
    'notifications.kinds.payout.bodyFrom',
  ],
  after: [...BEFORE_RESPONSE, 'notifications', 'responseEarly'],
  run,
};
