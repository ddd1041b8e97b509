/**
 * Batch items (`batch`, the item and envelope statuses, `transitions.capture.itemAmount`, `refunds`): one failing
 * item per failure a probe can name (an ill-formed amount, an unknown transaction, another currency, another
 * amount, more than authorised, more than refundable), items carrying two faults (the order of the item checks),
 * refunds (their reference numbering and messages), and the envelope when items fail. The failures named by a
 * state (`cancelled`, `alreadyCaptured`, `notUnderReview`, `invalidState`) are named by the lifecycle row, which
 * decides every item failure's code and message.
 */
import type { Exchange } from '../../core/model.js';
import { textAt, type Discoverer, type Facts, type Payment } from '../context.js';
import type { Session } from '../session.js';
import { amountOf, batch, cents, itemOf, pay, statusesOf, type ItemResult } from '../world.js';

type Check = 'invalidItem' | 'unknownTransaction' | 'currencyMismatch' | 'amountMismatch' | 'state' | 'overAmount';
const CHECKS: Check[] = [
  'invalidItem',
  'unknownTransaction',
  'currencyMismatch',
  'amountMismatch',
  'state',
  'overAmount',
];

/** A currency other than the payment's (a valid code). */
function otherCurrency(c: string): string {
  return c === 'EUR' ? 'USD' : 'EUR';
}

const codeOf = (r: ItemResult | undefined) => /^([^:\s]+):(.*)$/.exec(r?.message ?? '');

/** Up to `n` approved payments (one payment tried each). */
async function approved(s: Session, n: number): Promise<Payment[]> {
  const out: Payment[] = [];
  for (let i = 0; i < n; i++) {
    const p = await pay(s);
    if (p.payment) out.push(p.payment);
  }
  return out;
}

/** A batch answered: its exchange, envelope and item results. */
type Batch = Awaited<ReturnType<typeof batch>>;

/** What the item probes share: the payments tried on, and the failure codes and messages named so far. */
interface ItemProbe {
  s: Session;
  /** Approved payments (a1, a2), two captured ones (c1, c2) and a cancelled one (x1). */
  a1: Payment;
  a2: Payment;
  c1: Payment;
  c2: Payment;
  x1: Payment;
  /** The failure each code was first seen for (`unknownTransaction` → its code). */
  codes: Record<string, string>;
  /** Messages seen per failure code. */
  messages: Map<string, string[]>;
  /** Messages of each named failure's own items (two failures sharing a code are told apart by them). */
  wording: Record<string, string[]>;
}

/** Name the failure a result's code stands for (the first name wins) and keep its message; returns the code. */
function note(p: ItemProbe, name: string, r: ItemResult | undefined): string | undefined {
  const m = codeOf(r);
  if (!m) return undefined;
  p.codes[name] ??= m[1]!;
  if (p.codes[name] === m[1]) p.wording[name] = [...(p.wording[name] ?? []), m[2]!];
  p.messages.set(m[1]!, [...(p.messages.get(m[1]!) ?? []), m[2]!]);
  return m[1]!;
}

/** Keep the message of every result carrying a code. */
function noteAll(p: ItemProbe, results: ItemResult[]): void {
  for (const r of results) {
    const m = codeOf(r);
    if (m) p.messages.set(m[1]!, [...(p.messages.get(m[1]!) ?? []), m[2]!]);
  }
}

async function run(s: Session, facts: Facts): Promise<void> {
  const [a1, a2, c1, c2, x1] = await approved(s, 5);
  if (!a1 || !a2 || !c1 || !c2 || !x1) {
    s.draft.unknown('batch', 'not enough approved payments to try batch items on');
    return;
  }
  const p: ItemProbe = { s, a1, a2, c1, c2, x1, codes: {}, messages: new Map(), wording: {} };
  const ok = await successes(p);
  if (!ok.capture) {
    // Every probe of this row is judged against a capture that succeeded: without one it states nothing.
    const why = `a capture of approved payments did not succeed (${ok.evidence}): the item probes have nothing to compare with`;
    for (const path of itemsDiscoverer.decides) s.draft.unknown(path, why, undefined, ok.evidence);
    return;
  }
  const cap = await captureFaults(p, ok);
  const can = await cancelFaults(p, ok.cancel);
  const ref = await refundFaults(p);
  noteAll(p, [...cap.results, ...can.results, ...ref.results]);
  facts.failureCodes = p.codes;
  facts.failureMessages = Object.fromEntries(p.messages);
  facts.failureWording = p.wording;
  checkOrderOf(p, cap, can, ref);
}

