/**
 * Which orders a query and a refund search return (`selection`): the selecting fields (a transaction id, an order
 * number), the list separator (the format's short list), no selector, a value matching nothing, the order of the
 * results, and two selecting fields together. The query's records also tell `query_result`, `is3ds`,
 * `recurring_status` and the anti-fraud provider.
 */
import type { Exchange } from '../../core/model.js';
import { answerOf, isRefusal } from '../answers.js';
import { attempt, textAt, type Discoverer, type Facts, type Payment } from '../context.js';
import type { Session } from '../session.js';
import { batch, itemOf, pay, unmatchedValue } from '../world.js';
import type { SelectingOperation } from '../../core/profile/operations.js';
import { operationSet, recordSource, selectionResults } from '../../core/spec/operations.js';

type SelOp = SelectingOperation;
const SEPARATORS = [',', ';', '|', ' '];

/** A selection request and the transaction ids of the records it returned (in order), or its refusal. */
async function select(s: Session, op: SelOp, fields: Record<string, string>) {
  const body = { ...s.body(op), ...fields };
  const r = await attempt(s, op, body);
  const results = selectionResults(s.spec, op);
  const list = results === undefined ? undefined : answerOf(r.x)?.body?.[results];
  const records = Array.isArray(list) ? (list as Record<string, unknown>[]) : [];
  return { x: r.x, refusal: r.refusal, records, ids: records.map((x) => textAt(x, 'transaction_id')) };
}

async function discoverOne(s: Session, facts: Facts, op: SelOp, p1: Payment, p2: Payment): Promise<void> {
  const d = s.draft;
  const at = (k: string) => `selection.${op}.${k}`;
  const idOf = (f: string, p: Payment) => (f === 'order_no' ? p.order_no : p.transaction_id);
  // Which fields select: each alone, naming the older payment.
  const selecting: string[] = [];
  const ev: Record<string, Exchange> = {};
  for (const f of ['order_no', 'transaction_id']) {
    const r = await select(s, op, { [f]: idOf(f, p1) });
    ev[f] = r.x;
    if (r.ids.length && r.ids.every((id) => id === p1.transaction_id)) selecting.push(f);
  }
  if (!selecting.length) {
    d.unknown(
      at('fields'),
      `neither order_no nor transaction_id selected the ${op === 'retrievalTrans' ? 'payment' : 'refund'} it names`,
      undefined,
      s.evidence(ev.transaction_id!),
    );
    return;
  }
  (facts.selecting ??= {})[op] = selecting;
  s.selecting[op] = selecting;
  const field = selecting.includes('transaction_id') ? 'transaction_id' : selecting[0]!;
  // The separator of a list of values.
  let separator: string | undefined;
  let both: Awaited<ReturnType<typeof select>> | undefined;
  for (const sep of SEPARATORS) {
    const r = await select(s, op, { [field]: `${idOf(field, p1)}${sep}${idOf(field, p2)}` });
    if (r.ids.includes(p1.transaction_id) && r.ids.includes(p2.transaction_id)) {
      separator = sep;
      both = r;
      break;
    }
  }
  if (separator !== undefined) {
    d.set(at('listSeparator'), separator, s.evidence(both!.x, 'two values, both returned'));
    const newest = both!.ids.indexOf(p2.transaction_id) < both!.ids.indexOf(p1.transaction_id);
    d.set(
      at('resultOrder'),
      newest ? 'newestFirst' : 'listOrder',
      s.evidence(both!.x, 'the older payment named first'),
    );
  } else {
    d.unknown(
      at('listSeparator'),
      `none of ${SEPARATORS.map((x) => JSON.stringify(x)).join(', ')} separated two values`,
    );
    d.unknown(at('resultOrder'), 'no list of two values was answered: the order of the results no probe saw');
  }
  // No selector.
  const none = await select(s, op, {});
  if (none.refusal) d.set(at('whenAbsent'), 'refuse', s.evidence(none.x, 'no selecting field'));
  else d.set(at('whenAbsent'), 'latest', s.evidence(none.x, 'no selecting field'));
  // A value matching nothing, alone and with one that matches.
  const unknownValue = unmatchedValue(field);
  const alone = await select(s, op, { [field]: unknownValue });
  if (alone.refusal) {
    d.set(at('unmatched'), 'unknownRecordIfNone', s.evidence(alone.x, 'a value matching nothing'));
    if (isRefusal(alone.refusal))
      facts.unmatchedRefusal = { ...alone.refusal, evidence: s.evidence(alone.x), op, request: {} };
  } else if (alone.records.length) {
    d.set(at('unmatched'), 'failureItem', s.evidence(alone.x, 'a value matching nothing'));
    const nf = textAt(alone.records[0], 'query_result');
    if (op === 'retrievalTrans' && nf)
      d.set('statusValues.query_result.notFound', nf, s.evidence(alone.x, 'the item of a value matching nothing'));
  } else d.set(at('unmatched'), 'skip', s.evidence(alone.x, 'a value matching nothing'));
  // Two selecting fields: union or intersection, and which field's records come first.
  if (selecting.length === 2) {
    const r = await select(s, op, { transaction_id: p1.transaction_id, order_no: p2.order_no });
    const hasBoth = r.ids.includes(p1.transaction_id) && r.ids.includes(p2.transaction_id);
    d.set(
      at('combine'),
      hasBoth ? 'union' : 'intersection',
      s.evidence(r.x, 'transaction_id of one payment, order_no of another'),
    );
    const listOrder = d.get<string>(at('resultOrder')) === 'listOrder';
    if (hasBoth && listOrder) {
      const first = r.ids[0] === p1.transaction_id ? 'transaction_id' : 'order_no';
      d.set(
        at('fields'),
        [first, first === 'order_no' ? 'transaction_id' : 'order_no'],
        s.evidence(r.x, "the first field's records come first"),
      );
    } else
      d.unknown(
        at('fields'),
        'both fields select; the order they are listed in shows only in a union in list order, which this gateway does not give',
        ['order_no', 'transaction_id'],
        s.evidence(ev.transaction_id!),
      );
  } else {
    d.set(at('fields'), selecting, `${selecting.join(' and ')} selects: ${s.evidence(ev[selecting[0]!]!)}`);
    d.unknown(at('combine'), 'one field selects: how two combine no probe can tell');
  }
}

