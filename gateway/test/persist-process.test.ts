/**
 * `pagi-conform serve --data DIR` as integrators run it: a payment, a stop (SIGTERM), a start with the same folder,
 * and the query finds the payment while refunds go on from the right remainder; a SIGKILL while payments are in
 * flight loses none that was answered.
 */
import { describe, expect, it } from 'vitest';
import type { RunningGateway } from '../index.js';
import { serve } from '../../test/support/cli.js';
import { tempDir } from '../../test/support/temp.js';
import * as h from './helpers.js';

/** The helpers' calls need only the URL of a gateway. */
const at = (url: string) => ({ url }) as RunningGateway;

async function found(url: string, ids: string[]): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < ids.length; i += 100) {
    const { json } = await h.query(at(url), { transaction_id: ids.slice(i, i + 100).join(',') });
    for (const o of json.orders_list as Record<string, string>[])
      if (o.query_result === h.profile.statusValues.query_result.found) out.push(o.transaction_id!);
  }
  return out;
}

describe('serve --data DIR (child process)', () => {
  it('payment, stop, start with the same --data: the query finds it; refunds go on from the right remainder', async () => {
    const dir = tempDir('pagi-data-');
    const first = await serve(['--data', dir]);
    expect(await first.until(/512 MiB \(oldest evicted from memory, kept in the database\)/)).not.toBeNull();
    expect(await first.until(/state kept in .*: 0 payments, 0 refunds/)).not.toBeNull();
    const { transactionId, body } = await h.pay(at(first.url), { amount: '30.00' });
    await h.batch(at(first.url), 'capture', [h.item(transactionId, body)]);
    const r1 = await h.batch(at(first.url), 'refund', [
      h.item(transactionId, body, { refund_amount: '20.00', refund_reason: 'first' }),
    ]);
    expect(r1.results[0]!.refund_reference_id).toBe(`${transactionId}-01`);
    await first.stop();
    expect(await first.exited).toBe(0);

    const second = await serve(['--data', dir]);
    try {
      expect(await second.until(/state kept in .*: 1 payments, 1 refunds/)).not.toBeNull();
      expect(await found(second.url, [transactionId])).toEqual([transactionId]);
      const over = await h.batch(at(second.url), 'refund', [
        h.item(transactionId, body, { refund_amount: '10.01', refund_reason: 'too much' }),
      ]);
      expect(over.results[0]!.refund_status).toBe(h.profile.statusValues.refund_status.failure);
      const rest = await h.batch(at(second.url), 'refund', [
        h.item(transactionId, body, { refund_amount: '10.00', refund_reason: 'rest' }),
      ]);
      expect(rest.results[0]!.refund_reference_id).toBe(`${transactionId}-02`);
    } finally {
      await second.stop();
    }
  }, 120_000);

  it('SIGKILL with payments in flight: every payment answered before the kill is there after a restart', async () => {
    const dir = tempDir('pagi-data-');
    const first = await serve(['--data', dir]);
    const answered: string[] = [];
    let killed = false;
    // 20 clients paying in a loop until the gateway is killed (after 150 answers).
    const client = async () => {
      while (!killed) {
        try {
          const res = await h.call(at(first.url), 'authoriseDirect', h.directBody());
          if (res.status === 200) answered.push(String(h.xmlBody(res).transaction_id));
          if (answered.length >= 150 && !killed) {
            killed = true;
            first.child.kill('SIGKILL');
          }
        } catch {
          return; // the connection died with the gateway
        }
      }
    };
    await Promise.all(Array.from({ length: 20 }, client));
    await first.exited;
    expect(answered.length).toBeGreaterThanOrEqual(150);

    const second = await serve(['--data', dir]);
    try {
      // Taken over: the killed gateway's lock is stale.
      expect(await found(second.url, answered)).toEqual(answered);
    } finally {
      await second.stop();
    }
  }, 120_000);

  it('SIGKILL with 32 clients paying, capturing and refunding: every answered refund is there, none above the capture', async () => {
    const dir = tempDir('pagi-data-');
    const first = await serve(['--data', dir]);
    const refunded = new Map<string, { body: Record<string, any>; refs: string[] }>();
    let acknowledged = 0;
    let killed = false;
    const refund = (id: string, body: Record<string, any>) =>
      h.batch(at(first.url), 'refund', [h.item(id, body, { refund_amount: '4.00', refund_reason: 'load' })]);
    // Each client: a payment of 10.00, its capture, then refunds of 4.00 until refused; killed after 60 refunds.
    const client = async () => {
      while (!killed) {
        try {
          const { transactionId, body } = await h.pay(at(first.url), { amount: '10.00' });
          await h.batch(at(first.url), 'capture', [h.item(transactionId, body)]);
          const entry = { body, refs: [] as string[] };
          refunded.set(transactionId, entry);
          for (let i = 0; i < 3 && !killed; i++) {
            const r = (await refund(transactionId, body)).results[0]!;
            if (r.refund_status === h.profile.statusValues.refund_status.success) {
              entry.refs.push(String(r.refund_reference_id));
              acknowledged += 1;
            }
            if (acknowledged >= 60 && !killed) {
              killed = true;
              first.child.kill('SIGKILL');
            }
          }
        } catch {
          return; // the connection died with the gateway
        }
      }
    };
    await Promise.all(Array.from({ length: 32 }, client));
    await first.exited;
    expect(acknowledged).toBeGreaterThanOrEqual(60);

    const second = await serve(['--data', dir]);
    try {
      for (const [id, { body, refs }] of refunded) {
        expect(refs.length).toBeLessThanOrEqual(2); // 4.00 + 4.00 of 10.00: the third refused
        const search = await h.call(at(second.url), 'retrievalRefund', {
          merchant_id: h.MERCHANT,
          account_id: h.ACCOUNT,
          transaction_id: id,
        });
        const listed = ((JSON.parse(search.text).refund_orders ?? []) as Record<string, string>[]).map(
          (r) => r.refund_reference_id,
        );
        for (const ref of refs) expect(listed).toContain(ref); // every answered refund kept
        expect(listed.length).toBeLessThanOrEqual(2);
        if (listed.length === 2) {
          // 2.00 remain: 2.01 refused (the payment's amounts restored with its refunds).
          const over = await h.batch(at(second.url), 'refund', [
            h.item(id, body, { refund_amount: '2.01', refund_reason: 'over' }),
          ]);
          expect(over.results[0]!.refund_status).toBe(h.profile.statusValues.refund_status.failure);
        }
      }
    } finally {
      await second.stop();
    }
  }, 180_000);

  it('a second gateway on the same folder is refused with one sentence, exit 2', async () => {
    const dir = tempDir('pagi-data-');
    const first = await serve(['--data', dir]);
    try {
      const second = serve(['--data', dir]);
      await expect(second).rejects.toThrow(/--data: .* is in use by another gateway \(process \d+\)/);
    } finally {
      await first.stop();
    }
  }, 60_000);
});
