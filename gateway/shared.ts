/**
 * A sandbox shared by several gateway processes behind one address (`serve --database postgres://…`): the state in
 * PostgreSQL (through `pg`), each process's store a cache of it within its caps. Requests run one group at a time
 * across all the processes: each group in one PostgreSQL transaction holding one advisory lock, which first reads the
 * rows the other processes changed since this one last looked (a version from one sequence) and applies them to the
 * records this process holds, then reads the records the requests may name that it does not hold
 * (gateway/shared-names.ts: the store finds them through its backing, this class), then runs the requests on the
 * store (synchronously, as without a database), then writes the rows they changed, then commits; the answers are sent
 * after the commit. So a capture on one process, a refund on another and a query on a third see one state, and
 * concurrent refunds of one payment never exceed its capture. Throughput is that of one lock.
 *
 * A record a process evicts from its memory stays in the database (read again when a request names it). Not shared:
 * pending notifications (each process sends those it queued, kept in its memory).
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
import type { RecordNames } from './context.js';
import type {
  PayoutRecord,
  RefundEntry,
  RefundRecord,
  Session,
  Store,
  StoreBacking,
  StoredToken,
  StoreWatcher,
  Transaction,
} from './store.js';

/** The advisory lock every request takes (one per database: one sandbox). */
const LOCK = 0x7061_6769;

/**
 * `n` orders the rows by their first writing (creation order); `acct` (merchant, newline, account) and `ord` (a
 * payment's order number) are what evicted payments and refunds are looked up by. Tables of an earlier 0.2.0 build,
 * without them, get them on open.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS pagi_meta (key text PRIMARY KEY, value text NOT NULL);
CREATE SEQUENCE IF NOT EXISTS pagi_version;
CREATE SEQUENCE IF NOT EXISTS pagi_n;
CREATE TABLE IF NOT EXISTS pagi_rows (
  kind text NOT NULL, id text NOT NULL, payment text, body text NOT NULL, version bigint NOT NULL,
  PRIMARY KEY (kind, id));
ALTER TABLE pagi_rows ADD COLUMN IF NOT EXISTS n bigint, ADD COLUMN IF NOT EXISTS acct text,
  ADD COLUMN IF NOT EXISTS ord text;
UPDATE pagi_rows SET n = nextval('pagi_n'), acct = (body::jsonb->>'merchantId') || E'\\n' || (body::jsonb->>'accountId'),
  ord = body::jsonb->>'orderNo' WHERE n IS NULL AND kind = 'payment';
UPDATE pagi_rows r SET n = nextval('pagi_n'), acct = p.acct FROM pagi_rows p
  WHERE r.n IS NULL AND r.kind = 'refund' AND p.kind = 'payment' AND p.id = r.payment;
UPDATE pagi_rows SET n = nextval('pagi_n') WHERE n IS NULL;
CREATE INDEX IF NOT EXISTS pagi_rows_version ON pagi_rows (version);
CREATE INDEX IF NOT EXISTS pagi_rows_order ON pagi_rows (kind, acct, ord);
CREATE INDEX IF NOT EXISTS pagi_rows_account ON pagi_rows (kind, acct, n);
CREATE INDEX IF NOT EXISTS pagi_rows_payment ON pagi_rows (kind, payment);
`;

type Kind = 'payment' | 'refund' | 'token' | 'payout' | 'session';

/** One change a request made, written before its answer. */
type Write =
  | { kind: Kind; id: string; payment?: string; acct?: string; ord?: string; body: unknown }
  | { delete: Kind; id: string }
  | 'clear';

