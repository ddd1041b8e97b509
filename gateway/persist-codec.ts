/**
 * How the state of `serve --data DIR` is written as text (gateway/database.ts keeps it; gateway/journal.ts reads the
 * journal of earlier versions): bigints and dates tagged in JSON, a session's request kept as it came, and a stored
 * card encrypted (AES-256-GCM) with a key derived from its account's secret, which lives in the configuration, never
 * in the folder. Secrets are never written (a notification names its account).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { resolveAccount, type GatewayConfig } from './config.js';
import type { Notification } from './notify.js';
import type { Session, StoredToken, Transaction } from './store.js';

/** Our records' values as JSON: bigints and dates tagged (no value of a request is passed through this). */
export function encode(value: unknown): unknown {
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

/** `JSON.stringify`'s replacer that tags as `encode` does (a date is already its ISO text here: `toJSON` ran first). */
function tagged(this: Record<string, unknown>, key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return { $big: value.toString() };
  if (typeof value === 'string' && this[key] instanceof Date) return { $date: value };
  return value;
}

/**
 * `JSON.stringify(encode(value))` in one pass, without the tagged copy (the text of every row written: one
 * serialisation per record, the same text).
 */
export function encodeText(value: unknown): string {
  return JSON.stringify(value, tagged);
}

/** The text of a transaction without its refunds (`encodeTransaction`, as JSON). */
export function transactionText(t: Transaction): string {
  return encodeText({ ...t, refunds: [] });
}

/** The inverse of `encode`. */
export function decode(value: unknown): unknown {
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
export function encodeTransaction(t: Transaction): unknown {
  return encode({ ...t, refunds: [] });
}

/** A session as JSON: the request is a client's data, kept as it came, never tagged or untagged. */
export function encodeSession(s: Session): unknown {
  return { ...s, createdAt: s.createdAt.toISOString() };
}

/** The inverse of `encodeSession`. */
export function decodeSession(raw: Record<string, unknown>): Session {
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

/** A stored-card token as written: its card sealed. */
export interface SealedToken {
  tokenId: string;
  merchantId: string;
  accountId: string;
  card: string;
}

/** The secret of an account still configured; undefined when it is not. */
export function secretOf(config: GatewayConfig, merchantId: unknown, accountId: unknown): string | undefined {
  return resolveAccount(config, merchantId, accountId)?.secret;
}

/** A token with its card sealed; undefined when its account is no longer configured. */
export function sealToken(t: StoredToken, config: GatewayConfig): SealedToken | undefined {
  const secret = secretOf(config, t.merchantId, t.accountId);
  if (!secret) return undefined;
  return { tokenId: t.tokenId, merchantId: t.merchantId, accountId: t.accountId, card: sealCard(t, secret) };
}

/** A token with its card opened; undefined when it cannot be (account gone, secret changed). */
export function openToken(v: Record<string, unknown>, config: GatewayConfig): StoredToken | undefined {
  const secret = secretOf(config, v.merchantId, v.accountId);
  const card = secret ? openCard(String(v.tokenId), String(v.card), secret) : undefined;
  if (!card) return undefined;
  const [cardNumber, expiryMonth, expiryYear] = card;
  return {
    tokenId: String(v.tokenId),
    merchantId: String(v.merchantId),
    accountId: String(v.accountId),
    cardNumber,
    expiryMonth,
    expiryYear,
  };
}

/** What a pending notification keeps: everything but the secret (its account's, looked up again on start). */
export interface PendingNotification {
  kind: Notification['kind'];
  key: string;
  url: string;
  body: Record<string, unknown>;
  merchantId?: string;
  accountId?: string;
}

/** A notification as kept while pending. */
export function pendingOf(n: Notification): PendingNotification {
  return { kind: n.kind, key: n.key, url: n.url, body: n.body, merchantId: n.merchantId, accountId: n.accountId };
}
