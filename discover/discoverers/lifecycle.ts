/**
 * States and transitions (`statusValues.payment_status` and the item statuses, `transitions`, `review.approve` and
 * `review.reject`): payments brought into every state a batch can reach (captured, cancelled, refunded in full or in
 * part, held, declined), each state's `payment_status` read by a query, then capture, cancel, refund and review tried
 * on one payment in each state. An item failing names its failure by code: the failures a dedicated probe named
 * (the item-failures row), else by the state and operation it answered (a cancelled payment: `cancelled`; a captured
 * one: `alreadyCaptured`; any review: `notUnderReview`; the rest: `invalidState`).
 */
import type { Profile } from '../../core/profile/load.js';
import type { Exchange } from '../../core/model.js';

type PaymentState = keyof Profile['statusValues']['payment_status'];
import type { Discoverer, Facts, FailureNames, ItemOutcome, Payment } from '../context.js';
import type { Session } from '../session.js';
import { REVIEW_REJECT_FLAGS } from '../vocabulary.js';
import { batch, pay, statusesOf, itemOf, type ItemResult } from '../world.js';
import type { BatchOperationKey } from '../../core/spec/terms.js';

type BatchOp = BatchOperationKey;
const OPS: BatchOp[] = ['capture', 'cancel', 'refund', 'review'];
const STATES: PaymentState[] = [
  'authorised',
  'captured',
  'pendingReview',
  'cancelled',
  'declined',
  'refunded',
  'partiallyRefunded',
];

/** Payments in each state, for each operation to be tried on (one payment per state and operation). */
type Pool = Map<PaymentState, Payment[]>;

/** What a batch item did, read in the lifecycle and item-failure rows. */
export type { ItemOutcome } from '../context.js';

async function approvedPayments(s: Session, n: number): Promise<Payment[]> {
  const out: Payment[] = [];
  for (let i = 0; i < n; i++) {
    const p = await pay(s);
    if (p.payment) out.push(p.payment);
  }
  return out;
}

/** A held payment, by the trigger the payments row found (an amount or an e-mail domain). */
async function heldPayment(s: Session, facts: Facts): Promise<Payment | undefined> {
  const amount = s.draft.get<string>('review.triggers.amountAtLeast');
  const domain = facts.heldDomains?.[0];
  if (!amount && !domain) return undefined;
  const set = domain ? { shopper_email: `shopper@${domain}` } : { amount: amount! };
  const p = await pay(s, { set });
  return p.payment && p.payment.orderStatus === facts.held?.orderStatus ? p.payment : undefined;
}

async function declinedPayment(s: Session, facts: Facts): Promise<Payment | undefined> {
  if (!facts.declined) return undefined;
  // The decline card only when discovery saw it decline (a gateway may have none, declining by its rules only).
  const card = s.draft.get<string[]>('payments.testCards.decline')?.[0];
  const rule = (s.draft.get<Record<string, string>[]>('payments.declineRules') ?? [])[0];
  const p = card
    ? await pay(s, { card })
    : rule?.securityCode
      ? await pay(s, { securityCode: rule.securityCode })
      : rule?.shopperEmailDomain
        ? await pay(s, { set: { shopper_email: `shopper@${rule.shopperEmailDomain}` } })
        : rule?.amount
          ? await pay(s, { set: { amount: rule.amount } })
          : undefined;
  return p?.payment;
}

/** Split the outcomes of a batch by item. */
function outcomes(
  _s: Session,
  op: BatchOp,
  results: ItemResult[],
  states: (PaymentState | undefined)[],
  success: string | undefined,
  evidence: string,
): ItemOutcome[] {
  return results.map((r, i) => {
    const ok = success !== undefined ? r.status === success : !/^[^:\s]+:/.test(r.message);
    const m = /^([^:\s]+):(.*)$/.exec(r.message);
    return {
      op,
      state: states[i],
      ok,
      ...(m && !ok ? { code: m[1]!, message: m[2]! } : {}),
      evidence,
    };
  });
}

