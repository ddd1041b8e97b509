/**
 * In-memory state of the gateway: payments (transactions), their refunds, stored-card tokens, payouts and the
 * pending APM and checkout sessions. Node runs each operation's read-check-write without yielding, so every
 * change to a transaction is atomic. Every kind of record has a cap; past it, a new record evicts the oldest.
 * Without a database an evicted record is unknown from then on (a query answers it as not found, a batch item as an
 * unknown transaction); with one (`StoreBacking`: `serve --data`, `serve --database`) only its copy in memory goes:
 * the record stays in the database, and every lookup that misses in memory reads it from there, so an operation
 * naming it behaves as if it had never been evicted.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { DeclineRule } from '../core/profile/choices.js';
import { compactDate } from './clock.js';

/** Payment states: the keys of the profile's `statusValues.payment_status`. */
export type PaymentState =
  | 'authorised'
  | 'captured'
  | 'pendingReview'
  | 'cancelled'
  | 'declined'
  | 'refunded'
  | 'partiallyRefunded';

/** Outcome of a payment request. */
export type Outcome = 'approved' | 'declined' | 'pendingReview';

/** One anti-fraud check of a payment. */
export interface RiskCheck {
  name: string;
  passed: boolean;
}

/** Subscription result of a payment that carried subscription terms. */
export interface SubscriptionRecord {
  contractName: string;
  recurringId: string;
  period: string;
  nextDeduction: Date;
}

/** One successful refund. */
export interface RefundRecord {
  referenceId: string;
  reference: string;
  amountMinor: bigint;
  reason: string;
  at: Date;
}

/** A payment as the gateway keeps it (only what responses, queries and rules need; no card number). */
export interface Transaction {
  transactionId: string;
  referenceNo: string;
  merchantId: string;
  accountId: string;
  orderNo: string;
  currency: string;
  amount: string;
  amountMinor: bigint;
  state: PaymentState;
  outcome: Outcome;
  /** The decline rule that declined the payment (its own result_info and risk_action), if one did. */
  declinedBy?: DeclineRule;
  createdAt: Date;
  capturedMinor?: bigint;
  refundedMinor: bigint;
  refunds: RefundRecord[];
  /** Next refund sequence number. */
  refundSeq: number;
  with3ds: boolean;
  risk: RiskCheck[];
  shopperEmail?: string;
  shopperPhone?: string;
  website?: string;
  delivery: Record<string, string>;
  subscription?: SubscriptionRecord;
}

/** A stored card behind a `token_id`. */
export interface StoredToken {
  tokenId: string;
  merchantId: string;
  accountId: string;
  cardNumber: string;
  expiryMonth: string;
  expiryYear: string;
}

/** A payout as answered, kept for idempotent replays. */
export interface PayoutRecord {
  key: string;
  bodyDigest: string;
  responseText: string;
}

/** A pending APM payment or hosted checkout waiting for the shopper. */
export interface Session {
  token: string;
  kind: 'apm' | 'checkout';
  merchantId: string;
  accountId: string;
  /** The payment request as received (validated). */
  request: Record<string, unknown>;
  createdAt: Date;
  transactionId?: string;
}

/**
 * The oldest entry of a Map, in O(1) amortised. A Map iterated from its start walks past every entry deleted since
 * its table was last rebuilt, so finding the oldest that way while a cap deletes the oldest one at a time costs
 * O(size) per call (tens of µs at 50,000 entries). One iterator kept across calls walks past each entry once.
 */
export class OldestEntry<K, V> {
  private it: Iterator<[K, V]> | undefined;
  /** Yielded by the iterator and not yet deleted from the map. */
  private head: [K, V] | undefined;

  constructor(private readonly map: Map<K, V>) {}

  /** The oldest entry of the map (undefined when it is empty). */
  peek(): [K, V] | undefined {
    // An entry yielded earlier counts while the map still holds it (a key deleted and set again is newer).
    while (!this.head || !this.map.has(this.head[0]) || this.map.get(this.head[0]) !== this.head[1]) {
      this.it ??= this.map.entries();
      const r = this.it.next();
      if (r.done) {
        // An exhausted iterator never yields again, and the map is empty: start afresh next time.
        this.it = this.head = undefined;
        return undefined;
      }
      this.head = r.value;
    }
    return this.head;
  }

