/**
 * A damaged database is reported, never half-applied: `serve --data DIR` on a database cut, emptied, damaged in its
 * structure or in a record's content refuses to start with one sentence naming the file and what to do, exit 2, and
 * changes nothing; `serve --data DIR --check` runs SQLite's integrity check and prints the counts. A crash's copy of
 * the folder (the database and its WAL as a kill leaves them) cut at any point opens with a consistent state: a
 * refund never without its payment's amounts, so never a refund above the remainder.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { DATABASE_FILE, DatabaseDamage, type RunningGateway } from '../index.js';
import { pagiConform } from '../../test/support/cli.js';
import { tempDir } from '../../test/support/temp.js';
import * as h from './helpers.js';

/** A folder whose database holds two payments (one captured and refunded in part) and a payout, stopped cleanly. */
async function folder(): Promise<string> {
  const dir = tempDir('pagi-damage-');
  const gw = await h.gateway({ dataDir: dir, config: { notifications: { enabled: false } } });
  const { transactionId, body } = await h.pay(gw, { amount: '30.00' });
  await h.batch(gw, 'capture', [h.item(transactionId, body)]);
  await h.batch(gw, 'refund', [h.item(transactionId, body, { refund_amount: '5.00', refund_reason: 'r' })]);
  await h.pay(gw);
  await h.call(gw, 'payout', h.payoutBody());
  await gw.drain(1000);
  return dir;
}

const file = (dir: string) => path.join(dir, DATABASE_FILE);
const SENTENCE =
  /^pagi-conform: --data: \S+gateway\.sqlite [^\n]*: nothing was changed; restore the folder from a copy, or start afresh with --data pointing at a new folder\n$/;

/** `serve --data DIR` on a folder that must be refused: exit 2, one sentence, the file untouched. */
async function refused(dir: string, what: RegExp): Promise<void> {
  const before = fs.readFileSync(file(dir));
  const run = await pagiConform(['serve', '--port', '0', '--data', dir], {}, 60_000);
  expect(run.code).toBe(2);
  expect(run.stderr).toMatch(SENTENCE);
  expect(run.stderr).toMatch(what);
  expect(run.stdout).not.toMatch(/listening/);
  expect(fs.readFileSync(file(dir)).equals(before)).toBe(true);
}

describe('serve --data DIR: a damaged database is refused with one sentence, exit 2', () => {
  it('a record whose content was changed on disk (its checksum no longer matches)', async () => {
    const dir = await folder();
    const bytes = fs.readFileSync(file(dir));
    const at = bytes.indexOf('"orderNo":"ORD');
    expect(at).toBeGreaterThan(0);
    bytes[at + 14] = bytes[at + 14] === 0x58 ? 0x59 : 0x58; // one character of the order number
    fs.writeFileSync(file(dir), bytes);
    await refused(dir, /has a damaged row \(payments row \d+: its checksum does not match\)/);
  }, 60_000);

  it('a database damaged in its structure, cut to half, or emptied', async () => {
    const damaged = await folder();
    const bytes = fs.readFileSync(file(damaged));
    bytes.fill(0xa5, 4096, 4096 + 512); // the header of the second page
    fs.writeFileSync(file(damaged), bytes);
    await refused(damaged, /is damaged|cannot be opened as a database/);

    const cut = await folder();
    fs.truncateSync(file(cut), Math.floor(fs.statSync(file(cut)).size / 2 / 4096) * 4096);
    await refused(cut, /is damaged|cannot be opened as a database|holds no tables/);

    const empty = await folder();
    fs.truncateSync(file(empty), 0);
    await refused(empty, /is empty \(0 bytes: it was cut\)/);
  }, 120_000);

  it('--check: integrity ok and the counts (exit 0); a damaged database: one sentence, exit 2', async () => {
    const dir = await folder();
    const ok = await pagiConform(['serve', '--data', dir, '--check'], {}, 60_000);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/gateway\.sqlite: integrity check ok \(\d+ bytes\)\n/);
    expect(ok.stdout).toMatch(
      /holds 2 payments, 1 refunds, 0 tokens, 1 payouts, 0 sessions, 0 pending notifications\n$/,
    );
    const bytes = fs.readFileSync(file(dir));
    bytes.fill(0xa5, 4096, 4096 + 512);
    fs.writeFileSync(file(dir), bytes);
    const bad = await pagiConform(['serve', '--data', dir, '--check'], {}, 60_000);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(SENTENCE);
    const none = await pagiConform(['serve', '--check'], {}, 60_000);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--check needs --data DIR/);
  }, 120_000);
});

