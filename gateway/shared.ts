/**
 * A sandbox shared by several gateway processes behind one address (`serve --database postgres://…`): the state in
 * PostgreSQL (through `pg`), each process's store a copy brought up to date before every request. Requests run one at
 * a time across all the processes: each in one PostgreSQL transaction holding one advisory lock, which first reads
 * the rows the other processes changed since this one last looked (a version from one sequence), then runs the
 * request on the store (synchronously, as without a database), then writes the rows it changed, then commits; the
 * answer is sent after the commit. So a capture on one process, a refund on another and a query on a third see one
 * state, and concurrent refunds of one payment never exceed its capture. Throughput is that of one lock.
 *
 * Not shared: pending notifications (each process sends those it queued, kept in its memory), and evictions (a
 * record one process evicts is deleted from the database; the others drop it under their own caps).
 */
import pg from 'pg';
import { JournalError } from '../core/types/errors.js';
import type { GatewayConfig } from './config.js';
import {
  decode,
  decodeSession,
  encode,
  encodeSession,
  encodeTransaction,
  openToken,
  sealToken,
} from './persist-codec.js';
import type { Restored } from './persist.js';
import type { PayoutRecord, RefundRecord, Store, StoreWatcher, Transaction } from './store.js';

/** The advisory lock every request takes (one per database: one sandbox). */
const LOCK = 0x7061_6769;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS pagi_meta (key text PRIMARY KEY, value text NOT NULL);
CREATE SEQUENCE IF NOT EXISTS pagi_version;
CREATE TABLE IF NOT EXISTS pagi_rows (
  kind text NOT NULL, id text NOT NULL, payment text, body text NOT NULL, version bigint NOT NULL,
  PRIMARY KEY (kind, id));
CREATE INDEX IF NOT EXISTS pagi_rows_version ON pagi_rows (version);
`;

type Kind = 'payment' | 'refund' | 'token' | 'payout' | 'session';

/** One change a request made, written before its answer. */
type Write = { kind: Kind; id: string; payment?: string; body: unknown } | { delete: Kind; id: string } | 'clear';

/** A request waiting for its turn. */
interface Waiting {
  handle: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/** A shared sandbox, open. */
export interface SharedState {
  restored: Restored;
  /** Run one request's handling with the state up to date; resolves once its changes are committed. */
  run<T>(handle: () => T): Promise<T>;
  close(): Promise<void>;
}

const EVICTED: Record<string, Kind> = { transaction: 'payment', token: 'token', payout: 'payout', session: 'session' };

/** Where the database is, without its password (for messages). */
export function databaseName(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.username ? `${u.username}@` : ''}${u.host}${u.pathname}`;
  } catch {
    return 'the database';
  }
}

class Shared implements SharedState {
  restored!: Restored;
  private version = 0n;
  private generation = '';
  private writes: Write[] = [];
  private applying = false;
  private readonly waiting: Waiting[] = [];
  private busy = false;
  private readonly idle: (() => void)[] = [];
  /** A request failed after changing the store: reload everything before the next one. */
  private stale = false;

  constructor(
    private readonly client: pg.Client,
    private readonly store: Store,
    private readonly config: GatewayConfig,
  ) {
    store.watcher = this.watcher();
  }

  private watcher(): StoreWatcher {
    const push = (w: Write) => {
      if (!this.applying) this.writes.push(w);
    };
    return {
      transaction: (t) => push({ kind: 'payment', id: t.transactionId, body: encodeTransaction(t) }),
      refund: (t, r) => push({ kind: 'refund', id: r.referenceId, payment: t.transactionId, body: encode(r) }),
      token: (t) => {
        const sealed = sealToken(t, this.config);
        if (sealed) push({ kind: 'token', id: t.tokenId, body: sealed });
      },
      payout: (p) => push({ kind: 'payout', id: p.key, body: p }),
      session: (s) => push({ kind: 'session', id: s.token, body: encodeSession(s) }),
      evicted: (kind, key) => push({ delete: EVICTED[kind]!, id: key }),
      cleared: () => push('clear'),
    };
  }

