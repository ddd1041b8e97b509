/**
 * The state kept in a folder (`startGateway({ dataDir })`, `serve --data DIR`): a stop and a start with the same
 * folder give back the same state (payments, refunds and their numbering, tokens, payouts, sessions, counters,
 * pending notifications); the database keeps what the memory evicts (persist-evicted.test.ts: every operation on
 * evicted records), is locked, written a refund with its amounts at once,
 * cleared by the admin reset, and holds no card number in clear. The child-process restart, SIGKILL and damage
 * tests are in persist-process.test.ts; the import of an earlier journal in persist-import.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JournalError, type GatewayOptions, type RunningGateway } from '../index.js';
import Database from 'better-sqlite3';
import { DATABASE_FILE } from '../database.js';
import { LOCK_FILE } from '../folder-lock.js';
import { tempDir } from '../../test/support/temp.js';
import * as h from './helpers.js';

const open: RunningGateway[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((gw) => gw.close().catch(() => undefined)));
});

async function start(dataDir: string, options: GatewayOptions = {}): Promise<RunningGateway & { lines: string[] }> {
  const lines: string[] = [];
  const gw = await h.gateway({ dataDir, log: (l) => lines.push(l), ...options });
  open.push(gw);
  return Object.assign(gw, { lines });
}

async function stop(gw: RunningGateway): Promise<void> {
  open.splice(open.indexOf(gw), 1);
  await gw.drain(1000);
}

async function refund(gw: RunningGateway, transactionId: string, body: Record<string, any>, amount: string) {
  const { results } = await h.batch(gw, 'refund', [
    h.item(transactionId, body, { refund_amount: amount, refund_reason: 'r' }),
  ]);
  return results[0]!;
}

/** Every byte the folder's database holds (its file and its WAL), as text: what a reader of the disk would find. */
const stored = (dir: string) =>
  ['', '-wal']
    .map((s) => path.join(dir, `${DATABASE_FILE}${s}`))
    .filter((f) => fs.existsSync(f))
    .map((f) => fs.readFileSync(f, 'latin1'))
    .join('');

/** Rows of one table of the folder's database. */
function tableRows(dir: string, table: string): { id: string; body: string }[] {
  const db = new Database(path.join(dir, DATABASE_FILE), { readonly: true });
  try {
    return db.prepare(`SELECT id, body FROM ${table} ORDER BY n`).all() as { id: string; body: string }[];
  } finally {
    db.close();
  }
}

