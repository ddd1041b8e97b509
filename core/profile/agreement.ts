/**
 * How far two profiles agree, leaf by leaf: the figure `profile discover` is judged by (a draft of a gateway running
 * a known profile agrees with it on at least 95 % of its leaves). A leaf is a scalar, a list or an empty mapping.
 * Lists whose order the format gives no meaning (a set of operations, of e-mail domains, of test cards, …) compare
 * as sets; every other list compares in order.
 */

import { kitSpec, topLevelNames } from '../spec/load.js';
import { type LabelPlaces, labelPlaces } from './leaves.js';
import { profileSchema } from './load.js';

/**
 * Leaves that name a profile rather than state a behaviour: the vendor's labels, which no probe can tell and a
 * reviewer writes. They are left out of the figure (`profile discover` marks them UNKNOWN).
 */
export const LABEL_LEAVES = ['name', 'version', 'description'] as const;

/** Leaves that say what a profile states, not what the gateway does: never compared. */
const NOT_BEHAVIOUR = [...LABEL_LEAVES, 'notStated'];

/** Lists compared as sets: the format says nothing of their order (`*` stands for one path segment). */
export const UNORDERED_LISTS = [
  'addressRestriction.operations',
  'review.triggers.shopperEmailDomains',
  'payments.declineRules',
  'payments.testCards.approve',
  'payments.testCards.decline',
  'transitions.*.from',
  'notifications.kinds.*.sentAfter',
  'payout.failureTypes',
  'signature.request.exclude',
  'signature.response.pairs.exclude',
  'responseFields.echoNormalised',
  'responseFields.omitted.*',
] as const;

function matches(pattern: string, path: string): boolean {
  const p = pattern.split('.');
  const q = path.split('.');
  return p.length === q.length && p.every((x, i) => x === '*' || x === q[i]);
}

/** Leaves of a profile as dotted paths with their values. */
export function profileLeafValues(value: unknown, prefix = '', out = new Map<string, unknown>()): Map<string, unknown> {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const keys = Object.keys(value);
    if (!keys.length && prefix) out.set(prefix, value);
    for (const k of keys) profileLeafValues((value as Record<string, unknown>)[k], prefix ? `${prefix}.${k}` : k, out);
  } else if (prefix) out.set(prefix, value);
  return out;
}

/** Canonical JSON (object keys sorted), so two equal values compare equal whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'undefined';
}

/** Whether two leaf values agree (sets for the unordered lists). */
export function leafEquals(path: string, a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b) && UNORDERED_LISTS.some((p) => matches(p, path)))
    return canonical([...a.map(canonical)].sort()) === canonical([...b.map(canonical)].sort());
  return canonical(a) === canonical(b);
}

/** The agreement of `other` with `reference` over the reference's leaves (the labels left out). */
export interface Agreement {
  /** Leaves of the reference profile. */
  leaves: number;
  agreeing: number;
  /** agreeing / leaves. */
  ratio: number;
  /** Reference leaves `other` holds otherwise (or not at all). */
  disagreements: { path: string; expected: unknown; received: unknown }[];
  /** Leaves `other` has that the reference lacks (an optional key it adds, such as a message pinned). */
  extra: { path: string; value: unknown }[];
}

/** Compare two profiles leaf by leaf. */
export function leafAgreement(reference: unknown, other: unknown): Agreement {
  const ref = profileLeafValues(reference);
  const got = profileLeafValues(other);
  for (const label of NOT_BEHAVIOUR) {
    ref.delete(label);
    got.delete(label);
  }
  const disagreements: Agreement['disagreements'] = [];
  for (const [path, expected] of ref) {
    const received = got.get(path);
    if (!leafEquals(path, expected, received)) disagreements.push({ path, expected, received });
  }
  const extra = [...got].filter(([path]) => !ref.has(path)).map(([path, value]) => ({ path, value }));
  const agreeing = ref.size - disagreements.length;
  return { leaves: ref.size, agreeing, ratio: ref.size ? agreeing / ref.size : 1, disagreements, extra };
}

/** A leaf a draft states otherwise than the profile of the gateway it was drafted from. */
export interface WrongStated {
  path: string;
  /** The profile's value (undefined: the profile does not hold the leaf). */
  expected: unknown;
  /** The draft's value (undefined: the draft holds a subtree the profile states otherwise). */
  received: unknown;
}

