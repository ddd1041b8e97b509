/**
 * The run's ledger as the integrity checks read it: the engine's entries (engine/ledger.ts) typed by what they are
 * about — payments, batch items, refunds, payouts, query and refund-search records, notifications — with the names of
 * the spec and the values of the profile. Built once per check run from the entries; pure.
 */
import type { CheckContext, Exchange, LedgerEntry, OperationKey, RunLedgerView } from '../core/model.js';
import { FIELD } from './fields.js';
import { batchItems, batchResults, isObject, itemSucceeded, operationOf, responseObject } from './observe.js';

/** A payment the gateway answered with a transaction id. */
export interface PaymentEntry {
  transactionId: string;
  orderNo: string;
  merchantId: unknown;
  accountId: unknown;
  amount: unknown;
  currency: unknown;
  orderStatus: unknown;
  /** Merchant, account, order, amount and currency are the request's (what the payment was made with). */
  /** The whole answer (every field the ledger holds of it). */
  answer: Record<string, unknown>;
  /** The request as sent (card fields included: never quoted). */
  request: Record<string, unknown>;
  entry: LedgerEntry;
}

/** One item of a batch request with the result that answered it. */
export interface ItemEntry {
  operation: OperationKey;
  index: number;
  item: Record<string, unknown>;
  result?: Record<string, unknown>;
  /** The result reports success (the profile's success value of the operation's status field). */
  succeeded: boolean;
  entry: LedgerEntry;
}

/** A payout the gateway answered. */
export interface PayoutEntry {
  requestId: unknown;
  transactionId?: string;
  answer: Record<string, unknown>;
  request: Record<string, unknown>;
  entry: LedgerEntry;
}

/** A record of a query (`orders_list`) or refund search (`refund_orders`) answer. */
export interface RecordEntry {
  operation: OperationKey;
  index: number;
  record: Record<string, unknown>;
  entry: LedgerEntry;
}

/** A notification the kit received, with its body. */
export interface NotificationEntry {
  exchange: Exchange;
  body: Record<string, unknown>;
}

/** The ledger, typed. */
export interface Ledger {
  payments: PaymentEntry[];
  /** Payments by transaction id (the first payment answered with it). */
  paymentById: Map<string, PaymentEntry>;
  items: ItemEntry[];
  payouts: PayoutEntry[];
  records: RecordEntry[];
  notifications: NotificationEntry[];
  /** Entries whose request did not authenticate. */
  unauthenticated: LedgerEntry[];
  dropped: number;
}

/** The object a request sent (the structured body), when it has one. */
export function requestOf(entry: LedgerEntry): Record<string, unknown> {
  const body = entry.exchange.request.body;
  return isObject(body) ? body : {};
}

/** Whether the gateway answered with 200 and a body the kit decoded. */
export function answered(entry: LedgerEntry): boolean {
  return entry.exchange.response?.status === 200;
}

/** A non-empty string value, or undefined. */
export const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function addPayment(ledger: Ledger, entry: LedgerEntry, answer: Record<string, unknown>): void {
  // What the kit sent is what the payment was made with; the answer's echo of it is judged by the echo checks.
  const sent = requestOf(entry);
  const transactionId = str(answer[FIELD.transactionId]);
  const orderNo = str(sent[FIELD.orderNo]) ?? str(answer[FIELD.orderNo]);
  if (!transactionId || !orderNo) return;
  const payment: PaymentEntry = {
    transactionId,
    orderNo,
    merchantId: sent[FIELD.merchantId] ?? answer[FIELD.merchantId],
    accountId: sent[FIELD.accountId] ?? answer[FIELD.accountId],
    amount: sent[FIELD.amount] ?? answer[FIELD.amount],
    currency: sent[FIELD.currency] ?? answer[FIELD.currency],
    orderStatus: answer[FIELD.orderStatus],
    answer,
    request: requestOf(entry),
    entry,
  };
  ledger.payments.push(payment);
  if (!ledger.paymentById.has(transactionId)) ledger.paymentById.set(transactionId, payment);
}

function addItems(ctx: CheckContext, ledger: Ledger, entry: LedgerEntry, answer: Record<string, unknown> | undefined) {
  const op = entry.operation;
  const results = batchResults(ctx.spec, op, answer) ?? [];
  batchItems(ctx.spec, op, requestOf(entry)).forEach((item, index) => {
    const result = results.find(
      (r) => r[FIELD.transactionId] === item[FIELD.transactionId] && r[FIELD.orderNo] === item[FIELD.orderNo],
    );
    ledger.items.push({
      operation: op,
      index,
      item,
      ...(result ? { result } : {}),
      succeeded: answered(entry) && itemSucceeded(ctx, op, result),
      entry,
    });
  });
}

function addRecords(ledger: Ledger, entry: LedgerEntry, answer: Record<string, unknown> | undefined, field: string) {
  const list = answer?.[field];
  if (!Array.isArray(list)) return;
  list.forEach((record, index) => {
    if (isObject(record)) ledger.records.push({ operation: entry.operation, index, record, entry });
  });
}

/** The ledger of a run, typed for the checks. */
export function ledgerOf(view: RunLedgerView | undefined, ctx: CheckContext): Ledger {
  const ledger: Ledger = {
    payments: [],
    paymentById: new Map(),
    items: [],
    payouts: [],
    records: [],
    notifications: [],
    unauthenticated: [],
    dropped: view?.dropped ?? 0,
  };
  for (const entry of view?.entries ?? []) {
    if (!entry.authenticated) ledger.unauthenticated.push(entry);
    const answer = responseObject(entry.exchange, ctx.spec);
    const model = operationOf(ctx.spec, entry.operation);
    if (model.batch) addItems(ctx, ledger, entry, answer);
    else if (entry.operation === 'retrievalTrans') addRecords(ledger, entry, answer, FIELD.ordersList);
    else if (entry.operation === 'retrievalRefund') addRecords(ledger, entry, answer, FIELD.refundOrders);
    else if (entry.operation === 'payout' && answer && answered(entry))
      ledger.payouts.push({
        requestId: requestOf(entry)[FIELD.requestId],
        ...(str(answer[FIELD.transactionId]) ? { transactionId: str(answer[FIELD.transactionId]) } : {}),
        answer,
        request: requestOf(entry),
        entry,
      });
    else if (entry.operation === 'authoriseDirect' && answer && answered(entry) && entry.authenticated)
      addPayment(ledger, entry, answer);
  }
  for (const n of view?.notifications ?? []) {
    const body = n.exchange.request.body;
    if (isObject(body)) ledger.notifications.push({ exchange: n.exchange, body });
  }
  return ledger;
}

/** The items of successful results about one transaction, of one operation. */
export function succeededItems(ledger: Ledger, op: OperationKey, transactionId: string): ItemEntry[] {
  return ledger.items.filter((i) => i.operation === op && i.succeeded && i.item[FIELD.transactionId] === transactionId);
}

/** The entries of a ledger that act on a transaction (batch items naming it), in answer order. */
export function itemsOn(ledger: Ledger, transactionId: string): ItemEntry[] {
  return ledger.items.filter((i) => i.item[FIELD.transactionId] === transactionId);
}