  /** Start afresh (after the map was cleared). */
  reset(): void {
    this.it = this.head = undefined;
  }
}

/** A map that keeps at most `max` entries: setting a new key past it deletes the oldest key (insertion order). */
export class CappedMap<K, V> extends Map<K, V> {
  /** Entries deleted to stay under the cap. */
  evicted = 0;
  private readonly oldest = new OldestEntry<K, V>(this);

  constructor(
    readonly max: number,
    /** Told of every value set (the database of `serve --data`). */
    private readonly onSet?: (value: V) => void,
    /** Told of every key evicted to stay under the cap. */
    private readonly onEvict?: (key: K) => void,
  ) {
    super();
  }

  override set(key: K, value: V): this {
    const fresh = !this.has(key);
    super.set(key, value);
    this.onSet?.(value);
    if (fresh && this.size > this.max) this.evictOldest();
    return this;
  }

  /** Delete the oldest entry (to stay under a cap); false when the map is empty. */
  evictOldest(): boolean {
    const oldest = this.oldest.peek();
    if (!oldest) return false;
    this.delete(oldest[0]);
    this.evicted += 1;
    this.onEvict?.(oldest[0]);
    return true;
  }

  override clear(): void {
    super.clear();
    this.oldest?.reset();
  }
}

/** A list kept in creation order whose oldest entries are dropped in O(1) (compacted in batches). */
class AgedList<T> {
  items: T[] = [];
  head = 0;

  /** The live entries (compacts first when entries were dropped). */
  live(): readonly T[] {
    if (this.head) {
      this.items.splice(0, this.head);
      this.head = 0;
    }
    return this.items;
  }

  /** Drop leading entries while `gone` says so. */
  dropWhile(gone: (item: T) => boolean): void {
    while (this.head < this.items.length && gone(this.items[this.head]!)) this.head += 1;
    if (this.head > 1024 && this.head * 2 > this.items.length) this.live();
  }

  get size(): number {
    return this.items.length - this.head;
  }
}

/** Caps of the state (gateway configuration `store`, and `sessions.maxSessions`). */
export interface StoreCaps {
  maxTransactions: number;
  maxPayouts: number;
  maxTokens: number;
  /** Most MiB the records may take (estimated); past it, the oldest record of the kind holding the most is evicted. */
  maxMiB?: number;
}

/** Estimated bytes of a record: its text values (UTF-16, 2 bytes a character) and a fixed share for the rest. */
export function recordBytes(value: unknown, depth = 0): number {
  if (typeof value === 'string') return 2 * value.length;
  if (!value || typeof value !== 'object' || depth > 8) return 8;
  let n = 64;
  for (const [k, v] of Object.entries(value)) n += 2 * k.length + 16 + recordBytes(v, depth + 1);
  return n;
}

/**
 * Estimated bytes of a payment: a fixed share for its numbers, dates, states and checks, and its text fields that a
 * request filled (cheap: a handful of lengths, no walk).
 */
function transactionBytes(t: Transaction): number {
  let n = 1024 + 2 * (t.orderNo.length + (t.shopperEmail?.length ?? 0) + (t.shopperPhone?.length ?? 0));
  n += 2 * (t.website?.length ?? 0);
  for (const [k, v] of Object.entries(t.delivery)) n += 2 * (k.length + v.length) + 32;
  return n;
}

/** The kinds of record the byte budget weighs. */
type Weighed = 'transaction' | 'payout' | 'session' | 'token';

/** A refund with its payment, as the refund search lists it. */
export interface RefundEntry {
  txn: Transaction;
  refund: RefundRecord;
}

/**
 * Where every record is kept beyond the memory's caps (the database of `serve --data` or `serve --database`): the
 * store reads from it what it no longer holds. Synchronous (SQLite is read in place; a shared PostgreSQL's records are
 * read before the requests run). Each returns the record as last written, a payment with its refunds.
 */
