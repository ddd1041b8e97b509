/**
 * The error catalogue (`errors`): one probe per error kind (an unreadable body, a wrong signature, an invalid field,
 * too many orders, an unknown record, an unregistered address, an unknown path, another method), each operation's
 * refusal form and body format, the body templates fitted over every refusal seen, whether refusals are signed,
 * the kind of an unknown merchant and of a missing header, and the order of the checks (requests with two faults).
 * Also the address restriction (`addressRestriction`) and whether too many orders refuse the whole request
 * (`limits.overLimit.refuseWhole`).
 */
import type { OperationKey } from '../../core/model.js';
import type { ErrorKind } from '../../core/profile/load.js';
import { isRefusal, type Refusal } from '../answers.js';
import {
  attempt,
  bodyOf,
  noteKind,
  seen,
  wrongSignature,
  type Discoverer,
  type Facts,
  type SeenRefusal,
} from '../context.js';
import type { Session } from '../session.js';

export const KINDS: ErrorKind[] = [
  'badSignature',
  'invalidInput',
  'overLimit',
  'unknownRecord',
  'refusedAddress',
  'malformedBody',
  'bodyTooLarge',
  'unknownPath',
  'methodNotAllowed',
];

/** A lone UTF-16 surrogate: text that is not Unicode (an invalid field that keeps the request readable). */
export const LONE_SURROGATE = '\ud800';

export { items };

/** The words of a message before its detail (`Invalid input: amount …` → `Invalid input`). */
function head(message: string | undefined): string {
  return (message ?? '').split(/[:;,]/)[0]!.trim();
}

/**
 * Whether two refusals are one error kind: the same code, the same message (a detail after it aside) and, in the
 * same form, the same HTTP status. Two kinds sharing one code are two kinds when their status or message differ.
 */
export function sameKind(a: Refusal, b: Refusal): boolean {
  if (a.code === undefined || a.code !== b.code) return false;
  if (a.form === b.form && a.status !== b.status) return false;
  return head(a.message) === head(b.message);
}

/** The error kind a refusal is one of, told by its status, code and message together (undefined: none seen). */
export function kindOf(facts: Facts, r: Refusal | undefined): ErrorKind | undefined {
  if (!r || r.code === undefined) return undefined;
  return KINDS.find((k) => facts.kinds[k]?.some((x) => sameKind(x, r)));
}

/** Items of an operation's example, repeated to `n` (too many orders). */
function items(s: Session, op: OperationKey, n: number): unknown[] {
  const orders = s.spec.operations.get(op)!.batch!.orders;
  const one = (s.body(op)[orders] as unknown[])[0];
  return Array.from({ length: n }, () => structuredClone(one));
}

/** The refusal of a probe, recorded as `kind` when it is one (and not the answer of another kind already seen). */
export async function probe(
  s: Session,
  facts: Facts,
  kind: ErrorKind,
  op: OperationKey,
  body: Record<string, unknown>,
  options: Parameters<Session['send']>[2] = {},
): Promise<SeenRefusal | undefined> {
  const r = await attempt(s, op, body, options);
  if (!isRefusal(r.refusal)) return undefined;
  // A request whose path, method or body is not read renders no `{request.<field>}`.
  const read = !['unknownPath', 'methodNotAllowed', 'malformedBody', 'bodyTooLarge'].includes(kind);
  const x = seen(s, op, r.x, r.refusal, read ? body : {});
  const other = kindOf(facts, x);
  if (other && other !== kind) return undefined;
  noteKind(facts, kind, x);
  return x;
}

