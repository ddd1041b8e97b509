/**
 * Request recipes: the valid request of every operation (with the state it needs), and the refused ones — malformed
 * bodies, wrong formats, missing or wrong signatures, unknown records and transactions, generated negative inputs,
 * a second source address and hostile free text.
 */
import fc from 'fast-check';
import type { CheckContext, Exchange, OperationKey, ProbeClient } from '../../core/model.js';
import { childPointer, withValueAt } from '../../core/spec/pointer.js';
import { FIELD } from '../fields.js';
import { type FollowUp, operationOf, responseObject, text } from '../observe.js';
import type { PaymentFacts } from '../facts.js';
import { declaredNames, schemasAt } from '../../core/spec/schema-walk.js';
import { operationSet } from '../../core/spec/operations.js';
import {
  Inconclusive,
  isBatch,
  isSelecting,
  recordSourceOf,
  type PaymentRecord,
  type SelectingOperation,
  type Steps,
  authorise,
  batch,
  declineOverrides,
  outcomeOverrides,
  batchBody,
  defineProbe,
  happyItemFields,
  itemFor,
  paymentsIn,
  queryOrder,
  select,
  selectingField,
  selectionBody,
  startStateFor,
  unknownItem,
} from './support.js';
import { SpecError } from '../../core/types/errors.js';

/** The identifying fields of a payment, the only part of it kept in facts (never card data). */
export function recordFacts(record: PaymentRecord): PaymentFacts {
  const f = record.fields;
  return {
    [FIELD.transactionId]: f[FIELD.transactionId],
    [FIELD.orderNo]: f[FIELD.orderNo],
    [FIELD.amount]: f[FIELD.amount],
    [FIELD.currency]: f[FIELD.currency],
  };
}

/** Record whether the main answer's signature verifies (when the client can tell). */
function noteSignature(
  client: ProbeClient,
  ctx: CheckContext,
  operation: OperationKey,
  exchange: Exchange,
  steps: Steps,
): void {
  const body = responseObject(exchange, ctx.spec);
  if (!client.verifySignature) steps.facts.signatureUnverifiable = "the kit's client cannot verify signatures";
  else if (body) steps.facts.signatureValid = client.verifySignature(operation, 'response', body);
}

/** A valid body for a payment or payout operation (checkout without the direct-only fields). */
export function paymentBody(
  client: ProbeClient,
  ctx: CheckContext,
  operation: OperationKey,
  overrides: Record<string, unknown> = {},
) {
  const directOnly = Object.fromEntries(
    (operationOf(ctx.spec, operation).checkoutForm?.directOnlyFields ?? []).map((f) => [f, undefined]),
  );
  return client.sample(operation, { ...directOnly, ...overrides });
}

/** Payments in the state an operation starts from, and the items a successful batch of that operation holds. */
export async function happyBatch(
  client: ProbeClient,
  ctx: CheckContext,
  steps: Steps,
  operation: OperationKey,
  count: number,
) {
  const records = await paymentsIn(client, ctx, steps, startStateFor(ctx, operation), count);
  const items = records.map((r) => itemFor(client, ctx, operation, r, happyItemFields(ctx, operation, r)));
  return { records, items };
}

/** A payment one batch of `source` was applied to, for the selection returning its results (refund search: a refund). */
async function processedPayment(
  client: ProbeClient,
  ctx: CheckContext,
  steps: Steps,
  source: OperationKey,
): Promise<PaymentRecord> {
  const [record] = await paymentsIn(client, ctx, steps, startStateFor(ctx, source), 1);
  await batch(client, ctx, steps, source, [record!], (r) => happyItemFields(ctx, source, r), source, true);
  return record!;
}

/** Records a query or refund search selects, prepared for it. */
export async function selectableRecords(
  client: ProbeClient,
  ctx: CheckContext,
  steps: Steps,
  operation: SelectingOperation,
  count: number,
) {
  const out: PaymentRecord[] = [];
  const source = recordSourceOf(ctx, operation);
  for (let i = 0; i < count; i++)
    out.push(source ? await processedPayment(client, ctx, steps, source) : await authorise(client, ctx, steps));
  return out;
}