/** The statuses of items that succeed, as a batch whose items all succeed shows them. */
interface Successes {
  /** Undefined where the capture of approved payments did not succeed. */
  capture: string | undefined;
  cancel: string | undefined;
  /** `return_status` of a batch whose items all succeed. */
  returnStatus: string;
  evidence: string;
}

/**
 * A capture and a cancel whose items all succeed: the success statuses and messages. An item succeeded where the
 * query shows its payment moved from where an untouched approved one stays, or where its `error_message` is the
 * document's empty string on success (Notes 1): a gateway whose approved payments cannot be captured has no success.
 */
async function successes(p: ItemProbe): Promise<Successes> {
  const { s, a1, c1, c2, x1 } = p;
  const d = s.draft;
  const captured = await batch(s, 'capture', [itemOf(c1), itemOf(c2)]);
  const cancelled = await batch(s, 'cancel', [itemOf(x1)]);
  const q = await statusesOf(s, [a1, c1, x1]);
  const moved = (x: Payment) => {
    const v = q.status.get(x.transaction_id);
    return v !== undefined && q.status.get(a1.transaction_id) !== undefined && v !== q.status.get(a1.transaction_id);
  };
  const evidence = s.evidence(captured.x, 'a capture of approved payments');
  const capOk = moved(c1) || captured.results[0]?.message === '';
  const canOk = moved(x1) || cancelled.results[0]?.message === '';
  if (!capOk) return { capture: undefined, cancel: undefined, returnStatus: '', evidence };
  const successEnvelope = captured.envelope;
  const rs = textAt(successEnvelope, 'return_status');
  d.set('statusValues.return_status.success', rs, s.evidence(captured.x, 'a batch whose items all succeed'));
  d.set('statusValues.return_status.successMessage', textAt(successEnvelope, 'return_message'), s.evidence(captured.x));
  d.set(
    'batch.itemSuccess.errorMessage',
    captured.results[0]?.message ?? '',
    s.evidence(captured.x, 'a captured item'),
  );
  return {
    capture: captured.results[0]?.status,
    cancel: canOk ? cancelled.results[0]?.status : undefined,
    returnStatus: rs,
    evidence,
  };
}

/** Captures with one fault per item and two at a time, then one of less than authorised (the item amount). */
async function captureFaults(p: ItemProbe, ok: Successes): Promise<Batch> {
  const { s, a1, a2, x1 } = p;
  const d = s.draft;
  const unknown = (s.body('capture').capture_orders as Record<string, unknown>[])[0]!;
  const cap = await batch(s, 'capture', [
    { ...unknown },
    itemOf(a1, { amount: 'ten' }),
    itemOf(a1, { currency: otherCurrency(a1.currency) }),
    itemOf(a1, { amount: amountOf(cents(a1.amount) + 100) }),
    itemOf(x1),
    itemOf(x1, { currency: otherCurrency(x1.currency) }),
    { ...unknown, amount: 'ten' },
  ]);
  const [unknownTx, invalid, currency, overOrMismatch] = cap.results;
  note(p, 'unknownTransaction', unknownTx);
  note(p, 'invalidItem', invalid);
  note(p, 'currencyMismatch', currency);
  const capFailure = unknownTx?.status;
  if (capFailure && capFailure !== ok.capture)
    d.set('statusValues.capture_status.failure', capFailure, s.evidence(cap.x));
  const rsFailure = textAt(cap.envelope, 'return_status');
  d.set(
    'batch.envelopeOnItemFailure',
    rsFailure === ok.returnStatus ? 'success' : 'failure',
    s.evidence(cap.x, 'a batch whose items fail'),
  );
  if (rsFailure !== ok.returnStatus)
    d.set('statusValues.return_status.failure', rsFailure, s.evidence(cap.x, 'a batch whose items fail'));
  // A capture of less than authorised: the item amount is the amount to capture, or must be the payment's.
  const partial = await batch(s, 'capture', [itemOf(a2, { amount: amountOf(cents(a2.amount) - 100) })]);
  const operationAmount = partial.results[0]?.status === ok.capture;
  d.set(
    'transitions.capture.itemAmount',
    operationAmount ? 'operationAmount' : 'original',
    s.evidence(partial.x, 'a capture of one unit less than authorised'),
  );
  if (operationAmount) note(p, 'overCapture', overOrMismatch);
  else {
    note(p, 'amountMismatch', partial.results[0]);
    d.unknown(
      'batch.itemFailures.overCapture',
      "the capture amount must equal the payment's: a capture above it is an amount mismatch, so this failure never shows",
    );
  }
  return cap;
}

