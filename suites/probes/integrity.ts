/**
 * `runLedger`: the observation of the run's ledger (engine/ledger.ts), made once every other observation of the
 * worker is made. It sends nothing to the target; it asks the kit's receiver for the notifications of every payment
 * and payout whose request gave the receiver's notify_url, so the ledger holds them too.
 */
import type { CheckContext, ProbeClient } from '../../core/model.js';
import { FIELD } from '../fields.js';
import { isObject } from '../observe.js';
import { defineProbe, notSent, once } from './support.js';

/** Keys the probe asks the receiver for at most (order numbers and request ids). */
const MAX_NOTIFICATION_KEYS = 500;

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
    // The ledger sends no request of its own: its `main` stands for none.
    return notSent(ctx, operation, 'ledger');
  },
  { readsLedger: true },
);

/** The fact the run's ledger is held under in the observation. */
export const LEDGER_FACT = 'ledger';
