/**
 * Reading the rows of `serve --data DIR`'s database back (gateway/database.ts): every row checked (its checksum, its
 * shape) and decoded, on start and whenever the store looks up a record its memory no longer holds (`StoreBacking`:
 * an evicted payment queried, captured or refunded, a payout replayed, a token or session named). The database holds
 * every record the gateway acknowledged; the store's memory holds the newest within its caps.
 */
import type Database from 'better-sqlite3';
import type { GatewayConfig } from './config.js';
import { checksum, DatabaseDamage, type OpenDatabase, type Row, type Table } from './database.js';
import { decode, decodeSession, openToken } from './persist-codec.js';
import type {
  PayoutRecord,
  RefundEntry,
  RefundRecord,
  Session,
  StoreBacking,
  StoredToken,
  Transaction,
} from './store.js';

/** A row's JSON, checked by `valid`; a row that is not refuses the whole folder with one sentence. */
export function parseRow<T>(open: OpenDatabase, table: Table, row: Row, valid: (v: any) => boolean): T {
  if (typeof row.body !== 'string' || checksum(row.body) !== row.crc)
    throw new DatabaseDamage(open.file, `has a damaged row (${table} row ${row.n}: its checksum does not match)`);
  let value: unknown;
  try {
    value = JSON.parse(row.body);
  } catch {
    throw new DatabaseDamage(open.file, `has a damaged row (${table} row ${row.n}: not JSON)`);
  }
  if (!value || typeof value !== 'object' || !valid(value))
    throw new DatabaseDamage(open.file, `has a damaged row (${table} row ${row.n}: not a record of ${table})`);
  return value as T;
}

const str = (v: unknown): boolean => typeof v === 'string';
const big = (v: unknown): boolean => !!v && typeof (v as { $big?: unknown }).$big === 'string';

/** What a row of each table must hold to be read as its record. */
export const VALID = {
  payments: (v: any) =>
    str(v.transactionId) && str(v.merchantId) && str(v.accountId) && str(v.orderNo) && big(v.amountMinor),
  refunds: (v: any) => str(v.referenceId) && big(v.amountMinor),
  tokens: (v: any) => str(v.tokenId) && str(v.merchantId) && str(v.accountId) && str(v.card),
  payouts: (v: any) => str(v.key) && str(v.bodyDigest) && str(v.responseText),
  sessions: (v: any) => str(v.token) && str(v.merchantId) && str(v.createdAt) && !!v.request,
  notifications: (v: any) => str(v.kind) && str(v.key) && str(v.url) && !!v.body,
} satisfies Record<Table, (v: any) => boolean>;

/** A payment row as its record, without its refunds. */
export function paymentOf(open: OpenDatabase, row: Row): Transaction {
  return { ...(decode(parseRow(open, 'payments', row, VALID.payments)) as Transaction), refunds: [] };
}

/** A refund row as its record. */
export function refundOf(open: OpenDatabase, row: Row): RefundRecord {
  return decode(parseRow(open, 'refunds', row, VALID.refunds)) as RefundRecord;
}

const ROW = 'n, id, body, crc';

/**
 * The database as the store's backing: each lookup one indexed read on the gateway's connection (inside the group's
 * transaction when one is open, so a change made earlier in the turn is read back as made).
 */
export function sqliteBacking(open: OpenDatabase, config: GatewayConfig): StoreBacking {
  const statements = new Map<string, Database.Statement>();
  const query = (sql: string) => {
    let s = statements.get(sql);
    if (!s) statements.set(sql, (s = open.db.prepare(sql)));
    return s;
  };
  const one = (table: Table, id: string) =>
    query(`SELECT ${ROW} FROM ${table} WHERE id = ?`).get(id) as Row | undefined;
  const withRefunds = (t: Transaction): Transaction => {
    const rows = query(`SELECT ${ROW} FROM refunds WHERE payment = ? ORDER BY n`).all(t.transactionId) as Row[];
    t.refunds = rows.map((row) => refundOf(open, row));
    return t;
  };
  const payments = (rows: Row[]) => rows.map((row) => withRefunds(paymentOf(open, row)));
  const transaction = (id: string) => {
    const row = one('payments', id);
    return row ? withRefunds(paymentOf(open, row)) : undefined;
  };
  return {
    transaction,
    orderTransactions: (merchantId, accountId, orderNo) =>
      payments(
        query(`SELECT ${ROW} FROM payments WHERE merchant = ? AND account = ? AND order_no = ? ORDER BY n`).all(
          merchantId,
          accountId,
          orderNo,
        ) as Row[],
      ),
    latestTransactions: (merchantId, accountId, n) =>
      payments(
        query(`SELECT ${ROW} FROM payments WHERE merchant = ? AND account = ? ORDER BY n DESC LIMIT ?`).all(
          merchantId,
          accountId,
          n,
        ) as Row[],
      ).reverse(),
    latestRefunds: (merchantId, accountId, n) => {
      const rows = query(
        `SELECT r.n, r.id, r.body, r.crc, r.payment FROM refunds r JOIN payments p ON p.id = r.payment
         WHERE p.merchant = ? AND p.account = ? ORDER BY r.n DESC LIMIT ?`,
      ).all(merchantId, accountId, n) as Row[];
      const txns = new Map<string, Transaction | undefined>();
      const out: RefundEntry[] = [];
      for (const row of rows.reverse()) {
        const id = String(row.payment);
        if (!txns.has(id)) txns.set(id, transaction(id));
        const txn = txns.get(id);
        const refund = refundOf(open, row);
        if (txn) out.push({ txn, refund: txn.refunds.find((r) => r.referenceId === refund.referenceId) ?? refund });
      }
      return out;
    },
    payout: (key) => {
      const row = one('payouts', key);
      return row ? parseRow<PayoutRecord>(open, 'payouts', row, VALID.payouts) : undefined;
    },
    token: (tokenId): StoredToken | undefined => {
      const row = one('tokens', tokenId);
      return row ? openToken(parseRow(open, 'tokens', row, VALID.tokens), config) : undefined;
    },
    session: (token): Session | undefined => {
      const row = one('sessions', token);
      return row ? decodeSession(parseRow(open, 'sessions', row, VALID.sessions)) : undefined;
    },
  };
}
