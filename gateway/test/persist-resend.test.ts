/**
 * Restart without a storm: the notifications pending when the last gateway stopped are sent again oldest first, at
 * most `notifications.resendPerSecond` a second, each kept in the database until it is queued again; answers never
 * wait for them (issue: with 8,000 pending, every one was queued at once and the first payment was answered 7.4 s
 * after "listening"). The time from listening to the first answer is printed, not asserted (speed goes to the
 * benchmark: bench/gateway.ts).
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { checksum } from '../database.js';
import { DATABASE_FILE, type RunningGateway } from '../index.js';
import { tempDir } from '../../test/support/temp.js';
import * as h from './helpers.js';

const open: RunningGateway[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((gw) => gw.close().catch(() => undefined)));
});

/** A folder whose database holds `count` pending payment notifications to `url` (ids 1..count). */
async function folderWithPending(count: number, url: string): Promise<string> {
  const dir = tempDir('pagi-resend-');
  await (await h.gateway({ dataDir: dir })).close();
  const db = new Database(path.join(dir, DATABASE_FILE));
  const insert = db.prepare('INSERT INTO notifications (n, id, body, crc) VALUES (?, ?, ?, ?)');
  db.transaction(() => {
    for (let n = 1; n <= count; n++) {
      const body = JSON.stringify({
        kind: 'payment',
        key: `ORD-${n}`,
        url,
        body: { merchant_id: h.MERCHANT, account_id: h.ACCOUNT, order_no: `ORD-${n}` },
        merchantId: h.MERCHANT,
        accountId: h.ACCOUNT,
      });
      insert.run(n, String(n), body, checksum(body));
    }
  })();
  db.close();
  return dir;
}

/** Pending notifications still under their id of before the restart (not yet queued again). */
function notYetResent(dir: string, count: number): number {
  const db = new Database(path.join(dir, DATABASE_FILE), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS c FROM notifications WHERE n <= ?').get(count) as { c: number }).c;
  } finally {
    db.close();
  }
}

describe('serve --data: notifications pending at a restart', () => {
  it('10,000 pending: the first payment is answered while nearly all still wait their turn', async () => {
    const rx = await h.receiver(() => 200);
    try {
      const dir = await folderWithPending(10_000, rx.url);
      const gw = await h.gateway({ dataDir: dir });
      const listening = performance.now();
      open.push(gw);
      expect(gw.data?.restored.notifications).toBe(10_000);
      await h.pay(gw);
      const ms = performance.now() - listening;
      console.log(`10,000 pending: first payment answered ${ms.toFixed(0)} ms after listening`);
      // 100 a second by default: at the first answer, at most a few turns of 10 were queued.
      const waiting = notYetResent(dir, 10_000);
      expect(waiting).toBeGreaterThan(10_000 - 10 * Math.ceil(ms / 100 + 2));
      expect(waiting).toBeLessThanOrEqual(10_000);
    } finally {
      await Promise.all(open.splice(0).map((gw) => gw.close()));
      await rx.close();
    }
  }, 60_000);

  it('an admin reset while they are being sent again stops them: none is sent after it, none pending', async () => {
    const rx = await h.receiver(() => 200);
    try {
      const dir = await folderWithPending(1000, rx.url);
      const gw = await h.gateway({ dataDir: dir, admin: true });
      open.push(gw);
      expect((await h.send(`${gw.url}/_admin/reset`, { method: 'POST' })).status).toBe(200);
      await gw.notificationsIdle();
      const after = rx.received.length;
      expect(after).toBeLessThan(1000);
      await new Promise((r) => setTimeout(r, 300)); // three turns of the resend, were it still going
      expect(rx.received.length).toBe(after);
      expect(notYetResent(dir, 1000)).toBe(0);
    } finally {
      await Promise.all(open.splice(0).map((gw) => gw.close()));
      await rx.close();
    }
  }, 60_000);

  it('are all delivered, oldest first, at the configured pace; then none is pending', async () => {
    const rx = await h.receiver(() => 200);
    try {
      const dir = await folderWithPending(300, rx.url);
      const gw = await h.gateway({ dataDir: dir, config: { notifications: { enabled: true, resendPerSecond: 1000 } } });
      open.push(gw);
      await rx.waitFor(300, 20_000);
      await gw.notificationsIdle();
      const order = rx.received.map((r) => Number(/ORD-(\d+)/.exec(r.text)?.[1]));
      // Each once; queued oldest first, 100 a turn (deliveries of one turn may finish in any order): the first
      // delivered is of the first turn.
      expect([...order].sort((a, b) => a - b)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
      expect(order[0]).toBeLessThanOrEqual(100);
      await gw.drain(1000);
      open.splice(0);
      const again = await h.gateway({ dataDir: dir });
      open.push(again);
      expect(again.data?.restored.notifications).toBe(0);
    } finally {
      await Promise.all(open.splice(0).map((gw) => gw.close()));
      await rx.close();
    }
  }, 60_000);
});