/** How the stated leaves of a draft compare with the profile of the gateway it was drafted from. */
export interface StatedAgreement {
  /** Leaves of the profile (the labels left out). */
  leaves: number;
  /** Of those, the leaves the draft states (not left out: profile format 6). */
  stated: number;
  /** The others: the profile's leaves the draft leaves out, in the profile's order. */
  notStated: string[];
  /** Stated leaves whose value is not the gateway's: the defects of a draft. */
  wrong: WrongStated[];
  /**
   * Stated leaves not compared value for value because the value is a description the run with the draft judges
   * against every answer (a notification schema, a notification signature both of two schemes verify): see BY_RUN.
   */
  byRun: string[];
  /**
   * Leaves the draft holds that the profile does not: optional keys it adds, whose absence has a meaning of its own
   * (a message pinned: the run compares the message; an empty list of normalised echoes). Not counted as wrong.
   */
  added: string[];
}

/**
 * Leaves a run with the draft judges rather than an equality: a JSON Schema of the notification bodies (the draft's
 * holds the bodies seen: a member always present is required, the document's format of the answer field it carries;
 * the vendor's own may be looser or stricter where no body tells) and the notification signature (two schemes both
 * verify every notification of some gateways). The run validates every notification against the schema and verifies
 * it with the signature the draft states.
 */
export const BY_RUN = ['notifications.signature', 'notifications.kinds.*.ownShape.schema'] as const;

/** Operations after which the reference gateway can send a payment notification: the ones that make a payment. */
const PAYMENT_MADE_BY = ['authoriseDirect', 'authoriseApm', 'checkout'];

const under = (pattern: string, path: string) => {
  const p = pattern.split('.');
  const q = path.split('.');
  return q.length >= p.length && p.every((x, i) => x === '*' || x === q[i]);
};

const at = (root: unknown, path: string): unknown =>
  path
    .split('.')
    .reduce<unknown>((n, k) => (n && typeof n === 'object' ? (n as Record<string, unknown>)[k] : undefined), root);

function luhn(card: string): boolean {
  let sum = 0;
  [...card].reverse().forEach((c, i) => {
    const d = Number(c) * (i % 2 ? 2 : 1);
    sum += d > 9 ? d - 9 : d;
  });
  return sum % 10 === 0;
}

/** The checks comparing an item with its transaction: each finds an unknown transaction unknown (the format). */
const ON_TRANSACTION = ['currencyMismatch', 'amountMismatch', 'state', 'overAmount'];

/**
 * A check order as answers show it: `unknownTransaction` where it first shows, at the first of itself and the checks
 * comparing the item with its transaction (each of which fails an unknown transaction as `unknownTransaction`).
 */
function checkOrderShown(order: readonly string[]): string[] {
  const at = Math.min(
    ...order.map((c, i) => (c === 'unknownTransaction' || ON_TRANSACTION.includes(c) ? i : order.length)),
  );
  const rest = order.filter((c) => c !== 'unknownTransaction');
  rest.splice(at, 0, 'unknownTransaction');
  return rest;
}

/**
 * Whether the draft's value at `path` says what the gateway of `reference` does, for the leaves whose profile value
 * holds more than any answer shows (null: compared value for value):
 * - `payments.testCards.approve`: every card approves (Luhn-valid where the gateway checks, matching no card-number
 *   decline rule); which approving card the vendor lists no answer tells.
 * - `errors.refusalForms.<op>`, `operationDefaults.refusalForms`: the gateway answers with the first form; the others
 *   are only forms the kit accepts. The first is the same and every form the draft lists is one the profile lists.
 * - `selection.<op>.fields`: the order of the fields shows only in a union of results in list order; otherwise they
 *   compare as a set.
 * - `batch.checkOrder`: a check comparing the item with its transaction fails an unknown one as `unknownTransaction`
 *   (the format), so `unknownTransaction` shows only at the first of those checks: compared there.
 * - `notifications.kinds.payment.sentAfter`: a payment notification can follow only an operation that makes a payment
 *   (the reference gateway, gateway/ops/payment.ts): compared over those operations. A payout notification follows
 *   only a payout (gateway/ops/payout.ts): `notifications.kinds.payout.sentAfter` compared on `payout`, and no other
 *   operation the draft lists may be one the profile does not.
 * - `errors.precedence`, `errors.precedenceByOperation.<op>`: compared without the kinds the draft leaves out of
 *   `errors.kinds` (an optional kind no request showed in use has no place to check).
 * - `checkout.aliases.<alias>`: a source the checkout request cannot hold (no field of its schema) is never sent, so
 *   the input shows what an input without a source shows: the same as `null`.
 * - `transitions.<op>.refusals.<state>`, `transitions.<op>.otherRefusal`: a refused state answers with its own entry,
 *   else the other refusal, so a failure listed under its state or given as the other refusal is one behaviour:
 *   compared as the failure of that state (of each refused state without an entry of its own, for `otherRefusal`).
 */