/** `happy`: the valid request of every operation, with the state it needs made first. */
export const happy = defineProbe(
  'happy',
  'all',
  { authorise: 'the payment a query or a batch item acts on (set-up)' },
  async (op, client, ctx, steps) => {
    let main: Exchange;
    if (isBatch(ctx, op)) {
      const { records, items } = await happyBatch(client, ctx, steps, op, 2);
      steps.facts.records = records.map(recordFacts);
      main = steps.add(op, await client.send(op, batchBody(client, ctx, op, items)));
    } else if (isSelecting(ctx, op)) {
      const [record] = await selectableRecords(client, ctx, steps, op, 1);
      steps.facts.records = [recordFacts(record!)];
      main = await select(client, ctx, steps, op, [record!.fields], op);
    } else {
      const overrides =
        op === 'authoriseDirect' ? { [FIELD.threeDsRequest]: ctx.profile.payments.threeDS.requestValue } : {};
      main = steps.add(op, await client.send(op, paymentBody(client, ctx, op, overrides)));
    }
    noteSignature(client, ctx, op, main, steps);
    return main;
  },
);

/** `malformedBody`: a truncated JSON text (not readable as JSON nor as form fields with a JSON start). */
export const malformedBody = defineProbe('malformedBody', 'all', {}, async (op, client, _ctx, steps) => {
  const body = client.sample(op);
  const raw = `${JSON.stringify(body).slice(0, -1)},`;
  return steps.add(op, await client.send(op, body, { rawBody: raw, contentType: 'application/json' }));
});

/** A valid base body for a refusal probe, and what the follow-up reads. */
async function refusalBase(
  client: ProbeClient,
  ctx: CheckContext,
  steps: Steps,
  op: OperationKey,
): Promise<{ body: Record<string, unknown>; followUp: FollowUp; record?: PaymentRecord }> {
  if (isBatch(ctx, op)) {
    const state = startStateFor(ctx, op);
    const { records, items } = await happyBatch(client, ctx, steps, op, 1);
    const record = records[0]!;
    const code = (ctx.profile.statusValues.payment_status as Record<string, string>)[state];
    return {
      body: batchBody(client, ctx, op, items),
      record,
      followUp: {
        kind: 'state',
        transactionId: String(record.fields[FIELD.transactionId]),
        orderNo: String(record.fields[FIELD.orderNo]),
        expectedCode: code,
      },
    };
  }
  if (isSelecting(ctx, op)) {
    const followUp: FollowUp = { kind: 'none', reason: `${op} only reads` };
    if (ctx.profile.selection[op].whenAbsent !== 'refuse') return { body: client.sample(op), followUp };
    // The profile refuses a request selecting nothing: select a real payment, so the probe's fault is the only one.
    const record = await authorise(client, ctx, steps, 'approved', {}, 'prepare');
    const field = selectingField(ctx, op, [record.fields]);
    return { body: selectionBody(client, ctx, op, field, [String(record.fields[field])]), followUp };
  }
  if (op === 'payout')
    return {
      body: client.sample(op),
      followUp: { kind: 'none', reason: 'no operation of the interface reads a payout back' },
    };
  const body = paymentBody(client, ctx, op);
  return { body, followUp: { kind: 'absent', orderNo: String(body[FIELD.orderNo]) } };
}

/** Read the state a refused request should have left unchanged. */
async function followUp(client: ProbeClient, ctx: CheckContext, steps: Steps<'followUp'>, f: FollowUp): Promise<void> {
  steps.facts.followUp = f;
  if (f.kind === 'absent') {
    const x = await queryOrder(client, ctx, steps, f.orderNo, 'followUp');
    if (!x) steps.facts.followUp = { kind: 'none', reason: `the profile's query does not select by ${FIELD.orderNo}` };
  } else if (f.kind === 'state') {
    await select(
      client,
      ctx,
      steps,
      'retrievalTrans',
      [{ [FIELD.transactionId]: f.transactionId, [FIELD.orderNo]: f.orderNo }],
      'followUp',
    );
  }
}