describe('serve --data: state across a restart', () => {
  it('a payment, captured and refunded in part, is found after a restart; refunds go on from the right remainder', async () => {
    const dir = tempDir('pagi-data-');
    const gw = await start(dir);
    const { transactionId, body } = await h.pay(gw, { amount: '40.00' });
    expect((await h.batch(gw, 'capture', [h.item(transactionId, body)])).results[0]!.capture_status).toBe(
      h.profile.statusValues.capture_status.success,
    );
    expect((await refund(gw, transactionId, body, '15.00')).refund_reference_id).toBe(`${transactionId}-01`);
    const digest = gw.stateDigest();
    await stop(gw);

    const again = await start(dir);
    expect(again.stateDigest()).toBe(digest); // the same state, counters included
    expect(again.data?.restored).toMatchObject({ transactions: 1, refunds: 1 });
    const { json } = await h.query(again, { transaction_id: transactionId });
    expect(json.orders_list[0]).toMatchObject({ transaction_id: transactionId, order_no: body.order_no });
    // 25.00 remain: 25.01 is refused, 25.00 is the second refund.
    const over = await refund(again, transactionId, body, '25.01');
    expect(over.refund_status).toBe(h.profile.statusValues.refund_status.failure);
    const rest = await refund(again, transactionId, body, '25.00');
    expect(rest.refund_reference_id).toBe(`${transactionId}-02`);
    expect((await h.query(again, { transaction_id: transactionId })).json.orders_list[0].payment_status).toBe(
      h.profile.statusValues.payment_status.refunded,
    );
    // New identifiers never repeat one handed out before the restart.
    const next = await h.pay(again);
    expect(next.transactionId).not.toBe(transactionId);
    expect(next.transactionId.slice(0, -6)).toBe(transactionId.slice(0, -6)); // the same instance tag
    expect(Number(next.transactionId.slice(-6))).toBeGreaterThan(Number(transactionId.slice(-6)));
  });

  it('with store.syncWrites each change is synced before its answer: the same state after a restart', async () => {
    const dir = tempDir('pagi-data-');
    const config = { store: { maxTransactions: 100, maxPayouts: 100, maxTokens: 100, syncWrites: true } };
    const gw = await start(dir, { config });
    const payments = await Promise.all(Array.from({ length: 20 }, () => h.pay(gw)));
    const digest = gw.stateDigest();
    await stop(gw);
    const again = await start(dir, { config });
    expect(again.stateDigest()).toBe(digest);
    expect(again.counts().transactions).toBe(payments.length);
  });

  it('tokens, payouts (idempotent replay) and the refund search survive; no card number is written in clear', async () => {
    const dir = tempDir('pagi-data-');
    const gw = await start(dir);
    const { result, transactionId, body } = await h.pay(gw, { token_flag: h.profile.payments.token.requestValue });
    await h.batch(gw, 'capture', [h.item(transactionId, body)]);
    await refund(gw, transactionId, body, '1.00');
    const payout = h.payoutBody();
    const first = await h.call(gw, 'payout', payout);
    expect(first.status).toBe(200);
    const digest = gw.stateDigest();
    expect(stored(dir)).toContain(transactionId); // written while running (the reader below is no blind one)
    expect(fs.statSync(path.join(dir, DATABASE_FILE)).mode & 0o777).toBe(0o600); // its owner's only
    expect(fs.statSync(path.join(dir, `${DATABASE_FILE}-wal`)).mode & 0o777).toBe(0o600);
    await stop(gw);
    expect(stored(dir)).not.toContain(h.APPROVE_CARD);
    expect(stored(dir)).not.toContain(h.SECRET);
    expect(tableRows(dir, 'tokens')).toHaveLength(1);

    const again = await start(dir);
    expect(again.stateDigest()).toBe(digest);
    const card = h.profile.fields.card;
    const byToken = h.directBody({ token_id: result.token_id, token_flag: h.profile.payments.token.noRequestValue });
    for (const f of [card.number, card.expiryMonth, card.expiryYear, card.securityCode]) delete byToken[f];
    const paid = h.xmlBody(await h.call(again, 'authoriseDirect', byToken));
    expect(paid.card).toBe(result.card);
    expect((await h.call(again, 'payout', payout)).text).toBe(first.text); // the same request_id: the same answer
    const search = await h.call(again, 'retrievalRefund', {
      merchant_id: h.MERCHANT,
      account_id: h.ACCOUNT,
      transaction_id: transactionId,
    });
    expect(JSON.parse(search.text).refund_orders[0].refund_reference_id).toBe(`${transactionId}-01`);
  });

  it('a token whose account secret changed is dropped with a warning (its card cannot be decrypted)', async () => {
    const dir = tempDir('pagi-data-');
    const gw = await start(dir);
    await h.pay(gw, { token_flag: h.profile.payments.token.requestValue });
    await stop(gw);
    const merchants = [
      {
        merchantId: h.MERCHANT,
        registeredAddresses: ['127.0.0.1'],
        accounts: [{ accountId: h.ACCOUNT, secret: 'another-secret-0002' }],
      },
    ];
    const again = await start(dir, { config: { merchants } });
    expect(again.counts()).toMatchObject({ transactions: 1, tokens: 0 });
    expect(again.lines.join('\n')).toMatch(/warning: database: 1 stored-card token dropped/);
  });

  it('pending notifications are sent again after a restart', async () => {
    const dir = tempDir('pagi-data-');
    let accept = false;
    const rx = await h.receiver(() => (accept ? 200 : 500));
    try {
      const gw = await start(dir);
      await h.pay(gw, { notify_url: rx.url });
      await rx.waitFor(1); // the first attempt, refused: the retries wait
      await stop(gw); // stopped before the last retry: still pending
      const before = rx.received.length;
      expect(rx.received.every((r) => r.status === 500)).toBe(true);
      accept = true;
      const again = await start(dir);
      expect(again.data?.restored.notifications).toBe(1);
      const got = await rx.waitFor(before + 1);
      expect(got.at(-1)!.status).toBe(200);
      await again.notificationsIdle();
      await stop(again);
      const third = await start(dir);
      expect(third.data?.restored.notifications).toBe(0); // delivered: not sent a third time
    } finally {
      await rx.close();
    }
  });

  it('sessions (an APM payment waiting for the shopper) survive; their card fields are never kept', async () => {
    const dir = tempDir('pagi-data-');
    const gw = await start(dir);
    const res = await h.call(gw, 'authoriseApm', h.apmBody());
    const issuerUrl = String(h.xmlBody(res).issuer_url);
    const checkout = await h.call(gw, 'checkout', { ...h.checkoutBody(), ...h.cardFields() });
    expect(checkout.status).toBe(200);
    await stop(gw);
    expect(tableRows(dir, 'sessions')).toHaveLength(2);
    expect(stored(dir)).not.toContain(h.APPROVE_CARD);
    const again = await start(dir);
    expect(again.counts().sessions).toBe(2);
    const page = await h.send(issuerUrl.replace(gw.baseUrl, again.baseUrl), {
      body: { action: 'pay' },
      encoding: 'form',
    });
    expect(page.status).toBe(200);
    expect(again.counts().transactions).toBe(1);
  });
});