/** Cancels of another amount, alone and with a second fault. */
async function cancelFaults(p: ItemProbe, okCancel: string | undefined): Promise<Batch> {
  const { s, a1, x1 } = p;
  const can = await batch(s, 'cancel', [
    itemOf(a1, { amount: amountOf(cents(a1.amount) + 100) }),
    itemOf(a1, { amount: amountOf(cents(a1.amount) + 100), currency: otherCurrency(a1.currency) }),
    itemOf(x1, { amount: amountOf(cents(x1.amount) + 100) }),
    // The state's own refusal alone: the code the pair above is told apart from.
    itemOf(x1),
  ]);
  // A cancel that never succeeds refuses any item alike: its refusal names no amount mismatch.
  if (okCancel !== undefined) note(p, 'amountMismatch', can.results[0]);
  const canFailure = can.results[0]?.status;
  if (canFailure && canFailure !== okCancel)
    s.draft.set('statusValues.cancel_status.failure', canFailure, s.evidence(can.x));
  return can;
}

/** Refunds: a success (twice, for the numbering), more than refundable, and faults two at a time. */
async function refundFaults(p: ItemProbe): Promise<Batch> {
  const { s, a1, c1, x1 } = p;
  const d = s.draft;
  const over = amountOf(cents(c1.amount) + 100);
  const ref = await batch(s, 'refund', [
    itemOf(c1, { refund_amount: '1.00', refund_reason: 'discovery' }),
    itemOf(c1, { refund_amount: '1.00', refund_reason: 'discovery' }),
    itemOf(c1, { refund_amount: over, refund_reason: 'discovery' }),
    itemOf(c1, { refund_amount: over, currency: otherCurrency(c1.currency), refund_reason: 'discovery' }),
    itemOf(c1, { refund_amount: over, amount: amountOf(cents(c1.amount) + 100), refund_reason: 'discovery' }),
    itemOf(a1, { refund_amount: over, refund_reason: 'discovery' }),
    itemOf(c1, { refund_amount: over, currency: 'E', refund_reason: 'discovery' }),
    itemOf(x1, { currency: 'E', refund_amount: '1.00', refund_reason: 'discovery' }),
    itemOf(c1, {
      amount: amountOf(cents(c1.amount) + 100),
      currency: otherCurrency(c1.currency),
      refund_amount: '1.00',
      refund_reason: 'discovery',
    }),
    // The states' own refusals alone (an approved payment, a cancelled one): the codes the pairs are told apart from.
    itemOf(a1, { refund_amount: '1.00', refund_reason: 'discovery' }),
    itemOf(x1, { refund_amount: '1.00', refund_reason: 'discovery' }),
    // Ill-formed and of another amount than the payment's (an ill-formed refund_amount asks for no bound).
    itemOf(c1, { refund_amount: 'ten', amount: amountOf(cents(c1.amount) + 100), refund_reason: 'discovery' }),
  ]);
  const [r1, r2, rOver] = ref.results;
  // A refund above the remainder names its failure only where a refund of 1.00 of the same payment answered otherwise:
  // a payment a first partial refund left where no refund is allowed refuses the next ones alike, whatever the amount.
  const codeOfOver = codeOf(rOver)?.[1];
  if (codeOfOver !== undefined && ![r1, r2].some((r) => codeOf(r)?.[1] === codeOfOver)) note(p, 'overRefund', rOver);
  const first = await wholeRefund(p, ref);
  await refunds(s, first.x, first.result, r2, rOver);
  const refFailure = rOver?.status;
  const okRefund = first.result?.status;
  if (okRefund) d.set('statusValues.refund_status.success', okRefund, s.evidence(ref.x));
  if (refFailure && refFailure !== okRefund) d.set('statusValues.refund_status.failure', refFailure, s.evidence(ref.x));
  return ref;
}

