/**
 * The discoverer table runs each row as soon as the rows it reads have finished (discover/index.ts): a slow row (the
 * notification waits) never holds back rows that do not read it, and a row whose reading row stopped is not run.
 */
import { describe, expect, it } from 'vitest';
import type { Discoverer } from '../../discover/context.js';
import { discoverProfile } from '../../discover/index.js';

const options = {
  baseUrl: 'http://127.0.0.1:9',
  merchantId: 'M',
  accountId: 'A',
  secret: 'not-a-secret-of-anything',
  transport: { timeoutMs: 1000, maxResponseBytes: 1 << 20, concurrency: 1, rate: 0 },
  cardSecurityCode: '123',
  orderPrefix: 'TBL',
  paymentMethods: { valid: ['PIX'], unknown: 'NOPE' },
  budget: 10,
  log: () => {},
};

describe('the discoverer table', () => {
  it('a row starts once the rows it reads are done, not when a slower row of its wave is', async () => {
    const order: string[] = [];
    let release!: () => void;
    const slowDone = new Promise<void>((resolve) => (release = resolve));
    const row = (id: string, after: string[], run: () => Promise<void> = async () => {}): Discoverer => ({
      id,
      decides: [],
      after,
      run: async () => {
        order.push(`start ${id}`);
        await run();
        order.push(`end ${id}`);
      },
    });
    const table = [
      row('first', []),
      row('slow', ['first'], () => slowDone),
      row('fast', ['first']),
      // Reads only `fast`: it runs (and ends the wait of `slow`) while `slow` still waits.
      row('next', ['fast'], async () => release()),
      row('last', ['slow', 'next']),
    ];
    await discoverProfile({ ...options, table });
    expect(order.indexOf('start next')).toBeLessThan(order.indexOf('end slow'));
    expect(order.at(-1)).toBe('end last');
  });

  it('a row reading a stopped row is not run', async () => {
    const ran: string[] = [];
    const table: Discoverer[] = [
      { id: 'broken', decides: ['name'], after: [], run: async () => Promise.reject(new Error('no answer')) },
      { id: 'reader', decides: ['version'], after: ['broken'], run: async () => void ran.push('reader') },
    ];
    const found = await discoverProfile({ ...options, table });
    expect(ran).toEqual([]);
    expect(found.stopped.map((x) => x.id)).toEqual(['broken', 'reader']);
  });
});
