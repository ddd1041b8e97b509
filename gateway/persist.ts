/**
 * The gateway's state kept in a folder (`serve --data DIR`): every change of the store and every notification
 * queued or settled becomes a row of the SQLite database (gateway/database.ts), committed with the other changes of
 * its turn before any answer of that turn is sent. On start the newest rows within the store's caps are read back
 * into the empty store with the store's own methods; the others stay in the database, which is the store's backing
 * (gateway/persist-backing.ts): a record the memory does not hold is read from it when a request names it. The
 * notifications still pending are sent again at a bounded rate once the server listens. A folder holding only the journal of an earlier version
 * (gateway/journal.ts) is imported once. Full card numbers are never written in clear, nor secrets
 * (gateway/persist-codec.ts); sessions keep no card field.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { GatewayConfig } from './config.js';
import type { Durability } from './context.js';
import {
  checksum,
  DATABASE_FILE,
  GroupCommit,
  openDatabase,
  readMeta,
  rows,
  type OpenDatabase,
  type Row,
  type Table,
} from './database.js';
import { Checkpointer } from './checkpointer.js';
import { releaseLock, takeLock } from './folder-lock.js';
import { JOURNAL_FILE, replayJournal } from './journal.js';
import type { NotificationTracker, Notifier } from './notify.js';
import { paymentOf, parseRow, refundOf, sqliteBacking, VALID } from './persist-backing.js';
import {
  decodeSession,
  encodeSession,
  encodeText,
  openToken,
  pendingOf,
  sealToken,
  secretOf,
  transactionText,
  type PendingNotification,
} from './persist-codec.js';
import type { PayoutRecord, Store, StoreWatcher, Transaction } from './store.js';

/** What a start found in the folder, for the banner. */
export interface Restored {
  transactions: number;
  refunds: number;
  tokens: number;
  payouts: number;
  sessions: number;
  notifications: number;
  /** Rows the database holds (or records of the journal imported). */
  records: number;
  /** The line saying a journal of an earlier version was imported, on the start that imported it. */
  imported?: string;
}

/** An open folder: the durability the server waits on, what was restored, and the stop. */
export interface Persistence {
  durability: Durability;
  restored: Restored;
  /** Start sending again the notifications pending when the last gateway stopped (after the server listens). */
  resend(): void;
  /** Commit what is pending, close the database, release the folder. */
  close(): Promise<void>;
  /** Bytes of the database file and its WAL. */
  databaseBytes(): number;
}

/** What the folder's stages share. */
interface Folder {
  store: Store;
  notifier: Notifier;
  config: GatewayConfig;
  warn: (line: string) => void;
  /** Notifications queued and not yet settled, by id. */
  pending: Map<number, PendingNotification>;
  /** The last notification id given. */
  notificationSeq: number;
  droppedTokens: number;
  /** Stops sending again the notifications of before the restart (an admin reset forgets them too). */
  stopResend: () => void;
}

// ------------------------------------------------------------------ reading rows back

/**
 * The newest rows of a table that fit in memory (at most `cap`, and no more bytes of JSON text than the byte budget
 * has left), in the order they were written; `spilled` is told when older rows stay in the database only.
 */
function newest<T>(
  open: OpenDatabase,
  table: Table,
  cap: number,
  budget: { left: number },
  read: (row: Row) => T | undefined,
  spilled: () => void,
): T[] {
  const out: T[] = [];
  for (const row of rows(open, table, true)) {
    const bytes = 2 * (typeof row.body === 'string' ? row.body.length : 0) + 256;
    if (out.length >= cap || bytes > budget.left) {
      spilled();
      break;
    }
    const value = read(row);
    if (value === undefined) continue;
    budget.left -= bytes;
    out.push(value);
  }
  return out.reverse();
}

/**
 * Read the newest rows back into the empty store, within its caps and byte budget (the rest stays in the database,
 * read when a request names it); sessions past their lifetime are deleted. No watcher yet but the evictions'.
 */