async function run(s: Session, facts: Facts): Promise<void> {
  const d = s.draft;
  const lists = await buildPool(s, facts);
  const pool = lists.pool;
  // Each state's payment_status, read once the set-up batches have run.
  const all = [...pool.values()].flat();
  const q = await statusesOf(s, all);
  const seenCodes = new Map<PaymentState, string>();
  for (const state of STATES) {
    const p = pool.get(state)?.[0];
    const c = p ? q.status.get(p.transaction_id) : undefined;
    if (c) seenCodes.set(state, c);
    else d.unknown(`statusValues.payment_status.${state}`, `no payment was brought into the state ${state}`);
  }
  const { code, inState, refundTo } = stateValues(s, seenCodes, q.x);
  facts.refundTo = refundTo;
  // A payment in another state's (queried with its value) is tried in that state only.
  for (const st of STATES) if (!code.has(st)) pool.delete(st);
  const stateOf = (c: string | undefined): PaymentState | undefined => [...code].find(([, v]) => v === c)?.[0];
  facts.stateCodes = Object.fromEntries(code);
  for (const [outcome, st] of [
    ['approved', 'authorised'],
    ['declined', 'declined'],
    ['pendingReview', 'pendingReview'],
  ] as const) {
    const to = inState.get(st);
    if (to)
      d.set(
        `transitions.afterAuthorise.${outcome}`,
        to,
        to === st
          ? 'the state is named after the outcome that made it'
          : `a payment ${howMade(st).replace(/^and /, '')} is queried with the value of ${to}: it is in that state`,
      );
    else
      d.unknown(
        `transitions.afterAuthorise.${outcome}`,
        `no payment ${howMade(st).replace(/^and /, '')} was queried: the state it is in no probe saw`,
      );
  }
  // Each operation on one payment in each state.
  const tried: ItemOutcome[] = [];
  const after = new Map<string, PaymentState | undefined>();
  for (const op of OPS) {
    const states = STATES.filter((st) => (pool.get(st)?.length ?? 0) > 0);
    const items = states.map((st) => {
      const p = pool.get(st)!.shift()!;
      return { p, st, item: opItem(s, op, p) };
    });
    if (!items.length) continue;
    const b = await batch(
      s,
      op,
      items.map((i) => i.item),
    );
    const success = lists.success[op];
    const out = outcomes(
      s,
      op,
      b.results,
      items.map((i) => i.st),
      success,
      s.evidence(b.x, `${op} in each state`),
    );
    tried.push(...out);
    const moved = out.filter((o) => o.ok);
    if (moved.length) {
      const q2 = await statusesOf(
        s,
        items.filter((_, i) => out[i]!.ok).map((i) => i.p),
      );
      items.forEach((it, i) => {
        if (out[i]!.ok) after.set(`${op}:${it.st}`, stateOf(q2.status.get(it.p.transaction_id)));
      });
    }
  }
  facts.itemOutcomes = [...(facts.itemOutcomes ?? []), ...tried];
  decideTransitions(s, facts, tried, after);
  await reviewFlags(s, facts, lists.held, stateOf);
  decideItemFailures(s, facts);
}

/** The states of a payment refunded: made by a refund of a captured payment, not by an operation of their own. */
const REFUNDED: readonly PaymentState[] = ['refunded', 'partiallyRefunded'];

/**
 * The status value of each state, from one payment made into it. Payments made two ways and queried with one value
 * are in one state (the format gives two states two values): a refunded payment queried with the value of a state made
 * otherwise stays in that state (a full refund that leaves it captured: `transitions.refund.toFull: captured`);
 * payments made otherwise share the state of the first of them (in the format's order of states: held payments
 * queried as refunded ones are in the state of those, whatever it is called, and a state's name is the profile's label,
 * not the gateway's). Returns the values stated, the state each state made is in, and the state each refund left its
 * payment in.
 */
function stateValues(
  s: Session,
  seen: ReadonlyMap<PaymentState, string>,
  x: Exchange,
): {
  code: Map<PaymentState, string>;
  inState: Map<PaymentState, PaymentState>;
  refundTo: Partial<Record<'toFull' | 'toPartial', PaymentState>>;
} {
  const d = s.draft;
  const code = new Map<PaymentState, string>();
  const inState = new Map<PaymentState, PaymentState>();
  const refundTo: Partial<Record<'toFull' | 'toPartial', PaymentState>> = {};
  const groups = new Map<string, PaymentState[]>();
  for (const [st, c] of seen) groups.set(c, [...(groups.get(c) ?? []), st]);
  const made = (st: PaymentState) => howMade(st).replace(/^and /, '');
  for (const [c, states] of groups) {
    const own = states.filter((st) => !REFUNDED.includes(st));
    const owner = own[0] ?? states[0]!;
    code.set(owner, c);
    d.set(`statusValues.payment_status.${owner}`, c, s.evidence(x, `a payment made ${howMade(owner)}`));
    for (const st of states) {
      inState.set(st, owner);
      if (st === owner) continue;
      if (REFUNDED.includes(st)) refundTo[st === 'refunded' ? 'toFull' : 'toPartial'] = owner;
      d.unknown(
        `statusValues.payment_status.${st}`,
        `a payment ${made(st)} is queried as ${c}, the value of ${owner}: it is in that state, and no payment was seen in a state ${st} of its own`,
        undefined,
        s.evidence(x),
      );
    }
  }
  if (code.has('refunded')) refundTo.toFull = 'refunded';
  if (code.has('partiallyRefunded')) refundTo.toPartial = 'partiallyRefunded';
  return { code, inState, refundTo };
}