describe('serve --data: the database', () => {
  it('keeps what the memory evicts: every payment stays in the database; a restart reads the newest into memory', async () => {
    const dir = tempDir('pagi-data-');
    const config = { store: { maxTransactions: 20, maxPayouts: 20, maxTokens: 20 }, notifications: { enabled: false } };
    const gw = await start(dir, { config });
    const made: string[] = [];
    for (let i = 0; i < 200; i++) made.push((await h.pay(gw)).transactionId);
    expect(gw.counts().transactions).toBe(20);
    expect(tableRows(dir, 'payments').map((r) => r.id)).toEqual(made);
    const digest = gw.stateDigest();
    await stop(gw);
    const again = await start(dir, { config });
    expect(again.stateDigest()).toBe(digest); // the memory holds the same 20 newest
    expect(again.counts().transactions).toBe(20);
    expect(again.data?.restored.transactions).toBe(200);
    // All 200 are found: the 180 oldest read back from the database.
    const q = async (id: string) => (await h.query(again, { transaction_id: id })).json.orders_list[0].query_result;
    for (const id of [made[0]!, made[100]!, made.at(-20)!, made.at(-1)!])
      expect(await q(id)).toBe(h.profile.statusValues.query_result.found);
    expect(again.counts().transactions).toBe(20); // reading them back holds none in memory
  });

  it('a database of format 2 (no lookup columns) is brought to format 3 on open, its payments found by order number', async () => {
    const dir = tempDir('pagi-data-');
    const config = { store: { maxTransactions: 2, maxPayouts: 2, maxTokens: 2 }, notifications: { enabled: false } };
    const gw = await start(dir, { config });
    const paid = [await h.pay(gw), await h.pay(gw), await h.pay(gw)];
    await stop(gw);
    const db = new Database(path.join(dir, DATABASE_FILE));
    db.exec(
      'DROP INDEX payments_order; ALTER TABLE payments DROP COLUMN merchant; ALTER TABLE payments DROP COLUMN account; ALTER TABLE payments DROP COLUMN order_no; PRAGMA user_version = 2',
    );
    db.close();
    const again = await start(dir, { config });
    const { json } = await h.query(again, { order_no: paid[0]!.body.order_no });
    expect(json.orders_list[0]).toMatchObject({ transaction_id: paid[0]!.transactionId });
    await stop(again);
    const check = new Database(path.join(dir, DATABASE_FILE), { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(3);
    check.close();
  });

  it('a refund and its payment amounts are one transaction: both rows, or neither', async () => {
    const dir = tempDir('pagi-data-');
    const gw = await start(dir);
    const { transactionId, body } = await h.pay(gw, { amount: '20.00' });
    await h.batch(gw, 'capture', [h.item(transactionId, body)]);
    // Two refunds of one batch: one group, committed before the answer.
    await h.batch(gw, 'refund', [
      h.item(transactionId, body, { refund_amount: '5.00', refund_reason: 'a' }),
      h.item(transactionId, body, { refund_amount: '6.00', refund_reason: 'b' }),
    ]);
    const payment = JSON.parse(tableRows(dir, 'payments')[0]!.body);
    const refunds = tableRows(dir, 'refunds').map((r) => BigInt(JSON.parse(r.body).amountMinor.$big));
    expect(refunds).toEqual([500n, 600n]);
    expect(payment.refundedMinor).toEqual({ $big: '1100' });
    await stop(gw);
  });

  it('one folder, one gateway: a second start is refused while the first runs', async () => {
    const dir = tempDir('pagi-data-');
    await start(dir);
    await expect(start(dir)).rejects.toThrow(JournalError);
    await expect(start(dir)).rejects.toThrow(/in use by another gateway \(process \d+/);
  });

  it('a lock left by a killed gateway is taken over', async () => {
    const dir = tempDir('pagi-data-');
    fs.writeFileSync(path.join(dir, LOCK_FILE), '2147483646\n'); // no such process
    const gw = await start(dir);
    expect(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8').trim()).toBe(String(process.pid));
    await stop(gw);
    expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(false);
  });

  it('the admin reset clears the database too', async () => {
    const dir = tempDir('pagi-data-');
    const gw = await start(dir, { admin: true });
    const { transactionId } = await h.pay(gw);
    expect(tableRows(dir, 'payments').map((r) => r.id)).toEqual([transactionId]);
    const reset = await h.send(`${gw.url}/_admin/reset`, { method: 'POST' });
    expect(reset.status).toBe(200);
    expect(tableRows(dir, 'payments')).toEqual([]); // answered once the cleared state is committed
    await stop(gw);
    const again = await start(dir);
    expect(again.counts()).toMatchObject({ transactions: 0, refunds: 0, tokens: 0, payouts: 0, sessions: 0 });
  });

  it('without a folder the state stays in memory (no database is written)', async () => {
    const gw = await h.gateway();
    open.push(gw);
    expect(gw.data).toBeUndefined();
  });
});