function load(f: Folder, open: OpenDatabase): number {
  const { store, config } = f;
  const counters = (readMeta(open, 'counters') ?? {}) as Record<string, unknown>;
  store.restoreCounters(counters);
  f.notificationSeq = Number(counters.notificationSeq) || 0;
  const budget = { left: (config.store.maxMiB ?? 512) * 1024 * 1024 };
  const caps = store.caps;
  const payments = newest(
    open,
    'payments',
    caps.maxTransactions,
    budget,
    (row) => ({ n: row.n, t: paymentOf(open, row) }),
    () => store.markSpilled('transaction'),
  );
  for (const { t } of payments) store.addTransaction(t);
  if (payments.length) {
    const refunds = open.db.prepare(
      'SELECT r.n, r.id, r.payment, r.body, r.crc FROM refunds r JOIN payments p ON p.id = r.payment WHERE p.n >= ? ORDER BY r.n',
    );
    for (const row of refunds.iterate(payments[0]!.n) as Iterable<Row>) {
      const t = store.transactions.get(String(row.payment));
      if (t) store.addRefund(t, refundOf(open, row));
    }
  }
  const tokens = newest(
    open,
    'tokens',
    caps.maxTokens,
    budget,
    (row) => {
      const token = openToken(parseRow(open, 'tokens', row, VALID.tokens), config);
      if (token) return token;
      f.droppedTokens += 1;
      store.watcher?.evicted?.('token', row.id);
      return undefined;
    },
    () => store.markSpilled('token'),
  );
  for (const token of tokens) store.tokens.set(token.tokenId, token);
  const payouts = newest(
    open,
    'payouts',
    caps.maxPayouts,
    budget,
    (row) => parseRow<PayoutRecord>(open, 'payouts', row, VALID.payouts),
    () => store.markSpilled('payout'),
  );
  for (const p of payouts) store.payouts.set(p.key, p);
  const ttlMs = config.sessions.ttlSeconds * 1000;
  const sessions = newest(
    open,
    'sessions',
    config.sessions.maxSessions,
    budget,
    (row) => decodeSession(parseRow(open, 'sessions', row, VALID.sessions)),
    () => store.markSpilled('session'),
  );
  for (const s of sessions) store.addSession(s, ttlMs, config.sessions.maxSessions);
  for (const row of rows(open, 'notifications')) {
    f.pending.set(row.n, parseRow<PendingNotification>(open, 'notifications', row, VALID.notifications));
    f.notificationSeq = Math.max(f.notificationSeq, row.n);
  }
  return countRows(open);
}

/**
 * Delete the sessions past their lifetime by the newest one (as the store drops them: gone for good, their pages
 * answer unknownRecord), those the memory did not read included.
 */
function expireSessions(open: OpenDatabase, ttlMs: number): void {
  const createdAt = "json_extract(body, '$.createdAt')";
  const last = open.db.prepare(`SELECT max(${createdAt}) AS at FROM sessions`).get() as { at: string | null };
  if (last.at)
    open.db
      .prepare(`DELETE FROM sessions WHERE ${createdAt} <= ?`)
      .run(new Date(new Date(last.at).getTime() - ttlMs).toISOString());
}

