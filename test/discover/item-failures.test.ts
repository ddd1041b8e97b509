/**
 * Naming item failures (discover/discoverers/lifecycle.ts `nameFailures`): a failure is told by its code and its
 * message together. A refusal whose code a failure named by a dedicated item has, but whose message is another, is
 * another failure sharing that code (named by the states that answered it); a code two named failures share is the one
 * whose message the refusal carries, or left undecided.
 */
import { describe, expect, it } from 'vitest';
import type { ItemOutcome } from '../../discover/context.js';
import { checkOrder, unorderedChecks } from '../../discover/discoverers/items.js';
import { nameFailures } from '../../discover/discoverers/lifecycle.js';

const refused = (state: ItemOutcome['state'], code: string, message: string): ItemOutcome => ({
  op: 'capture',
  state,
  ok: false,
  code,
  message,
  evidence: `capture of a payment ${state}`,
});

describe('item failures named by code and message', () => {
  it('names a state refusal sharing a dedicated failure code by its states, not after the dedicated failure', () => {
    const tried = [refused('captured', 'B08', 'Captured'), refused('refunded', 'B08', 'Captured')];
    const names = nameFailures(tried, { overRefund: 'B08' }, { overRefund: ['Refund too large'] }, {});
    expect(names.nameOf(tried[0]!)).toBe('alreadyCaptured');
    expect(names.nameOf({ code: 'B08', message: 'Refund too large' })).toBe('overRefund');
    expect(names.codes.get('alreadyCaptured')).toBe('B08');
    expect(names.messages.get('alreadyCaptured')).toEqual(['Captured', 'Captured']);
  });

  it('keeps naming by code alone where no other failure has the code (a message carrying a detail)', () => {
    const tried = [refused('cancelled', 'B07', 'Cancelled: T1'), refused('cancelled', 'B07', 'Cancelled: T2')];
    const names = nameFailures(tried, { overRefund: 'B06' }, { overRefund: ['Refund too large'] });
    expect(names.nameOf(tried[1]!)).toBe('cancelled');
    expect(names.messages.has('cancelled')).toBe(false);
  });

  it('tells two failures sharing a code apart by their wording, each named by the states it was refused in', () => {
    const review = (state: ItemOutcome['state']): ItemOutcome => ({
      ...refused(state, 'I0', 'Not under review'),
      op: 'review',
    });
    const tried = [
      review('authorised'),
      review('captured'),
      refused('captured', 'I0', 'Invalid state'),
      refused('declined', 'I0', 'Invalid state'),
      refused('cancelled', 'I0', 'Invalid state'),
    ];
    const names = nameFailures(tried, {});
    expect(names.nameOf(tried[0]!)).toBe('notUnderReview');
    expect(names.nameOf(tried[2]!)).toBe('invalidState');
    expect(names.messages.get('notUnderReview')).toEqual(['Not under review', 'Not under review']);
  });

  it('leaves a refusal undecided when two named failures share its code and its message is neither', () => {
    const known = { amountMismatch: 'I4', invalidState: 'I4' };
    const wording = { amountMismatch: ['Amount mismatch'], invalidState: ['Wrong state'] };
    const names = nameFailures([], known, wording);
    expect(names.nameOf({ code: 'I4', message: 'Wrong state' })).toBe('invalidState');
    expect(names.nameOf({ code: 'I4', message: 'Something else' })).toBeUndefined();
  });
});

describe('item failures named by their states: largest group first, a tied name to neither', () => {
  it('names the code most states answered invalidState, and leaves a code as large as another wanting its name unnamed', () => {
    const tried = [
      refused('authorised', 'E441', 'Transaction is captured'),
      refused('pendingReview', 'E449', 'Not allowed'),
      refused('declined', 'E449', 'Not allowed'),
    ];
    const names = nameFailures(tried, {});
    expect(names.nameOf(tried[1]!)).toBe('invalidState');
    expect(names.nameOf(tried[0]!)).toBeUndefined();
    const tie = nameFailures([refused('authorised', 'E1', 'One'), refused('declined', 'E2', 'Two')], {});
    expect(tie.nameOf({ code: 'E1', message: 'One' })).toBeUndefined();
    expect(tie.nameOf({ code: 'E2', message: 'Two' })).toBeUndefined();
  });
});

describe('the order of the item checks (discover/discoverers/items.ts)', () => {
  it('names every two checks no pair orders, directly or through a third', () => {
    const total = [
      { a: 'invalidItem', b: 'currencyMismatch', winner: 'invalidItem' },
      { a: 'currencyMismatch', b: 'amountMismatch', winner: 'currencyMismatch' },
      { a: 'amountMismatch', b: 'state', winner: 'amountMismatch' },
      { a: 'state', b: 'overAmount', winner: 'state' },
    ] as const;
    expect(unorderedChecks(total)).toEqual([]);
    // No pair puts a check before an unknown transaction: it goes first.
    expect(checkOrder(total)).toEqual([
      'unknownTransaction',
      'invalidItem',
      'currencyMismatch',
      'amountMismatch',
      'state',
      'overAmount',
    ]);
    expect(unorderedChecks(total.slice(0, 3))).toEqual([
      ['invalidItem', 'overAmount'],
      ['currencyMismatch', 'overAmount'],
      ['amountMismatch', 'overAmount'],
      ['state', 'overAmount'],
    ]);
  });
});
