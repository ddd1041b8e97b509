/**
 * The WAL checkpoints of `serve --data` run in a worker thread (gateway/checkpointer.ts), not in the commits of the
 * thread that answers: the gateway's connection has wal_autocheckpoint = 0, and the worker's connection copies the
 * WAL into the database file. Checked on a database written as the gateway writes it, and on a running gateway.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { Checkpointer } from '../checkpointer.js';
import { DATABASE_FILE } from '../database.js';
import { tempDir } from '../../test/support/temp.js';
import * as h from './helpers.js';

/** A database in WAL mode that never checkpoints itself, with 2,000 rows of 2 KB written in 200 commits. */
function writer(): { file: string; db: Database.Database } {
  const file = path.join(tempDir('pagi-checkpoint-'), 'db.sqlite');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec('CREATE TABLE t (n INTEGER PRIMARY KEY, body TEXT)');
  const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
  for (let i = 0; i < 200; i++)
    db.transaction(() => {
      for (let j = 0; j < 10; j++) insert.run('x'.repeat(2000));
    })();
  return { file, db };
}

/** Wait until `ok` holds (at most 10 s). */
async function until(ok: () => boolean): Promise<boolean> {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  return ok();
}

describe('Checkpointer', () => {
  it('copies the WAL into the database file from its own thread; stop closes its connection', async () => {
    const { file, db } = writer();
    const size = () => fs.statSync(file).size;
    expect(size()).toBeLessThan(100_000); // everything is still in the WAL: no commit checkpointed
    let failed = false;
    const checkpointer = new Checkpointer(file, false, () => (failed = true), 20);
    expect(await until(() => size() > 4_000_000)).toBe(true); // the pages are in the database file
    await checkpointer.stop();
    expect(failed).toBe(false);
    db.close(); // the last connection: SQLite removes the WAL
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
  });

  it('a worker that cannot open the file says so (the gateway then checkpoints itself)', async () => {
    let failed = false;
    const checkpointer = new Checkpointer(path.join(tempDir('pagi-checkpoint-'), 'none.sqlite'), false, () => {
      failed = true;
    });
    await checkpointer.stop();
    expect(failed).toBe(true);
  });
});

describe('serve --data: checkpoints off the answering thread', () => {
  it('the gateway commits without checkpointing; its worker moves the WAL into the database file', async () => {
    const dir = tempDir('pagi-checkpoint-');
    const gw = await h.gateway({ dataDir: dir, config: { notifications: { enabled: false } } });
    try {
      const file = path.join(dir, DATABASE_FILE);
      const before = fs.statSync(file).size;
      for (let i = 0; i < 50; i++) await h.pay(gw);
      // A reader's view of the same file: the payments are committed (in the WAL or already in the file).
      const reader = new Database(file, { readonly: true });
      expect((reader.prepare('SELECT count(*) AS n FROM payments').get() as { n: number }).n).toBe(50);
      reader.close();
      expect(await until(() => fs.statSync(file).size > before)).toBe(true);
    } finally {
      await gw.close();
    }
  });
});