/** The fields a checkout request can hold (the spec's request schema). */
let checkoutFields: Set<string> | undefined;

function sameBehaviour(
  reference: unknown,
  path: string,
  expected: unknown,
  received: unknown,
  draft?: unknown,
  leftOut: (path: string) => boolean = () => false,
): boolean | null {
  const refusal = /^transitions\.([^.]+)\.(?:otherRefusal|refusals\.([^.]+))$/.exec(path);
  if (refusal && draft !== undefined) {
    // The failure a state answers with is its own entry, else `otherRefusal`: compared per refused state.
    const failureIn = (p: unknown, state: string) =>
      (at(p, `transitions.${refusal[1]}.refusals.${state}`) as string | undefined) ??
      (at(p, `transitions.${refusal[1]}.otherRefusal`) as string | undefined);
    const from = (at(reference, `transitions.${refusal[1]}.from`) as string[] | undefined) ?? [];
    const states = refusal[2]
      ? [refusal[2]]
      : Object.keys((at(reference, 'statusValues.payment_status') as object | undefined) ?? {}).filter(
          (st) =>
            !from.includes(st) &&
            at(reference, `transitions.${refusal[1]}.refusals.${st}`) === undefined &&
            !leftOut(`transitions.${refusal[1]}.refusals.${st}`),
        );
    return states.every((st) => failureIn(reference, st) === failureIn(draft, st));
  }
  if (/^checkout\.aliases\.[^.]+$/.test(path)) {
    checkoutFields ??= topLevelNames(kitSpec(), kitSpec().operations.get('checkout')!.requestSchemaId);
    const source = (v: unknown) => (typeof v === 'string' && checkoutFields!.has(v) ? v : null);
    return source(expected) === source(received);
  }
  const list = (v: unknown) => (Array.isArray(v) ? (v as unknown[]).map(String) : undefined);
  const exp = list(expected);
  const got = list(received);
  if (path === 'payments.testCards.approve') {
    if (!got?.length) return false;
    const luhnChecked = at(reference, 'fields.card.luhnCheck') === true;
    const rules = (at(reference, 'payments.declineRules') as { cardNumberSuffix?: string }[] | undefined) ?? [];
    return got.every(
      (card) =>
        (!luhnChecked || luhn(card)) && !rules.some((r) => r.cardNumberSuffix && card.endsWith(r.cardNumberSuffix)),
    );
  }
  if (/^errors\.refusalForms\.[^.]+$/.test(path) || path === 'operationDefaults.refusalForms')
    return Boolean(exp && got?.length && got[0] === exp[0] && got.every((f) => exp.includes(f)));
  const selection = /^selection\.([^.]+)\.fields$/.exec(path);
  if (selection && exp && got) {
    const entry = at(reference, `selection.${selection[1]}`) as Record<string, unknown> | undefined;
    if (entry?.combine === 'union' && entry.resultOrder === 'listOrder') return null;
    return exp.length === got.length && exp.every((f) => got.includes(f));
  }
  // An order of error kinds says nothing of a kind the draft leaves out (an optional kind no request showed in use).
  if (/^errors\.(?:precedence|precedenceByOperation\.[^.]+)$/.test(path) && exp && got) {
    const shown = (l: string[]) => l.filter((k) => !leftOut(`errors.kinds.${k}`));
    return canonical(shown(exp)) === canonical(shown(got));
  }
  if (path === 'batch.checkOrder' && exp && got)
    return canonical(checkOrderShown(exp)) === canonical(checkOrderShown(got));
  if (path === 'notifications.kinds.payment.sentAfter' && exp && got) {
    const made = exp.filter((o) => PAYMENT_MADE_BY.includes(o));
    return made.length === got.length && made.every((o) => got.includes(o));
  }
  if (path === 'notifications.kinds.payout.sentAfter' && exp && got)
    return exp.includes('payout') === got.includes('payout') && got.every((o) => o === 'payout' || exp.includes(o));
  return null;
}

