/**
 * The gateway's state kept in a folder (`serve --data DIR`): every change of the store and every notification
 * queued or settled becomes a journal record (gateway/journal.ts); on start the records are replayed into an empty
 * store with the store's own methods, so its caps and eviction rules apply as they did, and the notifications still
 * pending are sent again. Full card numbers are never written in clear: a stored-card token's card is encrypted
 * (AES-256-GCM) with a key derived from its account's secret, which lives in the configuration, not in the folder;
 * sessions keep no card field (`openSession`); secrets are never written (a notification names its account).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { resolveAccount, type GatewayConfig } from './config.js';
import type { Durability } from './context.js';
import { Journal, type JournalRecord } from './journal.js';
import type { Notification, Notifier } from './notify.js';
import type { PayoutRecord, RefundRecord, Session, StoredToken, Store, Transaction } from './store.js';

/** Version of the record format, in the snapshot's first record. */
const FORMAT = 1;

/** What a start found in the folder, for the banner. */
export interface Restored {
  transactions: number;
  refunds: number;
  tokens: number;
  payouts: number;
  sessions: number;
  notifications: number;
  /** Records read from the journal. */
  records: number;
}

/** An open folder: the durability the server waits on, what was restored, and the stop. */
export interface Persistence {
  durability: Durability;
  restored: Restored;
  /** Queue the notifications that were pending when the last gateway stopped (after the server listens). */
  resend(): void;
  /** Wait for the writes, compact, release the folder. */
  close(): Promise<void>;
  /** Bytes of the journal file. */
  journalBytes(): number;
}

// ------------------------------------------------------------------ values

/** Our records' values as JSON: bigints and dates tagged (no value of a request is passed through this). */
function encode(value: unknown): unknown {
  if (typeof value === 'bigint') return { $big: value.toString() };
  if (value instanceof Date) return { $date: value.toISOString() };
  if (Array.isArray(value)) return value.map(encode);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = encode(v);
    return out;
  }
  return value;
}

function decode(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decode);
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (typeof o.$big === 'string' && Object.keys(o).length === 1) return BigInt(o.$big);
    if (typeof o.$date === 'string' && Object.keys(o).length === 1) return new Date(o.$date);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(o)) out[k] = decode(v);
    return out;
  }
  return value;
}

/** A transaction without its refunds (they are records of their own, in the order they were made). */
function encodeTransaction(t: Transaction): unknown {
  return encode({ ...t, refunds: [] });
}

function encodeSession(s: Session): unknown {
  // The request is a client's data: kept as JSON as it came, never tagged or untagged.
  return { ...s, createdAt: s.createdAt.toISOString() };
}

function decodeSession(raw: Record<string, unknown>): Session {
  return { ...(raw as unknown as Session), createdAt: new Date(String(raw.createdAt)) };
}

/** The key that encrypts an account's stored cards: derived from its secret, which the folder does not hold. */
function cardKey(secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'pagi-conformance gateway', 'stored card', 32));
}

function sealCard(t: StoredToken, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', cardKey(secret), iv);
  cipher.setAAD(Buffer.from(t.tokenId));
  const text = JSON.stringify([t.cardNumber, t.expiryMonth, t.expiryYear]);
  const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
}

