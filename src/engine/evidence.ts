/** Masked, printable evidence of an exchange, built once when the exchange is recorded. */
import { createHash } from 'node:crypto';
import { maskText, maskValue, type MaskRules } from '../mask.js';
import type { Profile } from '../profile/load.js';
import type { Evidence, Exchange, ExchangeRecord, ReceivedResponse, SentRequest } from '../model.js';

/** Longest response body excerpt kept in evidence, in characters. */
export const EXCERPT_CHARS = 4096;

/** Most headers of a response kept in evidence, and the longest value kept of each (characters). */
export const EVIDENCE_HEADERS = 100;
export const EVIDENCE_HEADER_CHARS = 1024;

/** The first EVIDENCE_HEADERS headers, each value cut at EVIDENCE_HEADER_CHARS (with '…'). */
function boundedHeaders(headers: Record<string, string>): Record<string, string> {
  const entries = Object.entries(headers);
  if (entries.length <= EVIDENCE_HEADERS && entries.every(([, v]) => v.length <= EVIDENCE_HEADER_CHARS)) return headers;
  return Object.fromEntries(entries.slice(0, EVIDENCE_HEADERS).map(([k, v]) => [k.slice(0, EVIDENCE_HEADER_CHARS), v.length > EVIDENCE_HEADER_CHARS ? `${v.slice(0, EVIDENCE_HEADER_CHARS)}…` : v]));
}

/** Text masked past the excerpt's cut: longer than a card number run and than any written form of a secret. */
function maskMargin(rules: MaskRules): number {
  return Math.max(512, ...(rules.secrets ?? []).map((s) => s.length * 6));
}

/** What to mask in a run: the secret, the configured test cards and the profile's card field names. */
export function maskRulesFor(profile: Profile, secret: string, cards: readonly string[]): MaskRules {
  const card = profile.fields.card;
  return { secrets: secret ? [secret] : [], cards, fields: [card.number, card.securityCode] };
}

/** Quote a word for a POSIX shell. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A curl command line reproducing a request (from already masked parts). */
export function curlLine(method: string, url: string, headers: Record<string, string>, body: string, localAddress?: string): string {
  const parts = ['curl', '-sS', '-X', method, shellQuote(url)];
  for (const [name, value] of Object.entries(headers)) parts.push('-H', shellQuote(`${name}: ${value}`));
  if (localAddress) parts.push('--interface', shellQuote(localAddress));
  if (body !== '') parts.push('--data-raw', shellQuote(body));
  return parts.join(' ');
}

/**
 * Evidence of a request and its response, masked with `rules`. `bodyHead`: the first characters of a body not held
 * in memory (spooled), used instead of `response.bodyText`.
 */
export function buildEvidence(request: SentRequest, response: ReceivedResponse | undefined, rules: MaskRules, bodyHead?: string): Evidence {
  const headers = maskValue(request.headers, rules);
  const url = maskText(request.url, rules);
  const body = maskText(request.bodyText, rules);
  const evidence: Evidence = {
    request: { method: request.method, url, headers, body },
    curl: curlLine(request.method, url, headers, body, request.localAddress), // built from masked parts
  };
  if (response) {
    // Mask a margin past the cut, then cut: a card number or secret across the cut is masked whole before it.
    const text = bodyHead ?? response.bodyText;
    const long = bodyHead !== undefined || text.length > EXCERPT_CHARS;
    const masked = maskText(long ? text.slice(0, EXCERPT_CHARS + maskMargin(rules)) : text, rules);
    const bodyExcerpt = long ? `${masked.slice(0, EXCERPT_CHARS)}…` : masked;
    const bytes = response.bytes ?? { length: Buffer.byteLength(response.bodyText), sha256: createHash('sha256').update(response.bodyText).digest('hex') };
    evidence.response = { status: response.status, headers: boundedHeaders(maskValue(response.headers, rules)), bodyExcerpt, bodyBytes: bytes.length, bodySha256: bytes.sha256, ...(response.truncated ? { truncated: true } : {}) };
  }
  return evidence;
}

/** The printable record of an exchange for the reports: its masked evidence and timings, not the request as sent. */
export function exchangeRecord(exchange: Exchange): ExchangeRecord {
  const { id, operation, startedAt, durationMs, evidence, error, incoming } = exchange;
  return { id, operation, startedAt, durationMs, evidence, ...(error ? { error } : {}), ...(incoming ? { incoming } : {}) };
}