let places: { states: LabelPlaces; failures: LabelPlaces } | undefined;

/** The item failures named after the state an item was refused in (the others are named after their own fault). */
const STATE_FAILURES = ['cancelled', 'alreadyCaptured', 'notUnderReview', 'invalidState'];

/** A draft with the labels of one kind renamed, and the renaming (a permutation of `names`; identities left out). */
function renamedKind(
  reference: unknown,
  draft: unknown,
  unstated: readonly string[],
  where: LabelPlaces,
  names: readonly string[],
  identity: (profile: unknown, name: string) => string | undefined,
): { draft: unknown; unstated: string[]; renamed: Map<string, string> } {
  const ofIdentity = new Map<string, string>();
  for (const n of names) {
    const id = identity(reference, n);
    if (id !== undefined && !ofIdentity.has(id)) ofIdentity.set(id, n);
  }
  const to = new Map<string, string>();
  for (const n of names) {
    const id = identity(draft, n);
    const t = id === undefined ? undefined : ofIdentity.get(id);
    if (t && ![...to.values()].includes(t)) to.set(n, t);
  }
  const freeFrom = names.filter((n) => !to.has(n));
  const freeTo = names.filter((n) => ![...to.values()].includes(n));
  for (const n of freeFrom.filter((f) => freeTo.includes(f))) to.set(n, n);
  const restTo = freeTo.filter((t) => ![...to.values()].includes(t));
  for (const n of freeFrom.filter((f) => !to.has(f))) to.set(n, restTo.shift()!);
  if ([...to].every(([a, b]) => a === b)) return { draft, unstated: [...unstated], renamed: new Map() };
  const name = (v: unknown) => (typeof v === 'string' ? (to.get(v) ?? v) : v);
  const copy = structuredClone(draft) as Record<string, unknown>;
  for (const p of where.values) {
    const keys = p.split('.');
    const last = keys.pop()!;
    const parent = at(copy, keys.join('.'));
    if (!parent || typeof parent !== 'object' || !(last in parent)) continue;
    const v = (parent as Record<string, unknown>)[last];
    (parent as Record<string, unknown>)[last] = Array.isArray(v) ? v.map(name) : name(v);
  }
  for (const p of where.keys) {
    const obj = at(copy, p);
    if (!obj || typeof obj !== 'object' || Array.isArray(obj)) continue;
    const entries = Object.entries(obj as Record<string, unknown>);
    for (const [k] of entries) delete (obj as Record<string, unknown>)[k];
    for (const [k, v] of entries) (obj as Record<string, unknown>)[String(name(k))] = v;
  }
  const renamedPath = (u: string) => {
    const keyed = where.keys.find((k) => u.startsWith(`${k}.`));
    if (!keyed) return u;
    const [label, ...rest] = u.slice(keyed.length + 1).split('.');
    return [keyed, name(label), ...rest].join('.');
  };
  return { draft: copy, unstated: unstated.map(renamedPath), renamed: new Map([...to].filter(([a, b]) => a !== b)) };
}

/**
 * A draft's labels under the names the profile gives them. A payment state's name is a label of the profile, never on
 * the wire: what a gateway shows of a state is its `payment_status` value and what the operations do in it; a failure
 * named after the state an item was refused in (`cancelled`, `alreadyCaptured`, `notUnderReview`, `invalidState`) is
 * a label too, read only through the transitions naming it: what shows is its code and message. A draft stating a
 * value (a code and message) the profile gives another state (failure) names that one (held payments queried with the
 * refunded value are in the refunded state, whatever the draft calls it); the other names are paired so that each
 * renaming is a permutation (a name left as it is where it is free). Renamed: every leaf naming the label, every
 * object keyed by it (the schema's `paymentState` and `itemFailure`, core/profile/leaves.ts `labelPlaces`), and the
 * dotted paths of `unstated`. A renaming hides no behaviour: a draft agrees under it only where every stated leaf does.
 */
