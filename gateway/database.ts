/**
 * The SQLite database of `serve --data DIR` (`DIR/gateway.sqlite`, through better-sqlite3): one table per kind of
 * record, each row one record as JSON (gateway/persist-codec.ts), in WAL mode. Knows nothing of what the records mean
 * (gateway/persist.ts does).
 *
 * - **Group commit**: the changes made while handling the requests of one turn of the event loop go in one
 *   transaction, committed before any of their answers is sent (`Durability`): a refund and its payment's amounts
 *   are committed together or not at all. Committed means in the WAL file, which the operating system keeps through a
 *   crash or kill of the gateway; with `sync` (synchronous=FULL) it is on disk too, through a crash of the machine.
 * - **Damage**: a database that cannot be opened, fails SQLite's quick check at start, is empty, or is of another
 *   format is refused with one sentence naming the file and what to do (`DatabaseDamage`); nothing is written to it.
 *   SQLite checks its pages' structure, not their content: each row carries the CRC-32 of its JSON (`crc`), checked
 *   when it is read back, so a damaged record refuses the folder instead of being read as another.
 */
import fs from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import Database from 'better-sqlite3';
import { DatabaseDamage, JournalError } from '../core/types/errors.js';
import type { Durability } from './context.js';

/** The database's file name in the folder. */
export const DATABASE_FILE = 'gateway.sqlite';

/** Version of the tables' format (SQLite's user_version). */
export const FORMAT = 3;

/**
 * Format 3 gave payments the columns the lookups of evicted payments need (by account and order number); a format 2
 * database (0.2.0's first SQLite store) is brought to it on open, in one transaction.
 */
const FROM_FORMAT_2 = `
ALTER TABLE payments ADD COLUMN merchant TEXT;
ALTER TABLE payments ADD COLUMN account TEXT;
ALTER TABLE payments ADD COLUMN order_no TEXT;
UPDATE payments SET merchant = json_extract(body, '$.merchantId'), account = json_extract(body, '$.accountId'),
  order_no = json_extract(body, '$.orderNo') WHERE json_valid(body);
CREATE INDEX payments_order ON payments(merchant, account, order_no);
PRAGMA user_version = 3;
`;

/** The tables of records, each keyed by its record's key, in the order the records were first written (`n`). */
export const TABLES = ['payments', 'refunds', 'tokens', 'payouts', 'sessions', 'notifications'] as const;
export type Table = (typeof TABLES)[number];

const SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE payments (n INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, body TEXT NOT NULL, crc INTEGER NOT NULL,
  merchant TEXT, account TEXT, order_no TEXT);
CREATE INDEX payments_order ON payments(merchant, account, order_no);
CREATE TABLE refunds (n INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
  payment TEXT NOT NULL REFERENCES payments(id) ON DELETE CASCADE, body TEXT NOT NULL, crc INTEGER NOT NULL);