export interface StoreBacking {
  /** True when the backing may hold records the memory never held (other processes'): every miss asks it. */
  readonly shared?: boolean;
  transaction(transactionId: string): Transaction | undefined;
  /** The account's payments with this order number, in creation order. */
  orderTransactions(merchantId: string, accountId: string, orderNo: string): Transaction[];
  /** The account's newest `n` payments, in creation order. */
  latestTransactions(merchantId: string, accountId: string, n: number): Transaction[];
  /** The account's newest `n` refunds, in the order they were made. */
  latestRefunds(merchantId: string, accountId: string, n: number): RefundEntry[];
  payout(key: string): PayoutRecord | undefined;
  token(tokenId: string): StoredToken | undefined;
  session(token: string): Session | undefined;
}

const UNCAPPED: StoreCaps = {
  maxTransactions: Number.POSITIVE_INFINITY,
  maxPayouts: Number.POSITIVE_INFINITY,
  maxTokens: Number.POSITIVE_INFINITY,
};

/**
 * Told of every change of the state, as it is made (gateway/persist.ts writes them to the database of
 * `serve --data`). Operations change a transaction in place, then call `Store#changed`.
 */
export interface StoreWatcher {
  /** A payment stored (`created`) or changed. */
  transaction(t: Transaction, created: boolean): void;
  refund(t: Transaction, refund: RefundRecord): void;
  token(t: StoredToken): void;
  payout(p: PayoutRecord): void;
  /** A session opened or completed. */
  session(s: Session): void;
  /** Everything forgotten (admin reset). */
  cleared(): void;
  /**
   * A record gone for good: a session past its lifetime, or (without a backing) a record dropped to stay under a cap
   * (a payment's refunds go with it). A record evicted from memory while a backing keeps it is not reported.
   */
  evicted?(kind: 'transaction' | 'token' | 'payout' | 'session', key: string): void;
}

/** The whole state, with the counters that identifiers are made from. */
export class Store {
  readonly transactions = new Map<string, Transaction>();
  /** Transactions of one account in creation order (`merchant_id\u0000account_id` → list). */
  private readonly byAccount = new Map<string, AgedList<Transaction>>();
  /** Transactions of one account by order number (`merchant_id\u0000account_id\u0000order_no` → list). */
  private readonly byOrder = new Map<string, AgedList<Transaction>>();
  private readonly refundLog = new Map<string, AgedList<{ txn: Transaction; refund: RefundRecord }>>();
  readonly tokens: CappedMap<string, StoredToken>;
  readonly payouts: CappedMap<string, PayoutRecord>;
  readonly sessions = new Map<string, Session>();
  private readonly oldestTransaction = new OldestEntry(this.transactions);
  private readonly oldestSession = new OldestEntry(this.sessions);
  /** Records evicted so far to stay under the caps. */
  private evictedTransactions = 0;
  private evictedSessions = 0;
  private seq = 0;
  /** The UTC day (days since the epoch) of the last identifier, and its `YYYYMMDD`. */
  private idDay = Number.NaN;
  private idDate = '';
  private tag = randomBytes(2).toString('hex').toUpperCase();
  /** Told of every change (none: the state lives in memory only). */
  watcher: StoreWatcher | undefined;
  /** The byte budget (`maxMiB`), the estimated bytes of each record by kind and key, and their sums by kind. */
  private readonly maxBytes: number;
  private readonly weights: Record<Weighed, Map<string, number>> = {
    transaction: new Map(),
    payout: new Map(),
    session: new Map(),
    token: new Map(),
  };
  private readonly bytesOf: Record<Weighed, number> = { transaction: 0, payout: 0, session: 0, token: 0 };
  /** A trim to the byte budget is scheduled. */
  private trimming = false;
  /** Where evicted records stay (none: in memory only, an evicted record is gone). */
  backing: StoreBacking | undefined;
  /** Kinds of which the backing holds records the memory does not (evicted, or not read back on start). */
  private readonly spilled: Record<Weighed, boolean> = {
    transaction: false,
    payout: false,
    session: false,
    token: false,
  };
  /** Records read back from the backing in this turn of the event loop, by kind and key: one object per record. */
  private readonly loans = new Map<string, unknown>();