/** A value breaking a format constraint at `pointer` of a body, when one of the candidates does. */
function breakFormat(
  ctx: CheckContext,
  schemaId: string,
  body: Record<string, unknown>,
): { pointer: string; value: string; body: Record<string, unknown> } | undefined {
  const leaves: string[] = [];
  const walk = (v: unknown, pointer: string) => {
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, childPointer(pointer, i)));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, childPointer(pointer, k));
    else if (typeof v === 'string' && !pointer.endsWith(`/${FIELD.signature}`)) leaves.push(pointer);
  };
  walk(body, '');
  for (const pointer of leaves) {
    if (!schemasAt(ctx.spec, schemaId, pointer).some((s) => s.node.pattern || s.node.format)) continue;
    for (const value of ['x', '1.2.3', '@@@', '']) {
      const mutated = withValueAt(structuredClone(body), pointer, value);
      const broken = ctx.spec
        .validate(schemaId, mutated)
        .some(
          (v) =>
            v.instancePath === pointer &&
            (v.keyword === 'pattern' || v.keyword === 'format') &&
            v.requirementId &&
            ctx.requirement(v.requirementId).level === 'must',
        );
      if (broken) return { pointer, value, body: mutated };
    }
  }
  return undefined;
}

/** `wrongFormat`: a valid request with one field in a form its schema excludes; then a follow-up reading the state. */
export const wrongFormat = defineProbe(
  'wrongFormat',
  'all',
  { followUp: 'the query showing whether the refused request changed anything' },
  async (op, client, ctx, steps) => {
    const base = await refusalBase(client, ctx, steps, op);
    const broken = breakFormat(ctx, operationOf(ctx.spec, op).requestSchemaId, base.body);
    if (!broken) {
      steps.facts.noFormat = `no field of the ${op} request has a format constraint to break`;
      return steps.add(op, await client.send(op, base.body));
    }
    steps.facts.mutated = { pointer: broken.pointer, value: broken.value };
    const main = steps.add(op, await client.send(op, broken.body));
    await followUp(client, ctx, steps, base.followUp);
    return main;
  },
);

/** A well-formed signature that cannot be the right one (all zero bytes in the profile's encoding). */
export function wrongSignature(ctx: CheckContext): string {
  const zero = Buffer.alloc(32);
  return ctx.profile.signature.encoding === 'base64' ? zero.toString('base64') : zero.toString('hex');
}

/** `badSignature`: a valid request whose `encryption_data` does not verify; then a follow-up. */
export const badSignature = defineProbe(
  'badSignature',
  'all',
  { followUp: 'the query showing whether the refused request changed anything' },
  async (op, client, ctx, steps) => {
    const base = await refusalBase(client, ctx, steps, op);
    const main = steps.add(
      op,
      await client.send(op, { ...base.body, [FIELD.signature]: wrongSignature(ctx) }, { sign: false }),
    );
    await followUp(client, ctx, steps, base.followUp);
    return main;
  },
);

/** `noSignature`: a valid request without `encryption_data`; then a follow-up. */
export const noSignature = defineProbe(
  'noSignature',
  'all',
  { followUp: 'the query showing whether the refused request changed anything' },
  async (op, client, ctx, steps) => {
    const base = await refusalBase(client, ctx, steps, op);
    const { [FIELD.signature]: _, ...unsigned } = base.body;
    const main = steps.add(op, await client.send(op, unsigned, { sign: false }));
    await followUp(client, ctx, steps, base.followUp);
    return main;
  },
);

/** `unknownRecord`: an APM payment for the payment method the configuration names as unknown to the target. */
export const unknownRecord = defineProbe('unknownRecord', ['authoriseApm'], {}, async (op, client, ctx, steps) => {
  const selector = operationOf(ctx.spec, op).when?.present;
  if (!selector) throw new SpecError('spec: the APM variant has no selecting field');
  return steps.add(op, await client.send(op, client.sample(op, { [selector]: ctx.config.paymentMethods.unknown })));
});

/** `unknownTransaction`: a batch with one item naming a transaction the gateway cannot know. */
export const unknownTransaction = defineProbe('unknownTransaction', 'batch', {}, async (op, client, ctx, steps) => {
  const item = unknownItem(client, ctx, op, 1);
  return steps.add(op, await client.send(op, batchBody(client, ctx, op, [item])));
});

/** `unregisteredAddress`: a query selecting a real payment, sent from a source address the merchant did not register. */
export const unregisteredAddress = defineProbe(
  'unregisteredAddress',
  'selecting',
  {},
  async (op, client, ctx, steps) => {
    const address = ctx.config.unregisteredAddress;
    if (!address) throw new Inconclusive('no second source address is configured (unregisteredAddress)');
    const record = await authorise(client, ctx, steps);
    const field = ctx.profile.selection[op as SelectingOperation].fields.find(
      (f) => typeof record.fields[f] === 'string',
    );
    const body = field ? client.sample(op, { [field]: record.fields[field] }) : client.sample(op);
    return steps.add(op, await client.send(op, body, { localAddress: address }));
  },
);