export function renamedLabels(
  reference: unknown,
  draft: unknown,
  unstated: readonly string[],
): { draft: unknown; unstated: string[]; states: Map<string, string>; failures: Map<string, string> } {
  places ??= (() => {
    const schema = profileSchema();
    return { states: labelPlaces(schema, 'paymentState'), failures: labelPlaces(schema, 'itemFailure') };
  })();
  const value = (p: unknown, n: string) => at(p, `statusValues.payment_status.${n}`) as string | undefined;
  const states = renamedKind(reference, draft, unstated, places.states, places.states.names, value);
  const failure = (p: unknown, n: string) => {
    const f = at(p, `batch.itemFailures.${n}`) as { code?: string; message?: string } | undefined;
    return f?.code === undefined ? undefined : `${f.code}\u0000${f.message ?? ''}`;
  };
  const failures = renamedKind(reference, states.draft, states.unstated, places.failures, STATE_FAILURES, failure);
  return { draft: failures.draft, unstated: failures.unstated, states: states.renamed, failures: failures.renamed };
}

/**
 * The points a draft leaves out, as dotted paths: for each leaf the loader filled (`unstated`, JSON pointers of
 * `completed`), the highest key above it the draft does not hold. A leaf of the truth below such a key (an optional
 * key the default lacks, such as a message `pinned`) is one the draft says nothing of, not one it states absent.
 */
export function leftOutPoints(draft: unknown, unstated: readonly string[]): string[] {
  const out = new Set<string>();
  for (const pointer of unstated) {
    const keys = pointer
      .slice(1)
      .split('/')
      .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
    let node = draft;
    let n = 0;
    while (n < keys.length && node && typeof node === 'object' && Object.hasOwn(node, keys[n]!))
      node = (node as Record<string, unknown>)[keys[n++]!];
    out.add(keys.slice(0, n + 1).join('.'));
  }
  return [...out];
}

/**
 * The leaves a draft states, each compared with the profile of the gateway it was drafted from (`reference`): a leaf
 * `unstated` covers (dotted paths of the points the draft leaves out, and anything below them) is neither right nor
 * wrong; a stated leaf is wrong when its value is not the profile's (or, for the leaves of `sameBehaviour`, does not
 * say what the gateway does), including a leaf the profile holds and the draft does not. The labels are left out;
 * BY_RUN leaves are listed for the run to judge, leaves only the draft holds as `added`. The draft's payment states
 * and state-named failures are compared under the profile's names for them (`renamedLabels`: by the `payment_status`
 * value each state is queried with, the code and message of each failure).
 */
export function statedAgreement(
  reference: unknown,
  asDrafted: unknown,
  leftOutPaths: readonly string[],
): StatedAgreement {
  const { draft, unstated } = renamedLabels(reference, asDrafted, leftOutPaths);
  const ref = profileLeafValues(reference);
  const got = profileLeafValues(draft);
  for (const label of NOT_BEHAVIOUR) {
    ref.delete(label);
    got.delete(label);
  }
  const below = (path: string, at: string) => path === at || path.startsWith(`${at}.`);
  const leftOut = (path: string) => unstated.some((u) => below(path, u));
  // A leaf of the profile (a `null`, a list) over points the draft leaves out, where the draft states nothing.
  const notStated = (path: string) =>
    leftOut(path) ||
    (unstated.some((u) => u.startsWith(`${path}.`)) && ![...got.keys()].some((k) => below(k, path) && !leftOut(k)));
  const byRun = new Set<string>();
  const judgedByRun = (path: string) => {
    const pattern = BY_RUN.find((p) => under(p, path));
    if (pattern) byRun.add(path.split('.').slice(0, pattern.split('.').length).join('.'));
    return Boolean(pattern);
  };
  const wrong: WrongStated[] = [];
  const left: string[] = [];
  let stated = 0;
  for (const [path, expected] of ref) {
    if (notStated(path)) {
      left.push(path);
      continue;
    }
    stated++;
    if (judgedByRun(path)) continue;
    const received = got.get(path);
    const same =
      sameBehaviour(reference, path, expected, received, draft, leftOut) ?? leafEquals(path, expected, received);
    if (!same) wrong.push({ path, expected, received });
  }
  const added = [...got.keys()].filter((path) => !ref.has(path) && !notStated(path) && !judgedByRun(path));
  return { leaves: ref.size, stated, notStated: left, wrong, byRun: [...byRun].sort(), added };
}