function howMade(state: PaymentState): string {
  return {
    authorised: 'and approved',
    captured: 'and captured',
    pendingReview: 'and held for review',
    cancelled: 'and cancelled',
    declined: 'and declined',
    refunded: 'and refunded in full',
    partiallyRefunded: 'and refunded in part',
  }[state];
}

/** The item an operation is tried with on a payment: the whole amount (a refund of one unit). */
function opItem(s: Session, op: BatchOp, p: Payment): Record<string, unknown> {
  if (op === 'refund') return itemOf(p, { refund_amount: '1.00', refund_reason: 'discovery' });
  if (op === 'review') return itemOf(p, { review_flag: s.draft.get<string>('review.approve.flag') ?? '1' });
  return itemOf(p);
}

/**
 * The success value of an operation's items, into `success` and the draft. An item succeeded where the query shows its
 * payment moved from where an untouched one like it stays; where none moved, capture and cancel have the document's
 * empty `error_message` on success (Notes 1). Never the first item's status whatever it answered: a gateway refusing
 * every capture has no success value any probe saw.
 */
async function itemSuccess(
  s: Session,
  success: Partial<Record<BatchOp, string>>,
  op: BatchOp,
  payments: readonly Payment[],
  results: ItemResult[],
  untouched: Payment | undefined,
  evidence: string,
): Promise<void> {
  const d = s.draft;
  if (!results.length) return;
  const q = await statusesOf(s, untouched ? [untouched, ...payments] : payments);
  const still = untouched ? q.status.get(untouched.transaction_id) : undefined;
  const moved = results.filter((_, i) => {
    const v = q.status.get(payments[i]!.transaction_id);
    return still !== undefined && v !== undefined && v !== still;
  });
  const one = (rs: ItemResult[]) =>
    rs.length && rs.every((r) => r.status === rs[0]!.status) ? rs[0]!.status : undefined;
  const emptyMessage = op === 'refund' ? undefined : one(results.filter((r) => r.message === ''));
  const status = moved.length ? one(moved) : emptyMessage;
  if (status === undefined) {
    d.unknown(
      `statusValues.${op}_status.success`,
      `no ${op} item moved its payment (${evidence}): which status is success no probe saw`,
      undefined,
      s.evidence(q.x),
    );
    return;
  }
  success[op] = status;
  d.set(
    `statusValues.${op}_status.success`,
    status,
    `${evidence}; ${moved.length ? `${moved.length} moved` : 'an empty error_message'}`,
  );
}

