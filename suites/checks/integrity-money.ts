/**
 * The integrity family's money bounds over the whole run: every capture and refund the gateway accepted, whatever
 * probe sent it, booked on its payment by the rules of suites/money.ts (the same the deep probe books its generated
 * cases by). A payment is judged only where the ledger holds everything done on it: no exchange dropped, every item
 * on it answered.
 */
import type { CheckContext, NotApplicable } from '../../core/model.js';
import { batchTransition } from '../../core/spec/operations.js';
import type { Report } from '../findings.js';
import { defineCheck } from '../findings.js';
import { type ItemEntry, type Ledger, type PaymentEntry, itemsOn } from '../ledger.js';
import { afterAuthorise, bookedAmount, openedBook } from '../ledger-state.js';
import { MONEY_BREACH_REQUIREMENT, type MoneyBook, type MoneyBreach, bookAccepted, inUnits } from '../money.js';
import { operationOf } from '../observe.js';
import { runLedger } from '../probes/integrity.js';
import { withLedger } from './integrity.js';

/** An accepted item that broke a bound, with the book after it and the accepted items on the payment before it. */
interface Crossing {
  payment: PaymentEntry;
  item: ItemEntry;
  breach: MoneyBreach;
  book: MoneyBook;
  before: ItemEntry[];
}

/** The items of a payment the ledger can book, in answer order; undefined when one of them was never answered. */
function bookable(ledger: Ledger, payment: PaymentEntry): ItemEntry[] | undefined {
  const items = itemsOn(ledger, payment.transactionId).sort((a, b) => a.entry.seq - b.entry.seq);
  return items.some((i) => !i.entry.exchange.response) ? undefined : items;
}

/** Every accepted item of the run that broke a money bound on its payment (one per item). */
function crossings(ledger: Ledger, ctx: CheckContext): Crossing[] {
  const out: Crossing[] = [];
  for (const payment of ledger.paymentById.values()) {
    const born = afterAuthorise(ctx, payment);
    const items = born ? bookable(ledger, payment) : undefined;
    if (!born || !items) continue;
    const book = openedBook(ctx, payment, born);
    const before: ItemEntry[] = [];
    for (const item of items) {
      // A request that did not authenticate is unauthenticatedNeverCarriedOut's; a refused item books nothing.
      const transition = batchTransition(ctx.spec, item.operation);
      if (!item.entry.authenticated || !item.succeeded || !transition) continue;
      const breach = bookAccepted(book, transition, bookedAmount(ctx, item, payment));
      if (breach) out.push({ payment, item, breach, book: { ...book }, before: [...before] });
      before.push(item);
    }
  }
  return out;
}

/** Report each crossing of `breaches` on the operation judged. */
function reportCrossings(
  ledger: Ledger,
  ctx: CheckContext,
  operation: string,
  breaches: readonly MoneyBreach[],
  report: Report,
): NotApplicable | undefined {
  // Beyond its cap the ledger no longer holds every item on a payment: a bound could only be judged on a part.
  if (ledger.dropped > 0)
    return { notApplicable: `not judged: the run's ledger dropped ${ledger.dropped} exchanges beyond its cap` };
  const batch = operationOf(ctx.spec, operation as ItemEntry['operation']).batch;
  if (!batch) return undefined;
  for (const c of crossings(ledger, ctx)) {
    if (c.item.operation !== operation || !breaches.includes(c.breach)) continue;
    const { book, payment } = c;
    const at = `/${batch.orders}/${c.item.index}`;
    const base = {
      code: 'LEDGER_DISAGREES' as const,
      requirement: MONEY_BREACH_REQUIREMENT[c.breach],
      exchange: c.item.entry.exchange,
      also: [payment.entry.exchange, ...c.before.map((i) => i.entry.exchange)],
      pointer: `${at}/${batch.status}`,
    };
    if (c.breach === 'overCapture')
      report({
        ...base,
        expected: `captures of ${payment.transactionId} adding up to at most its authorised ${String(payment.amount)}`,
        received: `a capture accepted, bringing the captured amount to ${inUnits(book.capturedCents)}`,
      });
    else if (c.breach === 'overRefund')
      report({
        ...base,
        expected: `refunds of ${payment.transactionId} adding up to at most what the gateway captured, ${inUnits(book.capturedCents)}`,
        received: `a refund accepted, bringing the refunded amount to ${inUnits(book.refundedCents)}`,
      });
    else
      report({
        ...base,
        expected: `no capture of ${payment.transactionId}, which the gateway acknowledged cancelled earlier in the run`,
        received: 'a capture accepted',
      });
  }
  return undefined;
}

export const capturesStayWithinAuthorisation = defineCheck({
  id: 'capturesStayWithinAuthorisation',
  family: 'integrity',
  probe: runLedger,
  operations: { requirement: 'PAGI-INV-002' },
  requirements: ['PAGI-INV-002', 'PAGI-CNL-002'],
  description:
    'Over the whole run, the captures the gateway accepted on a payment add up to at most its authorised amount, and none follows a cancel it accepted.',
  verify: withLedger((ledger, o, ctx, report) =>
    reportCrossings(ledger, ctx, o.operation, ['overCapture', 'captureAfterCancel'], report),
  ),
});

export const refundsStayWithinCapture = defineCheck({
  id: 'refundsStayWithinCapture',
  family: 'integrity',
  probe: runLedger,
  operations: { requirement: 'PAGI-INV-001' },
  requirements: ['PAGI-INV-001'],
  description:
    'Over the whole run, the refunds the gateway accepted on a payment add up to at most what it captured (the payment’s amount when it was captured at once).',
  verify: withLedger((ledger, o, ctx, report) => reportCrossings(ledger, ctx, o.operation, ['overRefund'], report)),
});
