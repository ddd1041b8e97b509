/**
 * Probes of profile rules a single fault cannot show: which error wins when a request has two faults (the profile's
 * `errors.precedence`), which per-item failure wins when an item has two (`batch.checkOrder`), and in which order a
 * query or refund search lists what it selects (`selection.*.resultOrder`), and how it combines two selecting fields
 * and a value matching nothing (`selection.*.combine`, `unmatched`), and the longest field value the profile states
 * (`limits.maxFieldLength`).
 */
import { LONG_FIELD } from '../../core/spec/terms.js';
import type { CheckContext, OperationKey, ProbeClient } from '../../core/model.js';
import { FIELD } from '../fields.js';
import { paymentBody, recordFacts, wrongSignature } from './basic.js';
import {
  Inconclusive,
  recordSourceOf,
  type PaymentRecord,
  type SelectingOperation,
  type Steps,
  authorise,
  batch,
  batchBody,
  defineProbe,
  fakeValues,
  happyItemFields,
  itemFor,
  paymentsIn,
  select,
  startStateFor,
  unknownItem,
} from './support.js';

/** Operations whose request carries a top-level currency the kit can make invalid. */
export const TWO_FAULT_OPERATIONS: readonly OperationKey[] = ['authoriseDirect', 'authoriseApm', 'checkout', 'payout'];

/** `twoFaults`: a request with a wrong signature and an invalid currency at once. */
export const twoFaults = defineProbe('twoFaults', TWO_FAULT_OPERATIONS, {}, async (op, client, ctx, steps) => {
  const field = op === 'payout' ? FIELD.paymentCurrency : FIELD.currency;
  const body = paymentBody(client, ctx, op, { [field]: 'x' });
  steps.facts.invalidField = field;
  return steps.add(op, await client.send(op, { ...body, [FIELD.signature]: wrongSignature(ctx) }, { sign: false }));
});

/**
 * `itemFaults` (cancel): one item with both a currency and an amount that differ from its payment's (`currencyAmount`),
 * one with an unknown transaction and a currency in a wrong form (`unknownInvalid`).
 */
export const itemFaults = defineProbe(
  'itemFaults',
  ['cancel'],
  {
    currencyAmount: 'an item with both a wrong currency and a wrong amount',
    unknownInvalid: 'an item of an unknown transaction with an invalid field',
  },
  async (op, client, ctx, steps) => {
    const [record] = await paymentsIn(client, ctx, steps, startStateFor(ctx, 'cancel'), 1);
    steps.facts.record = recordFacts(record!);
    const other = record!.fields[FIELD.currency] === 'EUR' ? 'USD' : 'EUR';
    const amount = `${String(record!.fields[FIELD.amount]).replace(/\..*/, '')}1.00`;
    const both = itemFor(client, ctx, op, record, { [FIELD.currency]: other, [FIELD.amount]: amount });
    const main = steps.add('currencyAmount', await client.send(op, batchBody(client, ctx, op, [both])));
    const unknown = { ...unknownItem(client, ctx, op, 1, record), [FIELD.currency]: 'x' };
    steps.add('unknownInvalid', await client.send(op, batchBody(client, ctx, op, [unknown])));
    return main;
  },
);

/** `selectionOrder`: two records made one after the other, selected oldest first in one request. */
export const selectionOrder = defineProbe(
  'selectionOrder',
  'selecting',
  {},
  async (op, client, ctx, steps) => {
    const records = [];
    for (let i = 0; i < 2; i++) {
      const source = recordSourceOf(ctx, op);
      if (source) {
        const [r] = await paymentsIn(client, ctx, steps, startStateFor(ctx, source), 1);
        await batch(client, ctx, steps, source, [r!], (x) => happyItemFields(ctx, source, x), source, true);
        records.push(r!);
      } else records.push(await authorise(client, ctx, steps));
      // Records a second apart: their timestamps (to the second) differ.
      if (i === 0) await new Promise((resolve) => setTimeout(resolve, 1100));
    }
    steps.facts.records = records.map(recordFacts);
    return select(
      client,
      ctx,
      steps,
      op as SelectingOperation,
      records.map((r) => r.fields),
      op,
    );
  },
  { waitsOnTarget: true },
);

/** Two records an operation can select: authorised payments (query), refunded payments (refund search). */
async function selectableRecords(
  client: ProbeClient,
  ctx: CheckContext,
  steps: Steps,
  op: SelectingOperation,
): Promise<PaymentRecord[]> {
  const source = recordSourceOf(ctx, op);
  if (!source) return [await authorise(client, ctx, steps), await authorise(client, ctx, steps)];
  const records = await paymentsIn(client, ctx, steps, startStateFor(ctx, source), 2);
  await batch(client, ctx, steps, source, records, (x) => happyItemFields(ctx, source, x), source, true);
  return records;
}

/**
 * `selectionCombined`: two records A and B selected in one request by the profile's first selecting field (A's value,
 * a value matching nothing, B's value) and, where the profile has a second one, by it too (A's value only): a union
 * selects A and B, an intersection A alone; the value matching nothing is treated as the profile's `unmatched` says.
 */