/** Payments brought into every state, `perState` of each (one per operation), and the success value of each status. */
async function buildPool(
  s: Session,
  facts: Facts,
): Promise<{ pool: Pool; success: Partial<Record<BatchOp, string>>; held: Payment[] }> {
  const pool: Pool = new Map();
  const n = OPS.length;
  const approved = await approvedPayments(s, n * 5);
  const take = (k: number) => approved.splice(0, k);
  pool.set('authorised', take(n));
  const toCapture = take(n * 3);
  const toCancel = take(n);
  const held: Payment[] = [];
  for (let i = 0; i < n + REVIEW_REJECT_FLAGS.length + 1; i++) {
    const h = await heldPayment(s, facts);
    if (!h) break;
    held.push(h);
  }
  pool.set('pendingReview', held.splice(0, n));
  const declined: Payment[] = [];
  for (let i = 0; i < n; i++) {
    const p = await declinedPayment(s, facts);
    if (p) declined.push(p);
  }
  pool.set('declined', declined);
  const success: Partial<Record<BatchOp, string>> = {};
  const cap = await batch(
    s,
    'capture',
    toCapture.map((p) => itemOf(p)),
  );
  const untouched = pool.get('authorised')?.[0];
  await itemSuccess(
    s,
    success,
    'capture',
    toCapture,
    cap.results,
    untouched,
    s.evidence(cap.x, 'capture of approved payments'),
  );
  const captured = toCapture.filter(
    (_, i) => success.capture !== undefined && cap.results[i]?.status === success.capture,
  );
  pool.set('captured', captured.splice(0, n));
  const can = await batch(
    s,
    'cancel',
    toCancel.map((p) => itemOf(p)),
  );
  await itemSuccess(
    s,
    success,
    'cancel',
    toCancel,
    can.results,
    untouched,
    s.evidence(can.x, 'cancel of approved payments'),
  );
  pool.set(
    'cancelled',
    toCancel.filter((_, i) => success.cancel !== undefined && can.results[i]?.status === success.cancel),
  );
  const full = captured.splice(0, n);
  const part = captured.splice(0, n);
  const refunded = [...full, ...part];
  const ref = await batch(s, 'refund', [
    ...full.map((p) => itemOf(p, { refund_amount: p.amount, refund_reason: 'discovery' })),
    ...part.map((p) => itemOf(p, { refund_amount: '1.00', refund_reason: 'discovery' })),
  ]);
  await itemSuccess(
    s,
    success,
    'refund',
    refunded,
    ref.results,
    pool.get('captured')?.[0],
    s.evidence(ref.x, 'refunds in full and in part'),
  );
  facts.refundResults = ref.results;
  pool.set(
    'refunded',
    full.filter((_, i) => success.refund !== undefined && ref.results[i]?.status === success.refund),
  );
  pool.set(
    'partiallyRefunded',
    part.filter((_, i) => success.refund !== undefined && ref.results[full.length + i]?.status === success.refund),
  );
  return { pool, success, held };
}

/** Whether two messages are one wording (one the other's start: a message carrying a detail after it). */
const sameWording = (a: string | undefined, b: string | undefined) =>
  a !== undefined && b !== undefined && (a.startsWith(b) || b.startsWith(a));

/**
 * Names of item failures: those the item-failures row named with a dedicated item, then by the states that answered
 * them. A failure is told by its code and its message together: a refusal whose code a named failure has but whose
 * message is another is another failure sharing the code (named by its states); one whose code two named failures
 * share is the one whose message it carries, or undecided.
 */
