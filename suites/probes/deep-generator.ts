/**
 * The `deep` probe's generator of one operation: the payments its requests name (prepared once), fast-check
 * arbitraries of valid cases and of cases breaking exactly one rule, built from a sample body and the schemas, and the
 * sending of a case (signed, booked in the capture and refund ledger, an invalid one followed up).
 */
import fc from 'fast-check';
import { signedView, stringToSign } from '../../core/signing.js';
import { childPointer, tokensOf, withValueAt } from '../../core/spec/pointer.js';
import type { CheckContext, Exchange, Observation, OperationKey, ProbeClient } from '../../core/model.js';
import { isUrl, offFormArbitrary, schemaArbitrary, wrongTypeArbitrary } from '../arbitraries.js';
import type { DeepCase, DeepFailure } from '../facts.js';
import { FIELD } from '../fields.js';
import {
  batchItems,
  batchResults,
  cents,
  isObject,
  itemSucceeded,
  operationOf,
  queryRecords,
  responseObject,
  statusOf,
} from '../observe.js';
import { expand, propertySchemas, schemaRoot, schemasAt } from '../../core/spec/schema-walk.js';
import { paymentBody, recordFacts, wrongSignature } from './basic.js';
import { batchTransition, isBatchOperation, isSelectingOperation } from '../../core/spec/operations.js';
import {
  type PaymentRecord,
  type SelectingOperation,
  isSelecting,
  recordSourceOf,
  Steps,
  batchBody,
  happyItemFields,
  itemFor,
  paymentsIn,
  planTo,
  selectingField,
  selectionBody,
  startStateFor,
} from './support.js';
import type { BatchTransition } from '../../core/spec/terms.js';
import { type MoneyBook, bookAccepted, openBook } from '../money.js';

type Body = Record<string, unknown>;

/** Payments each batch operation's valid requests name: one per 20 cases, between 6 and 60 (a capture or cancel moves one for good). */
function poolSize(depth: number): number {
  return Math.min(60, Math.max(6, Math.ceil(depth / 20)));
}
/**
 * How generated requests are sent: kept only when failing, and an HTML error page not read into a form model (the
 * deep checks judge a refusal by its status and text, and thousands of pages would cost milliseconds each).
 */
const GENERATED = { record: false, readErrorPages: false } as const;

/** Whether setting a case's value changes the string the profile signs for the body (as the gateway reads it). */
function signatureCovers(ctx: CheckContext, op: OperationKey, body: Body, c: { pointer: string; value?: unknown }) {
  const text = (b: Body) => stringToSign(ctx.profile.signature, 'request', op, readView(ctx, op, b));
  return text(body) !== text(setAt(body, c.pointer, c.value));
}

/** A body as the gateway reads it in the operation's media type (what the profile signs). */
function readView(ctx: CheckContext, op: OperationKey, body: Body): Body {
  return signedView(body, ctx.profile.requestMedia.types[op], ctx.profile.requestMedia.formNestedValues ?? 'decoded');
}

/** Top-level fields a generated valid request keeps from the sample: identity, signature, the profile's keys and cards, URLs. */
function fixedFields(ctx: CheckContext, op: OperationKey): Set<string> {
  const spec = operationOf(ctx.spec, op);
  const card = ctx.profile.fields.card;
  const fixed = new Set<string>([
    FIELD.signature,
    FIELD.merchantId,
    'account_id',
    FIELD.orderNo,
    FIELD.tokenFlag,
    FIELD.tokenId,
    FIELD.threeDsRequest,
    ctx.profile.payout.idempotencyKey,
    card.number,
    card.expiryMonth,
    card.expiryYear,
    card.securityCode,
    // payout conversion and the APM selector are the profile's and the configuration's choice
    'source_currency',
    'source_amount',
  ]);
  if (spec.when?.present) fixed.add(spec.when.present);
  if (spec.batch) fixed.add(spec.batch.orders);
  if (isSelecting(ctx, op)) for (const f of ctx.profile.selection[op].fields) fixed.add(f);
  // The review trigger: a shopper e-mail domain or an amount puts a payment under review (the profile's rule).
  fixed.add(FIELD.shopperEmail);
  return fixed;
}

