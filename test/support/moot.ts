/**
 * Leaves of a truth the reference gateway serving it never reads: another value there changes no answer, so no probe
 * of any discovery can decide them, and a draft leaving them out loses nothing a run could judge. The neighbourhood
 * proof reports the share of stated leaves both over every leaf of the truth and over the leaves not moot; each rule
 * names the format's own statement (schemas/profile.schema.json) and the gateway code that makes the leaf moot, and
 * test/discover/moot.test.ts serves a truth and its variant with the leaf changed to show the answers agree.
 */
import { kitSpec } from '../../core/spec/load.js';
import { valueAt } from '../../core/spec/pointer.js';

type Json = Record<string, unknown>;

/** A condition of a truth under which some of its leaves are never read by the reference gateway. */
export interface MootRule {
  id: string;
  /** The leaves (dotted paths, as core/profile/agreement.ts `profileLeafValues` names them) the rule makes moot. */
  leaves: RegExp;
  /** Whether the truth makes `leaf` (one the pattern matches) moot. */
  when(truth: Json, leaf: string): boolean;
  /** The format's statement and the gateway code behind it. */
  why: string;
}

/** The value at a dotted path of a profile. */
const at = (v: unknown, path: string): unknown => valueAt(v, path.split('.'));

/**
 * The per-item failures the reference gateway can answer under a truth (gateway/ops/batch.ts `checkItem`): the checks
 * of every item (invalid, unknown, currency, amount), the refund's bound and exhaustion, the capture's bound where
 * the capture takes the operation's amount, the failure refusing partial refunds, and every failure the transitions
 * name (`refusals`, `otherRefusal`).
 */
function answeredItemFailures(t: Json): Set<string> {
  const out = new Set([
    'invalidItem',
    'unknownTransaction',
    'currencyMismatch',
    'amountMismatch',
    'overRefund',
    'invalidState',
  ]);
  if (at(t, 'transitions.capture.itemAmount') === 'operationAmount') out.add('overCapture');
  const partial = at(t, 'refunds.partial');
  if (typeof partial === 'string' && partial !== 'allowed') out.add(partial);
  for (const entry of Object.values((at(t, 'transitions') as Json | undefined) ?? {})) {
    const e = entry as Json;
    for (const f of Object.values((e.refusals as Json | undefined) ?? {})) out.add(String(f));
    if (typeof e.otherRefusal === 'string') out.add(e.otherRefusal);
  }
  return out;
}

/** The operations a kind is raised on (gateway/pipeline.ts CHECKS, gateway/ops/selection.ts selectionRefusals). */
const RAISED_ON: Record<string, (t: Json) => readonly string[]> = {
  // The batches (too many orders) and the queries selecting too many values, as the spec lists them.
  overLimit: () =>
    [...kitSpec().operations]
      .filter(([, o]) => o.batch !== undefined || o.selectionLimit !== undefined)
      .map(([k]) => k),
  refusedAddress: (t) => (at(t, 'addressRestriction.operations') as string[] | undefined) ?? [],
};

/** Whether an operation's refusals carry the kind's HTTP status: its first refusal form is an HTTP error. */
const refusesAsHttpError = (t: Json, op: string): boolean =>
  ['httpError', 'httpFailureType'].includes(String((at(t, `errors.refusalForms.${op}`) as string[] | undefined)?.[0]));

