/**
 * The gateway's world as discovery drives it: payments made with chosen data, batch requests over them, queries of
 * their state. Each helper sends through the session (signed, encoded and counted like every request).
 */
import type { Exchange, OperationKey } from '../core/model.js';
import { answerOf, refusalOf, type Refusal } from './answers.js';
import { attempt, textAt, type Facts, type ItemResult, type Payment } from './context.js';

export type { ItemResult } from './context.js';
import type { Session } from './session.js';
import type { SelectingOperation } from '../core/profile/operations.js';
import type { BatchOperationKey } from '../core/spec/terms.js';

/** A direct payment's answer. */
export interface Paid {
  x: Exchange;
  refusal?: Refusal;
  /** The answer's fields (the XML `respon` children). */
  body: Record<string, unknown>;
  payment?: Payment;
}

/** Options of a direct payment. */
export interface PayOptions {
  /** Card number (default: the approving test card). */
  card?: string;
  securityCode?: string;
  /** Body fields set (undefined removes one). */
  set?: Record<string, unknown>;
  /** Leave the card fields out (a token stands for them). */
  noCard?: boolean;
}

/** A direct payment: the session's sample body, the working card fields, `options` applied. */
export async function pay(s: Session, options: PayOptions = {}): Promise<Paid> {
  const body = s.body('authoriseDirect');
  const names = Object.values(s.work.fields.card).filter((v) => typeof v === 'string') as string[];
  for (const n of names) delete body[n];
  if (!options.noCard) Object.assign(body, s.cardBody(options.card, options.securityCode));
  for (const [k, v] of Object.entries(options.set ?? {})) {
    if (v === undefined) delete body[k];
    else body[k] = v;
  }
  const r = await attempt(s, 'authoriseDirect', body);
  const answer = answerOf(r.x)?.body ?? {};
  const transactionId = textAt(answer, 'transaction_id');
  const payment: Payment | undefined =
    !r.refusal && transactionId
      ? {
          transaction_id: transactionId,
          order_no: String(body.order_no),
          amount: String(body.amount),
          currency: String(body.currency),
          orderStatus: textAt(answer, 'order_status'),
          exchange: r.x,
        }
      : undefined;
  return { x: r.x, ...(r.refusal ? { refusal: r.refusal } : {}), body: answer, ...(payment ? { payment } : {}) };
}

/** The batch item of a payment for an operation (its identifiers, currency and amount; `set` applied). */
export function itemOf(p: Payment, set: Record<string, unknown> = {}): Record<string, unknown> {
  const item: Record<string, unknown> = {
    transaction_id: p.transaction_id,
    order_no: p.order_no,
    currency: p.currency,
    amount: p.amount,
  };
  for (const [k, v] of Object.entries(set)) {
    if (v === undefined) delete item[k];
    else item[k] = v;
  }
  return item;
}

/** One result item of a batch answer. */
/** A batch request over items; its refusal, or each item's result (in request order). */
export async function batch(
  s: Session,
  op: BatchOperationKey,
  items: Record<string, unknown>[],
): Promise<{ x: Exchange; refusal?: Refusal; envelope: Record<string, unknown>; results: ItemResult[] }> {
  const spec = s.spec.operations.get(op)!.batch!;
  const body = { ...s.body(op), [spec.orders]: items };
  const r = await attempt(s, op, body);
  const envelope = answerOf(r.x)?.body ?? {};
  const list = Array.isArray(envelope[spec.orders]) ? (envelope[spec.orders] as Record<string, unknown>[]) : [];
  // Each result is its item's by transaction_id (rule 1 of the batch envelope), by position when none matches.
  const results = items.map((item, i) => {
    const byId = list.filter((r) => r && r.transaction_id === item.transaction_id);
    const result = (byId.length === 1 ? byId[0] : list[i]) ?? {};
    return { item, status: textAt(result, spec.status), message: textAt(result, spec.message), result };
  });
  return { x: r.x, ...(r.refusal ? { refusal: r.refusal } : {}), envelope, results };
}