/** Item fields a generated valid item keeps from the payment it names. */
const ITEM_IDENTITY = new Set<string>([FIELD.transactionId, FIELD.orderNo, FIELD.currency, FIELD.amount]);

/** Arbitraries of the fields of an object schema at `pointer` that may vary, by name. */
function fieldModel(
  ctx: CheckContext,
  schemaId: string,
  pointer: string,
  names: readonly string[],
  fixed: ReadonlySet<string>,
): Record<string, fc.Arbitrary<unknown>> {
  const ats = pointer ? schemasAt(ctx.spec, schemaId, pointer) : expand(ctx.spec, schemaRoot(ctx.spec, schemaId));
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const name of names) {
    if (fixed.has(name)) continue;
    // Fields whose values the profile enumerates take the profile's values.
    const profileValues =
      name === FIELD.reviewFlag
        ? [ctx.profile.review.approve.flag, ctx.profile.review.reject.flag]
        : name === 'fee_paid_by'
          ? [ctx.profile.payout.feePaidBy.payer]
          : undefined;
    if (profileValues) {
      model[name] = fc.constantFrom(...profileValues);
      continue;
    }
    const arb = schemaArbitrary(ctx.spec, propertySchemas(ctx.spec, ats, name));
    if (arb) model[name] = arb;
  }
  return model;
}

/** String leaves of a body (pointer list), the signature left out. */
function stringLeaves(body: unknown, pointer = ''): string[] {
  if (Array.isArray(body)) return body.slice(0, 1).flatMap((v, i) => stringLeaves(v, childPointer(pointer, i)));
  if (isObject(body))
    return Object.entries(body).flatMap(([k, v]) =>
      k === FIELD.signature ? [] : stringLeaves(v, childPointer(pointer, k)),
    );
  return typeof body === 'string' ? [pointer] : [];
}

/** The decoded parts of the pointers the cases name (a few per operation, each named by thousands of cases). */
const decodedPointers = new Map<string, readonly string[]>();

function pointerParts(pointer: string): readonly string[] {
  let parts = decodedPointers.get(pointer);
  if (!parts) {
    parts = tokensOf(pointer);
    if (decodedPointers.size >= 1024) decodedPointers.clear();
    decodedPointers.set(pointer, parts);
  }
  return parts;
}

/** `body` with the value at `pointer` replaced (`undefined`: removed); generated bodies are never changed in place. */
function setAt(body: Body, pointer: string, value: unknown): Body {
  return withValueAt(body, pointerParts(pointer), value);
}

/** A key telling scalar values apart (type and value; -0 is not 0), undefined for an object or array. */
function scalarKey(value: unknown): string | undefined {
  if (value === null) return 'null';
  if (typeof value === 'string') return `s${value}`;
  if (typeof value === 'boolean') return `b${value}`;
  if (typeof value === 'number') return Object.is(value, -0) ? 'n-0' : `n${value}`;
  return undefined;
}

/** Schema violations of a body the client will sign (a placeholder signature stands in for the one it adds). */
function validateSigned(ctx: CheckContext, schemaId: string, body: Body) {
  return ctx.spec.validate(
    schemaId,
    FIELD.signature in body ? body : { ...body, [FIELD.signature]: wrongSignature(ctx) },
  );
}

/** The requirement id of the one rule a mutated body breaks at `pointer`, or undefined when it breaks none or more than that. */
function brokenRule(
  ctx: CheckContext,
  schemaId: string,
  body: Body,
  pointer: string,
  keywords: readonly string[],
): string | undefined {
  const violations = validateSigned(ctx, schemaId, body).filter(
    (v) => !['anyOf', 'oneOf', 'allOf', 'if', 'not'].includes(v.keyword) || v.requirementId,
  );
  if (
    !violations.length ||
    !violations.every(
      (v) =>
        v.instancePath === pointer ||
        (v.keyword === 'required' && v.instancePath === pointer.split('/').slice(0, -1).join('/')),
    )
  )
    return undefined;
  const v = violations.find((x) => keywords.includes(x.keyword) && x.requirementId);
  return v?.requirementId;
}