/** What query records tell: found, 3-D Secure with and without, recurring success and failure, the provider. */
async function records(s: Session, facts: Facts, with3ds: Payment, without3ds: Payment): Promise<void> {
  const d = s.draft;
  const field = d.get<string[]>('selection.retrievalTrans.fields')?.includes('transaction_id')
    ? 'transaction_id'
    : 'order_no';
  const sep = d.get<string>('selection.retrievalTrans.listSeparator') ?? ',';
  const ps = [with3ds, without3ds, ...(facts.declined ? [facts.declined] : [])];
  const value = ps.map((p) => (field === 'order_no' ? p.order_no : p.transaction_id)).join(sep);
  const r = await select(s, 'retrievalTrans', { [field]: value });
  const rec = (p: Payment) => r.records.find((x) => textAt(x, 'transaction_id') === p.transaction_id);
  const a = rec(with3ds);
  const b = rec(without3ds);
  const ev = s.evidence(r.x);
  if (!a) {
    d.unknown('statusValues.query_result', 'the query returned no record of a known payment', undefined, ev);
    return;
  }
  d.set('statusValues.query_result.found', textAt(a, 'query_result'), ev);
  d.set('statusValues.is3ds.with3ds', textAt(a, 'is3ds'), `${ev} (a payment asking for 3-D Secure)`);
  if (b) d.set('statusValues.is3ds.without3ds', textAt(b, 'is3ds'), `${ev} (a payment without open3d)`);
  const provider = textAt(a, 'antifraud_provider');
  if (provider) d.set('payments.risk.provider', provider, ev);
  const rs = (x: Record<string, unknown> | undefined) =>
    textAt(x?.subscription_result as Record<string, unknown> | undefined, 'recurring_status');
  if (rs(a))
    d.set('statusValues.recurring_status.success', rs(a), `${ev} (an approved payment with subscription terms)`);
  const dec = facts.declined && rec(facts.declined);
  if (rs(dec))
    d.set('statusValues.recurring_status.failure', rs(dec), `${ev} (a declined payment with subscription terms)`);
}

async function run(s: Session, facts: Facts): Promise<void> {
  const made: Payment[] = [];
  for (let i = 0; i < 4; i++) {
    const p = await pay(s, i === 3 ? { set: { open3d: undefined } } : {});
    if (p.payment) made.push(p.payment);
  }
  if (made.length < 4) {
    s.draft.unknown('selection', 'payments to select could not be made');
    return;
  }
  const [p1, p2, p3, p4] = made as [Payment, Payment, Payment, Payment];
  // The spec's selections: those returning payments (the query) first, then those returning refunds (the refund search).
  const selecting = operationSet(s.spec, 'selecting') as SelOp[];
  for (const op of selecting.filter((o) => recordSource(s.spec, o) === undefined))
    await discoverOne(s, facts, op, p1, p2);
  await records(s, facts, p1, p4);
  const refundSearches = selecting.filter((o) => recordSource(s.spec, o) === 'refund');
  if (!refundSearches.length) return;
  // Refunds to search: two captured payments refunded in part.
  await batch(s, 'capture', [itemOf(p2), itemOf(p3)]);
  // One after the other: two refunds of one instant would not tell newest first from list order.
  await batch(s, 'refund', [itemOf(p2, { refund_amount: '1.00', refund_reason: 'discovery' })]);
  await new Promise((resolve) => setTimeout(resolve, 20));
  await batch(s, 'refund', [itemOf(p3, { refund_amount: '1.00', refund_reason: 'discovery' })]);
  for (const op of refundSearches) await discoverOne(s, facts, op, p2, p3);
}

export const selectionDiscoverer: Discoverer = {
  id: 'selection',
  decides: [
    'selection',
    'statusValues.query_result',
    'statusValues.is3ds',
    'statusValues.recurring_status',
    'payments.risk.provider',
  ],
  after: ['payments'],
  run,
};