/** Markup-breaking strings a free-text value carries in `injection` (test data, not interface rules). */
export const INJECTION_PAYLOADS = ['"><script>alert(1)</script>', '</note><x>'] as const;

/** Free-text fields of a request: plain strings (no format) that are not identity, echo, signature or selecting fields. */
export function freeTextFields(ctx: CheckContext, operation: OperationKey, body: Record<string, unknown>): string[] {
  const op = operationOf(ctx.spec, operation);
  const excluded = new Set<string>([FIELD.signature, ...op.echo.flatMap((e) => e.fields)]);
  const sig = ctx.profile.signature.request;
  if (sig.mode === 'fieldList')
    for (const f of (sig.fields as Record<string, string[]>)[operation] ?? []) excluded.add(f);
  if (op.when?.present) excluded.add(op.when.present);
  const plain = (field: string) => {
    const nodes = schemasAt(ctx.spec, op.requestSchemaId, `/${field}`);
    return (
      nodes.length > 0 &&
      nodes.some((n) => n.node.type === 'string') &&
      !nodes.some((n) => n.node.pattern || n.node.format || n.node.enum || n.node.not)
    );
  };
  const returned = op.checkoutForm ? undefined : declaredNames(schemasAt(ctx.spec, op.responseSchemaId, ''));
  return Object.keys(body).filter(
    (f) => typeof body[f] === 'string' && !excluded.has(f) && plain(f) && (!returned || returned.has(f)),
  );
}

/** `injection`: free-text values carrying markup-breaking strings, which must come back exactly. */
export const injection = defineProbe(
  'injection',
  ['authoriseDirect', 'checkout'],
  {},
  async (op, client, ctx, steps) => {
    const body = paymentBody(client, ctx, op);
    const fields = freeTextFields(ctx, op, body);
    if (fields.length === 0) throw new Inconclusive(`the ${op} request example has no free-text field to carry markup`);
    const injected: Record<string, string> = {};
    fields.forEach((f, i) => (injected[f] = `${String(body[f])}${INJECTION_PAYLOADS[i % INJECTION_PAYLOADS.length]}`));
    steps.facts.injected = injected;
    return steps.add(op, await client.send(op, { ...body, ...injected }));
  },
);

/**
 * `declinedPayment`: a direct payment with the decline test card, then one payment per decline rule of the profile
 * (steps `rule1`, `rule2`, …: card suffix, security code, e-mail domain or amount; `facts.rules` says which).
 */
export const declinedPayment = defineProbe(
  'declinedPayment',
  ['authoriseDirect'],
  { query: 'the payment with the decline test card, as the query shows it' },
  async (op, client, ctx, steps) => {
    const main = steps.add(op, await client.send(op, client.sample(op, outcomeOverrides(ctx, 'declined'))));
    const rules: { step: string; trigger: string }[] = [];
    for (const [i, rule] of ctx.profile.payments.declineRules.entries()) {
      const overrides = declineOverrides(ctx, rule);
      if (!overrides) continue;
      const step = `rule${i + 1}`;
      steps.addComputed(step, await client.send(op, client.sample(op, overrides)));
      rules.push({ step, trigger: Object.keys(rule)[0]! });
    }
    steps.facts.rules = rules;
    // The declined payment as the query shows it (its state: the profile's afterAuthorise.declined).
    const fields = { ...(responseObject(main, ctx.spec) ?? {}), ...(main.request.body ?? {}) };
    if (text(fields, FIELD.transactionId))
      await select(client, ctx, steps, 'retrievalTrans', [fields], 'query').catch(() => undefined);
    return main;
  },
);