/** Everything the probe needs for one operation: bodies, arbitraries, pools and the ledger. */
export interface Generator {
  valid: fc.Arbitrary<DeepCase>;
  invalid: fc.Arbitrary<DeepCase> | undefined;
  /** Send a case; `isolated`: on a fresh payment, with a follow-up query (for a change made by a refused request). */
  send(
    c: DeepCase,
    isolated: boolean,
  ): Promise<{ exchange: Exchange | undefined; followUp?: Observation; ledger?: DeepFailure['ledger'] }>;
  /** The follow-up of the bulk invalid cases: the order numbers or payments whose state a refused request changed. */
  changed(steps: Steps): Promise<{ orderNos: Set<string>; records: Set<string> }>;
  /** Follow-up queries the last `changed` sent. */
  followUps(): number;
}

/** The payments the requests name and the payment status code of the operation's start state (batches). */
interface Pools {
  /** Valid requests' payments, in the operation's start state (captures also name cancelled ones). */
  pool: PaymentRecord[];
  /** Bulk invalid requests' payments, apart, so the follow-up reads states no valid request moved. */
  invalidPool: PaymentRecord[];
  /** Transaction ids of the cancelled payments in `pool`. */
  cancelled: Set<string>;
  startCode: string | undefined;
}

/** One operation's generation state: what it sends, the payments it names, the ledger and the bulk invalid cases. */
interface GenState extends Omit<Pools, 'cancelled'> {
  op: OperationKey;
  client: ProbeClient;
  ctx: CheckContext;
  schemaId: string;
  isBatch: boolean;
  selecting: boolean;
  /** The valid pool's money, booked by the rules the run's ledger is judged by (suites/money.ts). */
  ledger: Map<string, MoneyBook>;
  /** Invalid-pool payments named so far (the next bulk invalid case names the next in turn). */
  invalidTurn: number;
  /** Order numbers (non-batches) and transaction ids (batches) the bulk invalid cases named. */
  bulkOrders: Set<string>;
  bulkRecords: Set<string>;
  /** Follow-up queries the last `changed` sent. */
  queries: number;
}

/** The operation's payments in its start state (captures also cancelled ones) and the invalid pool apart. */
async function batchPools(op: OperationKey, client: ProbeClient, ctx: CheckContext, steps: Steps): Promise<Pools> {
  const cancelled = new Set<string>();
  const state = startStateFor(ctx, op);
  const startCode = (ctx.profile.statusValues.payment_status as Record<string, string>)[state];
  const pool = await paymentsIn(client, ctx, steps, state, poolSize(ctx.config.depth ?? 0));
  if (batchTransition(ctx.spec, op) === 'capture' && planTo(ctx, 'cancelled')) {
    const gone = await paymentsIn(client, ctx, steps, 'cancelled', 2);
    for (const r of gone) cancelled.add(String(r.fields[FIELD.transactionId]));
    pool.push(...gone);
  }
  const invalidPool = await paymentsIn(client, ctx, steps, state, 3);
  return { pool, invalidPool, cancelled, startCode };
}

/** A query's pool: the records it returns, payments or the results of the batch it searches (refund search: refunds). */
async function selectionPools(
  op: OperationKey,
  client: ProbeClient,
  ctx: CheckContext,
  steps: Steps,
  selecting: boolean,
): Promise<Pools> {
  const pools: Pools = { pool: [], invalidPool: [], cancelled: new Set(), startCode: undefined };
  if (!selecting) return pools;
  const source = recordSourceOf(ctx, op);
  pools.pool = await paymentsIn(client, ctx, steps, source ? startStateFor(ctx, source) : 'authorised', 3);
  if (source) {
    for (const r of pools.pool)
      await client.send(
        source,
        batchBody(client, ctx, source, [itemFor(client, ctx, source, r, happyItemFields(ctx, source, r))]),
        { record: false },
      );
  }
  return pools;
}

/** The books of the valid pool: a refund's payments start captured at their amount, the cancelled ones marked. */
function openLedger(
  transition: BatchTransition | undefined,
  pool: readonly PaymentRecord[],
  cancelled: ReadonlySet<string>,
) {
  const ledger = new Map<string, MoneyBook>();
  for (const r of pool) {
    const id = String(r.fields[FIELD.transactionId]);
    const start = { captured: transition === 'refund', cancelled: cancelled.has(id) };
    ledger.set(id, openBook(id, cents(r.fields[FIELD.amount]) ?? 0, start));
  }
  return ledger;
}