export const selectionCombined = defineProbe('selectionCombined', 'selecting', {}, async (op, client, ctx, steps) => {
  const sel = ctx.profile.selection[op as SelectingOperation];
  const [a, b] = await selectableRecords(client, ctx, steps, op as SelectingOperation);
  const [first, second] = sel.fields.filter((f) =>
    [a!, b!].every((r) => typeof r.fields[f] === 'string' && r.fields[f] !== ''),
  );
  if (!first)
    throw new Inconclusive(
      `none of the profile's selection fields of ${op} (${sel.fields.join(', ')}) is known for the records`,
    );
  const [unknown] = fakeValues(ctx, 1);
  const body: Record<string, unknown> = {
    [first]: [a!.fields[first], unknown, b!.fields[first]].join(sel.listSeparator),
  };
  if (second) body[second] = String(a!.fields[second]);
  steps.facts.records = [a!, b!].map(recordFacts);
  steps.facts.selection = { first, second, unmatchedValue: unknown };
  return steps.add(op, await client.send(op, client.sample(op, body)));
});

/**
 * `outsideRequests` (query): requests the profile's error catalogue answers before any operation runs — an unknown
 * path under /v1, a GET, a body over the profile's size limit — and requests in another form than the profile's:
 * the other media type, a JSON body declared as form fields, the profile's extra headers left out. Read-only
 * requests of an authorised payment, so the state never moves.
 */
export const outsideRequests = defineProbe(
  'outsideRequests',
  ['retrievalTrans'],
  {
    prepare: 'the payment the query selects (set-up)',
    unknownPath: 'a request to a path the interface does not have',
    wrongMethod: 'the query sent with PUT',
    tooLarge: "a body over the profile's size limit",
    otherMedia: 'the query in the other media type',
    jsonDeclaredForm: 'a JSON body declared as form-urlencoded',
    noHeaders: "the query without the profile's extra headers",
  },
  async (op, client, ctx, steps) => {
    const record = await authorise(client, ctx, steps, 'approved', {}, 'prepare');
    const body = client.sample(op, { [FIELD.transactionId]: record.fields[FIELD.transactionId] });
    const model = ctx.spec.operations.get(op)!;
    steps.add(
      'unknownPath',
      await client.send(op, body, { path: `${model.path.replace(/\/[^/]+$/, '')}/pagiNoSuchOperation` }),
    );
    steps.add('wrongMethod', await client.send(op, body, { method: 'PUT' }));
    const size = ctx.profile.limits.maxBodyBytes + 1;
    steps.add(
      'tooLarge',
      await client.send(op, body, {
        rawBody: `${JSON.stringify(body).slice(0, -1)},"filler":"${'x'.repeat(size)}"}`,
        contentType: 'application/json',
      }),
    );
    const own = ctx.profile.requestMedia.types[op];
    const other = own === 'json' ? 'form' : 'json';
    steps.add('otherMedia', await client.send(op, body, { encoding: other }));
    steps.add(
      'jsonDeclaredForm',
      await client.send(op, body, { encoding: 'json', contentType: 'application/x-www-form-urlencoded' }),
    );
    if (Object.keys(ctx.profile.requestHeaders.headers).length)
      steps.add('noHeaders', await client.send(op, body, { profileHeaders: false }));
    return steps.add(op, await client.send(op, body));
  },
);

/** `cardForms` (direct payment): a card number failing the Luhn check, an expiry month of one digit, an unknown token. */
export const cardForms = defineProbe(
  'cardForms',
  ['authoriseDirect'],
  {
    notLuhn: 'a card number failing the Luhn check',
    oneDigitMonth: 'an expiry month of one digit',
    unknownToken: 'a payment by a token the gateway never issued',
  },
  async (op, client, ctx, steps) => {
    const card = ctx.profile.fields.card;
    // No approving card because the profile does not state one: the read throws ProfilePointNotStated (not judged).
    const approve = ctx.config.cards.approve ?? ctx.profile.payments.testCards.approve[0]!;
    const notLuhn = `${approve.slice(0, -1)}${(Number(approve.slice(-1)) + 1) % 10}`;
    steps.add('notLuhn', await client.send(op, client.sample(op, { [card.number]: notLuhn })));
    steps.add('oneDigitMonth', await client.send(op, client.sample(op, { [card.expiryMonth]: '3' })));
    const noCard = Object.fromEntries(
      [card.number, card.expiryMonth, card.expiryYear, card.securityCode].map((f) => [f, undefined]),
    );
    return steps.add(
      'unknownToken',
      await client.send(op, client.sample(op, { ...noCard, [FIELD.tokenId]: `TK-${ctx.config.orderPrefix}-unknown` })),
    );
  },
);

export { LONG_FIELD };

/**
 * `fieldLength` (direct payment): the free-text `note` exactly as long as the profile's `limits.maxFieldLength`
 * (`atLength`), then one character longer (`overLength`). A profile that does not state the length is not judged
 * (reading it throws ProfilePointNotStated); a length whose body would pass the profile's body size limit cannot be
 * told from that limit (inconclusive).
 */
export const fieldLength = defineProbe(
  'fieldLength',
  ['authoriseDirect'],
  {
    atLength: "a payment whose note is exactly the profile's longest field value",
    overLength: "a payment whose note is one character longer than the profile's longest field value",
  },
  async (op, client, ctx, steps) => {
    const max = ctx.profile.limits.maxFieldLength;
    const over = paymentBody(client, ctx, op, { [LONG_FIELD]: 'x'.repeat(max + 1) });
    // JSON is the longer of the two media: its text bounds the body sent.
    if (JSON.stringify(over).length + 1024 > ctx.profile.limits.maxBodyBytes)
      throw new Inconclusive(
        `a field of ${max + 1} characters does not fit in a body under the profile's limits.maxBodyBytes (${ctx.profile.limits.maxBodyBytes})`,
      );
    const at = paymentBody(client, ctx, op, { [LONG_FIELD]: 'x'.repeat(max) });
    steps.add('atLength', await client.send(op, at));
    return steps.add('overLength', await client.send(op, over));
  },
);
