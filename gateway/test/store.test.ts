/**
 * The store under its caps over many evictions: the oldest record goes first whatever other records were deleted,
 * cleared or set again, and the indexes by account and by order number follow the records held.
 */
import { describe, expect, it } from 'vitest';
import { CappedMap, OldestEntry, Store, type Transaction } from '../store.js';

function txn(seq: number, orderNo: string, accountId = 'A1'): Transaction {
  return {
    transactionId: `T${seq}`,
    referenceNo: `R${seq}`,
    merchantId: 'M1',
    accountId,
    orderNo,
    currency: 'USD',
    amount: '1.00',
    amountMinor: 100n,
    state: 'authorised',
    outcome: 'approved',
    createdAt: new Date(0),
    refundedMinor: 0n,
    refunds: [],
    refundSeq: 1,
    with3ds: false,
    risk: [],
    delivery: {},
  };
}

describe('OldestEntry', () => {
  it('gives the oldest entry still held: deleted entries skipped, a key set again counts as new, empty and cleared maps start afresh', () => {
    const map = new Map<string, number>();
    const oldest = new OldestEntry(map);
    expect(oldest.peek()).toBeUndefined();
    map.set('a', 1).set('b', 2).set('c', 3);
    expect(oldest.peek()).toEqual(['a', 1]);
    map.delete('b');
    expect(oldest.peek()).toEqual(['a', 1]);
    map.delete('a');
    expect(oldest.peek()).toEqual(['c', 3]);
    map.delete('c');
    map.set('a', 4);
    expect(oldest.peek()).toEqual(['a', 4]);
    map.set('d', 5);
    map.delete('a');
    map.set('a', 6); // set again after a delete: now the newest
    expect(oldest.peek()).toEqual(['d', 5]);
    map.delete('d');
    expect(oldest.peek()).toEqual(['a', 6]);
    map.clear();
    oldest.reset();
    map.set('e', 7);
    expect(oldest.peek()).toEqual(['e', 7]);
  });

  it('CappedMap keeps the newest max keys in insertion order over many evictions, after deletes and a clear', () => {
    const capped = new CappedMap<number, number>(100);
    for (let i = 0; i < 5000; i++) {
      capped.set(i, i);
      if (i % 7 === 0) capped.delete(i - 50);
    }
    const expected = Array.from({ length: 100 }, (_, k) => 4900 + k).filter(
      (i) => !(i + 50 <= 4999 && (i + 50) % 7 === 0),
    );
    expect([...capped.keys()].slice(-expected.length)).toEqual(expected);
    expect(capped.size).toBe(100);
    capped.clear();
    for (let i = 0; i < 150; i++) capped.set(i, i);
    expect([...capped.keys()]).toEqual(Array.from({ length: 100 }, (_, k) => 50 + k));
  });
});

describe('Store under maxTransactions', () => {
  it('over thousands of evictions, the newest are held and the order-number and account indexes hold exactly them', () => {
    const store = new Store({ maxTransactions: 50, maxPayouts: 10, maxTokens: 10 });
    let seq = 0;
    const add = () => {
      seq += 1;
      store.addTransaction(txn(seq, `O${seq % 3}`, seq % 2 ? 'A1' : 'A2'));
    };
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 3000; i++) add();
      const held = Array.from({ length: 50 }, (_, k) => `T${seq - 49 + k}`);
      expect([...store.transactions.keys()]).toEqual(held);
      for (const orderNo of ['O0', 'O1', 'O2']) {
        for (const accountId of ['A1', 'A2']) {
          const want = held.filter((id) => {
            const n = Number(id.slice(1));
            return `O${n % 3}` === orderNo && (n % 2 ? 'A1' : 'A2') === accountId;
          });
          expect(store.orderTransactions('M1', accountId, orderNo).map((t) => t.transactionId)).toEqual(want);
        }
      }
      expect(store.accountTransactions('M1', 'A1').map((t) => t.transactionId)).toEqual(
        held.filter((id) => Number(id.slice(1)) % 2 === 1),
      );
      expect(store.evictions().transactions).toBe(2950 * (round + 1));
      if (round === 0) store.clear();
    }
  });
});

describe('Store: the byte budget (store.maxMiB)', () => {
  const turn = () => new Promise((r) => setImmediate(r));
  const caps = { maxTransactions: 1e6, maxPayouts: 1e6, maxTokens: 1e6, maxMiB: 1 };

  it('keeps the records within it: past it, the oldest of the kind holding the most bytes goes (after the turn)', async () => {
    const store = new Store(caps);
    const evicted: string[] = [];
    store.watcher = {
      transaction: () => undefined,
      refund: () => undefined,
      token: () => undefined,
      payout: () => undefined,
      session: () => undefined,
      cleared: () => undefined,
      evicted: (kind, key) => void evicted.push(`${kind} ${key}`),
    };
    for (let i = 0; i < 1000; i++)
      store.payouts.set(`P${i}`, { key: `P${i}`, bodyDigest: 'd', responseText: 'x'.repeat(4000) });
    for (let i = 0; i < 10; i++) store.addTransaction(txn(i, `O${i}`));
    expect(store.payouts.size).toBe(1000); // nothing evicted inside the turn
    await turn();
    expect(store.heldBytes()).toBeLessThanOrEqual(1024 * 1024);
    expect(store.payouts.size).toBeLessThan(140); // 8 KB each: about 127 fit
    expect(store.payouts.has('P999')).toBe(true);
    expect(store.payouts.has('P0')).toBe(false); // the oldest first
    expect(store.transactions.size).toBe(10); // the payouts held the most: the payments stay
    expect(store.evictions().payouts).toBe(1000 - store.payouts.size);
    expect(evicted[0]).toBe('payout P0');
  });

  it('counts what left the store otherwise (a cap, a reset), and is unbounded without maxMiB', async () => {
    const store = new Store({ ...caps, maxPayouts: 10 });
    for (let i = 0; i < 100; i++)
      store.payouts.set(`P${i}`, { key: `P${i}`, bodyDigest: 'd', responseText: 'x'.repeat(4000) });
    expect(store.heldBytes()).toBeLessThan(11 * 8200);
    store.clear();
    expect(store.heldBytes()).toBe(0);
    const unbounded = new Store({ maxTransactions: 1e6, maxPayouts: 1e6, maxTokens: 1e6 });
    for (let i = 0; i < 300; i++)
      unbounded.payouts.set(`P${i}`, { key: `P${i}`, bodyDigest: 'd', responseText: 'x'.repeat(4000) });
    await turn();
    expect(unbounded.payouts.size).toBe(300);
  });
});
