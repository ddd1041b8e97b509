/**
 * In-memory state of the gateway: payments (transactions), their refunds, stored-card tokens, payouts and the
 * pending APM and checkout sessions. Node runs each operation's read-check-write without yielding, so every
 * change to a transaction is atomic.
 */
import { createHash, randomBytes } from 'node:crypto';
import { compactDate } from './clock.js';

/** Payment states: the keys of the profile's `statusValues.payment_status`. */
export type PaymentState = 'authorised' | 'captured' | 'pendingReview' | 'cancelled' | 'declined' | 'refunded' | 'partiallyRefunded';

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

/** The whole state, with the counters that identifiers are made from. */
export class Store {
  readonly transactions = new Map<string, Transaction>();
  /** Transactions of one account in creation order (`merchant_id\u0000account_id` → list). */
  readonly byAccount = new Map<string, Transaction[]>();
  /** Transactions of one account by order number (`merchant_id\u0000account_id\u0000order_no` → list). */
  private readonly byOrder = new Map<string, Transaction[]>();
  private readonly refundLog = new Map<string, { txn: Transaction; refund: RefundRecord }[]>();
  readonly tokens = new Map<string, StoredToken>();
  readonly payouts = new Map<string, PayoutRecord>();
  readonly sessions = new Map<string, Session>();
  private seq = 0;
  private readonly tag = randomBytes(2).toString('hex').toUpperCase();

  /** Key of an account in `byAccount`. */
  static accountKey(merchantId: string, accountId: string): string {
    return `${merchantId}\u0000${accountId}`;
  }

  /** A fresh gateway identifier: prefix, date, instance tag, sequence. */
  nextId(prefix: string, at: Date): string {
    this.seq += 1;
    return `${prefix}${compactDate(at)}${this.tag}${String(this.seq).padStart(6, '0')}`;
  }

  /**
   * Open a session. Sessions past their lifetime are dropped first (oldest first: the map keeps creation order),
   * then the oldest while more than `max` are kept.
   */
  addSession(session: Session, ttlMs: number, max: number): void {
    for (const [token, s] of this.sessions) {
      if (session.createdAt.getTime() - s.createdAt.getTime() < ttlMs) break;
      this.sessions.delete(token);
    }
    this.sessions.set(session.token, session);
    for (const token of this.sessions.keys()) {
      if (this.sessions.size <= max) break;
      this.sessions.delete(token);
    }
  }

  /** A live session by token: undefined when unknown or past its lifetime (left in place: a lookup changes nothing). */
  liveSession(token: string, now: Date, ttlMs: number): Session | undefined {
    const s = this.sessions.get(token);
    return s && now.getTime() - s.createdAt.getTime() < ttlMs ? s : undefined;
  }

  /** An unguessable token for a session or a stored card. */
  static token(): string {
    return randomBytes(12).toString('hex');
  }

  addTransaction(t: Transaction): void {
    this.transactions.set(t.transactionId, t);
    const key = Store.accountKey(t.merchantId, t.accountId);
    const list = this.byAccount.get(key);
    if (list) list.push(t);
    else this.byAccount.set(key, [t]);
    const orderKey = `${key}\u0000${t.orderNo}`;
    const orders = this.byOrder.get(orderKey);
    if (orders) orders.push(t);
    else this.byOrder.set(orderKey, [t]);
  }

  /** Record a successful refund of a transaction (also in the account's refund log, newest last). */
  addRefund(t: Transaction, refund: RefundRecord): void {
    t.refunds.push(refund);
    const key = Store.accountKey(t.merchantId, t.accountId);
    const log = this.refundLog.get(key);
    if (log) log.push({ txn: t, refund });
    else this.refundLog.set(key, [{ txn: t, refund }]);
  }

  /** The account's refunds in the order they were made. */
  accountRefunds(merchantId: string, accountId: string): readonly { txn: Transaction; refund: RefundRecord }[] {
    return this.refundLog.get(Store.accountKey(merchantId, accountId)) ?? [];
  }

  /** The account's transactions with this order number, in creation order. */
  orderTransactions(merchantId: string, accountId: string, orderNo: string): readonly Transaction[] {
    return this.byOrder.get(`${Store.accountKey(merchantId, accountId)}\u0000${orderNo}`) ?? [];
  }

  /** The account's transaction with this id, if any. */
  transaction(merchantId: string, accountId: string, transactionId: unknown): Transaction | undefined {
    if (typeof transactionId !== 'string') return undefined;
    const t = this.transactions.get(transactionId);
    return t && t.merchantId === merchantId && t.accountId === accountId ? t : undefined;
  }

  /** The account's transactions in creation order. */
  accountTransactions(merchantId: string, accountId: string): readonly Transaction[] {
    return this.byAccount.get(Store.accountKey(merchantId, accountId)) ?? [];
  }

  /** sha256 over the whole state (counters included): equal digests mean nothing changed. */
  digest(): string {
    const hash = createHash('sha256');
    const write = (value: unknown) => hash.update(JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v)));
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
    return { transactions: this.transactions.size, refunds, tokens: this.tokens.size, payouts: this.payouts.size, sessions: this.sessions.size };
  }
}