/** Each payment row's refunded amount equals its refund rows' sum and stays within its capture. */
function consistent(dir: string): { payments: number; refunds: number } {
  const db = new Database(file(dir), { readonly: true });
  try {
    const payments = db.prepare('SELECT id, body FROM payments').all() as { id: string; body: string }[];
    let refunds = 0;
    for (const p of payments) {
      const t = JSON.parse(p.body);
      const rows = db.prepare('SELECT body FROM refunds WHERE payment = ?').all(p.id) as { body: string }[];
      const sum = rows.reduce((s, r) => s + BigInt(JSON.parse(r.body).amountMinor.$big), 0n);
      expect(BigInt(t.refundedMinor.$big)).toBe(sum);
      expect(sum <= BigInt(t.capturedMinor?.$big ?? 0)).toBe(true);
      refunds += rows.length;
    }
    return { payments: payments.length, refunds };
  } finally {
    db.close();
  }
}

describe('serve --data DIR: a crash copy cut at any point', () => {
  it('opens with a consistent state (never a refund above the remainder) or is refused with one sentence', async () => {
    const dir = tempDir('pagi-crash-');
    const gw: RunningGateway = await h.gateway({ dataDir: dir, config: { notifications: { enabled: false } } });
    const paid = await Promise.all(Array.from({ length: 5 }, () => h.pay(gw, { amount: '10.00' })));
    await h.batch(
      gw,
      'capture',
      paid.map((p) => h.item(p.transactionId, p.body)),
    );
    for (let round = 0; round < 3; round++)
      await Promise.all(
        paid.map((p) =>
          h.batch(gw, 'refund', [h.item(p.transactionId, p.body, { refund_amount: '3.00', refund_reason: 'r' })]),
        ),
      );
    // What a kill leaves: the database and its WAL as they are while the gateway runs (every answer committed).
    const crash = tempDir('pagi-crash-copy-');
    for (const suffix of ['', '-wal']) fs.copyFileSync(`${file(dir)}${suffix}`, `${file(crash)}${suffix}`);
    await gw.close();
    const wal = fs.statSync(`${file(crash)}-wal`).size;
    expect(wal).toBeGreaterThan(0);
    let opened = 0;
    for (const share of [1, 0.9, 0.75, 0.5, 0.33, 0.1, 0]) {
      const copy = tempDir('pagi-crash-cut-');
      for (const suffix of ['', '-wal']) fs.copyFileSync(`${file(crash)}${suffix}`, `${file(copy)}${suffix}`);
      fs.truncateSync(`${file(copy)}-wal`, Math.floor(wal * share));
      try {
        const again = await h.gateway({ dataDir: copy, config: { notifications: { enabled: false } } });
        const counts = again.counts();
        await again.close();
        const rows = consistent(copy);
        expect(rows).toEqual({ payments: counts.transactions, refunds: counts.refunds });
        if (share === 1) expect(rows).toEqual({ payments: 5, refunds: 15 }); // nothing cut: every answered change
        opened += 1;
      } catch (e) {
        expect(e).toBeInstanceOf(DatabaseDamage);
      }
    }
    expect(opened).toBeGreaterThan(0);
  }, 60_000);
});

describe('serve --data DIR: better-sqlite3 not built', () => {
  it('says how to build it, not that the folder is damaged', async () => {
    const { openProblem } = await import('../database.js');
    const missing = openProblem(
      '/srv/pagi/gateway.sqlite',
      new Error('Could not locate the bindings file. Tried:\n → /x/build/better_sqlite3.node'),
    );
    expect(missing).not.toBeInstanceOf(DatabaseDamage);
    expect(missing.message).toMatch(
      /^cannot open \/srv\/pagi\/gateway\.sqlite: better-sqlite3's native module is not built for this Node \(Could not locate the bindings file\. Tried:\); run 'npm rebuild better-sqlite3'/,
    );
    const damaged = openProblem('/srv/pagi/gateway.sqlite', new Error('file is not a database'));
    expect(damaged).toBeInstanceOf(DatabaseDamage);
    expect(damaged.message).toMatch(/cannot be opened as a database \(file is not a database\): nothing was changed/);
  });
});
