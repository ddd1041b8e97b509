/**
 * A folder of an earlier version (`journal.log`, written by the journal this version replaced) is imported into the
 * database once, with a line saying so: the same state (digest included), the journal kept renamed; a journal record
 * of an unexpected shape refuses the folder with one sentence naming the file and the record, and leaves no database.
 * The fixture was written by that journal (gateway/test/fixtures/journal-v1.txt: a payment captured and refunded in
 * part with a stored card, a payout, a second payment, an APM session, three notifications pending).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DATABASE_FILE, JournalError, type RunningGateway } from '../index.js';
import { frame, JOURNAL_FILE } from '../journal.js';
import { spawnKit } from '../../test/support/cli.js';
import { tempDir } from '../../test/support/temp.js';
import * as h from './helpers.js';

const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'journal-v1.txt');
/** The fixture's state digest, printed by the gateway that wrote it (stateDigest()). */
const DIGEST = 'f7c308d3e191121e596a5e2e664aa16b26ae0c0be4c872ec27ed639a0823d37f';
const PAID = 'T202612016F78000001';
/** A configuration with notifications off (the fixture's pending ones name addresses nothing listens on). */
const CONFIG = path.join(tempDir('pagi-import-config-'), 'gateway.yaml');
fs.writeFileSync(CONFIG, 'notifications:\n  enabled: false\n');

const open: RunningGateway[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((gw) => gw.close().catch(() => undefined)));
});

async function start(dir: string): Promise<RunningGateway> {
  // Notifications off: the fixture's pending ones name addresses nothing listens on.
  const gw = await h.gateway({ dataDir: dir, config: { notifications: { enabled: false } } });
  open.push(gw);
  return gw;
}

function folderWith(journal: string): string {
  const dir = tempDir('pagi-import-');
  fs.writeFileSync(path.join(dir, JOURNAL_FILE), journal);
  return dir;
}

describe('serve --data: a journal of an earlier version', () => {
  it('is imported once, with a line saying so: the same state, the journal kept as journal.log.imported', async () => {
    const dir = folderWith(fs.readFileSync(FIXTURE, 'utf8'));
    const gw = await start(dir);
    expect(gw.data?.restored.imported).toMatch(
      /^imported 10 records of .*journal\.log \(the journal of an earlier version\) into .*gateway\.sqlite, once; the journal is kept as journal\.log\.imported$/,
    );
    expect(gw.data?.restored).toMatchObject({ transactions: 2, refunds: 1, tokens: 1, payouts: 1, notifications: 3 });
    expect(gw.stateDigest()).toBe(DIGEST);
    expect(fs.existsSync(path.join(dir, JOURNAL_FILE))).toBe(false);
    expect(fs.existsSync(path.join(dir, `${JOURNAL_FILE}.imported`))).toBe(true);
    // The imported refund numbering and remainder: 40.00 captured, 15.00 refunded; 25.01 refused, 25.00 is -02.
    const body = { order_no: 'ORD-T8288-mx580d5x-1', currency: 'USD', amount: '40.00' };
    const refund = async (amount: string) =>
      (await h.batch(gw, 'refund', [h.item(PAID, body, { refund_amount: amount, refund_reason: 'r' })])).results[0]!;
    expect((await refund('25.01')).refund_status).toBe(h.profile.statusValues.refund_status.failure);
    expect((await refund('25.00')).refund_reference_id).toBe(`${PAID}-02`);
    const digest = gw.stateDigest();
    open.splice(0);
    await gw.drain(1000);

    const again = await start(dir);
    expect(again.data?.restored.imported).toBeUndefined(); // once
    expect(again.stateDigest()).toBe(digest);
    expect(fs.existsSync(path.join(dir, DATABASE_FILE))).toBe(true);
  });

  it('with a record of an unexpected shape is refused with one sentence naming the file and the record; no database is left', async () => {
    const good = fs.readFileSync(FIXTURE, 'utf8');
    const dir = folderWith(`${good}${frame({ k: 'pay', t: null })}`);
    const refused = start(dir);
    await expect(refused).rejects.toThrow(JournalError);
    await expect(start(dir)).rejects.toThrow(
      /journal\.log: record 11 \(kind 'pay'\) cannot be imported \(a payment record without transactionId\); restore the folder from a copy, or start afresh with a new folder$/,
    );
    expect(fs.existsSync(path.join(dir, DATABASE_FILE))).toBe(false);
    expect(fs.existsSync(path.join(dir, JOURNAL_FILE))).toBe(true); // left as it was
  });
});

describe('serve --data DIR with a journal of an earlier version (the command line)', () => {
  it('prints the import line with the banner, and a skipped journal line as a warning on standard error', async () => {
    const lines = fs.readFileSync(FIXTURE, 'utf8').split('\n');
    lines[2] = lines[2]!.replace('"pay"', '"pax"'); // the second payment's checksum no longer matches
    const dir = folderWith(lines.join('\n'));
    const child = spawnKit(['serve', '--port', '0', '--data', dir, '--config', CONFIG]);
    let out = '';
    let err = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    for (const end = Date.now() + 30_000; !/state kept in/.test(out) && child.exitCode === null && Date.now() < end; )
      await new Promise((r) => setTimeout(r, 25));
    child.kill('SIGTERM');
    await exited;
    expect(out).toMatch(
      /^imported 9 records of .*journal\.log .* once; the journal is kept as journal\.log\.imported$/m,
    );
    expect(out).toMatch(
      /state kept in .*: 1 payments, 1 refunds, 1 tokens, 1 payouts, 1 sessions restored; 3 notifications/,
    );
    expect(err).toMatch(
      /^warning: journal: journal\.log line 3: a damaged record \(its checksum does not match\); skipped$/m,
    );
    expect(out).not.toMatch(/warning/);
  }, 60_000);
});