export function nameFailures(
  tried: readonly ItemOutcome[],
  known: Record<string, string>,
  wording: Record<string, string[]> = {},
  /** Every message seen per code (the item rows' results): those of a failure's wording count as its own. */
  byCode: Record<string, string[]> = {},
): FailureNames {
  const codes = new Map<string, string>(Object.entries(known));
  const messages = new Map<string, string[]>();
  const dedicated = (code: string) => Object.keys(known).filter((n) => known[n] === code);
  const byWording = (t: { code?: string; message?: string }) =>
    dedicated(t.code!).filter((n) => !wording[n]?.length || wording[n]!.some((w) => sameWording(w, t.message)));
  // Items of one code told apart by their message: a code a named failure has, or one refused with two wordings (two
  // kinds of failure sharing one code are two kinds). A word holding a digit is an item's detail (an identifier, an
  // amount), not a wording.
  const wordingOf = (m: string | undefined) => (m ?? '').replace(/[\w-]*\d[\w-]*/g, '#');
  const wordings = new Map<string, Set<string>>();
  for (const t of tried)
    if (!t.ok && t.code && !dedicated(t.code).length)
      wordings.set(t.code, (wordings.get(t.code) ?? new Set()).add(wordingOf(t.message)));
  const split = (code: string) => (wordings.get(code)?.size ?? 0) > 1;
  const shared = (code: string) => dedicated(code).length > 0 || split(code);
  const groupOf = (t: { code?: string; message?: string }) =>
    dedicated(t.code!).length
      ? `${t.code}\u0000${t.message ?? ''}`
      : split(t.code!)
        ? `${t.code}\u0000${wordingOf(t.message)}`
        : t.code!;
  // Outcomes no dedicated name claims: grouped by code (and message, where a named failure has the code).
  const byGroup = new Map<string, ItemOutcome[]>();
  for (const t of tried) {
    if (t.ok || !t.code) continue;
    const own = dedicated(t.code);
    if (own.length && (byWording(t).length || own.length > 1)) continue;
    byGroup.set(groupOf(t), [...(byGroup.get(groupOf(t)) ?? []), t]);
  }
  const stateNames = new Map<string, string>();
  // Named after the states most of its items were refused in (a failure of cancelled payments the gateway also gives
  // elsewhere is still theirs). Groups are named largest first; a name another code has is no name, and two groups as
  // large as each other wanting one name have neither: which is which no probe told.
  const preferred = (list: readonly ItemOutcome[]) => {
    const most = (states: readonly string[]) => list.filter((t) => states.includes(t.state!)).length * 2 > list.length;
    return list.every((t) => t.op === 'review')
      ? 'notUnderReview'
      : most(['cancelled'])
        ? 'cancelled'
        : most(['captured', 'refunded', 'partiallyRefunded'])
          ? 'alreadyCaptured'
          : 'invalidState';
  };
  const ranked = [...byGroup].sort((a, b) => b[1].length - a[1].length);
  const tied = (group: string, name: string, size: number) =>
    ranked.some(([g, l]) => g !== group && l.length === size && preferred(l) === name);
  for (const [group, list] of ranked) {
    const taken = new Set([...codes.keys(), ...stateNames.values()]);
    const name = preferred(list);
    const named = !taken.has(name) && !tied(group, name, list.length) ? name : undefined;
    if (!named) continue;
    stateNames.set(group, named);
    if (!codes.has(named)) {
      codes.set(named, list[0]!.code!);
      if (shared(list[0]!.code!))
        messages.set(
          named,
          list.map((t) => t.message ?? ''),
        );
    }
  }
  const nameOf = (t: { code?: string; message?: string }) => {
    if (!t.code) return undefined;
    const own = dedicated(t.code);
    const fit = byWording(t);
    if (own.length === 1 && fit.length === 1) return fit[0];
    if (own.length > 1) return fit.length === 1 ? fit[0] : undefined;
    return stateNames.get(groupOf(t));
  };
  // Where a code is shared, each failure's messages are its own items' and the refusals named after it.
  for (const n of Object.keys(known))
    if (
      Object.values(known).filter((c) => c === known[n]).length > 1 ||
      [...stateNames.keys()].some((g) => g.startsWith(`${known[n]}\u0000`))
    )
      messages.set(n, [
        ...(byCode[known[n]!] ?? []).filter((m) => wording[n]?.some((w) => sameWording(w, m))),
        ...tried.filter((t) => !t.ok && nameOf(t) === n).map((t) => t.message ?? ''),
      ]);
  return {
    nameOf,
    codes,
    messages,
  };
}