  constructor(readonly caps: StoreCaps = UNCAPPED) {
    this.maxBytes = caps.maxMiB === undefined ? Number.POSITIVE_INFINITY : caps.maxMiB * 1024 * 1024;
    this.tokens = new CappedMap(
      caps.maxTokens,
      (t) => {
        this.weigh('token', t.tokenId, 256);
        this.watcher?.token(t);
      },
      (key) => this.dropped('token', key),
    );
    this.payouts = new CappedMap(
      caps.maxPayouts,
      (p) => {
        this.weigh('payout', p.key, 128 + 2 * (p.key.length + p.bodyDigest.length + p.responseText.length));
        this.watcher?.payout(p);
      },
      (key) => this.dropped('payout', key),
    );
  }

  /** Estimated bytes the records take now (what `maxMiB` bounds). */
  heldBytes(): number {
    return this.bytesOf.transaction + this.bytesOf.payout + this.bytesOf.session + this.bytesOf.token;
  }

  /** Count a record's estimated bytes (replacing what it counted before), then keep within the budget. */
  private weigh(kind: Weighed, key: string, bytes: number): void {
    const map = this.weights[kind];
    this.bytesOf[kind] += bytes - (map.get(key) ?? 0);
    map.set(key, bytes);
    if (!this.trimming && this.heldBytes() > this.maxBytes) {
      this.trimming = true;
      setImmediate(() => {
        this.trimming = false;
        this.keepWithinBytes();
      });
    }
  }

  /**
   * Past the byte budget, evict the oldest record of the kind holding the most bytes until within it. Run after the
   * operation that went past it (never inside one: an operation's records stay while it runs).
   */
  private keepWithinBytes(): void {
    while (this.heldBytes() > this.maxBytes) {
      const kinds = (Object.keys(this.bytesOf) as Weighed[]).sort((a, b) => this.bytesOf[b] - this.bytesOf[a]);
      if (!kinds.some((kind) => this.bytesOf[kind] > 0 && this.evictOldest(kind))) return;
    }
  }

  /** Evict the oldest record of a kind; false when there is none. */
  private evictOldest(kind: Weighed): boolean {
    if (kind === 'payout') return this.payouts.evictOldest();
    if (kind === 'token') return this.tokens.evictOldest();
    if (kind === 'transaction') {
      if (!this.transactions.size) return false;
      this.evictOldestTransaction();
      return true;
    }
    const oldest = this.oldestSession.peek();
    if (!oldest) return false;
    this.sessions.delete(oldest[0]);
    this.evictedSessions += 1;
    this.dropped('session', oldest[0]);
    return true;
  }

  /**
   * A record left the memory (a cap, the byte budget, a session's lifetime): its bytes uncounted; the watcher told
   * when it is gone for good (past its lifetime, or no backing keeps it).
   */
  private dropped(kind: Weighed, key: string, expired = false): void {
    const bytes = this.weights[kind].get(key);
    if (bytes !== undefined) {
      this.bytesOf[kind] -= bytes;
      this.weights[kind].delete(key);
    }
    if (this.backing && !expired) this.spilled[kind] = true;
    else this.watcher?.evicted?.(kind, key);
  }

  /** Forget the records read back so far (a shared sandbox's next group reads them afresh). */
  forgetLoans(): void {
    this.loans.clear();
  }

  /** The backing holds records of this kind that the memory does not (read back on start, or evicted since). */
  markSpilled(kind: Weighed): void {
    this.spilled[kind] = true;
  }

  /** Whether a miss in memory must ask the backing. */
  private asks(kind: Weighed): boolean {
    return !!this.backing && (this.spilled[kind] || this.backing.shared === true);
  }