CREATE INDEX refunds_payment ON refunds(payment);
CREATE TABLE tokens (n INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, body TEXT NOT NULL, crc INTEGER NOT NULL);
CREATE TABLE payouts (n INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, body TEXT NOT NULL, crc INTEGER NOT NULL);
CREATE TABLE sessions (n INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, body TEXT NOT NULL, crc INTEGER NOT NULL);
CREATE TABLE notifications (n INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, body TEXT NOT NULL, crc INTEGER NOT NULL);
PRAGMA user_version = ${FORMAT};
`;

export { DatabaseDamage };

/** SQLite's message, on one line. */
function reason(e: unknown): string {
  return String((e as Error).message ?? e).split('\n')[0]!;
}

/** Open the database file with the pragmas of the gateway; a file that is none, or damaged, throws DatabaseDamage. */
function connect(file: string, options: { readonly?: boolean; sync?: boolean }): Database.Database {
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false });
    if (!options.readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma(`synchronous = ${options.sync ? 'FULL' : 'NORMAL'}`);
    }
    db.pragma('foreign_keys = ON');
    return db;
  } catch (e) {
    db?.close();
    throw openProblem(file, e);
  }
}

/**
 * Why a database could not be opened: the native module of better-sqlite3 missing or built for another Node (the
 * folder is not at fault: how to build it), or the file.
 */
export function openProblem(file: string, e: unknown): JournalError {
  const why = reason(e);
  if (/bindings file|better_sqlite3\.node|NODE_MODULE_VERSION|ERR_DLOPEN_FAILED|invalid ELF/i.test(why))
    return new JournalError(
      `cannot open ${file}: better-sqlite3's native module is not built for this Node (${why}); run 'npm rebuild better-sqlite3' where the kit is installed (npm 11 runs a dependency's install script only once allowed: 'npm install-scripts approve better-sqlite3')`,
    );
  return new DatabaseDamage(file, `cannot be opened as a database (${why})`);
}

/**
 * Check the format of an existing database and run SQLite's quick check (`integrity` for the full one); a sound database
 * of format 2 opened for writing is brought to the current format.
 */
function verify(db: Database.Database, file: string, integrity: boolean): void {
  try {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version !== FORMAT && version !== 2) {
      const tables = db.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table'").get() as { n: number };
      throw new DatabaseDamage(
        file,
        tables.n === 0
          ? 'holds no tables (it is empty, or was cut)'
          : `is of format ${version}, not ${FORMAT} (written by another version, or not by this gateway)`,
      );
    }
    const rows = db.pragma(integrity ? 'integrity_check(20)' : 'quick_check(20)', { simple: false }) as Record<
      string,
      string
    >[];
    const problems = rows.map((r) => Object.values(r)[0]).filter((v) => v !== 'ok');
    if (problems.length) throw new DatabaseDamage(file, `is damaged (SQLite's check: ${problems[0]})`);
    if (version === 2 && !db.readonly) db.transaction(() => db.exec(FROM_FORMAT_2))();
  } catch (e) {
    if (e instanceof DatabaseDamage) throw e;
    throw new DatabaseDamage(file, `is damaged (${reason(e)})`);
  }
}

/** An open database: the tables, written in groups. */
export interface OpenDatabase {
  file: string;
  db: Database.Database;
  /** True when the file was created by this start. */
  created: boolean;
}

/**
 * Open `DIR/gateway.sqlite`, creating it (with its tables, in one transaction) when the folder has none. An existing
 * file of 0 bytes is refused (a gateway never leaves one), as is one damaged or of another format.
 */
export function openDatabase(dir: string, sync: boolean): OpenDatabase {
  const file = path.join(dir, DATABASE_FILE);
  const exists = fs.existsSync(file);
  if (exists && fs.statSync(file).size === 0) throw new DatabaseDamage(file, 'is empty (0 bytes: it was cut)');
  // Readable by its owner only, like the journal before it (SQLite gives its WAL the same mode).
  if (!exists) fs.closeSync(fs.openSync(file, 'wx', 0o600));
  let db: Database.Database | undefined;
  try {
    db = connect(file, { sync });
    if (exists) verify(db, file, false);
    else db.transaction(() => db!.exec(SCHEMA))();
  } catch (e) {
    db?.close();
    // A file this start created and could not fill: gone, so that the next start begins afresh.
    if (!exists) for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true });
    throw e;
  }
  return { file, db, created: !exists };
}

