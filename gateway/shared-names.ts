/**
 * The records a request may name, read from its path and body before it is handled (`serve --database`): a shared
 * sandbox's store holds only some records in memory, and its PostgreSQL is read asynchronously, so the rows a request
 * may look up are read before it runs (gateway/shared.ts). Over-reading costs a query; under-reading would answer a
 * record as unknown, so every field an operation looks a record up by is here: the selection fields of a query or
 * refund search (each value of their lists, as a transaction id and as an order number; none: the account's latest),
 * a batch item's `transaction_id`, a payment's `token_id`, a payout's idempotency key, a checkout's session field and
 * the token of a page's path.
 */
import type { Gateway, RecordNames } from './context.js';
import type { Incoming } from './pipeline.js';

/** Most values read from one request (a batch holds at most a few hundred items). */
const MAX_VALUES = 2000;

function bodyOf(text: string): Record<string, unknown> | undefined {
  const t = text.trimStart();
  try {
    if (t.startsWith('{')) {
      const v = JSON.parse(t) as unknown;
      return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of new URLSearchParams(t)) out[k] = v;
    return out;
  } catch {
    return undefined;
  }
}

function bodyOfList(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.length <= 256 ? v : undefined);

/** The operation a path names (the spec's path at its end: a base URL's prefix may come first). */
function operationAt(gw: Gateway, path: string): string | undefined {
  for (const op of gw.spec.operations.values()) if (path === op.path || path.endsWith(op.path)) return op.key;
  return undefined;
}

/** The records a request may look up. */
export function namedRecords(gw: Gateway, incoming: Pick<Incoming, 'path' | 'body'>): RecordNames {
  const names: RecordNames = {
    transactions: [],
    orders: [],
    latest: false,
    payouts: [],
    tokens: [],
    sessions: [],
  };
  const path = incoming.path.split('?')[0]!;
  const last = path.slice(path.lastIndexOf('/') + 1);
  if (last && (path.includes('/pay/') || path.includes('/issuer/'))) names.sessions.push(last);
  const body = bodyOf(incoming.body);
  if (!body) return names;
  const merchantId = text(body.merchant_id);
  const accountId = text(body.account_id);
  if (merchantId && accountId) names.account = { merchantId, accountId };
  const op = operationAt(gw, path);
  const session = text(body.gbc_id);
  if (session) names.sessions.push(session);
  const token = text(body.token_id);
  if (token) names.tokens.push(token);
  const payoutKey = text(body[gw.profile.payout.idempotencyKey]);
  if (payoutKey && merchantId && accountId) names.payouts.push(`${merchantId}\u0000${accountId}\u0000${payoutKey}`);
  if (op === 'retrievalTrans' || op === 'retrievalRefund') {
    const sel = gw.profile.selection[op];
    let given = false;
    for (const field of sel.fields) {
      const raw = body[field];
      if (typeof raw !== 'string') continue;
      for (const v of raw.split(sel.listSeparator).slice(0, MAX_VALUES)) {
        const value = v.trim();
        if (!value) continue;
        given = true;
        names.transactions.push(value);
        names.orders.push(value);
      }
    }
    names.latest = !given;
  }
  // Batch items: every array of objects in the body (a form body carries it as JSON text).
  for (const raw of Object.values(body)) {
    const value = typeof raw === 'string' && raw.trimStart().startsWith('[') ? bodyOfList(raw) : raw;
    if (!Array.isArray(value)) continue;
    for (const item of value.slice(0, MAX_VALUES)) {
      const id = item && typeof item === 'object' ? text((item as Record<string, unknown>).transaction_id) : undefined;
      if (id) names.transactions.push(id);
    }
  }
  const id = text(body.transaction_id);
  if (id && !names.transactions.includes(id)) names.transactions.push(id);
  return names;
}