  /**
   * A record read back from the backing, the same object for the rest of this turn (an operation that looks it up
   * twice, or two requests of one turn, change one copy; each change is written to the backing as it is made).
   */
  private loan<T>(kind: Weighed, key: string, read: () => T | undefined): T | undefined {
    const id = `${kind}\u0000${key}`;
    if (this.loans.has(id)) return this.loans.get(id) as T;
    const value = read();
    if (value === undefined) return undefined;
    if (!this.loans.size) setImmediate(() => this.loans.clear());
    this.loans.set(id, value);
    return value;
  }

  /** A payment the backing returned, as the object this turn shares (the memory's when it holds it). */
  private shareTransaction(t: Transaction): Transaction {
    return this.transactions.get(t.transactionId) ?? this.loan('transaction', t.transactionId, () => t)!;
  }

  /** The identifier counter and this instance's tag (written to the journal, restored on start). */
  counters(): { seq: number; tag: string } {
    return { seq: this.seq, tag: this.tag };
  }

  /** Go on from counters kept by an earlier run: identifiers stay unique across restarts. */
  restoreCounters(c: { seq?: unknown; tag?: unknown }): void {
    if (typeof c.seq === 'number' && Number.isSafeInteger(c.seq) && c.seq > this.seq) this.seq = c.seq;
    if (typeof c.tag === 'string' && /^[0-9A-F]{4}$/.test(c.tag)) this.tag = c.tag;
  }

  /** A transaction was changed in place by an operation (capture, review, cancel, refund). */
  changed(t: Transaction): void {
    this.watcher?.transaction(t, false);
  }

  /** A session was completed in place (its payment made). */
  sessionChanged(s: Session): void {
    this.watcher?.session(s);
  }

  /** Every held transaction's refunds, account by account, in the order they were made. */
  *allRefunds(): Generator<{ txn: Transaction; refund: RefundRecord }> {
    for (const key of this.refundLog.keys()) {
      const [merchantId, accountId] = key.split('\u0000') as [string, string];
      yield* this.accountRefunds(merchantId, accountId);
    }
  }

  /** Forget everything (identifier counters go on, so no identifier is handed out twice). */
  clear(): void {
    this.transactions.clear();
    this.byAccount.clear();
    this.byOrder.clear();
    this.refundLog.clear();
    this.tokens.clear();
    this.payouts.clear();
    this.sessions.clear();
    this.oldestTransaction.reset();
    this.oldestSession.reset();
    this.loans.clear();
    for (const kind of Object.keys(this.bytesOf) as Weighed[]) {
      this.weights[kind].clear();
      this.bytesOf[kind] = 0;
      this.spilled[kind] = false;
    }
    this.watcher?.cleared();
  }

  /** Key of an account in `byAccount`. */
  static accountKey(merchantId: string, accountId: string): string {
    return `${merchantId}\u0000${accountId}`;
  }

  /** A fresh gateway identifier: prefix, date, instance tag, sequence. */
  nextId(prefix: string, at: Date): string {
    this.seq += 1;
    const day = Math.floor(at.getTime() / 86_400_000);
    if (day !== this.idDay) [this.idDay, this.idDate] = [day, compactDate(at)];
    return `${prefix}${this.idDate}${this.tag}${String(this.seq).padStart(6, '0')}`;
  }

  /**
   * Open a session. Sessions past their lifetime are dropped first (oldest first: the map keeps creation order),
   * then the oldest while more than `max` are kept.
   */
  addSession(session: Session, ttlMs: number, max: number): void {
    for (
      let e = this.oldestSession.peek();
      e && session.createdAt.getTime() - e[1].createdAt.getTime() >= ttlMs;
      e = this.oldestSession.peek()
    ) {
      this.sessions.delete(e[0]);
      this.dropped('session', e[0], true);
    }
    this.sessions.set(session.token, session);
    this.weigh('session', session.token, 256 + recordBytes(session.request));
    this.watcher?.session(session);
    while (this.sessions.size > max) {
      const token = this.oldestSession.peek()![0];
      this.sessions.delete(token);
      this.evictedSessions += 1;
      this.dropped('session', token);
    }
  }