/** A fresh valid body of the operation naming `records` (batches: one item each; queries: selecting them). */
function baseBody(g: GenState, records: readonly PaymentRecord[]): Body {
  const { client, ctx, op } = g;
  if (g.isBatch)
    return batchBody(
      client,
      ctx,
      op,
      records.map((r) => itemFor(client, ctx, op, r, happyItemFields(ctx, op, r))),
    );
  if (g.selecting) {
    const field = selectingField(
      ctx,
      op as SelectingOperation,
      records.map((r) => r.fields),
    );
    return selectionBody(
      client,
      ctx,
      op as SelectingOperation,
      field,
      records.map((r) => String(r.fields[field])),
    );
  }
  return paymentBody(client, ctx, op);
}

/** Valid cases: the sample with a generated subset of the fields that may vary, and for batches generated items. */
function validArbitrary(g: GenState, template: Body, fixed: ReadonlySet<string>): fc.Arbitrary<DeepCase> {
  const { ctx, op, schemaId, pool } = g;
  const spec = operationOf(ctx.spec, op);
  const topModel = fieldModel(ctx, schemaId, '', Object.keys(template), fixed);
  const itemTemplate = g.isBatch ? (batchItems(ctx.spec, op, template)[0] ?? {}) : {};
  const itemModel = g.isBatch
    ? fieldModel(ctx, schemaId, `/${spec.batch!.orders}/0`, Object.keys(itemTemplate), ITEM_IDENTITY)
    : {};
  return g.isBatch
    ? fc.record({
        kind: fc.constant('valid' as const),
        fields: fc.record(topModel, { requiredKeys: [], noNullPrototype: true }),
        // One item per payment: the document pairs each result with its request item by transaction id and order number.
        items: fc.uniqueArray(
          fc.record({
            pool: fc.nat(pool.length - 1),
            fields: fc.record(itemModel, { requiredKeys: [], noNullPrototype: true }),
          }),
          { minLength: 1, maxLength: Math.min(3, spec.batch!.maxItems), selector: (it) => it.pool },
        ),
      })
    : fc.record({
        kind: fc.constant('valid' as const),
        fields: fc.record(topModel, { requiredKeys: [], noNullPrototype: true }),
      });
}

/** The body of a valid case: its items and fields over a fresh body (payouts without conversion: source = payment). */
function validBody(g: GenState, c: Extract<DeepCase, { kind: 'valid' }>): Body {
  const { client, ctx, op, pool } = g;
  let body: Body;
  if (g.isBatch) {
    const items = (c.items ?? []).map((it) => {
      const r = pool[it.pool % pool.length]!;
      return itemFor(client, ctx, op, r, { ...happyItemFields(ctx, op, r), ...it.fields });
    });
    body = { ...batchBody(client, ctx, op, items), ...c.fields };
  } else body = { ...baseBody(g, pool.slice(0, 1)), ...c.fields };
  if (op === 'payout' && ctx.profile.payout.currencyConversion === 'none') {
    if ('source_currency' in body) body.source_currency = body.payment_currency;
    if ('source_amount' in body) body.source_amount = body.payment_amount;
  }
  return body;
}

/** A format or type case without its rule. */
type ValueCase = { kind: 'format' | 'type'; pointer: string; value: unknown };

/**
 * A maker of functions adding to a format or type case the rule its value breaks at its pointer of the template, kept
 * for scalar values: thousands of cases draw the same few (the off-form constants, booleans, null), and the validator's
 * answer for one is always the same.
 */
function ruleReader(ctx: CheckContext, schemaId: string, template: Body) {
  const rules = new Map<string, string>();
  return (keywords: string[]) => (c: ValueCase) => {
    const key = scalarKey(c.value);
    const memo = key === undefined ? undefined : `${keywords.join(',')}\u0000${c.pointer}\u0000${key}`;
    let rule = memo === undefined ? undefined : rules.get(memo);
    if (rule === undefined) {
      rule = brokenRule(ctx, schemaId, setAt(template, c.pointer, c.value), c.pointer, keywords) ?? '';
      if (memo !== undefined) {
        if (rules.size >= 4096) rules.clear();
        rules.set(memo, rule);
      }
    }
    return { ...c, rule };
  };
}