/** The selecting field of the query discovery uses (transaction_id until the selection row knows better). */
export function selectingField(s: Session, op: SelectingOperation): string {
  const fields = s.draft.get<string[]>(`selection.${op}.fields`) ?? s.selecting[op];
  return fields?.includes('transaction_id') ? 'transaction_id' : (fields?.[0] ?? 'transaction_id');
}

/** A value of a selecting field that matches no record (the `i`-th of several distinct ones). */
export function unmatchedValue(field: string, i = 0): string {
  if (field === 'order_no') return i ? `PAGI-DISCOVERY-NONE-${i}` : 'PAGI-DISCOVERY-NONE';
  return `T${String(i).padStart(13, '0')}`;
}

/**
 * Query payments by transaction id; the order records by transaction id. Before the selection row has found how a
 * query lists several values, each payment is queried alone: a separator guessed would select nothing.
 */
export async function query(
  s: Session,
  payments: readonly Payment[],
): Promise<{ x: Exchange; records: Map<string, Record<string, unknown>> }> {
  const field = selectingField(s, 'retrievalTrans');
  const separator = s.draft.get<string>('selection.retrievalTrans.listSeparator');
  const values = payments.map((p) => (field === 'order_no' ? p.order_no : p.transaction_id));
  const lists = separator === undefined && values.length > 1 ? values.map((v) => [v]) : [values];
  const records = new Map<string, Record<string, unknown>>();
  let x: Exchange | undefined;
  for (const list of lists) {
    const r = await attempt(s, 'retrievalTrans', { ...s.body('retrievalTrans'), [field]: list.join(separator ?? ',') });
    x = r.x;
    const found = answerOf(r.x)?.body?.orders_list;
    if (Array.isArray(found))
      for (const rec of found as Record<string, unknown>[]) {
        const id = textAt(rec, 'transaction_id');
        if (id) records.set(id, rec);
      }
  }
  return { x: x!, records };
}

/** The `payment_status` of each payment (queried together). */
export async function statusesOf(
  s: Session,
  payments: readonly Payment[],
): Promise<{ x: Exchange; status: Map<string, string> }> {
  const out = new Map<string, string>();
  // Queries carry at most 100 orders.
  let x: Exchange | undefined;
  for (let i = 0; i < payments.length; i += 100) {
    const q = await query(s, payments.slice(i, i + 100));
    x = q.x;
    for (const [id, rec] of q.records) out.set(id, textAt(rec, 'payment_status'));
  }
  return { x: x!, status: out };
}

/** Whether an operation's refusal is its answer (undefined: it did its work). */
export function refused(s: Session, op: OperationKey, x: Exchange): Refusal | undefined {
  return refusalOf(s.spec, s.work, op, x);
}

/** Facts helper: the approving payment's order status, when known. */
export function approvedStatus(facts: Facts): string | undefined {
  return facts.approved?.orderStatus;
}

/** Decimal arithmetic on interface amounts (two fractional digits), as cents. */
export function cents(amount: string): number {
  return Math.round(Number(amount) * 100);
}

/** Cents as an interface amount. */
export function amountOf(c: number): string {
  return (c / 100).toFixed(2);
}

/**
 * Act as the shopper on a page the target answered: while it holds a form whose action is on the target, submit
 * it (its inputs, the card fields when it asks for them, the button `choice` matches or the first), at most `hops`
 * times. Returns the pages in order.
 */
export async function followForms(s: Session, start: Exchange, choice: RegExp, hops = 4): Promise<Exchange[]> {
  const pages: Exchange[] = [];
  let page = start;
  for (let i = 0; i < hops; i++) {
    const d = page.response?.decoded;
    const form = d?.kind === 'html' ? d.form : undefined;
    if (!form || form.forms === 0 || !form.action) break;
    const data: Record<string, string> = { ...form.inputs };
    const card = s.cardBody();
    for (const [k, v] of Object.entries(card)) if (data[k] === '') data[k] = v;
    const button = form.autoSubmit ? undefined : (form.buttons?.find((b) => choice.test(b.value)) ?? form.buttons?.[0]);
    if (button) data[button.name] = button.value;
    page = await s.follow(new URL(form.action, page.request.url).href, data);
    pages.push(page);
    if (!page.response || page.response.status >= 400) break;
  }
  return pages;
}
