import { describe, expect, it } from 'vitest';
import { decode, encode, encodeText, transactionText } from '../persist-codec.js';
import type { Transaction } from '../store.js';

describe('persist-codec: the text of a row', () => {
  const payment = {
    transactionId: 'T1',
    amountMinor: 11189n,
    capturedMinor: undefined,
    refundedMinor: 0n,
    createdAt: new Date('2026-12-02T15:03:49.600Z'),
    refunds: [{ referenceId: 'T1-R1', amountMinor: 100n, at: new Date('2026-12-03T00:00:00.000Z') }],
    risk: [{ name: 'amount_threshold', passed: true }, undefined],
    delivery: { delivery_city: 'San Francisco' },
    subscription: { period: '30', nextDeduction: new Date('2027-01-01T00:00:00.000Z') },
    note: 'a "quoted" value with a \u2028 separator and \\ backslash',
    $big: 'a field named like a tag, beside others',
  };

  it('encodeText is the text of encode, in one pass (bigints and dates tagged, undefined left out)', () => {
    expect(encodeText(payment)).toBe(JSON.stringify(encode(payment)));
    const read = decode(JSON.parse(encodeText(payment))) as typeof payment;
    expect(read.amountMinor).toBe(11189n);
    expect(read.subscription.nextDeduction).toEqual(payment.subscription.nextDeduction);
  });

  it('a transaction is written without its refunds (they are rows of their own)', () => {
    const text = transactionText(payment as unknown as Transaction);
    expect(text).toBe(JSON.stringify(encode({ ...payment, refunds: [] })));
    expect((decode(JSON.parse(text)) as Transaction).amountMinor).toBe(11189n);
  });
});