/** The rules, each a condition of the format's own semantics. */
export const MOOT_RULES: readonly MootRule[] = [
  {
    id: 'cookieNameNeverRead',
    leaves: /^fields\.antifraudTokenCookie$/,
    when: () => true,
    why: "the reference gateway reads no field under the profile's cookie name: its checkout page echoes every submitted field as a hidden input whatever the name (gateway/ops/checkout.ts submittedEntries), and no operation reads the field",
  },
  {
    id: 'mediaTypesWhenBothAccepted',
    leaves: /^requestMedia\.types\./,
    when: (t) => at(t, 'requestMedia.acceptOther') === true,
    why: '`acceptOther: true`: "the gateway also accepts a body in the other media type for every operation"; gateway/pipeline.ts parseBody reads `types` only when acceptOther is false',
  },
  {
    id: 'missingHeaderKindWithoutHeaders',
    leaves: /^requestHeaders\.onMissing$/,
    when: (t) => Object.keys((at(t, 'requestHeaders.headers') as Json | undefined) ?? {}).length === 0,
    why: '`headers: {}` = "no extra header": no request can lack one, so the kind of such a request is never answered (gateway/pipeline.ts headerProblem)',
  },
  {
    id: 'heldStateWithoutTriggers',
    leaves:
      /^(statusValues\.(order_status|payment_status)\.pendingReview|payments\.resultInfo\.pendingReview\.(code|message)|payments\.risk\.action\.pendingReview|payments\.risk\.checkStatus\.fail|transitions\.afterAuthorise\.pendingReview)$/,
    when: (t) => at(t, 'review.triggers') === null,
    why: '`review.triggers: null` = nothing holds a payment: gateway/ops/payment.ts runs only the passing screening check, so no payment is ever pendingReview and no check fails',
  },
  {
    id: 'notFoundWithoutFailureItems',
    leaves: /^statusValues\.query_result\.notFound$/,
    when: (t) => at(t, 'selection.retrievalTrans.unmatched') !== 'failureItem',
    why: 'query_result `notFound` marks "an item of a value matching nothing", which only `unmatched: failureItem` answers (gateway/ops/selection.ts pick)',
  },
  {
    id: 'combineWithOneSelectingField',
    leaves: /^selection\.[A-Za-z]+\.combine$/,
    when: (t, leaf) => ((at(t, `selection.${leaf.split('.')[1]}.fields`) as unknown[] | undefined)?.length ?? 0) < 2,
    why: '`combine` joins two selecting fields: with one field (`selection.<op>.fields`) no request gives two (gateway/ops/selection.ts selectors)',
  },
  {
    id: 'itemFailureNeverAnswered',
    leaves: /^batch\.itemFailures\.[A-Za-z]+\.(code|message|pinned)$/,
    when: (t, leaf) => !answeredItemFailures(t).has(leaf.split('.')[2]!),
    why: 'a per-item failure is answered only by the checks of gateway/ops/batch.ts checkItem (invalid, unknown, currency, amount, the refund bound, the capture bound under `transitions.capture.itemAmount: operationAmount`, `refunds.partial`) or where `transitions.*.refusals`/`otherRefusal` name it: one named nowhere is never answered',
  },
  {
    id: 'kindStatusNeverAnswered',
    leaves: /^errors\.kinds\.(overLimit|refusedAddress)\.status$/,
    when: (t, leaf) => RAISED_ON[leaf.split('.')[2]!]!(t).every((op) => !refusesAsHttpError(t, op)),
    why: '"the HTTP status stays the kind\'s" and is answered only in an HTTP error (gateway/errors.ts errorReply takes the first of `errors.refusalForms.<op>`): a kind raised only on operations refusing in an HTTP 200 body (too many orders on the batches and queries, a refused address on `addressRestriction.operations`) never shows its status',
  },
  {
    id: 'bodyFromWithoutOperationSignature',
    leaves: /^notifications\.kinds\.(payment|payout)\.bodyFrom$/,
    when: (t) =>
      at(t, 'notifications.signature') === 'none' ||
      at(t, 'notifications.signature') === 'sortedPairs' ||
      (at(t, 'notifications.signature') === 'asResponse' && at(t, 'signature.response.pairs') !== undefined),
    why: "the body is the operation's result whatever `bodyFrom` names (gateway/ops/payment.ts notifyPayment, ops/payout.ts); gateway/notify.ts encode reads `bodyFrom` only as the operation whose field list signs it, and an unsigned notification, the requests' sorted pairs or signed responses' sorted pairs take no operation",
  },
  {
    id: 'envelopeFailureWhenItemsFailInside',
    leaves: /^statusValues\.return_status\.failure$/,
    when: (t) => at(t, 'batch.envelopeOnItemFailure') !== 'failure',
    why: 'the envelope failure value is answered only under `batch.envelopeOnItemFailure: failure` (gateway/ops/batch.ts); refusals carry their own bodies (errors.bodies)',
  },
];

/** Whether a leaf of the truth is moot, and by which rule. */
export function mootRule(truth: Json, leaf: string): MootRule | undefined {
  return MOOT_RULES.find((r) => r.leaves.test(leaf) && r.when(truth, leaf));
}