/** What `serve --data DIR --check` prints: the integrity check's verdict and the rows of each table. */
export function checkDatabase(dir: string): { file: string; counts: Record<Table, number>; bytes: number } {
  const file = path.join(dir, DATABASE_FILE);
  if (!fs.existsSync(file))
    throw new JournalError(
      `${dir} holds no gateway database (${DATABASE_FILE})${fs.existsSync(path.join(dir, 'journal.log')) ? ': only a journal of an earlier version, imported by the next start' : ''}`,
    );
  if (fs.statSync(file).size === 0) throw new DatabaseDamage(file, 'is empty (0 bytes: it was cut)');
  const db = connect(file, { readonly: true });
  try {
    verify(db, file, true);
    const counts = {} as Record<Table, number>;
    for (const t of TABLES) counts[t] = (db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n;
    return { file, counts, bytes: fs.statSync(file).size };
  } catch (e) {
    if (e instanceof JournalError) throw e;
    throw new DatabaseDamage(file, `is damaged (${reason(e)})`);
  } finally {
    db.close();
  }
}

/** One row as read back. */
export interface Row {
  n: number;
  id: string;
  body: string;
  crc: number;
  payment?: string;
}

/** The checksum column of a row's JSON. */
export function checksum(body: string): number {
  return crc32(body);
}

/**
 * Every row of a table in the order its records were first written (`newestFirst`: the other way); a read error throws
 * DatabaseDamage.
 */
export function* rows(open: OpenDatabase, table: Table, newestFirst = false): Generator<Row> {
  try {
    yield* open.db.prepare(`SELECT * FROM ${table} ORDER BY n${newestFirst ? ' DESC' : ''}`).iterate() as Iterable<Row>;
  } catch (e) {
    throw new DatabaseDamage(open.file, `is damaged (reading ${table}: ${reason(e)})`);
  }
}

/** A meta value (JSON), undefined when absent. */
export function readMeta(open: OpenDatabase, key: string): unknown {
  const row = open.db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
  return row ? JSON.parse(row.value) : undefined;
}

/**
 * The writes of the gateway, grouped: the first write of a turn of the event loop opens a transaction, committed
 * once the turn's I/O callbacks ran (every request handled in it); then the answers waiting for it are sent.
 */
export class GroupCommit implements Durability {
  private open = false;
  private failed: Error | undefined;
  private waiters: ((error?: Error) => void)[] = [];
  private closed = false;
  private readonly statements = new Map<string, Database.Statement>();
  /** The group's own statements, prepared once (not parsed again at every group as `exec` would). */
  private readonly control: Record<'begin' | 'commit' | 'rollback', Database.Statement>;

  constructor(
    private readonly database: OpenDatabase,
    /** Written last in every transaction (the counters). */
    private readonly beforeCommit: () => void,
    private readonly warn: (line: string) => void,
  ) {
    const { db } = database;
    this.control = {
      begin: db.prepare('BEGIN IMMEDIATE'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
    };
  }

  /** The statement of `sql`, prepared on its first use. */
  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) this.statements.set(sql, (statement = this.database.db.prepare(sql)));
    return statement;
  }

  /** Run one statement in the current group (opened when none is). */
  run(sql: string, ...params: unknown[]): void {
    if (this.closed) return;
    if (!this.open) {
      this.open = true;
      setImmediate(() => this.commit());
      try {
        this.control.begin.run();
      } catch (e) {
        this.failed = e as Error; // the group's answers are refused (503), nothing is half written
      }
    }
    if (this.failed) return;
    try {
      this.statement(sql).run(...params);
    } catch (e) {
      this.failed = e as Error;
    }
  }

  pending(): boolean {
    return this.open;
  }

  whenDurable(done: (error?: Error) => void): void {
    if (this.open) this.waiters.push(done);
    else done();
  }

  /** Commit the group now (also when the turn ends); the waiting answers are sent, or told it failed. */
  commit(): void {
    if (!this.open) return;
    const { db } = this.database;
    let error = this.failed;
    try {
      if (!error) this.beforeCommit();
      if (this.failed) error = this.failed;
      (error ? this.control.rollback : this.control.commit).run();
    } catch (e) {
      error ??= e as Error;
      if (db.inTransaction) this.control.rollback.run();
    }
    this.open = false;
    this.failed = undefined;
    if (error)
      this.warn(
        `database: writing ${this.database.file} failed (${reason(error)}); the requests waiting for it are refused`,
      );
    for (const done of this.waiters.splice(0)) done(error);
  }

  /** Commit what is pending and close the database (the gateway stops); writes afterwards do nothing. */
  close(): void {
    if (this.closed) return;
    this.commit();
    this.closed = true;
    this.database.db.close();
  }
}