async function run(s: Session, facts: Facts): Promise<void> {
  const d = s.draft;
  const ops = [...s.spec.operations.keys()];
  // A wrong signature on a valid request of every operation: each operation's refusal form and format.
  for (const op of ops) {
    const body = s.body(op);
    if (op === 'payout') delete body.fee_paid_by; // its accepted values are the payout row's
    const r = await attempt(s, op, body, { signature: () => wrongSignature(s.work.signature.encoding) });
    if (!isRefusal(r.refusal)) continue;
    const reference = facts.wrongSignature.capture;
    facts.wrongSignature[op] = seen(s, op, r.x, r.refusal, body);
    // A gateway checking fields first may refuse a request for its fields: only the capture's refusal is sure.
    if (!reference || reference.code === r.refusal.code) noteKind(facts, 'badSignature', facts.wrongSignature[op]!);
  }
  // Invalid input: a capture with no list of orders (seen by the signature row) and an APM payment with a wrong amount.
  await probe(s, facts, 'invalidInput', 'authoriseApm', s.body('authoriseApm', { amount: 'ten' }));
  // The same fault on more operations: a kind worded otherwise per operation (errors.byOperation), a variable detail.
  await probe(s, facts, 'invalidInput', 'checkout', s.body('checkout', { currency: 'us dollars' }));
  await probe(s, facts, 'invalidInput', 'cancel', { ...s.body('cancel'), cancel_orders: 'not-a-list' });
  // An unreadable body on the shared payment path (answered as the APM payment requires: an HTTP error).
  await probe(
    s,
    facts,
    'malformedBody',
    'authoriseApm',
    {},
    {
      rawBody: '{"amount":',
      contentType: 'application/json',
      sign: false,
    },
  );
  // Unknown record: an APM payment by a method the target does not offer, twice.
  for (let i = 0; i < 2; i++)
    await probe(
      s,
      facts,
      'unknownRecord',
      'authoriseApm',
      s.body('authoriseApm', { payment_method: s.options.paymentMethods.unknown }),
    );
  // Unknown path and another method.
  for (const path of ['/v1/pagi-discovery-unknown', '/v1/captures'])
    await probe(s, facts, 'unknownPath', 'capture', s.body('capture'), { path });
  await probe(s, facts, 'methodNotAllowed', 'authoriseApm', {}, { method: 'GET', rawBody: '' });
  await probe(s, facts, 'methodNotAllowed', 'capture', {}, { method: 'GET', rawBody: '' });
  // Too many orders: one more than the limit.
  const limit = s.spec.operations.get('capture')!.batch!.maxItems;
  const over = { ...s.body('capture'), capture_orders: items(s, 'capture', limit + 1) };
  const o = await attempt(s, 'capture', over);
  if (o.refusal?.lost) {
    d.unknown('limits.overLimit.refuseWhole', `${limit + 1} orders got no answer`, undefined, s.evidence(o.x));
  } else if (o.refusal) {
    noteKind(facts, 'overLimit', seen(s, 'capture', o.x, o.refusal, over));
    const reviewLimit = s.spec.operations.get('review')!.batch!.maxItems;
    await probe(s, facts, 'overLimit', 'review', {
      ...s.body('review'),
      review_orders: items(s, 'review', reviewLimit + 1),
    });
    d.set('limits.overLimit.refuseWhole', true, s.evidence(o.x, `${limit + 1} orders`));
    // Refused in an HTTP 200 body: a query selecting too many orders may show the kind's HTTP status.
    const max = s.spec.operations.get('retrievalTrans')?.selectionLimit?.maxOrders;
    if (o.refusal.form !== 'httpError' && max) {
      const ids = Array.from({ length: max + 1 }, (_, i) => `T${String(i).padStart(10, '0')}`).join(',');
      const q = { ...s.body('retrievalTrans'), transaction_id: ids };
      const r = await attempt(s, 'retrievalTrans', q);
      if (r.refusal?.form === 'httpError' && r.refusal.code === o.refusal.code)
        noteKind(facts, 'overLimit', seen(s, 'retrievalTrans', r.x, r.refusal, q));
    }
  } else {
    const answered = (bodyOf(o.x).capture_orders as unknown[] | undefined)?.length;
    d.set('limits.overLimit.refuseWhole', false, s.evidence(o.x, `${limit + 1} orders, ${answered ?? '?'} answered`));
    d.unknown(
      'errors.kinds.overLimit',
      'too many orders are not refused (only the first ones are processed): the kind is never used',
    );
  }
  // An unknown merchant (its kind is told once every kind's code is known).
  const stranger = { ...s.body('capture'), merchant_id: 'PAGI-DISCOVERY-UNKNOWN' };
  const u = await attempt(s, 'capture', stranger);
  if (isRefusal(u.refusal)) facts.unknownMerchant = seen(s, 'capture', u.x, u.refusal, stranger);
  const again = { ...s.body('capture'), merchant_id: 'PAGI-DISCOVERY-UNKNOWN-2' };
  const w = await attempt(s, 'capture', again);
  if (isRefusal(w.refusal)) facts.unknownMerchantAgain = seen(s, 'capture', w.x, w.refusal, again);
  if (isRefusal(u.refusal) && u.refusal.form !== 'httpError') {
    const apmStranger = { ...s.body('authoriseApm'), merchant_id: 'PAGI-DISCOVERY-UNKNOWN' };
    const v = await attempt(s, 'authoriseApm', apmStranger);
    if (v.refusal?.form === 'httpError' && v.refusal.code === u.refusal.code)
      facts.unknownMerchant = seen(s, 'authoriseApm', v.x, v.refusal, apmStranger);
  }
  decideForms(s, facts, ops);
}

/** Each operation's first refusal form and its error body format; the format of an unknown path. */
function decideForms(s: Session, facts: Facts, ops: OperationKey[]): void {
  const d = s.draft;
  for (const op of ops) {
    const r = facts.wrongSignature[op] ?? facts.kinds.invalidInput?.find((x) => x.op === op);
    if (!r) {
      d.unknown(`errors.refusalForms.${op}`, `no refusal of ${op} was seen`);
      continue;
    }
    const forms: Refusal['form'][] = [r.form];
    if (op === 'authoriseDirect' && r.form !== 'httpError') forms.push('httpError');
    d.set(`errors.refusalForms.${op}`, forms, r.evidence);
    const format = r.form === 'failureType' || r.form === 'httpFailureType' ? 'json' : r.format;
    if (format === 'json' || format === 'xml' || format === 'html')
      d.set(`errors.formatByOperation.${op}`, format, r.evidence);
    else
      d.unknown(
        `errors.formatByOperation.${op}`,
        `the refusal of ${op} is neither JSON, XML nor HTML`,
        undefined,
        r.evidence,
      );
  }
  const path = facts.kinds.unknownPath?.[0];
  if (path && (path.format === 'json' || path.format === 'xml' || path.format === 'html'))
    d.set('errors.unknownOperationFormat', path.format, path.evidence);
  else d.unknown('errors.unknownOperationFormat', 'no unknown path was answered in JSON, XML or HTML');
}

export const errorsDiscoverer: Discoverer = {
  id: 'errors',
  decides: [
    'errors.formatByOperation',
    'errors.unknownOperationFormat',
    'errors.refusalForms',
    'limits.overLimit.refuseWhole',
  ],
  after: ['signature'],
  run,
};