/**
 * The first refund that succeeded: the refund of 1.00, or, when it was refused the way a wrong amount is, a refund
 * of the whole amount (only the whole remaining amount may be refunded: refunds.partial names the failure).
 */
async function wholeRefund(p: ItemProbe, ref: Batch): Promise<{ x: Exchange; result: ItemResult | undefined }> {
  const { s, c1 } = p;
  const [r1, r2, rOver] = ref.results;
  if (r1 && r2 && r1.status === r2.status && r1.status === rOver?.status) {
    const whole = await batch(s, 'refund', [itemOf(c1, { refund_amount: c1.amount, refund_reason: 'discovery' })]);
    const w = whole.results[0];
    if (w?.status && w.status !== r1.status) {
      const code = codeOf(r1)?.[1];
      const name = Object.entries(p.codes).find(([, v]) => v === code)?.[0] ?? 'amountMismatch';
      s.draft.set(
        'refunds.partial',
        name,
        `${s.evidence(ref.x, 'a refund of 1.00 refused')}; ${s.evidence(whole.x, 'the whole amount refunded')}`,
      );
      return { x: whole.x, result: w };
    }
  }
  return { x: ref.x, result: r1 };
}

/**
 * The order of the item checks, from the items carrying two faults: the fault whose code the item answered with is
 * checked first, told only where the two faults answer alone with two codes (a state refused with the code of a
 * refund above the remainder says nothing of their order). Stated where the pairs order every two checks (directly or
 * through a third; `unknownTransaction` placed by the format's rule), else shown as a partial finding.
 */
function checkOrderOf(p: ItemProbe, cap: Batch, can: Batch, ref: Batch): void {
  const code = (r: ItemResult | undefined) => codeOf(r)?.[1];
  const named = p.codes;
  const [, , , , stateAlone, stateCurrency, invalidUnknown] = cap.results;
  const [, , , rOverCurrency, rOverAmount, rOverState, rInvalidOver, rInvalidState, rCurrencyAmount] = ref.results;
  const refundAuthorised = ref.results[9];
  const refundCancelled = ref.results[10];
  const pairs: { a: Check; aCode?: string; b: Check; bCode?: string; r: ItemResult | undefined }[] = [
    { a: 'invalidItem', b: 'unknownTransaction', r: invalidUnknown },
    { a: 'state', aCode: code(stateAlone), b: 'currencyMismatch', r: stateCurrency },
    { a: 'currencyMismatch', b: 'amountMismatch', r: can.results[1] },
    { a: 'state', aCode: code(can.results[3]), b: 'amountMismatch', r: can.results[2] },
    { a: 'currencyMismatch', b: 'overAmount', bCode: named.overRefund, r: rOverCurrency },
    { a: 'amountMismatch', b: 'overAmount', bCode: named.overRefund, r: rOverAmount },
    { a: 'state', aCode: code(refundAuthorised), b: 'overAmount', bCode: named.overRefund, r: rOverState },
    { a: 'invalidItem', b: 'overAmount', bCode: named.overRefund, r: rInvalidOver },
    { a: 'invalidItem', b: 'state', bCode: code(refundCancelled), r: rInvalidState },
    { a: 'currencyMismatch', b: 'amountMismatch', r: rCurrencyAmount },
    // An ill-formed currency is also another currency than the payment's: which of the two is checked first.
    { a: 'invalidItem', b: 'currencyMismatch', r: rInvalidOver },
    { a: 'invalidItem', b: 'currencyMismatch', r: rInvalidState },
    { a: 'invalidItem', b: 'amountMismatch', r: ref.results[11] },
  ];
  const decided = pairs.flatMap((q) => {
    const aCode = q.aCode ?? named[q.a];
    const bCode = q.bCode ?? named[q.b];
    const c = code(q.r);
    if (!c || !aCode || !bCode || aCode === bCode) return [];
    const winner = c === aCode ? q.a : c === bCode ? q.b : undefined;
    return winner ? [{ a: q.a, b: q.b, winner }] : [];
  });
  const order = checkOrder(decided);
  const seenPairs = decided.map((q) => `${q.winner} before ${q.winner === q.a ? q.b : q.a}`);
  const evidence = `items with two faults: ${seenPairs.join(', ') || 'none told apart'}; an unknown transaction is placed as early as the ill-formed item allows (no other check can run without a transaction)`;
  const open = unorderedChecks(decided);
  if (open.length)
    p.s.draft.partial(
      'batch.checkOrder',
      `no item with two faults told which of ${open.map(([x, y]) => `${x} and ${y}`).join(', ')} is checked first: the order shown holds only the pairs told`,
      order,
      evidence,
    );
  else p.s.draft.set('batch.checkOrder', order, evidence);
}

