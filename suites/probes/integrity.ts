/**
 * `runLedger`: the observation of the run's ledger (engine/ledger.ts), made once every other observation of the
 * worker is made. It sends nothing to the target; it asks the kit's receiver for the notifications of every payment
 * and payout whose request gave the receiver's notify_url, so the ledger holds them too.
 */
import type { CheckContext, Exchange, OperationKey, ProbeClient } from '../../core/model.js';
import { FIELD } from '../fields.js';
import { isObject } from '../observe.js';
import { defineProbe, once } from './support.js';

/** Keys the probe asks the receiver for at most (order numbers and request ids). */
const MAX_NOTIFICATION_KEYS = 500;

/** A stand-in exchange for the observation's `main`: the ledger sends no request of its own. */
function ledgerMain(ctx: CheckContext, operation: OperationKey): Exchange {
  const url = `${ctx.config.baseUrl.replace(/\/$/, '')}${ctx.spec.operations.get(operation)?.path ?? ''}`;
  return {
    id: `${operation}#ledger`,
    operation,
    request: { method: 'POST', url, headers: {}, body: undefined, bodyText: '', encoding: 'raw' },
    startedAt: new Date().toISOString(),
    durationMs: 0,
    evidence: { request: { method: 'POST', url, headers: {}, body: '' }, curl: '' },
  };
}

/** Ask the receiver for the notifications of every request that gave its notify_url (once per run). */
async function collectNotifications(client: ProbeClient, ctx: CheckContext): Promise<void> {
  const view = client.ledger?.();
  const notifyUrl = ctx.config.notifyUrl;
  if (!view || !notifyUrl) return;
  const keys = new Set<string>();
  for (const e of view.entries) {
    const body = e.exchange.request.body;
    if (!isObject(body) || body[FIELD.notifyUrl] !== notifyUrl) continue;
    const key = body[FIELD.orderNo] ?? body[FIELD.requestId];
    if (typeof key === 'string' && keys.size < MAX_NOTIFICATION_KEYS) keys.add(key);
  }
  for (const key of keys) await client.notifications(key, 0, 1);
}

/** The run's ledger, read once every other observation is made. */
export const runLedger = defineProbe(
  'runLedger',
  'all',
  {},
  async (operation, client, ctx, steps) => {
    await once(ctx, 'runLedger:notifications', () => collectNotifications(client, ctx));
    const view = client.ledger?.();
    if (view) steps.facts[LEDGER_FACT] = view;
    return ledgerMain(ctx, operation);
  },
  { readsLedger: true },
);

/** The fact the run's ledger is held under in the observation. */
export const LEDGER_FACT = 'ledger';