  run<T>(handle: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ handle, resolve: resolve as (value: unknown) => void, reject });
      if (!this.busy) void this.drain();
    });
  }

  /**
   * Handle the requests waiting, in groups: each group in one transaction under the lock (the requests that arrived
   * while the previous group was committed go together: one catch-up and one commit for all of them).
   */
  private async drain(): Promise<void> {
    this.busy = true;
    while (this.waiting.length) {
      const group = this.waiting.splice(0);
      try {
        const results = await this.locked(group);
        group.forEach((w, i) => w.resolve(results[i]));
      } catch (e) {
        for (const w of group) w.reject(e as Error);
      }
    }
    this.busy = false;
    for (const done of this.idle.splice(0)) done();
  }

  private async locked(group: Waiting[]): Promise<unknown[]> {
    const { client } = this;
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock($1)', [LOCK]);
      await this.catchUp();
      // Writes queued since the last group (evictions to the byte budget) go with this one's.
      const results = group.map((w) => w.handle());
      await this.write(this.writes.splice(0));
      await client.query('COMMIT');
      return results;
    } catch (e) {
      this.stale = true;
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    }
  }

  /** Read what the other processes changed (everything after a reset, or after a failed request). */
  async catchUp(): Promise<number> {
    const meta = await this.client.query<{ key: string; value: string }>('SELECT key, value FROM pagi_meta');
    const values = Object.fromEntries(meta.rows.map((r) => [r.key, r.value]));
    if (this.stale || (values.generation ?? '0') !== this.generation) {
      this.applying = true;
      this.store.clear();
      this.applying = false;
      this.version = 0n;
      this.generation = values.generation ?? '0';
      this.stale = false;
    }
    this.store.restoreCounters({ seq: Number(values.seq ?? 0) });
    const rows = await this.client.query<{
      kind: Kind;
      id: string;
      payment: string | null;
      body: string;
      version: string;
    }>(
      // Payments first: a payment changed after its refunds (its amounts) has a newer version than they have.
      "SELECT kind, id, payment, body, version FROM pagi_rows WHERE version > $1 ORDER BY kind <> 'payment', version",
      [this.version.toString()],
    );
    this.applying = true;
    try {
      for (const row of rows.rows) {
        this.apply(row.kind, row.payment, JSON.parse(row.body) as Record<string, unknown>);
        if (BigInt(row.version) > this.version) this.version = BigInt(row.version);
      }
    } finally {
      this.applying = false;
    }
    return rows.rows.length;
  }

  /** One row of another process into the store (the same methods as a request, the watcher silent). */
  private apply(kind: Kind, payment: string | null, body: Record<string, unknown>): void {
    const { store } = this;
    if (kind === 'payment') {
      const t = decode(body) as Transaction;
      const held = store.transactions.get(t.transactionId);
      if (held) Object.assign(held, t, { refunds: held.refunds });
      else store.addTransaction({ ...t, refunds: [] });
    } else if (kind === 'refund') {
      const t = store.transactions.get(String(payment));
      const refund = decode(body) as RefundRecord;
      if (t && !t.refunds.some((r) => r.referenceId === refund.referenceId)) store.addRefund(t, refund);
    } else if (kind === 'token') {
      const token = openToken(body, this.config);
      if (token) store.tokens.set(token.tokenId, token);
    } else if (kind === 'payout') {
      const p = body as unknown as PayoutRecord;
      store.payouts.set(p.key, p);
    } else {
      const s = decodeSession(body);
      const held = store.sessions.get(s.token);
      if (held) Object.assign(held, s);
      else store.addSession(s, this.config.sessions.ttlSeconds * 1000, this.config.sessions.maxSessions);
    }
  }

  /** The request's changes, and the counters, in its transaction; this process's version follows its own writes. */
  private async write(writes: Write[]): Promise<void> {
    const { client } = this;
    let newest: bigint | undefined;
    for (const w of writes) {
      if (w === 'clear') {
        await client.query('DELETE FROM pagi_rows');
        const g = await client.query<{ value: string }>(
          "INSERT INTO pagi_meta VALUES ('generation', '1') ON CONFLICT (key) DO UPDATE SET value = (pagi_meta.value::bigint + 1)::text RETURNING value",
        );
        this.generation = g.rows[0]!.value;
      } else if ('delete' in w) {
        await client.query('DELETE FROM pagi_rows WHERE kind = $1 AND id = $2', [w.delete, w.id]);
      } else {
        const written = await client.query<{ version: string }>(
          `INSERT INTO pagi_rows (kind, id, payment, body, version) VALUES ($1, $2, $3, $4, nextval('pagi_version'))
           ON CONFLICT (kind, id) DO UPDATE SET body = excluded.body, version = excluded.version RETURNING version`,
          [w.kind, w.id, w.payment ?? null, JSON.stringify(w.body)],
        );
        newest = BigInt(written.rows[0]!.version);
      }
    }
    if (!writes.length) return;
    await client.query("INSERT INTO pagi_meta VALUES ('seq', $1) ON CONFLICT (key) DO UPDATE SET value = $1", [
      String(this.store.counters().seq),
    ]);
    // Under the lock no other process allocates versions: ours are the newest, and we hold every row before them.
    if (newest !== undefined) this.version = newest;
  }

  private closed: Promise<void> | undefined;

  close(): Promise<void> {
    const settled = this.busy ? new Promise<void>((resolve) => this.idle.push(resolve)) : Promise.resolve();
    this.closed ??= settled.then(() => this.client.end()).catch(() => undefined);
    return this.closed;
  }
}

/**
 * Connect to the shared sandbox's PostgreSQL, create its tables when they are missing, and read the state into
 * `store`. Throws JournalError (exit 2) with one sentence when the database cannot be reached or used.
 */
export async function openShared(url: string, store: Store, config: GatewayConfig): Promise<SharedState> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    await client.query('SELECT pg_advisory_lock($1)', [LOCK]);
    await client.query(SCHEMA);
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK]);
  } catch (e) {
    await client.end().catch(() => undefined);
    throw new JournalError(
      `cannot use ${databaseName(url)} (${String((e as Error).message).split('\n')[0]}): start PostgreSQL, or check the address, user and password`,
    );
  }
  // A connection lost later fails the requests waiting on it (answered 503), never the process.
  client.on('error', () => undefined);
  const shared = new Shared(client, store, config);
  const records = await shared.run(() => 0).then(() => store.counts());
  shared.restored = { ...records, notifications: 0, records: records.transactions + records.refunds };
  return shared;
}
