/**
 * Probes of profile rules a single fault cannot show: which error wins when a request has two faults (the profile's
 * `errors.precedence`), which per-item failure wins when an item has two (`batch.checkOrder`), and in which order a
 * query or refund search lists what it selects (`selection.*.resultOrder`).
 */
import type { OperationKey } from '../../src/model.js';
import { FIELD } from '../fields.js';
import { paymentBody, recordFacts, wrongSignature } from './basic.js';
import { type SelectingOperation, authorise, batch, batchBody, defineProbe, happyItemFields, itemFor, paymentsIn, select, startStateFor, unknownItem } from './support.js';

/** Operations whose request carries a top-level currency the kit can make invalid. */
export const TWO_FAULT_OPERATIONS: readonly OperationKey[] = ['authoriseDirect', 'authoriseApm', 'checkout', 'payout'];

/** `twoFaults`: a request with a wrong signature and an invalid currency at once. */
export const twoFaults = defineProbe('twoFaults', TWO_FAULT_OPERATIONS, async (op, client, ctx, steps) => {
  const field = op === 'payout' ? FIELD.paymentCurrency : FIELD.currency;
  const body = paymentBody(client, ctx, op, { [field]: 'x' });
  steps.facts.invalidField = field;
  return steps.add(op, await client.send(op, { ...body, [FIELD.signature]: wrongSignature(ctx) }, { sign: false }));
});

/**
 * `itemFaults` (cancel): one item with both a currency and an amount that differ from its payment's (`currencyAmount`),
 * one with an unknown transaction and a currency in a wrong form (`unknownInvalid`).
 */
export const itemFaults = defineProbe('itemFaults', ['cancel'], async (op, client, ctx, steps) => {
  const [record] = await paymentsIn(client, ctx, steps, startStateFor(ctx, 'cancel'), 1);
  steps.facts.record = recordFacts(record!);
  const other = record!.fields[FIELD.currency] === 'EUR' ? 'USD' : 'EUR';
  const amount = `${String(record!.fields[FIELD.amount]).replace(/\..*/, '')}1.00`;
  const both = itemFor(client, ctx, op, record, { [FIELD.currency]: other, [FIELD.amount]: amount });
  const main = steps.add('currencyAmount', await client.send(op, batchBody(client, ctx, op, [both])));
  const unknown = { ...unknownItem(client, ctx, op, 1, record), [FIELD.currency]: 'x' };
  steps.add('unknownInvalid', await client.send(op, batchBody(client, ctx, op, [unknown])));
  return main;
});

/** `selectionOrder`: two records made one after the other, selected oldest first in one request. */
export const selectionOrder = defineProbe('selectionOrder', ['retrievalTrans', 'retrievalRefund'], async (op, client, ctx, steps) => {
  const records = [];
  for (let i = 0; i < 2; i++) {
    if (op === 'retrievalRefund') {
      const [r] = await paymentsIn(client, ctx, steps, startStateFor(ctx, 'refund'), 1);
      await batch(client, ctx, steps, 'refund', [r!], (x) => happyItemFields(ctx, 'refund', x), 'refund', true);
      records.push(r!);
    } else records.push(await authorise(client, ctx, steps));
    // Records a second apart: their timestamps (to the second) differ.
    if (i === 0) await new Promise((resolve) => setTimeout(resolve, 1100));
  }
  steps.facts.records = records.map(recordFacts);
  return select(client, ctx, steps, op as SelectingOperation, records.map((r) => r.fields), op);
});