  /** A live session by token: undefined when unknown or past its lifetime (left in place: a lookup changes nothing). */
  liveSession(token: string, now: Date, ttlMs: number): Session | undefined {
    let s = this.sessions.get(token);
    if (!s && token && this.asks('session')) s = this.loan('session', token, () => this.backing!.session(token));
    return s && now.getTime() - s.createdAt.getTime() < ttlMs ? s : undefined;
  }

  /** The payout answered for an idempotency key (memory, else the backing). */
  payout(key: string): PayoutRecord | undefined {
    const p = this.payouts.get(key);
    if (p || !key || !this.asks('payout')) return p;
    return this.loan('payout', key, () => this.backing!.payout(key));
  }

  /** The stored card behind a token id (memory, else the backing). */
  token(tokenId: string): StoredToken | undefined {
    const t = this.tokens.get(tokenId);
    if (t || !tokenId || !this.asks('token')) return t;
    return this.loan('token', tokenId, () => this.backing!.token(tokenId));
  }

  /** An unguessable token for a session or a stored card. */
  static token(): string {
    return randomBytes(12).toString('hex');
  }

  /** Store a new payment; past `maxTransactions`, the oldest payment is evicted. */
  addTransaction(t: Transaction): void {
    this.transactions.set(t.transactionId, t);
    const key = Store.accountKey(t.merchantId, t.accountId);
    let list = this.byAccount.get(key);
    if (!list) this.byAccount.set(key, (list = new AgedList()));
    list.items.push(t);
    const orderKey = `${key}\u0000${t.orderNo}`;
    let orders = this.byOrder.get(orderKey);
    if (!orders) this.byOrder.set(orderKey, (orders = new AgedList()));
    orders.items.push(t);
    while (this.transactions.size > this.caps.maxTransactions) this.evictOldestTransaction();
    this.weigh('transaction', t.transactionId, transactionBytes(t));
    this.watcher?.transaction(t, true);
  }

  /** Whether a transaction is still held (not evicted). */
  private held = (t: Transaction): boolean => this.transactions.get(t.transactionId) === t;

  /** Evict the oldest payment: from the id map, its account's list, its order number's list; its refunds go with it. */
  private evictOldestTransaction(): void {
    const oldest = this.oldestTransaction.peek()![1];
    this.transactions.delete(oldest.transactionId);
    this.evictedTransactions += 1;
    this.dropped('transaction', oldest.transactionId);
    const key = Store.accountKey(oldest.merchantId, oldest.accountId);
    const list = this.byAccount.get(key)!;
    list.dropWhile((t) => !this.held(t));
    if (!list.size) this.byAccount.delete(key);
    const orderKey = `${key}\u0000${oldest.orderNo}`;
    const orders = this.byOrder.get(orderKey)!;
    orders.dropWhile((t) => !this.held(t)); // the oldest of its order number too
    if (!orders.size) this.byOrder.delete(orderKey);
    const log = this.refundLog.get(key);
    if (log) {
      log.dropWhile((e) => !this.held(e.txn));
      if (!log.size) this.refundLog.delete(key);
    }
  }

  /** Record a successful refund of a transaction (also in the account's refund log, newest last). */
  addRefund(t: Transaction, refund: RefundRecord): void {
    t.refunds.push(refund);
    // A payment read back from the backing is not held: its refund goes to the backing only.
    if (this.held(t)) {
      const bytes = this.weights.transaction.get(t.transactionId) ?? transactionBytes(t);
      this.weigh('transaction', t.transactionId, bytes + 128 + 2 * (refund.reason.length + refund.reference.length));
      const key = Store.accountKey(t.merchantId, t.accountId);
      let log = this.refundLog.get(key);
      if (!log) this.refundLog.set(key, (log = new AgedList()));
      log.items.push({ txn: t, refund });
    } else if (this.backing) this.spilled.transaction = true;
    this.watcher?.refund(t, refund);
  }