/** A request waiting for its turn, with the records it may name (read before it runs). */
interface Waiting {
  handle: () => unknown;
  names?: RecordNames;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/** A shared sandbox, open. */
export interface SharedState {
  restored: Restored;
  /**
   * Run one request's handling with the state up to date (the records `names` lists read from the database first);
   * resolves once its changes are committed.
   */
  run<T>(handle: () => T, names?: RecordNames): Promise<T>;
  close(): Promise<void>;
}

const EVICTED: Record<string, Kind> = { transaction: 'payment', token: 'token', payout: 'payout', session: 'session' };

/** Most of an account's latest payments and refunds read for a query or refund search without selectors. */
const LATEST = 1000;

const acctOf = (merchantId: string, accountId: string) => `${merchantId}\n${accountId}`;

/** A record's key as a row id: PostgreSQL's text holds no NUL, which a payout's key separates its parts with. */
const rowId = (id: string) => id.replaceAll('\u0000', '\n');

/** One row as read. */
interface DbRow {
  kind: Kind;
  id: string;
  payment: string | null;
  body: string;
  acct: string | null;
  ord: string | null;
}

/** The rows read for the group that runs now: what the store may ask of its backing. */
class Fetched {
  readonly payments = new Map<string, Transaction>();
  /** Payment ids by account and order number, and each account's latest, in creation order. */
  readonly orders = new Map<string, string[]>();
  readonly latest = new Map<string, string[]>();
  /** Each account's latest refunds (payment id, refund id), in the order they were made. */
  readonly latestRefunds = new Map<string, [string, string][]>();
  readonly payouts = new Map<string, PayoutRecord>();
  readonly tokens = new Map<string, StoredToken>();
  readonly sessions = new Map<string, Session>();
}

/** Where the database is, without its password (for messages). */
export function databaseName(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.username ? `${u.username}@` : ''}${u.host}${u.pathname}`;
  } catch {
    return 'the database';
  }
}

class Shared implements SharedState, StoreBacking {
  readonly shared = true;
  restored!: Restored;
  private version = 0n;
  private generation = '';
  private writes: Write[] = [];
  /** The group's writes of records, by kind and id (read back before they are written). */
  private readonly written = new Map<string, Write>();
  private fetched = new Fetched();
  private applying = false;
  private readonly waiting: Waiting[] = [];
  private busy = false;
  private readonly idle: (() => void)[] = [];
  /** A request failed after changing the store: reload everything before the next one. */
  private stale = false;
  /** The newest records were read (the first group reads them). */
  private loaded = false;

  constructor(
    private readonly client: pg.Client,
    private readonly store: Store,
    private readonly config: GatewayConfig,
  ) {
    store.watcher = this.watcher();
    store.backing = this;
  }

  private watcher(): StoreWatcher {
    const push = (w: Write) => {
      if (this.applying) return;
      this.writes.push(w);
      if (w !== 'clear' && 'body' in w) this.written.set(`${w.kind}\u0000${w.id}`, w);
    };
    return {
      transaction: (t) =>
        push({
          kind: 'payment',
          id: t.transactionId,
          acct: acctOf(t.merchantId, t.accountId),
          ord: t.orderNo,
          body: encodeTransaction(t),
        }),
      refund: (t, r) =>
        push({
          kind: 'refund',
          id: r.referenceId,
          payment: t.transactionId,
          acct: acctOf(t.merchantId, t.accountId),
          body: encode(r),
        }),
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

  // ---------------------------------------------------------------- the store's backing (the rows read for the group)

  /** A record written by this group and not yet committed. */
  private pendingBody(kind: Kind, id: string): unknown {
    const w = this.written.get(`${kind}\u0000${id}`);
    return w && w !== 'clear' && 'body' in w ? w.body : undefined;
  }

  /** Ids of payments written by this group that `match` (they are newer than every committed one). */
  private pendingPayments(match: (w: { acct?: string; ord?: string }) => boolean): string[] {
    const out: string[] = [];
    for (const w of this.written.values())
      if (w !== 'clear' && 'body' in w && w.kind === 'payment' && match(w)) out.push(w.id);
    return out;
  }

  transaction(id: string): Transaction | undefined {
    const t = this.fetched.payments.get(id) ?? this.store.transactions.get(id);
    if (t) return t;
    const body = this.pendingBody('payment', id);
    return body ? ({ ...(decode(body) as Transaction), refunds: [] } as Transaction) : undefined;
  }

  private payments(ids: string[]): Transaction[] {
    const out: Transaction[] = [];
    for (const id of new Set(ids)) {
      const t = this.transaction(id);
      if (t) out.push(t);
    }
    return out;
  }

  orderTransactions(merchantId: string, accountId: string, orderNo: string): Transaction[] {
    const acct = acctOf(merchantId, accountId);
    const ids = this.fetched.orders.get(`${acct}\n${orderNo}`) ?? [];
    return this.payments([...ids, ...this.pendingPayments((w) => w.acct === acct && w.ord === orderNo)]);
  }

  latestTransactions(merchantId: string, accountId: string, n: number): Transaction[] {
    const acct = acctOf(merchantId, accountId);
    const ids = [...(this.fetched.latest.get(acct) ?? []), ...this.pendingPayments((w) => w.acct === acct)];
    return this.payments(ids).slice(-n);
  }

  latestRefunds(merchantId: string, accountId: string, n: number): RefundEntry[] {
    const acct = acctOf(merchantId, accountId);
    const pairs = [...(this.fetched.latestRefunds.get(acct) ?? [])];
    for (const w of this.written.values())
      if (w !== 'clear' && 'body' in w && w.kind === 'refund' && w.acct === acct && w.payment)
        pairs.push([w.payment, w.id]);
    const seen = new Set<string>();
    const out: RefundEntry[] = [];
    for (const [payment, id] of pairs) {
      const txn = this.transaction(payment);
      if (seen.has(id) || !txn) continue;
      seen.add(id);
      const refund = txn.refunds.find((r) => r.referenceId === id);
      if (refund) out.push({ txn, refund });
    }
    return out.slice(-n);
  }

  payout(key: string): PayoutRecord | undefined {
    return this.fetched.payouts.get(key) ?? (this.pendingBody('payout', key) as PayoutRecord | undefined);
  }

  token(tokenId: string): StoredToken | undefined {
    const t = this.fetched.tokens.get(tokenId);
    if (t) return t;
    const body = this.pendingBody('token', tokenId);
    return body ? openToken(body as Record<string, unknown>, this.config) : undefined;
  }

  session(token: string): Session | undefined {
    const s = this.fetched.sessions.get(token);
    if (s) return s;
    const body = this.pendingBody('session', token);
    return body ? decodeSession(body as Record<string, unknown>) : undefined;
  }

  // ---------------------------------------------------------------- the groups

  run<T>(handle: () => T, names?: RecordNames): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ handle, names, resolve: resolve as (value: unknown) => void, reject });
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
      this.fetched = await this.fetch(group.flatMap((w) => (w.names ? [w.names] : [])));
      this.store.forgetLoans();
      // Writes queued since the last group (evictions to the byte budget) go with this one's.
      const results = group.map((w) => w.handle());
      this.fetched = new Fetched();
      this.written.clear();
      await this.write(this.writes.splice(0));
      await client.query('COMMIT');
      return results;
    } catch (e) {
      this.stale = true;
      this.fetched = new Fetched();
      this.written.clear();
      this.writes = [];
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    }
  }

  private async select(where: string, params: unknown[]): Promise<DbRow[]> {
    const res = await this.client.query<DbRow>(
      `SELECT kind, id, payment, body, acct, ord FROM pagi_rows WHERE ${where}`,
      params,
    );
    return res.rows;
  }

  /**
   * Read the rows the group's requests may name and the memory does not hold (with the refunds of every payment
   * read): the store finds them through its backing while the requests run.
   */
  private async fetch(list: RecordNames[]): Promise<Fetched> {
    const out = new Fetched();
    const { store } = this;
    const ids = new Set<string>();
    const want = { token: new Set<string>(), session: new Set<string>(), payout: new Set<string>() };
    for (const names of list) {
      for (const id of names.transactions) if (!store.transactions.has(id)) ids.add(id);
      for (const t of names.tokens) if (!store.tokens.has(t)) want.token.add(t);
      for (const t of names.sessions) if (!store.sessions.has(t)) want.session.add(t);
      for (const k of names.payouts) if (!store.payouts.has(k)) want.payout.add(k);
    }
    const rows: DbRow[] = [];
    const byId = async (kind: Kind, keys: Set<string>) => {
      if (keys.size) rows.push(...(await this.select('kind = $1 AND id = ANY($2)', [kind, [...keys].map(rowId)])));
    };
    await byId('token', want.token);
    await byId('payout', want.payout);
    await byId('session', want.session);
    for (const row of rows) {
      const body = JSON.parse(row.body) as Record<string, unknown>;
      if (row.kind === 'payout') out.payouts.set(String(body.key), body as unknown as PayoutRecord);
      else if (row.kind === 'token') {
        const token = openToken(body, this.config);
        if (token) out.tokens.set(row.id, token);
      } else if (row.kind === 'session') {
        const s = decodeSession(body);
        out.sessions.set(row.id, s);
        if (s.transactionId && !store.transactions.has(s.transactionId)) ids.add(s.transactionId);
      }
    }
    const payments: DbRow[] = ids.size ? await this.select("kind = 'payment' AND id = ANY($1)", [[...ids]]) : [];
    for (const names of list) {
      if (!names.account) continue;
      const acct = acctOf(names.account.merchantId, names.account.accountId);
      if (names.orders.length) {
        const found = await this.select("kind = 'payment' AND acct = $1 AND ord = ANY($2) ORDER BY n", [
          acct,
          names.orders,
        ]);
        for (const row of found) {
          const key = `${acct}\n${row.ord}`;
          out.orders.set(key, [...(out.orders.get(key) ?? []), row.id]);
        }
        payments.push(...found);
      }
      if (names.latest) {
        const latest = await this.select(`kind = 'payment' AND acct = $1 ORDER BY n DESC LIMIT ${LATEST}`, [acct]);
        out.latest.set(acct, latest.map((r) => r.id).reverse());
        payments.push(...latest);
        const refunds = await this.select(`kind = 'refund' AND acct = $1 ORDER BY n DESC LIMIT ${LATEST}`, [acct]);
        out.latestRefunds.set(acct, refunds.map((r): [string, string] => [String(r.payment), r.id]).reverse());
        const missing = refunds.map((r) => String(r.payment)).filter((id) => !payments.some((p) => p.id === id));
        if (missing.length) payments.push(...(await this.select("kind = 'payment' AND id = ANY($1)", [missing])));
      }
    }
    for (const row of payments)
      if (!out.payments.has(row.id))
        out.payments.set(row.id, { ...(decode(JSON.parse(row.body)) as Transaction), refunds: [] });
    if (out.payments.size) {
      const refunds = await this.select("kind = 'refund' AND payment = ANY($1) ORDER BY n", [[...out.payments.keys()]]);
      for (const row of refunds)
        out.payments.get(String(row.payment))?.refunds.push(decode(JSON.parse(row.body)) as RefundRecord);
    }
    return out;
  }

  /**
   * Bring the store up to date. After a start, a reset or a failed request: the newest records within the caps
   * (the rest is read when a request names it). Otherwise: what the other processes changed since this one last
   * looked, applied to the records this process holds (others are read when named).
   */
  async catchUp(): Promise<number> {
    const meta = await this.client.query<{ key: string; value: string }>('SELECT key, value FROM pagi_meta');
    const values = Object.fromEntries(meta.rows.map((r) => [r.key, r.value]));
    this.store.restoreCounters({ seq: Number(values.seq ?? 0) });
    if (this.stale || (values.generation ?? '0') !== this.generation || !this.loaded) {
      this.generation = values.generation ?? '0';
      this.stale = false;
      return this.reload();
    }
    const rows = await this.client.query<DbRow & { version: string }>(
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

  /** Forget the memory and read the newest records within the caps. */
  private async reload(): Promise<number> {
    const { store } = this;
    this.loaded = true;
    const top = await this.client.query<{ v: string | null }>('SELECT max(version) AS v FROM pagi_rows');
    this.version = BigInt(top.rows[0]?.v ?? 0);
    const caps = store.caps;
    const newest = async (kind: Kind, cap: number) =>
      (await this.select(`kind = $1 ORDER BY n DESC LIMIT ${Math.min(cap, 1e6)}`, [kind])).reverse();
    const payments = await newest('payment', caps.maxTransactions);
    const ids = payments.map((r) => r.id);
    const refunds = ids.length ? await this.select("kind = 'refund' AND payment = ANY($1) ORDER BY n", [ids]) : [];
    const rest = [
      ...(await newest('token', caps.maxTokens)),
      ...(await newest('payout', caps.maxPayouts)),
      ...(await newest('session', this.config.sessions.maxSessions)),
    ];
    this.applying = true;
    try {
      store.clear();
      for (const row of [...payments, ...refunds, ...rest])
        this.apply(row.kind, row.payment, JSON.parse(row.body) as Record<string, unknown>, true);
    } finally {
      this.applying = false;
    }
    return payments.length + refunds.length + rest.length;
  }

  /**
   * One row into the store (the same methods as a request, the watcher silent): a record this process holds is
   * updated; another is added only when reloading (else it is read when a request names it).
   */
  private apply(kind: Kind, payment: string | null, body: Record<string, unknown>, add = false): void {
    const { store } = this;
    if (kind === 'payment') {
      const t = decode(body) as Transaction;
      const held = store.transactions.get(t.transactionId);
      if (held) Object.assign(held, t, { refunds: held.refunds });
      else if (add) store.addTransaction({ ...t, refunds: [] });
    } else if (kind === 'refund') {
      const t = store.transactions.get(String(payment));
      const refund = decode(body) as RefundRecord;
      if (t && !t.refunds.some((r) => r.referenceId === refund.referenceId)) store.addRefund(t, refund);
    } else if (kind === 'token') {
      const token = add ? openToken(body, this.config) : undefined;
      if (token) store.tokens.set(token.tokenId, token);
    } else if (kind === 'payout') {
      const p = body as unknown as PayoutRecord;
      if (add) store.payouts.set(p.key, p);
    } else {
      const s = decodeSession(body);
      const held = store.sessions.get(s.token);
      if (held) Object.assign(held, s);
      else if (add) store.addSession(s, this.config.sessions.ttlSeconds * 1000, this.config.sessions.maxSessions);
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
        await client.query('DELETE FROM pagi_rows WHERE kind = $1 AND id = $2', [w.delete, rowId(w.id)]);
      } else {
        const written = await client.query<{ version: string }>(
          `INSERT INTO pagi_rows (kind, id, payment, body, version, n, acct, ord)
           VALUES ($1, $2, $3, $4, nextval('pagi_version'), nextval('pagi_n'), $5, $6)
           ON CONFLICT (kind, id) DO UPDATE SET body = excluded.body, version = excluded.version RETURNING version`,
          [w.kind, rowId(w.id), w.payment ?? null, JSON.stringify(w.body), w.acct ?? null, w.ord ?? null],
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

  /** What the database holds, by kind (the banner's counts). */
  async held(): Promise<Omit<Restored, 'notifications' | 'records' | 'imported'>> {
    const res = await this.client.query<{ kind: Kind; n: string }>(
      'SELECT kind, count(*) AS n FROM pagi_rows GROUP BY kind',
    );
    const n = (kind: Kind) => Number(res.rows.find((r) => r.kind === kind)?.n ?? 0);
    return {
      transactions: n('payment'),
      refunds: n('refund'),
      tokens: n('token'),
      payouts: n('payout'),
      sessions: n('session'),
    };
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
  await shared.run(() => 0);
  const records = await shared.held();
  shared.restored = { ...records, notifications: 0, records: records.transactions + records.refunds };
  return shared;
}
