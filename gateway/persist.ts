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
import type { Notification, NotificationTracker, Notifier } from './notify.js';
import type { PayoutRecord, RefundRecord, Session, StoredToken, Store, StoreWatcher, Transaction } from './store.js';

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

/** What the folder's stages share: the parts it journals, and the notifications still pending with their last id. */
interface Folder {
  store: Store;
  notifier: Notifier;
  config: GatewayConfig;
  warn: (line: string) => void;
  /** Notifications queued and not yet settled, by id. */
  pending: Map<number, PendingNotification>;
  /** The last notification id given. */
  notificationSeq: number;
}

/** The secret of an account still configured; undefined when it is not. */
function secretOf(config: GatewayConfig, merchantId: unknown, accountId: unknown): string | undefined {
  return resolveAccount(config, merchantId, accountId)?.secret;
}

/** Restore a stored-card token from its record; false when its card cannot be opened (account gone, secret changed). */
function restoreToken(f: Folder, v: Record<string, string>): boolean {
  const secret = secretOf(f.config, v.merchantId, v.accountId);
  const card = secret ? openCard(String(v.tokenId), String(v.card), secret) : undefined;
  if (!card) return false;
  const [cardNumber, expiryMonth, expiryYear] = card;
  f.store.tokens.set(String(v.tokenId), {
    tokenId: String(v.tokenId),
    merchantId: String(v.merchantId),
    accountId: String(v.accountId),
    cardNumber,
    expiryMonth,
    expiryYear,
  });
  return true;
}

/**
 * Replay one record with the store's own methods, so caps and eviction apply as they did; false when it was a
 * stored-card token dropped.
 */
function replayRecord(f: Folder, r: JournalRecord, ttlMs: number): boolean {
  const { store } = f;
  switch (r.k) {
    case 'head':
      store.restoreCounters({ seq: r.seq, tag: r.tag });
      f.notificationSeq = Math.max(f.notificationSeq, Number(r.notificationSeq) || 0);
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
    case 'tok':
      return restoreToken(f, r.t as Record<string, string>);
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
      else store.addSession(s, ttlMs, f.config.sessions.maxSessions);
      break;
    }
    case 'ntf':
      f.pending.set(Number(r.id), r.n as PendingNotification);
      f.notificationSeq = Math.max(f.notificationSeq, Number(r.id));
      break;
    case 'ntfd':
      f.pending.delete(Number(r.id));
      break;
    case 'reset':
      store.clear();
      f.pending.clear();
      break;
    default:
      f.warn(`journal: a record of unknown kind '${r.k}' skipped`);
  }
  return true;
}

/** Replay the journal's records into the empty store (no watcher yet: nothing is re-written); warn of dropped cards. */
function replay(f: Folder, records: JournalRecord[]): void {
  const ttlMs = f.config.sessions.ttlSeconds * 1000;
  let undecryptable = 0;
  for (const r of records) if (!replayRecord(f, r, ttlMs)) undecryptable += 1;
  if (undecryptable)
    f.warn(
      `journal: ${undecryptable} stored-card token${undecryptable === 1 ? '' : 's'} dropped: its account is no longer configured, or its secret changed (the card is encrypted with a key derived from it)`,
    );
}

/** The records of the whole state now: what a compacted journal holds. */
function* snapshot(f: Folder): Generator<JournalRecord> {
  const { store } = f;
  yield { k: 'head', format: FORMAT, ...store.counters(), notificationSeq: f.notificationSeq };
  for (const t of store.transactions.values()) yield { k: 'pay', t: encodeTransaction(t) };
  for (const { txn, refund } of store.allRefunds()) yield { k: 'ref', id: txn.transactionId, r: encode(refund) };
  for (const t of store.tokens.values()) {
    const secret = secretOf(f.config, t.merchantId, t.accountId);
    if (secret) yield tokenRecord(t, secret);
  }
  for (const p of store.payouts.values()) yield { k: 'po', p };
  for (const s of store.sessions.values()) yield { k: 'ses', s: encodeSession(s) };
  for (const [id, n] of f.pending) yield { k: 'ntf', id, n };
}

/** The store's watcher: every change journalled. */
function storeWatcher(f: Folder, journal: Journal): StoreWatcher {
  const { store } = f;
  return {
    transaction: (t, created) =>
      journal.append(
        created
          ? { k: 'pay', n: store.counters().seq, t: encodeTransaction(t) }
          : { k: 'upd', t: encodeTransaction(t) },
      ),
    refund: (t, refund) => journal.append({ k: 'ref', id: t.transactionId, r: encode(refund) }),
    token: (t) => {
      const secret = secretOf(f.config, t.merchantId, t.accountId);
      if (secret) journal.append(tokenRecord(t, secret));
    },
    payout: (p) => journal.append({ k: 'po', n: store.counters().seq, p }),
    session: (s) => journal.append({ k: 'ses', s: encodeSession(s) }),
    cleared: () => {
      f.pending.clear();
      journal.append({ k: 'reset' });
      void journal.compact();
    },
  };
}

/** The notifier's tracker: each notification journalled when queued, and again when settled. */
function notificationTracker(f: Folder, journal: Journal): NotificationTracker {
  const ids = new WeakMap<Notification, number>();
  return {
    queued(n) {
      const id = ++f.notificationSeq;
      ids.set(n, id);
      const record: PendingNotification = {
        kind: n.kind,
        key: n.key,
        url: n.url,
        body: n.body,
        merchantId: n.merchantId,
        accountId: n.accountId,
      };
      f.pending.set(id, record);
      journal.append({ k: 'ntf', id, n: record });
    },
    settled(n) {
      const id = ids.get(n);
      if (id === undefined || !f.pending.delete(id)) return;
      journal.append({ k: 'ntfd', id });
    },
  };
}

/** Send again the notifications pending when the last gateway stopped (those of an account gone are dropped). */
function resendPending(f: Folder, journal: Journal): void {
  const again = [...f.pending.entries()];
  f.pending.clear();
  for (const [id, n] of again) {
    const secret = secretOf(f.config, n.merchantId, n.accountId);
    journal.append({ k: 'ntfd', id });
    if (secret) f.notifier.send({ ...n, secret });
    else f.warn(`journal: a ${n.kind} notification (${n.key}) dropped: its account is no longer configured`);
  }
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
  const f: Folder = { store, notifier, config, warn, pending: new Map(), notificationSeq: 0 };
  try {
    replay(f, records);
  } catch (e) {
    unlock();
    throw e;
  }
  const restored: Restored = { ...store.counts(), notifications: f.pending.size, records: records.length };
  const journal = Journal.start(dir, lockFile, () => snapshot(f), {
    compactAfterBytes: (config.store.compactAfterMiB ?? 64) * 1024 * 1024,
    sync: config.store.syncWrites ?? false,
    warn,
  });
  store.watcher = storeWatcher(f, journal);
  notifier.tracker = notificationTracker(f, journal);
  return {
    durability: journal,
    restored,
    resend: () => resendPending(f, journal),
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
