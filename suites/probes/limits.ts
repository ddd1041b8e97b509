/**
 * Limit recipes: each batch operation at exactly its limit, one over it (with real payments first and last, so both
 * partial and full processing show in a follow-up query), and empty; query and refund search at and over their limit
 * through the profile's selection fields.
 */
import type { CheckContext, OperationKey } from '../../core/model.js';
import { operationOf, paymentStatusCode } from '../observe.js';
import { happyBatch, recordFacts, selectableRecords } from './basic.js';
import {
  type SelectingOperation,
  batchBody,
  defineProbe,
  fakeValues,
  select,
  selectingField,
  selectionBody,
  startStateFor,
  unknownItem,
} from './support.js';
import { SpecError } from '../../core/types/errors.js';

function maxItems(ctx: CheckContext, op: OperationKey): number {
  const batch = operationOf(ctx.spec, op).batch;
  if (!batch) throw new SpecError(`${op} is not a batch operation`);
  return batch.maxItems;
}

function maxOrders(ctx: CheckContext, op: OperationKey): number {
  const limit = operationOf(ctx.spec, op).selectionLimit;
  if (!limit) throw new SpecError(`${op} has no selection limit`);
  return limit.maxOrders;
}

/** `atLimit`: a batch of exactly the limit, every item a payment in a state the operation starts from. */
export const atLimit = defineProbe('atLimit', 'batch', {}, async (op, client, ctx, steps) => {
  const { items } = await happyBatch(client, ctx, steps, op, maxItems(ctx, op));
  steps.facts.count = items.length;
  return steps.add(op, await client.send(op, batchBody(client, ctx, op, items)));
});

/**
 * `overLimit`: a batch of the limit plus one — a real payment first, unknown transactions between, a real payment
 * last — then a query of both real payments.
 */
export const overLimit = defineProbe(
  'overLimit',
  'batch',
  { followUp: 'the query showing whether the prepared payments moved' },
  async (op, client, ctx, steps) => {
    const state = startStateFor(ctx, op);
    const { records, items } = await happyBatch(client, ctx, steps, op, 2);
    const fillers = Array.from({ length: maxItems(ctx, op) - 1 }, (_, i) =>
      unknownItem(client, ctx, op, i + 1, records[0]),
    );
    const all = [items[0]!, ...fillers, items[1]!];
    steps.facts.count = all.length;
    steps.facts.first = recordFacts(records[0]!);
    steps.facts.last = recordFacts(records[1]!);
    steps.facts.expectedCode = paymentStatusCode(ctx, state);
    steps.facts.state = state;
    const main = steps.add(op, await client.send(op, batchBody(client, ctx, op, all)));
    await select(
      client,
      ctx,
      steps,
      'retrievalTrans',
      records.map((r) => r.fields),
      'followUp',
    );
    return main;
  },
);

/** `empty`: a batch with an empty order array. */
export const emptyBatch = defineProbe('empty', 'batch', {}, async (op, client, ctx, steps) =>
  steps.add(op, await client.send(op, batchBody(client, ctx, op, []))),
);

/** `selectionAtLimit`: a query or refund search selecting exactly the limit of values, the first a real record. */
export const selectionAtLimit = defineProbe('selectionAtLimit', 'selecting', {}, async (op, client, ctx, steps) => {
  const sop = op as SelectingOperation;
  const [record] = await selectableRecords(client, ctx, steps, sop, 1);
  const field = selectingField(ctx, sop, [record!.fields]);
  const values = [String(record!.fields[field]), ...fakeValues(ctx, maxOrders(ctx, op) - 1)];
  steps.facts.field = field;
  steps.facts.count = values.length;
  steps.facts.first = recordFacts(record!);
  return steps.add(op, await client.send(op, selectionBody(client, ctx, sop, field, values)));
});

/** `selectionOverLimit`: the limit plus one values, a real record first and another last. */
export const selectionOverLimit = defineProbe('selectionOverLimit', 'selecting', {}, async (op, client, ctx, steps) => {
  const sop = op as SelectingOperation;
  const records = await selectableRecords(client, ctx, steps, sop, 2);
  const field = selectingField(
    ctx,
    sop,
    records.map((r) => r.fields),
  );
  const values = [
    String(records[0]!.fields[field]),
    ...fakeValues(ctx, maxOrders(ctx, op) - 1),
    String(records[1]!.fields[field]),
  ];
  steps.facts.field = field;
  steps.facts.count = values.length;
  steps.facts.first = recordFacts(records[0]!);
  steps.facts.last = recordFacts(records[1]!);
  return steps.add(op, await client.send(op, selectionBody(client, ctx, sop, field, values)));
});