function openCard(tokenId: string, sealed: string, secret: string): [string, string, string] | undefined {
  try {
    const raw = Buffer.from(sealed, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', cardKey(secret), raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(tokenId));
    decipher.setAuthTag(raw.subarray(12, 28));
    const text = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    const card = JSON.parse(text) as unknown;
    return Array.isArray(card) && card.length === 3 && card.every((v) => typeof v === 'string')
      ? (card as [string, string, string])
      : undefined;
  } catch {
    return undefined;
  }
}

// ------------------------------------------------------------------ the folder

/** What a notification record keeps: everything but the secret (its account's, looked up again on start). */
interface PendingNotification {
  kind: Notification['kind'];
  key: string;
  url: string;
  body: Record<string, unknown>;
  merchantId?: string;
  accountId?: string;
}

/**
 * Open `dir` for a gateway whose store is still empty: lock it, replay its journal into `store`, compact it, and
 * from then on journal every change. Throws `JournalError` when another gateway holds the folder.
 */
export function openPersistence(
  dir: string,
  parts: { store: Store; notifier: Notifier; config: GatewayConfig; warn: (line: string) => void },
): Persistence {
  const { store, notifier, config, warn } = parts;
  const { records, warnings, lockFile, unlock } = Journal.read(dir);
  for (const w of warnings) warn(`journal: ${w}`);
  const pending = new Map<number, PendingNotification>();
  let notificationSeq = 0;
  let undecryptable = 0;
  const ttlMs = config.sessions.ttlSeconds * 1000;
  const secretOf = (merchantId: unknown, accountId: unknown) => resolveAccount(config, merchantId, accountId)?.secret;

  // Replay: the store's own methods, so caps and eviction apply as they did (no watcher yet: nothing is re-written).
  try {
    for (const r of records) {
      switch (r.k) {
        case 'head':
          store.restoreCounters({ seq: r.seq, tag: r.tag });
          notificationSeq = Math.max(notificationSeq, Number(r.notificationSeq) || 0);
          break;
        case 'pay':
        case 'upd': {
          const t = decode(r.t) as Transaction;
          const held = store.transactions.get(t.transactionId);
          if (held) Object.assign(held, t, { refunds: held.refunds });
          else if (r.k === 'pay') store.addTransaction(t);
          store.restoreCounters({ seq: r.n });
          break;
        }
        case 'ref': {
          const t = store.transactions.get(String(r.id));
          const refund = decode(r.r) as RefundRecord;
          if (t && !t.refunds.some((x) => x.referenceId === refund.referenceId)) store.addRefund(t, refund);
          break;
        }
        case 'tok': {
          const v = r.t as Record<string, string>;
          const secret = secretOf(v.merchantId, v.accountId);
          const card = secret ? openCard(String(v.tokenId), String(v.card), secret) : undefined;
          if (!card) {
            undecryptable += 1;
            break;
          }
          const [cardNumber, expiryMonth, expiryYear] = card;
          store.tokens.set(String(v.tokenId), {
            tokenId: String(v.tokenId),
            merchantId: String(v.merchantId),
            accountId: String(v.accountId),
            cardNumber,
            expiryMonth,
            expiryYear,
          });
          break;
        }
        case 'po': {
          const p = r.p as PayoutRecord;
          store.payouts.set(p.key, p);
          store.restoreCounters({ seq: r.n });
          break;
        }
        case 'ses': {
          const s = decodeSession(r.s as Record<string, unknown>);
          const held = store.sessions.get(s.token);
          if (held) Object.assign(held, s);
          else store.addSession(s, ttlMs, config.sessions.maxSessions);
          break;
        }
        case 'ntf':
          pending.set(Number(r.id), r.n as PendingNotification);
          notificationSeq = Math.max(notificationSeq, Number(r.id));
          break;
        case 'ntfd':
          pending.delete(Number(r.id));
          break;
        case 'reset':
          store.clear();
          pending.clear();
          break;
        default:
          warn(`journal: a record of unknown kind '${r.k}' skipped`);
      }
    }
  } catch (e) {
    unlock();
    throw e;
  }
  if (undecryptable)
    warn(
      `journal: ${undecryptable} stored-card token${undecryptable === 1 ? '' : 's'} dropped: its account is no longer configured, or its secret changed (the card is encrypted with a key derived from it)`,
    );
  const counts = store.counts();
  const restored: Restored = { ...counts, notifications: pending.size, records: records.length };

  const snapshot = function* (): Generator<JournalRecord> {
    yield { k: 'head', format: FORMAT, ...store.counters(), notificationSeq };
    for (const t of store.transactions.values()) yield { k: 'pay', t: encodeTransaction(t) };
    for (const { txn, refund } of store.allRefunds()) yield { k: 'ref', id: txn.transactionId, r: encode(refund) };
    for (const t of store.tokens.values()) {
      const secret = secretOf(t.merchantId, t.accountId);
      if (secret) yield tokenRecord(t, secret);
    }
    for (const p of store.payouts.values()) yield { k: 'po', p };
    for (const s of store.sessions.values()) yield { k: 'ses', s: encodeSession(s) };
    for (const [id, n] of pending) yield { k: 'ntf', id, n };
  };
  const journal = Journal.start(dir, lockFile, snapshot, {
    compactAfterBytes: (config.store.compactAfterMiB ?? 64) * 1024 * 1024,
    sync: config.store.syncWrites ?? false,
    warn,
  });

  const ids = new WeakMap<Notification, number>();
  store.watcher = {
    transaction: (t, created) =>
      journal.append(
        created
          ? { k: 'pay', n: store.counters().seq, t: encodeTransaction(t) }
          : { k: 'upd', t: encodeTransaction(t) },
      ),
    refund: (t, refund) => journal.append({ k: 'ref', id: t.transactionId, r: encode(refund) }),
    token: (t) => {
      const secret = secretOf(t.merchantId, t.accountId);
      if (secret) journal.append(tokenRecord(t, secret));
    },
    payout: (p) => journal.append({ k: 'po', n: store.counters().seq, p }),
    session: (s) => journal.append({ k: 'ses', s: encodeSession(s) }),
    cleared: () => {
      pending.clear();
      journal.append({ k: 'reset' });
      void journal.compact();
    },
  };
  notifier.tracker = {
    queued(n) {
      const id = ++notificationSeq;
      ids.set(n, id);
      const record: PendingNotification = {
        kind: n.kind,
        key: n.key,
        url: n.url,
        body: n.body,
        merchantId: n.merchantId,
        accountId: n.accountId,
      };
      pending.set(id, record);
      journal.append({ k: 'ntf', id, n: record });
    },
    settled(n) {
      const id = ids.get(n);
      if (id === undefined || !pending.delete(id)) return;
      journal.append({ k: 'ntfd', id });
    },
  };

  return {
    durability: journal,
    restored,
    resend() {
      const again = [...pending.entries()];
      pending.clear();
      for (const [id, n] of again) {
        const secret = secretOf(n.merchantId, n.accountId);
        journal.append({ k: 'ntfd', id });
        if (secret) notifier.send({ ...n, secret });
        else warn(`journal: a ${n.kind} notification (${n.key}) dropped: its account is no longer configured`);
      }
    },
    close: () => journal.close(),
    journalBytes: () => journal.bytes(),
  };
}

function tokenRecord(t: StoredToken, secret: string): JournalRecord {
  return {
    k: 'tok',
    t: { tokenId: t.tokenId, merchantId: t.merchantId, accountId: t.accountId, card: sealCard(t, secret) },
  };
}