/** Cases breaking a format (pattern or format) or the type of a string leaf of the template. */
function valueArbitraries(ctx: CheckContext, schemaId: string, template: Body): fc.Arbitrary<DeepCase>[] {
  const leaves = stringLeaves(template);
  const formatTargets = leaves.filter((p) =>
    schemasAt(ctx.spec, schemaId, p).some((s) => s.node.pattern || (s.node.format && !isUrl([s]))),
  );
  const typeTargets = leaves.filter((p) => schemasAt(ctx.spec, schemaId, p).some((s) => s.node.type === 'string'));
  const withRule = ruleReader(ctx, schemaId, template);
  return [
    ...(formatTargets.length
      ? [
          fc
            .record({
              kind: fc.constant('format' as const),
              pointer: fc.constantFrom(...formatTargets),
              value: offFormArbitrary(),
            })
            .map(withRule(['pattern', 'format'])),
        ]
      : []),
    ...(typeTargets.length
      ? [
          fc
            .record({
              kind: fc.constant('type' as const),
              pointer: fc.constantFrom(...typeTargets),
              value: wrongTypeArbitrary(),
            })
            .map(withRule(['type'])),
        ]
      : []),
  ];
}

/** Cases leaving out the signature or a listed field (merchant, account, the batch's orders) whose absence breaks a rule. */
function missingArbitrary(ctx: CheckContext, op: OperationKey, schemaId: string, template: Body) {
  const spec = operationOf(ctx.spec, op);
  const listed = [FIELD.merchantId, 'account_id', ...(spec.batch ? [spec.batch.orders] : [])].filter(
    (f) => f in template,
  );
  const missingTargets = listed
    .map((f) => `/${f}`)
    .filter((p) => brokenRule(ctx, schemaId, setAt(template, p, undefined), p, ['required']));
  return fc
    .record({
      kind: fc.constant('missing' as const),
      pointer: fc.constantFrom(`/${FIELD.signature}`, ...missingTargets),
      rule: fc.constant(''),
    })
    .map((c) => ({
      ...c,
      rule:
        c.pointer === `/${FIELD.signature}`
          ? 'PAGI-AUTH-001'
          : (brokenRule(ctx, schemaId, setAt(template, c.pointer, undefined), c.pointer, ['required']) ??
            'PAGI-AUTH-001'),
    }));
}

/** Cases changing a signed field after signing, or a wrong signature when no signed field can vary. */
function signatureArbitrary(ctx: CheckContext, op: OperationKey, schemaId: string, template: Body) {
  const sig = ctx.profile.signature.request;
  const signed = (
    sig.mode === 'fieldList' ? ((sig.fields as Record<string, string[]>)[op] ?? []) : Object.keys(template)
  ).filter(
    (f) =>
      f in template &&
      f !== FIELD.merchantId &&
      f !== 'account_id' &&
      f !== FIELD.signature &&
      !ctx.profile.selection[op as SelectingOperation]?.fields.includes(f),
  );
  const signatureArbs = signed.flatMap((f) => {
    const arb = schemaArbitrary(ctx.spec, schemasAt(ctx.spec, schemaId, `/${f}`));
    return arb
      ? [
          fc.record({
            kind: fc.constant('signature' as const),
            pointer: fc.constant(`/${f}`),
            value: arb,
            rule: fc.constant('PAGI-AUTH-006'),
          }),
        ]
      : [];
  });
  return signatureArbs.length
    ? fc.oneof(...signatureArbs)
    : fc.constant<DeepCase>({
        kind: 'signature',
        pointer: `/${FIELD.signature}`,
        value: wrongSignature(ctx),
        rule: 'PAGI-AUTH-006',
      });
}

/** Invalid cases: one rule broken at one place of a valid body, the rule read from the validator. */
function invalidArbitrary(ctx: CheckContext, op: OperationKey, schemaId: string, template: Body) {
  const kinds: fc.Arbitrary<DeepCase>[] = [
    ...valueArbitraries(ctx, schemaId, template),
    missingArbitrary(ctx, op, schemaId, template),
    signatureArbitrary(ctx, op, schemaId, template),
  ];
  return kinds.length ? fc.oneof(...kinds) : undefined;
}