function decideTransitions(
  s: Session,
  facts: Facts,
  tried: readonly ItemOutcome[],
  after: Map<string, PaymentState | undefined>,
): void {
  const d = s.draft;
  const names = nameFailures(tried, facts.failureCodes ?? {}, facts.failureWording ?? {}, facts.failureMessages ?? {});
  facts.failureNames = names;
  for (const op of OPS) {
    const mine = tried.filter((t) => t.op === op && t.state);
    if (!mine.length) {
      d.unknown(`transitions.${op}`, `${op} could not be tried on payments in their states`);
      continue;
    }
    const ev = mine[0]!.evidence;
    const from = mine.filter((t) => t.ok).map((t) => t.state!);
    d.set(`transitions.${op}.from`, from, ev);
    const refused = mine.filter((t) => !t.ok && t.code);
    const unnamed = refused.filter((t) => names.nameOf(t) === undefined);
    if (unnamed.length) {
      const why = `two item failures share the code ${unnamed[0]!.code} and the message of the refusal in ${unnamed[0]!.state} tells neither: which failure it is no probe told`;
      d.unknown(`transitions.${op}.refusals`, why, undefined, unnamed[0]!.evidence);
      d.unknown(`transitions.${op}.otherRefusal`, why, undefined, unnamed[0]!.evidence);
    }
    const counts = new Map<string, number>();
    for (const t of refused) {
      const n = names.nameOf(t) ?? 'invalidState';
      counts.set(n, (counts.get(n) ?? 0) + 1);
    }
    // The format's generic failure is the other refusal when it shows; a review's own one next; else the most frequent.
    const other = counts.has('invalidState')
      ? 'invalidState'
      : counts.has('notUnderReview')
        ? 'notUnderReview'
        : ([...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'invalidState');
    const refusals: Record<string, string> = {};
    for (const t of refused) {
      const n = names.nameOf(t) ?? 'invalidState';
      if (n !== other) refusals[t.state!] = n;
    }
    if (!unnamed.length) {
      d.set(`transitions.${op}.refusals`, refusals, ev);
      d.set(
        `transitions.${op}.otherRefusal`,
        other,
        `${refused.length} states refused, ${counts.get(other) ?? 0} with this failure: ${ev}`,
      );
    }
    const unseen = STATES.filter((st) => !mine.some((t) => t.state === st));
    // The other refusal says nothing of a state not tried: its failure, if it refuses, is not stated.
    if (!unnamed.length)
      for (const st of unseen)
        d.unknown(
          `transitions.${op}.refusals.${st}`,
          `no payment in the state ${st} was tried: whether ${op} refuses it, and with which failure, no probe told`,
        );
    if (unseen.length)
      d.partial(
        `transitions.${op}.from`,
        `${unseen.join(', ')} could not be tried: whether ${op} is allowed there no probe told (the states tried that allow it are shown)`,
        from,
        ev,
      );
    if (op === 'capture') {
      const to = after.get(`capture:${from[0]}`);
      if (to) d.set('transitions.capture.to', to, 'the state a captured payment is queried in');
    }
    if (op === 'cancel') {
      const to = after.get(`cancel:${from[0]}`);
      if (to) d.set('transitions.cancel.to', to, 'the state a cancelled payment is queried in');
    }
    if (op === 'refund')
      for (const [to, how] of [
        ['toFull', 'in full'],
        ['toPartial', 'in part'],
      ] as const) {
        const state = facts.refundTo?.[to];
        if (state)
          d.set(`transitions.refund.${to}`, state, `a payment refunded ${how} is queried in the state ${state}`);
        else
          d.unknown(
            `transitions.refund.${to}`,
            `no payment refunded ${how} was queried in a state told apart: which state the refund leaves no probe told`,
          );
      }
  }
}

/**
 * The review flags: the document's `1` on a held payment, and the format's list of rejecting values, one per held
 * payment. A flag settles a payment when the query shows it moved (or, where none moved, when its item answered
 * without a failure code beside items that did): the review's success value is that item's status, never the first
 * item's whatever it answered (a gateway that refuses every review has no success value any probe saw).
 */
async function reviewFlags(
  s: Session,
  facts: Facts,
  held: Payment[],
  stateOf: (c: string | undefined) => PaymentState | undefined,
): Promise<void> {
  const d = s.draft;
  // Without a review hold, the state a review is allowed from (an authorised payment, at some gateways).
  const from = d.written<PaymentState[]>('transitions.review.from') ?? [];
  if (held.length < 2 && from.includes('authorised'))
    for (let i = 0; i < REVIEW_REJECT_FLAGS.length + 1; i++) {
      const p = await pay(s);
      if (p.payment) held.push(p.payment);
    }
  if (held.length < 2) {
    d.unknown('review.approve', 'no payment could be held for review: the flags no probe tried');
    d.unknown('review.reject', 'no payment could be held for review: the flags no probe tried');
    return;
  }
  const approveFlag = '1';
  const flags = REVIEW_REJECT_FLAGS.slice(0, held.length - 1);
  const items = [
    itemOf(held[0]!, { review_flag: approveFlag }),
    ...flags.map((f, i) => itemOf(held[i + 1]!, { review_flag: f })),
  ];
  const tried = held.slice(0, items.length);
  const before = await statusesOf(s, tried);
  const b = await batch(s, 'review', items);
  const q = await statusesOf(s, tried);
  const ev = s.evidence(b.x, `review flags ${[approveFlag, ...flags].join(', ')}`);
  const value = (i: number, of: typeof q) => of.status.get(tried[i]!.transaction_id);
  const moved = tried.map((_, i) => value(i, q) !== undefined && value(i, q) !== value(i, before));
  const one = (statuses: string[]) => (new Set(statuses).size === 1 ? statuses[0] : undefined);
  const coded = (i: number) => /^[^:\s]+:/.test(b.results[i]?.message ?? '');
  const movedStatus = one(b.results.filter((_, i) => moved[i]).map((r) => r.status));
  const codeless = b.results.filter((_, i) => !coded(i)).map((r) => r.status);
  const success =
    movedStatus ??
    (codeless.length < b.results.length ? one(codeless) : undefined) ??
    d.get<string>('statusValues.review_status.success');
  if (success === undefined) {
    const why = `no review flag moved a held payment, and every item answered alike (${ev}): which status settles one no probe saw`;
    d.unknown('review.approve', why, undefined, ev);
    d.unknown('review.reject', why, undefined, ev);
    if (!d.has('statusValues.review_status.success'))
      d.unknown('statusValues.review_status.success', why, undefined, ev);
    return;
  }
  const settledBy = (i: number) => b.results[i]?.status === success;
  const approveTo = settledBy(0) ? stateOf(value(0, q)) : undefined;
  if (settledBy(0)) {
    d.set('review.approve.flag', approveFlag, ev);
    if (approveTo) d.set('review.approve.to', approveTo, s.evidence(q.x, 'the approved payment queried'));
    if (!d.has('statusValues.review_status.success')) d.set('statusValues.review_status.success', success, ev);
  } else d.unknown('review.approve', `review_flag ${approveFlag} did not settle a held payment`, undefined, ev);
  // A rejecting flag leaves the payment elsewhere than the approving one (another value that approves is not it).
  const i = b.results.findIndex((_, n) => n > 0 && settledBy(n) && (!approveTo || stateOf(value(n, q)) !== approveTo));
  if (i > 0) {
    d.set('review.reject.flag', flags[i - 1], ev);
    const to = stateOf(value(i, q));
    if (to) d.set('review.reject.to', to, s.evidence(q.x, 'the rejected payment queried'));
    if (!d.has('statusValues.review_status.success')) d.set('statusValues.review_status.success', success, ev);
  } else d.unknown('review.reject', `none of ${flags.join(', ')} settled a held payment`, undefined, ev);
  const failed = b.results.find((r, n) => r.status !== success && !moved[n]);
  if (failed) {
    d.set('statusValues.review_status.failure', failed.status, ev);
    const m = /^([^:\s]+):/.exec(failed.message);
    if (m) facts.invalidFlagCode = m[1];
  }
}

const FAILURES = [
  'invalidItem',
  'unknownTransaction',
  'currencyMismatch',
  'amountMismatch',
  'overCapture',
  'overRefund',
  'cancelled',
  'alreadyCaptured',
  'notUnderReview',
  'invalidState',
] as const;

/** Every item failure's code and message: named by a dedicated probe or by the states that answered it. */
function decideItemFailures(s: Session, facts: Facts): void {
  const d = s.draft;
  const byName = facts.failureNames?.codes ?? new Map<string, string>(Object.entries(facts.failureCodes ?? {}));
  const own = facts.failureNames?.messages ?? new Map<string, string[]>();
  const messages = new Map<string, string[]>(Object.entries(facts.failureMessages ?? {}));
  for (const t of facts.itemOutcomes ?? [])
    if (t.code && t.message !== undefined) messages.set(t.code, [...(messages.get(t.code) ?? []), t.message]);
  for (const name of FAILURES) {
    if (d.covers(`batch.itemFailures.${name}`)) continue;
    const code = byName.get(name);
    if (!code) {
      d.unknown(`batch.itemFailures.${name}`, `no item failed with ${name}: its code and message no probe saw`);
      continue;
    }
    // A code two failures share: each one's own messages (the code's would mix them).
    const seen = own.get(name) ?? messages.get(code) ?? [];
    const how = facts.failureCodes?.[name] ? 'a dedicated item' : 'the state an item was tried in';
    d.set(`batch.itemFailures.${name}.code`, code, `named by ${how}`);
    d.set(`batch.itemFailures.${name}.message`, seen[0] ?? '', `named by ${how}`);
    if (seen.length >= 2 && seen.every((m) => m === seen[0]))
      d.set(`batch.itemFailures.${name}.pinned`, true, `the same message on ${seen.length} items`);
  }
}

export const lifecycleDiscoverer: Discoverer = {
  id: 'lifecycle',
  decides: [
    'statusValues.payment_status',
    'statusValues.capture_status.success',
    'statusValues.cancel_status.success',
    'statusValues.refund_status.success',
    'statusValues.review_status',
    'transitions',
    'review.approve',
    'review.reject',
    'batch.itemFailures',
  ],
  after: ['payments', 'items', 'selection'],
  run,
};
