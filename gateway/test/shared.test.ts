/**
 * A sandbox shared by several gateways on one PostgreSQL (`serve --database postgres://…`): a capture on one, a
 * refund on another and a query on a third see one state; concurrent refunds of one payment from two gateways never
 * exceed its capture; the state survives every gateway's stop. Needs a PostgreSQL: `PAGI_TEST_POSTGRES` (default
 * postgres://pagi:pagi@127.0.0.1:5432/pagi_test, what .ci/run sets up); without one these tests are skipped, saying
 * why.
 */
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../index.js';
import { pagiConform, serve } from '../../test/support/cli.js';
import * as h from './helpers.js';

const URL = process.env.PAGI_TEST_POSTGRES ?? 'postgres://pagi:pagi@127.0.0.1:5432/pagi_test';

/** Why no PostgreSQL can be used (undefined: one can). */
async function unreachable(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: URL, connectionTimeoutMillis: 3000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (e) {
    return (e as Error).message;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const why = await unreachable();
if (why)
  console.warn(
    `gateway/test/shared.test.ts: skipped: no PostgreSQL at ${URL.replace(/:[^:@/]+@/, ':***@')} (${why}); .ci/run installs and starts one`,
  );

const open: RunningGateway[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((gw) => gw.close().catch(() => undefined)));
});
beforeEach(async () => {
  if (why) return;
  const client = new pg.Client({ connectionString: URL });
  await client.connect();
  await client.query('DROP TABLE IF EXISTS pagi_rows, pagi_meta; DROP SEQUENCE IF EXISTS pagi_version');
  await client.end();
});

async function gateway(admin = false): Promise<RunningGateway> {
  const gw = await h.gateway({ database: URL, admin, config: { notifications: { enabled: false } } });
  open.push(gw);
  return gw;
}

const { refund_status: refundStatus, payment_status: paymentStatus } = h.profile.statusValues;

describe.skipIf(why !== undefined)('serve --database: one sandbox, several gateways', () => {
  it('capture on one, refund on another, query on a third: one state; it survives their stops', async () => {
    const [a, b, c] = [await gateway(), await gateway(), await gateway()];
    const { transactionId, body } = await h.pay(a, { amount: '10.00' });
    const captured = await h.batch(b, 'capture', [h.item(transactionId, body)]);
    expect(captured.results[0]!.capture_status).toBe(h.profile.statusValues.capture_status.success);
    const refunded = await h.batch(c, 'refund', [
      h.item(transactionId, body, { refund_amount: '4.00', refund_reason: 'r' }),
    ]);
    expect(refunded.results[0]!.refund_reference_id).toBe(`${transactionId}-01`);
    const { json } = await h.query(a, { transaction_id: transactionId });
    expect(json.orders_list[0].payment_status).toBe(paymentStatus.partiallyRefunded);
    // 6.00 remain, whichever gateway is asked.
    const over = await h.batch(a, 'refund', [
      h.item(transactionId, body, { refund_amount: '6.01', refund_reason: 'r' }),
    ]);
    expect(over.results[0]!.refund_status).toBe(refundStatus.failure);
    await Promise.all(open.splice(0).map((gw) => gw.close()));
    const d = await gateway();
    expect(d.shared?.restored).toMatchObject({ transactions: 1, refunds: 1 });
    expect(d.shared?.database).toBe(URL.replace(/:[^:@/]+@/, '@'));
    const rest = await h.batch(d, 'refund', [
      h.item(transactionId, body, { refund_amount: '6.00', refund_reason: 'r' }),
    ]);
    expect(rest.results[0]!.refund_reference_id).toBe(`${transactionId}-02`);
  });

  it('an admin reset on one empties the sandbox for all; identifiers go on', async () => {
    const [a, b] = [await gateway(true), await gateway()];
    const first = await h.pay(b);
    expect((await h.send(`${a.url}/_admin/reset`, { method: 'POST' })).status).toBe(200);
    const { json } = await h.query(b, { transaction_id: first.transactionId });
    expect(json.orders_list[0].query_result).toBe(h.profile.statusValues.query_result.notFound);
    expect(b.counts().transactions).toBe(0);
    const next = await h.pay(a);
    expect(Number(next.transactionId.slice(-6))).toBeGreaterThan(Number(first.transactionId.slice(-6)));
  });

  it('two gateway processes: concurrent refunds of one payment from both never exceed its capture', async () => {
    const [one, two] = await Promise.all([serve(['--database', URL]), serve(['--database', URL])]);
    try {
      const at = (url: string) => ({ url }) as RunningGateway;
      expect(await one.until(/state shared in postgres:\/\/pagi@127\.0\.0\.1:5432\/pagi_test/)).not.toBeNull();
      expect(one.log()).not.toContain(':pagi@'); // no password printed
      const { transactionId, body } = await h.pay(at(one.url), { amount: '10.00' });
      await h.batch(at(two.url), 'capture', [h.item(transactionId, body)]);
      // 30 refunds of 1.00 at once, half from each: exactly 10 succeed, numbered -01 to -10.
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          h.batch(at(i % 2 ? one.url : two.url), 'refund', [
            h.item(transactionId, body, { refund_amount: '1.00', refund_reason: `r${i}` }),
          ]),
        ),
      );
      const ok = results.map((r) => r.results[0]!).filter((r) => r.refund_status === refundStatus.success);
      expect(ok).toHaveLength(10);
      expect(ok.map((r) => r.refund_reference_id).sort()).toEqual(
        Array.from({ length: 10 }, (_, i) => `${transactionId}-${String(i + 1).padStart(2, '0')}`),
      );
      for (const url of [one.url, two.url])
        expect((await h.query(at(url), { transaction_id: transactionId })).json.orders_list[0].payment_status).toBe(
          paymentStatus.refunded,
        );
    } finally {
      await Promise.all([one.stop(), two.stop()]);
    }
  }, 120_000);
});

describe('serve --database: refusals', () => {
  it('an unreachable database: one sentence without the password, exit 2; with --data too: exit 2', async () => {
    const run = await pagiConform(['serve', '--port', '0', '--database', 'postgres://u:secret-pw@127.0.0.1:1/none']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^pagi-conform: --database: cannot use postgres:\/\/u@127\.0\.0\.1:1\/none \(.*\): start PostgreSQL, or check the address, user and password\n$/,
    );
    expect(run.stderr + run.stdout).not.toContain('secret-pw');
    const both = await pagiConform(['serve', '--port', '0', '--data', '/tmp/x', '--database', URL]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--data and --database name two stores/);
  }, 60_000);
});