/** The record an invalid case names: the invalid pool in turn, or a fresh payment for an isolated case. */
async function invalidRecord(g: GenState, isolated: boolean): Promise<PaymentRecord | undefined> {
  if (!g.isBatch) return undefined;
  if (!isolated) return g.invalidPool[g.invalidTurn++ % g.invalidPool.length];
  const [fresh] = await paymentsIn(g.client, g.ctx, new Steps(), startStateFor(g.ctx, g.op), 1);
  return fresh;
}

/** The follow-up query of an isolated invalid case: the state of the payment it named, or no payment of its order number. */
async function followUpOf(
  g: GenState,
  body: Body,
  record: PaymentRecord | undefined,
  x: Exchange,
): Promise<Observation | undefined> {
  const { client, ctx, op } = g;
  const f = record
    ? {
        kind: 'state' as const,
        transactionId: String(record.fields[FIELD.transactionId]),
        orderNo: String(record.fields[FIELD.orderNo]),
        expectedCode: g.startCode,
      }
    : { kind: 'absent' as const, orderNo: String(body[FIELD.orderNo]) };
  if (
    g.selecting ||
    op === 'payout' ||
    (!record && !ctx.profile.selection.retrievalTrans.fields.includes(FIELD.orderNo))
  )
    return undefined;
  const selector: Body[] = record
    ? [{ [FIELD.transactionId]: record.fields[FIELD.transactionId], [FIELD.orderNo]: record.fields[FIELD.orderNo] }]
    : [{ [FIELD.orderNo]: f.orderNo }];
  const field = selectingField(ctx, 'retrievalTrans', selector);
  const q = await client.send(
    'retrievalTrans',
    selectionBody(
      client,
      ctx,
      'retrievalTrans',
      field,
      selector.map((s) => String(s[field])),
    ),
    { record: false },
  );
  return { probeId: 'deep', operation: op, main: x, steps: { followUp: q }, facts: { followUp: f } };
}

/** What sending a case answers (see `Generator.send`). */
type Sent = ReturnType<Generator['send']>;

/** Send a valid case that the schema accepts (signed by the client) and book its answer. */
async function sendValid(g: GenState, c: Extract<DeepCase, { kind: 'valid' }>): Sent {
  const body = validBody(g, c);
  if (validateSigned(g.ctx, g.schemaId, body).length) return { exchange: undefined };
  const x = await g.client.send(g.op, body, GENERATED);
  return { exchange: x, ledger: book(g, x, body) };
}

/** Send `body` broken as an invalid case says (its signature left out or wrong, a signed value changed, a value set or left out). */
function sendBroken(g: GenState, c: Exclude<DeepCase, { kind: 'valid' }>, body: Body): Promise<Exchange> {
  const { client, op } = g;
  if (c.kind === 'signature')
    return c.pointer === `/${FIELD.signature}`
      ? client.send(op, { ...body, [FIELD.signature]: c.value }, { sign: false, ...GENERATED })
      : client.send(op, setAt(body, c.pointer, c.value), { signedBody: readView(g.ctx, op, body), ...GENERATED });
  if (c.kind === 'missing' && c.pointer === `/${FIELD.signature}`)
    return client.send(op, body, { sign: false, ...GENERATED });
  // Batch pointers name the first item: the body has one.
  return client.send(op, setAt(body, c.pointer, c.kind === 'missing' ? undefined : c.value), GENERATED);
}

/** Send an invalid case; a bulk one noted for `changed`, an isolated one followed up at once. */
async function sendInvalid(g: GenState, c: Exclude<DeepCase, { kind: 'valid' }>, isolated: boolean): Sent {
  // A case breaking no rule, or more than one, is not sent (the generator cannot tell which rule it tests).
  if (!c.rule) return { exchange: undefined };
  const record = await invalidRecord(g, isolated);
  const body = baseBody(g, record ? [record] : g.pool.slice(0, 1));
  // A value the signature does not cover (the same value, a nested value sorted pairs skip) breaks no rule.
  if (c.kind === 'signature' && c.pointer !== `/${FIELD.signature}` && !signatureCovers(g.ctx, g.op, body, c))
    return { exchange: undefined };
  const x = await sendBroken(g, c, body);
  if (!isolated) {
    if (record) g.bulkRecords.add(String(record.fields[FIELD.transactionId]));
    else if (typeof body[FIELD.orderNo] === 'string') g.bulkOrders.add(String(body[FIELD.orderNo]));
    return { exchange: x };
  }
  return { exchange: x, followUp: await followUpOf(g, body, record, x) };
}

