/**
 * The journal of earlier versions of `serve --data DIR` (`journal.log`: one record a line, `<crc32> <json>\n`), read
 * once to import it into the database (gateway/database.ts): its records are replayed into the empty store with the
 * store's own methods, as the journal's own start did. A line whose checksum or JSON fails is reported, not replayed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { JournalError } from '../core/types/errors.js';
import type { GatewayConfig } from './config.js';
import { decode, decodeSession, openToken, type PendingNotification } from './persist-codec.js';
import type { PayoutRecord, RefundRecord, Store, Transaction } from './store.js';

/** The journal's file name in the folder. */
export const JOURNAL_FILE = 'journal.log';

/** One journal record: a JSON object with its kind in `k`. */
export type JournalRecord = { k: string } & Record<string, unknown>;

/** The line of a record: its CRC-32 (8 hex digits), a space, its JSON text, a newline. */
export function frame(record: JournalRecord): string {
  const json = JSON.stringify(record);
  return `${crc32(json).toString(16).padStart(8, '0')} ${json}\n`;
}

/** What reading a journal file found: the records in order, and one warning per line skipped. */
export interface ReadResult {
  records: JournalRecord[];
  warnings: string[];
}

/** Read the records of a journal file. */
export function readJournal(file: string): ReadResult {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new JournalError(`cannot read ${file}: ${(e as Error).message}`);
  }
  const records: JournalRecord[] = [];
  const warnings: string[] = [];
  let start = 0;
  let line = 0;
  while (start < text.length) {
    line += 1;
    const end = text.indexOf('\n', start);
    const last = end === -1;
    const raw = text.slice(start, last ? text.length : end);
    start = last ? text.length : end + 1;
    const record = parseLine(raw, last);
    if (typeof record === 'string') warnings.push(`${path.basename(file)} line ${line}: ${record}; skipped`);
    else if (record) records.push(record);
  }
  return { records, warnings };
}

/** A record, undefined for an empty line, or why the line is no record. */
function parseLine(raw: string, last: boolean): JournalRecord | string | undefined {
  if (raw === '') return undefined;
  if (last) return 'a record cut short (no end of line: the gateway stopped while writing it)';
  const space = raw.indexOf(' ');
  const json = raw.slice(space + 1);
  if (space !== 8 || !/^[0-9a-f]{8}$/.test(raw.slice(0, 8)) || Number.parseInt(raw.slice(0, 8), 16) !== crc32(json))
    return 'a damaged record (its checksum does not match)';
  try {
    const value = JSON.parse(json) as unknown;
    if (value && typeof value === 'object' && typeof (value as JournalRecord).k === 'string')
      return value as JournalRecord;
    return 'a record of no known form';
  } catch {
    return 'a damaged record (not JSON)';
  }
}

/** Where a journal is replayed: the empty store, and the notifications pending with their last id. */
export interface ReplayTarget {
  store: Store;
  config: GatewayConfig;
  pending: Map<number, PendingNotification>;
  notificationSeq: number;
  /** Stored-card tokens whose card could not be opened (account gone, secret changed). */
  droppedTokens: number;
  warn(line: string): void;
}

/** Replay one payment record (`pay` stores it, `upd` changes the one held). */
function replayPayment(f: ReplayTarget, r: JournalRecord): void {
  const t = decode(r.t) as Transaction;
  if (!t || typeof t.transactionId !== 'string') throw new Error('a payment record without transactionId');
  const held = f.store.transactions.get(t.transactionId);
  if (held) Object.assign(held, t, { refunds: held.refunds });
  else if (r.k === 'pay') f.store.addTransaction({ ...t, refunds: [] });
  f.store.restoreCounters({ seq: r.n });
}

/** Replay one record with the store's own methods, so caps and eviction apply as they did. */
function replayRecord(f: ReplayTarget, r: JournalRecord, ttlMs: number): void {
  const { store } = f;
  switch (r.k) {
    case 'head':
      store.restoreCounters({ seq: r.seq, tag: r.tag });
      f.notificationSeq = Math.max(f.notificationSeq, Number(r.notificationSeq) || 0);
      break;
    case 'pay':
    case 'upd':
      replayPayment(f, r);
      break;
    case 'ref': {
      const t = store.transactions.get(String(r.id));
      const refund = decode(r.r) as RefundRecord;
      if (t && !t.refunds.some((x) => x.referenceId === refund.referenceId)) store.addRefund(t, refund);
      break;
    }
    case 'tok': {
      const token = openToken(r.t as Record<string, unknown>, f.config);
      if (token) store.tokens.set(token.tokenId, token);
      else f.droppedTokens += 1;
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
}

/**
 * Replay a journal file into the empty store. Throws JournalError naming the file and line of a record of an
 * unexpected shape (nothing is imported then: the caller starts no database).
 */
export function replayJournal(file: string, f: ReplayTarget): number {
  const { records, warnings } = readJournal(file);
  for (const w of warnings) f.warn(`journal: ${w}`);
  const ttlMs = f.config.sessions.ttlSeconds * 1000;
  records.forEach((r, i) => {
    try {
      replayRecord(f, r, ttlMs);
    } catch (e) {
      throw new JournalError(
        `${file}: record ${i + 1} (kind '${r.k}') cannot be imported (${(e as Error).message}); restore the folder from a copy, or start afresh with a new folder`,
      );
    }
  });
  return records.length;
}