  /** The account's refunds of held transactions, in the order they were made. */
  accountRefunds(merchantId: string, accountId: string): readonly { txn: Transaction; refund: RefundRecord }[] {
    const log = this.refundLog.get(Store.accountKey(merchantId, accountId));
    if (!log) return [];
    // Refunds of evicted payments made after younger payments' refunds are not at the head: filter them out.
    if (log.items.some((e, i) => i >= log.head && !this.held(e.txn))) {
      log.items = log.live().filter((e) => this.held(e.txn));
    }
    return log.live();
  }

  /** The account's transactions with this order number, in creation order (the backing's too). */
  orderTransactions(merchantId: string, accountId: string, orderNo: string): readonly Transaction[] {
    if (this.asks('transaction'))
      return this.backing!.orderTransactions(merchantId, accountId, orderNo).map((t) => this.shareTransaction(t));
    return this.byOrder.get(`${Store.accountKey(merchantId, accountId)}\u0000${orderNo}`)?.live() ?? [];
  }

  /** The account's transaction with this id, if any. */
  transaction(merchantId: string, accountId: string, transactionId: unknown): Transaction | undefined {
    if (typeof transactionId !== 'string') return undefined;
    const t = this.transactionById(transactionId);
    return t && t.merchantId === merchantId && t.accountId === accountId ? t : undefined;
  }

  /** A transaction by id, whatever its account (memory, else the backing). */
  transactionById(transactionId: string): Transaction | undefined {
    const t = this.transactions.get(transactionId);
    if (t || !transactionId || !this.asks('transaction')) return t;
    return this.loan('transaction', transactionId, () => this.backing!.transaction(transactionId));
  }

  /** The account's newest `n` transactions, in creation order (from the backing when the memory holds fewer). */
  latestTransactions(merchantId: string, accountId: string, n: number): readonly Transaction[] {
    const held = this.accountTransactions(merchantId, accountId);
    // The memory holds the newest payments: when it holds n of the account's, they are its newest n (unless other
    // processes make payments too).
    if (!this.asks('transaction') || (held.length >= n && !this.backing!.shared)) return held.slice(-n);
    return this.backing!.latestTransactions(merchantId, accountId, n).map((t) => this.shareTransaction(t));
  }

  /** The account's newest `n` refunds, in the order they were made (the backing's too). */
  latestRefunds(merchantId: string, accountId: string, n: number): readonly RefundEntry[] {
    if (!this.asks('transaction')) return this.accountRefunds(merchantId, accountId).slice(-n);
    return this.backing!.latestRefunds(merchantId, accountId, n).map(({ txn, refund }) => {
      const shared = this.shareTransaction(txn);
      return { txn: shared, refund: shared.refunds.find((r) => r.referenceId === refund.referenceId) ?? refund };
    });
  }

  /** The account's transactions in creation order. */
  accountTransactions(merchantId: string, accountId: string): readonly Transaction[] {
    return this.byAccount.get(Store.accountKey(merchantId, accountId))?.live() ?? [];
  }

  /** sha256 over the whole state (counters included): equal digests mean nothing changed. */
  digest(): string {
    const hash = createHash('sha256');
    const write = (value: unknown) =>
      hash.update(JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v)));
    write(this.seq);
    for (const t of this.transactions.values()) write(t);
    for (const t of this.tokens.values()) write(t);
    for (const p of this.payouts.values()) write(p);
    for (const s of this.sessions.values()) write(s);
    return hash.digest('hex');
  }

  /** Counts of what the gateway holds. */
  counts(): { transactions: number; refunds: number; tokens: number; payouts: number; sessions: number } {
    let refunds = 0;
    for (const t of this.transactions.values()) refunds += t.refunds.length;
    return {
      transactions: this.transactions.size,
      refunds,
      tokens: this.tokens.size,
      payouts: this.payouts.size,
      sessions: this.sessions.size,
    };
  }

  /** Records evicted so far to stay under the caps. */
  evictions(): { transactions: number; payouts: number; tokens: number; sessions: number } {
    return {
      transactions: this.evictedTransactions,
      payouts: this.payouts.evicted,
      tokens: this.tokens.evicted,
      sessions: this.evictedSessions,
    };
  }
}