/** Book a batch answer's accepted items; the book of the first item breaking a rule of suites/money.ts, if any. */
function book(g: GenState, x: Exchange, body: Body): DeepFailure['ledger'] {
  const { ctx, op: operation } = g;
  const transition = batchTransition(ctx.spec, operation);
  if (transition !== 'capture' && transition !== 'refund') return undefined;
  const results = batchResults(ctx.spec, operation, responseObject(x, ctx.spec)) ?? [];
  let broken: DeepFailure['ledger'];
  for (const result of results) {
    if (!itemSucceeded(ctx, operation, result)) continue;
    const id = String(result[FIELD.transactionId]);
    const entry = g.ledger.get(id);
    if (!entry) continue;
    const item = batchItems(ctx.spec, operation, body).find((i) => i[FIELD.transactionId] === id);
    const amount = cents(item?.[transition === 'capture' ? FIELD.amount : FIELD.refundAmount]) ?? 0;
    const breach = bookAccepted(entry, transition, amount);
    if (!broken && breach) broken = { ...entry, breach };
  }
  return broken;
}

/** The follow-up of the bulk invalid cases (see `Generator.changed`): one query per chunk of the query's limit. */
async function changedRecords(g: GenState): ReturnType<Generator['changed']> {
  const { client, ctx, isBatch } = g;
  g.queries = 0;
  const orderNos = new Set<string>();
  const records = new Set<string>();
  if (g.selecting || g.op === 'payout') return { orderNos, records };
  const limit = operationOf(ctx.spec, 'retrievalTrans').selectionLimit?.maxOrders ?? 100;
  const field = isBatch ? FIELD.transactionId : FIELD.orderNo;
  if (!ctx.profile.selection.retrievalTrans.fields.includes(field)) return { orderNos, records };
  const values = [...(isBatch ? g.bulkRecords : g.bulkOrders)];
  for (let i = 0; i < values.length; i += limit) {
    const chunk = values.slice(i, i + limit);
    const q = await client.send('retrievalTrans', selectionBody(client, ctx, 'retrievalTrans', field, chunk), {
      record: false,
    });
    g.queries++;
    for (const v of chunk) {
      const found = statusOf(q) === 200 ? queryRecords(ctx, responseObject(q, ctx.spec), { [field]: v }) : [];
      if (!isBatch && found.length) orderNos.add(v);
      if (isBatch && found[0] && g.startCode !== undefined && found[0][FIELD.paymentStatus] !== g.startCode)
        records.add(v);
    }
  }
  return { orderNos, records };
}

/** The generator of one operation: its pools prepared (steps record them), its arbitraries built from a sample body. */
export async function generator(
  op: OperationKey,
  client: ProbeClient,
  ctx: CheckContext,
  steps: Steps,
): Promise<Generator> {
  const spec = operationOf(ctx.spec, op);
  const isBatch = isBatchOperation(ctx.spec, op);
  const selecting = isSelectingOperation(ctx.spec, op);
  const fixed = fixedFields(ctx, op);
  const { cancelled, ...pools } = isBatch
    ? await batchPools(op, client, ctx, steps)
    : await selectionPools(op, client, ctx, steps, selecting);
  steps.facts.records = [...pools.pool, ...pools.invalidPool].map(recordFacts);
  const g: GenState = {
    ...pools,
    op,
    client,
    ctx,
    schemaId: spec.requestSchemaId,
    isBatch,
    selecting,
    ledger: openLedger(batchTransition(ctx.spec, op), pools.pool, cancelled),
    invalidTurn: 0,
    bulkOrders: new Set(),
    bulkRecords: new Set(),
    queries: 0,
  };
  const template = baseBody(g, isBatch ? [g.pool[0]!] : g.pool.slice(0, 1));
  return {
    valid: validArbitrary(g, template, fixed),
    invalid: invalidArbitrary(ctx, op, g.schemaId, template),
    send: (c, isolated) => (c.kind === 'valid' ? sendValid(g, c) : sendInvalid(g, c, isolated)),
    changed: () => changedRecords(g),
    followUps: () => g.queries,
  };
}