/** Rows the database holds (every table). */
function countRows(open: OpenDatabase): number {
  let n = 0;
  for (const table of ['payments', 'refunds', 'tokens', 'payouts', 'sessions', 'notifications'] as const)
    n += (open.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  return n;
}

/** What the database holds, by kind (the banner's counts: the memory may hold fewer). */
function heldRows(open: OpenDatabase): Omit<Restored, 'notifications' | 'records' | 'imported'> {
  const count = (table: Table) => (open.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  return {
    transactions: count('payments'),
    refunds: count('refunds'),
    tokens: count('tokens'),
    payouts: count('payouts'),
    sessions: count('sessions'),
  };
}

// ------------------------------------------------------------------ writing rows

/** A record's row values: its JSON and the JSON's checksum. */
function rowOf(value: unknown): [string, number] {
  const body = JSON.stringify(value);
  return [body, checksum(body)];
}

/** The row values of a record holding bigints and dates (a refund): its JSON with them tagged, and the checksum. */
function taggedRowOf(value: unknown): [string, number] {
  const body = encodeText(value);
  return [body, checksum(body)];
}

/** A payment's row values: its id, the columns it is looked up by, its JSON and checksum. */
function paymentRow(t: Transaction): [string, string, string, string, string, number] {
  const body = transactionText(t);
  return [t.transactionId, t.merchantId, t.accountId, t.orderNo, body, checksum(body)];
}

const UPSERT = (table: Table) =>
  `INSERT INTO ${table} (id, body, crc) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET body = excluded.body, crc = excluded.crc`;
const SQL = {
  payment:
    'INSERT INTO payments (id, merchant, account, order_no, body, crc) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET body = excluded.body, crc = excluded.crc',
  refund:
    'INSERT INTO refunds (id, payment, body, crc) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET body = excluded.body, crc = excluded.crc',
  token: UPSERT('tokens'),
  payout: UPSERT('payouts'),
  session: UPSERT('sessions'),
  notification: 'INSERT OR REPLACE INTO notifications (n, id, body, crc) VALUES (?, ?, ?, ?)',
  notificationDone: 'DELETE FROM notifications WHERE n = ?',
  counters: "INSERT OR REPLACE INTO meta (key, value) VALUES ('counters', ?)",
} as const;
const EVICT: Record<NonNullable<Parameters<NonNullable<StoreWatcher['evicted']>>[0]>, string> = {
  transaction: 'DELETE FROM payments WHERE id = ?',
  token: 'DELETE FROM tokens WHERE id = ?',
  payout: 'DELETE FROM payouts WHERE id = ?',
  session: 'DELETE FROM sessions WHERE id = ?',
};

/** The store's watcher: every change written in the current group. */
function storeWatcher(f: Folder, writes: GroupCommit): StoreWatcher {
  return {
    transaction: (t) => writes.run(SQL.payment, ...paymentRow(t)),
    refund: (t, refund) => writes.run(SQL.refund, refund.referenceId, t.transactionId, ...taggedRowOf(refund)),
    token: (t) => {
      const sealed = sealToken(t, f.config);
      if (sealed) writes.run(SQL.token, t.tokenId, ...rowOf(sealed));
    },
    payout: (p) => writes.run(SQL.payout, p.key, ...rowOf(p)),
    session: (s) => writes.run(SQL.session, s.token, ...rowOf(encodeSession(s))),
    evicted: (kind, key) => writes.run(EVICT[kind], key),
    cleared: () => {
      f.stopResend();
      f.pending.clear();
      for (const table of ['refunds', 'payments', 'tokens', 'payouts', 'sessions', 'notifications'])
        writes.run(`DELETE FROM ${table}`);
    },
  };
}

/** The notifier's tracker: each notification written when queued, deleted when settled. */
function notificationTracker(f: Folder, writes: GroupCommit): NotificationTracker {
  const ids = new WeakMap<object, number>();
  return {
    queued(n) {
      const id = ++f.notificationSeq;
      ids.set(n, id);
      const record = pendingOf(n);
      f.pending.set(id, record);
      writes.run(SQL.notification, id, String(id), ...rowOf(record));
    },
    settled(n) {
      const id = ids.get(n);
      if (id === undefined || !f.pending.delete(id)) return;
      writes.run(SQL.notificationDone, id);
    },
  };
}

/** The whole state written at once (the import of a journal), in one transaction. */
function writeAll(f: Folder, open: OpenDatabase): void {
  const { store } = f;
  const run = (sql: string, ...params: unknown[]) => open.db.prepare(sql).run(...params);
  open.db.transaction(() => {
    for (const t of store.transactions.values()) run(SQL.payment, ...paymentRow(t));
    for (const { txn, refund } of store.allRefunds())
      run(SQL.refund, refund.referenceId, txn.transactionId, ...taggedRowOf(refund));
    for (const t of store.tokens.values()) {
      const sealed = sealToken(t, f.config);
      if (sealed) run(SQL.token, t.tokenId, ...rowOf(sealed));
    }
    for (const p of store.payouts.values()) run(SQL.payout, p.key, ...rowOf(p));
    for (const s of store.sessions.values()) run(SQL.session, s.token, ...rowOf(encodeSession(s)));
    for (const [id, n] of f.pending) run(SQL.notification, id, String(id), ...rowOf(n));
    run(SQL.counters, countersText(f));
  })();
}

function countersText(f: Folder): string {
  return JSON.stringify({ ...f.store.counters(), notificationSeq: f.notificationSeq });
}

/** Import the journal of an earlier version into the new database; the journal is kept, renamed. */
function importJournal(f: Folder, open: OpenDatabase, dir: string): { records: number; line: string } {
  const journal = path.join(dir, JOURNAL_FILE);
  const records = replayJournal(journal, f);
  writeAll(f, open);
  const kept = `${JOURNAL_FILE}.imported`;
  fs.renameSync(journal, path.join(dir, kept));
  return {
    records,
    line: `imported ${records} records of ${journal} (the journal of an earlier version) into ${open.file}, once; the journal is kept as ${kept}`,
  };
}

// ------------------------------------------------------------------ sending again

/**
 * Send again the notifications pending when the last gateway stopped, oldest first, at most `perSecond` a second
 * (10 turns a second): answers never wait for them. Each stays in the database until it is queued again. Returns
 * the stop.
 */
function resendPending(f: Folder, writes: GroupCommit, perSecond: number): () => void {
  const again = [...f.pending.entries()];
  for (const [id] of again) f.pending.delete(id);
  const perTurn = Math.max(1, Math.ceil(perSecond / 10));
  let next = 0;
  let timer: NodeJS.Timeout | undefined;
  const turn = () => {
    for (const end = Math.min(again.length, next + perTurn); next < end; next++) {
      const [id, n] = again[next]!;
      writes.run(SQL.notificationDone, id);
      const secret = secretOf(f.config, n.merchantId, n.accountId);
      if (secret) f.notifier.send({ ...n, secret });
      else f.warn(`database: a ${n.kind} notification (${n.key}) dropped: its account is no longer configured`);
    }
    timer = next < again.length ? setTimeout(turn, 100) : undefined;
  };
  if (again.length) timer = setTimeout(turn, 0);
  return () => clearTimeout(timer);
}

/** Bytes of the database and its WAL. */
function bytesOf(file: string): number {
  let n = 0;
  for (const f of [file, `${file}-wal`]) n += fs.existsSync(f) ? fs.statSync(f).size : 0;
  return n;
}

/** Read or import the folder's state into the store; the open database and what was restored. */
function restore(f: Folder, dir: string, open: OpenDatabase): Restored {
  const importing = open.created && fs.existsSync(path.join(dir, JOURNAL_FILE));
  const evicted: [Parameters<NonNullable<StoreWatcher['evicted']>>[0], string][] = [];
  f.store.watcher = {
    transaction: () => undefined,
    refund: () => undefined,
    token: () => undefined,
    payout: () => undefined,
    session: () => undefined,
    cleared: () => undefined,
    evicted: (kind, key) => void evicted.push([kind, key]),
  };
  const imported = importing ? importJournal(f, open, dir) : undefined;
  const records = imported ? imported.records : load(f, open);
  // Rows gone for good (sessions past their lifetime, cards no longer readable; caps lowered, for a journal imported).
  open.db.transaction(() => {
    for (const [k, key] of evicted) open.db.prepare(EVICT[k]).run(key);
    expireSessions(open, f.config.sessions.ttlSeconds * 1000);
  })();
  if (f.droppedTokens)
    f.warn(
      `database: ${f.droppedTokens} stored-card token${f.droppedTokens === 1 ? '' : 's'} dropped: its account is no longer configured, or its secret changed (the card is encrypted with a key derived from it)`,
    );
  // From now on the database keeps what the memory evicts, and is read when a request names it.
  f.store.backing = sqliteBacking(open, f.config);
  return { ...heldRows(open), notifications: f.pending.size, records, imported: imported?.line };
}

/**
 * Open `dir` for a gateway whose store is still empty: lock it, open (or create) its database, read it into `store`
 * (importing a journal of an earlier version once), and from then on write every change. Throws `JournalError` when
 * another gateway holds the folder, `DatabaseDamage` (a JournalError) when the database cannot be used.
 */
export function openPersistence(
  dir: string,
  parts: { store: Store; notifier: Notifier; config: GatewayConfig; warn: (line: string) => void },
): Persistence {
  const { store, notifier, config, warn } = parts;
  const lockFile = takeLock(dir);
  const f: Folder = {
    store,
    notifier,
    config,
    warn,
    pending: new Map(),
    notificationSeq: 0,
    droppedTokens: 0,
    stopResend: () => undefined,
  };
  let open: OpenDatabase | undefined;
  let restored: Restored;
  try {
    open = openDatabase(dir, config.store.syncWrites ?? false);
    restored = restore(f, dir, open);
  } catch (e) {
    store.watcher = undefined;
    store.clear();
    if (open) {
      open.db.close();
      // A database created by this start and not filled (an import refused): the next start tries again.
      if (open.created) for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${open.file}${suffix}`, { force: true });
    }
    releaseLock(lockFile);
    throw e;
  }
  const database = open;
  const writes = new GroupCommit(database, () => writes.run(SQL.counters, countersText(f)), warn);
  // WAL checkpoints off the thread that answers (gateway/checkpointer.ts); SQLite's own again if the worker fails.
  database.db.pragma('wal_autocheckpoint = 0');
  const checkpointer = new Checkpointer(database.file, config.store.syncWrites ?? false, () => {
    if (database.db.open) database.db.pragma('wal_autocheckpoint = 1000');
  });
  store.watcher = storeWatcher(f, writes);
  notifier.tracker = notificationTracker(f, writes);
  return {
    durability: writes,
    restored,
    resend: () => {
      f.stopResend = resendPending(f, writes, config.notifications.resendPerSecond ?? 100);
    },
    close: async () => {
      f.stopResend();
      await checkpointer.stop();
      writes.close();
      releaseLock(lockFile);
    },
    databaseBytes: () => bytesOf(path.join(dir, DATABASE_FILE)),
  };
}