/** Two checks (unknownTransaction aside, placed by rule) that no pair orders, directly or through others. */
export function unorderedChecks(pairs: readonly { a: Check; b: Check; winner: Check }[]): [Check, Check][] {
  const ranked = CHECKS.filter((k) => k !== 'unknownTransaction');
  const before = new Set(pairs.map((q) => `${q.winner}>${q.winner === q.a ? q.b : q.a}`));
  for (const k of ranked)
    for (const i of ranked)
      for (const j of ranked) if (before.has(`${i}>${k}`) && before.has(`${k}>${j}`)) before.add(`${i}>${j}`);
  const out: [Check, Check][] = [];
  ranked.forEach((x, n) => {
    for (const y of ranked.slice(n + 1)) if (before.has(`${x}>${y}`) === before.has(`${y}>${x}`)) out.push([x, y]);
  });
  return out;
}

/** A total order of the item checks from pairs (winner first), unknownTransaction as early as the pairs allow. */
export function checkOrder(pairs: readonly { a: Check; b: Check; winner: Check }[]): Check[] {
  const before = (x: Check, y: Check) => pairs.some((p) => p.winner === x && (p.a === y || p.b === y));
  const left = [...CHECKS];
  const out: Check[] = [];
  while (left.length) {
    const next = left.find((k) => !left.some((o) => o !== k && before(o, k))) ?? left[0]!;
    out.push(next);
    left.splice(left.indexOf(next), 1);
  }
  // No check can run on a transaction the gateway does not know: it goes right after whatever must precede it.
  const u = out.indexOf('unknownTransaction');
  out.splice(u, 1);
  const must = out.filter((k) => before(k, 'unknownTransaction'));
  const at = must.length ? Math.max(...must.map((k) => out.indexOf(k))) + 1 : 0;
  out.splice(at, 0, 'unknownTransaction');
  return out;
}

/** Refund references: the first number, whether the reference repeats it, what a failed item carries. */
async function refunds(
  s: Session,
  x: Exchange,
  first: ItemResult | undefined,
  second: ItemResult | undefined,
  failed: ItemResult | undefined,
): Promise<void> {
  const d = s.draft;
  const id = textAt(first?.result, 'refund_reference_id');
  const m = /-([0-9]{2})$/.exec(id);
  if (m) {
    d.set('refunds.referenceId.sequenceStart', Number(m[1]), s.evidence(x, `first refund ${id}`));
    const ref = textAt(first?.result, 'refund_reference');
    d.set(
      'refunds.reference',
      ref === id ? 'sameAsReferenceId' : 'opaque',
      s.evidence(x, 'refund_reference of a refund'),
    );
  } else
    d.unknown(
      'refunds.referenceId.sequenceStart',
      'the first refund carried no refund_reference_id of the form <id>-NN',
    );
  void second;
  if (failed) {
    const has = failed.result && 'refund_reference_id' in failed.result;
    d.set('refunds.referenceId.failedItems', has ? 'empty' : 'omitted', s.evidence(x, 'a failed refund item'));
  }
  const msg = /^([^:\s]+):(.*)$/.exec(first?.message ?? '');
  if (msg) {
    d.set('batch.itemSuccess.refundMessage.code', msg[1], s.evidence(x, 'a refund item that succeeded'));
    d.set('batch.itemSuccess.refundMessage.message', msg[2], s.evidence(x, 'a refund item that succeeded'));
    if (second?.message === first?.message)
      d.set('batch.itemSuccess.refundMessage.pinned', true, 'the same message on two refunds');
  }
}

export const itemsDiscoverer: Discoverer = {
  id: 'items',
  decides: [
    'batch.itemSuccess',
    'batch.checkOrder',
    'batch.envelopeOnItemFailure',
    'statusValues.capture_status.failure',
    'statusValues.cancel_status.failure',
    'statusValues.refund_status.failure',
    'statusValues.return_status',
    'transitions.capture.itemAmount',
    'refunds',
  ],
  after: ['payments'],
  run,
};
