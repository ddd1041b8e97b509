/**
 * The state a payment is in after what the gateway acknowledged: its authorisation's result, then every batch item
 * on it that succeeded, moved as the profile's transitions say; a refused or unauthenticated request moves nothing.
 * Undefined wherever the ledger cannot tell (an answer it did not read, an item still in flight, a value the profile
 * does not map).
 */
import type { CheckContext } from '../core/model.js';
import { FIELD } from './fields.js';
import { type ItemEntry, type Ledger, type PaymentEntry, itemsOn } from './ledger.js';
import { type MoneyBook, bookAccepted, openBook } from './money.js';
import { hundredths } from './observe.js';

/** The acknowledged state of a payment at a time, and the items it rests on. */
export interface AcknowledgedState {
  state: string;
  /** The items on the payment answered before that time, in answer order. */
  items: ItemEntry[];
}

/** The state the profile gives a payment after its authorisation, from the answer's order_status. */
export function afterAuthorise(ctx: CheckContext, payment: PaymentEntry): string | undefined {
  const results = ctx.profile.statusValues.order_status as Record<string, string>;
  const result = Object.entries(results).find(([, v]) => v === payment.orderStatus)?.[0];
  return result ? (ctx.profile.transitions.afterAuthorise as Record<string, string>)[result] : undefined;
}

/** Amount of an item in hundredths, or the payment's when the profile's item amount is the original one. */
function itemAmount(item: ItemEntry, payment: PaymentEntry, field: string): number | undefined {
  return hundredths(item.item[field]) ?? hundredths(payment.amount);
}

/**
 * A payment's book before its items (suites/money.ts): captured at its amount when the state its authorisation left it
 * in is one refunds start from.
 */
export function openedBook(ctx: CheckContext, payment: PaymentEntry, born: string): MoneyBook {
  const captured = (ctx.profile.transitions.refund.from as readonly string[]).includes(born);
  return openBook(payment.transactionId, hundredths(payment.amount), { captured });
}

/** The amount in hundredths one accepted item books: a capture's as the profile's item amount says, a refund's own. */
export function bookedAmount(ctx: CheckContext, i: ItemEntry, payment: PaymentEntry): number | undefined {
  if (i.operation === 'capture')
    return ctx.profile.transitions.capture.itemAmount === 'operationAmount'
      ? itemAmount(i, payment, FIELD.amount)
      : hundredths(payment.amount);
  if (i.operation === 'refund') return hundredths(i.item[FIELD.refundAmount]);
  return undefined;
}

/** The state one succeeded item moves a payment to, or undefined when the profile does not say. */
function moved(ctx: CheckContext, i: ItemEntry, payment: PaymentEntry, money: MoneyBook): string | undefined {
  const t = ctx.profile.transitions;
  if (i.operation === 'capture') {
    bookAccepted(money, 'capture', bookedAmount(ctx, i, payment) ?? 0);
    return t.capture.to;
  }
  if (i.operation === 'cancel') {
    bookAccepted(money, 'cancel', undefined);
    return t.cancel.to;
  }
  if (i.operation === 'review') {
    const flag = i.item[FIELD.reviewFlag];
    const r = ctx.profile.review;
    return flag === r.approve.flag ? r.approve.to : flag === r.reject.flag ? r.reject.to : undefined;
  }
  if (i.operation === 'refund') {
    const amount = bookedAmount(ctx, i, payment);
    if (amount === undefined) return undefined;
    bookAccepted(money, 'refund', amount);
    const base = money.capturedCents || hundredths(payment.amount) || 0;
    return money.refundedCents >= base ? t.refund.toFull : t.refund.toPartial;
  }
  return undefined;
}

/**
 * The state the gateway acknowledged for a payment before `at` (the worker's clock), or undefined when the ledger
 * cannot tell: an item on it in flight at `at`, an answer not read, a value the profile does not map.
 */
export function acknowledgedState(
  ctx: CheckContext,
  ledger: Ledger,
  payment: PaymentEntry,
  at: number,
): AcknowledgedState | undefined {
  let state = afterAuthorise(ctx, payment);
  if (!state || payment.entry.answeredAt > at) return undefined;
  // The book starts empty here: the base of a refund is what was captured, or the payment's amount (as before).
  const money = openBook(payment.transactionId, hundredths(payment.amount));
  const items: ItemEntry[] = [];
  for (const i of itemsOn(ledger, payment.transactionId)) {
    if (i.entry.answeredAt <= at) items.push(i);
    else if (i.entry.sentAt < at) return undefined;
  }
  items.sort((a, b) => a.entry.seq - b.entry.seq);
  for (const i of items) {
    const x = i.entry.exchange;
    if (!x.response) return undefined; // unanswered: whether it was done cannot be told
    if (!i.entry.authenticated || !i.succeeded) continue;
    const next = moved(ctx, i, payment, money);
    if (!next) return undefined;
    state = next;
  }
  return { state, items };
}