/** `tokenPayment`: a payment asking for a token, then a payment by that token without card fields. */
export const tokenPayment = defineProbe(
  'tokenPayment',
  ['authoriseDirect'],
  { tokenise: 'a payment asking for a token', byToken: 'a payment by that token without card fields' },
  async (op, client, ctx, steps) => {
    const token = ctx.profile.payments.token;
    const first = steps.add(
      'tokenise',
      await client.send(op, client.sample(op, { [FIELD.tokenFlag]: token.requestValue })),
    );
    const tokenId = text(responseObject(first, ctx.spec), FIELD.tokenId);
    if (!tokenId) return first;
    const card = ctx.profile.fields.card;
    const noCard = Object.fromEntries(
      [card.number, card.expiryMonth, card.expiryYear, card.securityCode].map((f) => [f, undefined]),
    );
    return steps.add(
      'byToken',
      await client.send(
        op,
        client.sample(op, { ...noCard, [FIELD.tokenFlag]: token.noRequestValue, [FIELD.tokenId]: tokenId }),
      ),
    );
  },
);

/** Number of generated negative cases per operation unless the configuration says otherwise. */
export const NEGATIVE_CASES = 8;

/** One generated mutation of a valid body. */
export interface Mutation {
  field: string;
  kind: 'wrongType' | 'oddText' | 'remove' | 'extra' | 'nestedGarbage';
  value: unknown;
}

let leaves: { oddText: fc.Arbitrary<unknown>; wrongType: fc.Arbitrary<unknown> } | undefined;

/**
 * The leaf generators, built on first use. Any code point goes through a unit of our own (lone surrogates
 * included): fast-check's `unit: 'binary'` builds a table of every code point, over a second of CPU.
 */
function leafArbitraries() {
  leaves ??= {
    oddText: fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.string({ maxLength: 40, unit: fc.integer({ min: 0, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp)) }),
      fc.constantFrom(
        '',
        ' ',
        '-1',
        '1e309',
        'NaN',
        '0x10',
        '%00',
        '\u0000',
        '<x/>',
        "' OR '1'='1",
        '../../etc/passwd',
        'x'.repeat(5000),
      ),
    ),
    wrongType: fc.oneof(
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
    ),
  };
  return leaves;
}

/** The generator of the negative cases of `generatedNegative` for a body with these fields. */
export function mutationArbitrary(fields: readonly string[]): fc.Arbitrary<Mutation> {
  const { oddText, wrongType } = leafArbitraries();
  const field = fc.constantFrom(...fields);
  return fc.oneof(
    fc.record({ field, kind: fc.constant('wrongType' as const), value: wrongType }),
    fc.record({ field, kind: fc.constant('oddText' as const), value: oddText }),
    fc.record({ field, kind: fc.constant('remove' as const), value: fc.constant(undefined) }),
    fc.record({
      field: fc.stringMatching(/^x_[a-z]{1,10}$/),
      kind: fc.constant('extra' as const),
      value: fc.oneof(oddText, wrongType),
    }),
    fc.record({
      field,
      kind: fc.constant('nestedGarbage' as const),
      value: fc.array(fc.oneof(oddText, wrongType), { minLength: 1, maxLength: 3 }),
    }),
  );
}

/** A copy of `body` with one negative case applied. */
export function applyMutation(body: Record<string, unknown>, m: Mutation): Record<string, unknown> {
  const out = structuredClone(body);
  if (m.kind === 'remove') delete out[m.field];
  else if (m.kind === 'nestedGarbage')
    out[m.field] = Array.isArray(out[m.field]) || typeof out[m.field] === 'object' ? m.value : [m.value];
  else out[m.field] = m.value;
  return out;
}

/**
 * `generatedNegative`: property-based negative cases — a valid body with one field given a wrong type, an odd text,
 * removed, garbage nested or an unknown field added — a bounded number per operation, reproducible from the seed.
 */
export const generatedNegative = defineProbe('generatedNegative', 'all', {}, async (op, client, ctx, steps) => {
  const count = ctx.config.negativeCases ?? NEGATIVE_CASES;
  const seed = ctx.config.seed + operationSet(ctx.spec, 'all').indexOf(op);
  const mutations = fc.sample(mutationArbitrary(Object.keys(client.sample(op))), { seed, numRuns: count });
  steps.facts.cases = mutations.map((m) => ({ field: m.field, kind: m.kind }));
  steps.facts.seed = seed;
  let last: Exchange | undefined;
  // A fresh sample per case: a new order number or payout request id, so no case replays another (and all go at once).
  const sent = await Promise.all(mutations.map((m) => client.send(op, applyMutation(client.sample(op), m))));
  for (const [i, x] of sent.entries()) last = steps.addComputed(`case${String(i + 1).padStart(2, '0')}`, x);
  if (!last) throw new Inconclusive('no negative case was generated');
  return last;
});
