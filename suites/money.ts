/**
 * One payment's money as the gateway acknowledged it, in hundredths, and the rules no accepted item may break on it:
 * a capture never takes more than the authorisation (PAGI-INV-002), refunds never add up to more than the capture
 * (PAGI-INV-001), a cancelled payment is never captured (PAGI-CNL-002). The run's ledger (suites/ledger-state.ts, read
 * by the integrity family) and the deep probe's generated cases (suites/probes/deep-generator.ts) book their accepted
 * items here, by the same rules. Pure.
 */
import type { BatchTransition } from '../core/spec/terms.js';

/** What the gateway acknowledged of one payment's money, in hundredths. */
export interface MoneyBook {
  transactionId: string;
  /** The amount authorised; undefined when the ledger does not know it. */
  authorisedCents: number | undefined;
  capturedCents: number;
  refundedCents: number;
  cancelled: boolean;
}

/** A rule an accepted item broke: which of the book's bounds it crossed. */
export type MoneyBreach = 'overCapture' | 'overRefund' | 'captureAfterCancel';

/** The requirement each breach contradicts. */
export const MONEY_BREACH_REQUIREMENT: Readonly<Record<MoneyBreach, string>> = {
  overCapture: 'PAGI-INV-002',
  overRefund: 'PAGI-INV-001',
  captureAfterCancel: 'PAGI-CNL-002',
};

/** A payment's book before any item: captured at its amount when it starts in a state refunds start from. */
export function openBook(
  transactionId: string,
  authorisedCents: number | undefined,
  start: { captured?: boolean; cancelled?: boolean } = {},
): MoneyBook {
  return {
    transactionId,
    authorisedCents,
    capturedCents: start.captured ? (authorisedCents ?? 0) : 0,
    refundedCents: 0,
    cancelled: start.cancelled ?? false,
  };
}

/**
 * Book one item the gateway accepted (`cents`: the item's amount; undefined: the whole payment for a capture, nothing
 * for a refund) and name the first rule the book then breaks, if any.
 */
export function bookAccepted(
  book: MoneyBook,
  transition: BatchTransition,
  cents: number | undefined,
): MoneyBreach | undefined {
  if (transition === 'cancel') book.cancelled = true;
  if (transition === 'capture') {
    book.capturedCents += cents ?? book.authorisedCents ?? 0;
    if (book.cancelled) return 'captureAfterCancel';
    if (book.authorisedCents !== undefined && book.capturedCents > book.authorisedCents) return 'overCapture';
  }
  if (transition === 'refund') {
    book.refundedCents += cents ?? 0;
    if (book.refundedCents > book.capturedCents) return 'overRefund';
  }
  return undefined;
}

/** An amount in hundredths as words (`10.36`). */
export function inUnits(cents: number): string {
  return (cents / 100).toFixed(2);
}
