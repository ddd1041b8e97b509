/**
 * The state kept in a folder (`startGateway({ dataDir })`, `serve --data DIR`): a stop and a start with the same
 * folder give back the same state (payments, refunds and their numbering, tokens, payouts, sessions, counters,
 * pending notifications); the journal is compacted, bounded like the store, locked, tolerant of a record cut by a
 * crash, cleared by the admin reset, and holds no card number in clear. The child-process restart and SIGKILL
 * tests are in persist-process.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JournalError, type GatewayOptions, type RunningGateway } from '../index.js';
import { JOURNAL_FILE, LOCK_FILE } from '../journal.js';
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

const journal = (dir: string) => fs.readFileSync(path.join(dir, JOURNAL_FILE), 'utf8');

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
    await stop(gw);
    expect(journal(dir)).not.toContain(h.APPROVE_CARD);
    expect(journal(dir)).not.toContain(h.SECRET);

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
    expect(again.lines.join('\n')).toMatch(/warning: journal: 1 stored-card token dropped/);
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
    expect(journal(dir)).not.toContain(h.APPROVE_CARD);
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

describe('serve --data: the journal', () => {
  it('is compacted when it grows, and stays bounded like the store (eviction unchanged)', async () => {
    const dir = tempDir('pagi-data-');
    const config = {
      store: { maxTransactions: 20, maxPayouts: 20, maxTokens: 20, compactAfterMiB: 0.02 },
      notifications: { enabled: false },
    };
    const gw = await start(dir, { config });
    const made: string[] = [];
    for (let i = 0; i < 200; i++) made.push((await h.pay(gw)).transactionId);
    // 200 payment records take about 200 KB; compacted, the file holds the 20 kept and at most 21 KB more.
    const snapshot = journal(dir)
      .split('\n')
      .filter((l) => l.includes('"k":"pay"')).length;
    expect(snapshot).toBeLessThan(60);
    expect(gw.data!.journalBytes()).toBeLessThan(80_000);
    const digest = gw.stateDigest();
    await stop(gw);
    const again = await start(dir, { config });
    expect(again.stateDigest()).toBe(digest);
    expect(again.counts().transactions).toBe(20);
    // The 180 oldest are unknown, the 20 newest known.
    const q = async (id: string) => (await h.query(again, { transaction_id: id })).json.orders_list[0].query_result;
    expect(await q(made[0]!)).toBe(h.profile.statusValues.query_result.notFound);
    expect(await q(made.at(-20)!)).toBe(h.profile.statusValues.query_result.found);
    expect(await q(made.at(-1)!)).toBe(h.profile.statusValues.query_result.found);
  });

  it('skips a record cut by a crash with a warning, and one damaged in the middle', async () => {
    const dir = tempDir('pagi-data-');
    const gw = await start(dir);
    const a = await h.pay(gw);
    const b = await h.pay(gw);
    // Leave the file as a crash mid-write would: no compaction on this stop.
    open.splice(open.indexOf(gw), 1);
    const file = path.join(dir, JOURNAL_FILE);
    const text = journal(dir);
    await gw.close().catch(() => undefined);
    const lines = text.trimEnd().split('\n');
    const damaged = lines.map((l) =>
      l.includes(a.transactionId) && l.includes('"pay"') ? l.replace('"pay"', '"pax"') : l,
    );
    fs.writeFileSync(file, `${damaged.join('\n')}\n${lines.at(-1)!.slice(0, 40)}`);
    fs.rmSync(path.join(dir, LOCK_FILE), { force: true });
    const again = await start(dir);
    const warnings = again.lines.filter((l) => l.startsWith('warning: journal'));
    expect(warnings.join('\n')).toMatch(/checksum does not match/);
    expect(warnings.join('\n')).toMatch(/cut short/);
    expect(again.counts().transactions).toBe(1);
    expect((await h.query(again, { transaction_id: b.transactionId })).json.orders_list[0].transaction_id).toBe(
      b.transactionId,
    );
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

  it('the admin reset clears the journal too', async () => {
    const dir = tempDir('pagi-data-');
    const gw = await start(dir, { admin: true });
    const { transactionId } = await h.pay(gw);
    const reset = await h.send(`${gw.url}/_admin/reset`, { method: 'POST' });
    expect(reset.status).toBe(200);
    expect(journal(dir)).not.toContain(transactionId); // answered once the cleared state is durable
    await stop(gw);
    const again = await start(dir);
    expect(again.counts()).toMatchObject({ transactions: 0, refunds: 0, tokens: 0, payouts: 0, sessions: 0 });
  });

  it('without a folder the state stays in memory (no journal is written)', async () => {
    const gw = await h.gateway();
    open.push(gw);
    expect(gw.data).toBeUndefined();
  });
});
