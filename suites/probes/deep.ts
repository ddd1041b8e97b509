/**
 * `deep`: per operation, `depth` generated requests valid for the spec and the profile (signed; batches and queries
 * naming payments the probe made) and `depth` breaking exactly one rule (a format, a type, a listed field left out,
 * the signature), from the schemas' fast-check arbitraries and the run's seed. Every exchange is judged as it is
 * answered (suites/checks/deep.ts); only failing ones are kept, each shrunk by fast-check to the smallest case that
 * still fails the same check. Refused invalid requests are followed up (the query shows nothing created, no state
 * moved) and the captures and refunds are booked in a ledger (never refunded above the capture, no capture after
 * a cancel).
 */
import fc from 'fast-check';
import { signedView, stringToSign } from '../../core/signing.js';
import { childPointer, tokensOf, withValueAt } from '../../core/spec/pointer.js';
import type { CheckContext, Exchange, Observation, OperationKey, ProbeClient } from '../../core/model.js';
import { isUrl, offFormArbitrary, schemaArbitrary, wrongTypeArbitrary } from '../arbitraries.js';
import {
  type DeepCase,
  type DeepCounts,
  type DeepFailure,
  STATELESS_DEEP_CHECKS,
  deepVerdict,
} from '../checks/deep.js';
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
import { expand, propertySchemas, schemaRoot, schemasAt } from '../schema-walk.js';
import { paymentBody, recordFacts, wrongSignature } from './basic.js';
import { isBatchOperation, isSelectingOperation, operationSet } from '../../core/spec/operations.js';
import {
  type PaymentRecord,
  type SelectingOperation,
  Inconclusive,
  isSelecting,
  recordSourceOf,
  Steps,
  batchBody,
  defineProbe,
  happyItemFields,
  itemFor,
  paymentsIn,
  planTo,
  selectingField,
  selectionBody,
  startStateFor,
} from './support.js';

type BatchOperation = 'capture' | 'review' | 'cancel' | 'refund';
type Body = Record<string, unknown>;

/** Requests in flight at once per operation (the run's transport limiter bounds the total). */
const LANES = 4;
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
/** Most requests one shrink may send. */
const SHRINK_BUDGET = 250;

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
interface Generator {
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

async function generator(op: OperationKey, client: ProbeClient, ctx: CheckContext, steps: Steps): Promise<Generator> {
  const spec = operationOf(ctx.spec, op);
  const schemaId = spec.requestSchemaId;
  const isBatch = isBatchOperation(ctx.spec, op);
  const selecting = isSelectingOperation(ctx.spec, op);
  const fixed = fixedFields(ctx, op);

  // Payments the requests name: the valid pool in the operation's start state (captures also name cancelled ones),
  // the invalid pool apart, so the follow-up reads states no valid request moved.
  let pool: PaymentRecord[] = [];
  let invalidPool: PaymentRecord[] = [];
  const cancelled = new Set<string>();
  let startCode: string | undefined;
  if (isBatch) {
    const state = startStateFor(ctx, op as BatchOperation);
    startCode = (ctx.profile.statusValues.payment_status as Record<string, string>)[state];
    pool = await paymentsIn(client, ctx, steps, state, poolSize(ctx.config.depth ?? 0));
    if (op === 'capture' && planTo(ctx, 'cancelled')) {
      const gone = await paymentsIn(client, ctx, steps, 'cancelled', 2);
      for (const r of gone) cancelled.add(String(r.fields[FIELD.transactionId]));
      pool.push(...gone);
    }
    invalidPool = await paymentsIn(client, ctx, steps, state, 3);
  } else if (selecting) {
    // The records it returns: payments, or the results of the batch it searches (refund search: refunds).
    const source = recordSourceOf(ctx, op);
    pool = await paymentsIn(client, ctx, steps, source ? startStateFor(ctx, source) : 'authorised', 3);
    if (source) {
      for (const r of pool)
        await client.send(
          source,
          batchBody(client, ctx, source, [itemFor(client, ctx, source, r, happyItemFields(ctx, source, r))]),
          { record: false },
        );
    }
  }
  steps.facts.records = [...pool, ...invalidPool].map(recordFacts);

  const ledger = new Map<string, { capturedCents: number; refundedCents: number; cancelled: boolean }>();
  for (const r of pool) {
    const id = String(r.fields[FIELD.transactionId]);
    const amount = cents(r.fields[FIELD.amount]) ?? 0;
    ledger.set(id, { capturedCents: op === 'refund' ? amount : 0, refundedCents: 0, cancelled: cancelled.has(id) });
  }

  /** A fresh valid body of the operation naming `records` (batches: one item each; queries: selecting them). */
  const base = (records: readonly PaymentRecord[]): Body => {
    if (isBatch)
      return batchBody(
        client,
        ctx,
        op,
        records.map((r) => itemFor(client, ctx, op, r, happyItemFields(ctx, op, r))),
      );
    if (selecting) {
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
  };
  const template = base(isBatch ? [pool[0]!] : pool.slice(0, 1));

  // Valid cases: the sample with a generated subset of the fields that may vary, and for batches generated items.
  const topModel = fieldModel(ctx, schemaId, '', Object.keys(template), fixed);
  const itemTemplate = isBatch ? (batchItems(ctx.spec, op, template)[0] ?? {}) : {};
  const itemModel = isBatch
    ? fieldModel(ctx, schemaId, `/${spec.batch!.orders}/0`, Object.keys(itemTemplate), ITEM_IDENTITY)
    : {};
  const valid: fc.Arbitrary<DeepCase> = isBatch
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

  const validBody = (c: Extract<DeepCase, { kind: 'valid' }>): Body => {
    let body: Body;
    if (isBatch) {
      const items = (c.items ?? []).map((it) => {
        const r = pool[it.pool % pool.length]!;
        return itemFor(client, ctx, op, r, { ...happyItemFields(ctx, op, r), ...it.fields });
      });
      body = { ...batchBody(client, ctx, op, items), ...c.fields };
    } else body = { ...base(pool.slice(0, 1)), ...c.fields };
    if (op === 'payout' && ctx.profile.payout.currencyConversion === 'none') {
      if ('source_currency' in body) body.source_currency = body.payment_currency;
      if ('source_amount' in body) body.source_amount = body.payment_amount;
    }
    return body;
  };

  // Invalid cases: one rule broken at one place of a valid body, the rule read from the validator.
  const leaves = stringLeaves(template);
  const formatTargets = leaves.filter((p) =>
    schemasAt(ctx.spec, schemaId, p).some((s) => s.node.pattern || (s.node.format && !isUrl([s]))),
  );
  const typeTargets = leaves.filter((p) => schemasAt(ctx.spec, schemaId, p).some((s) => s.node.type === 'string'));
  const listed = [FIELD.merchantId, 'account_id', ...(spec.batch ? [spec.batch.orders] : [])].filter(
    (f) => f in template,
  );
  const missingTargets = listed
    .map((f) => `/${f}`)
    .filter((p) => brokenRule(ctx, schemaId, setAt(template, p, undefined), p, ['required']));
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
  // The rule a value breaks at a pointer of the template, kept for scalar values: thousands of cases draw the same few
  // (the off-form constants, booleans, null), and the validator's answer for one is always the same.
  const rules = new Map<string, string>();
  const withRule = (keywords: string[]) => (c: { kind: 'format' | 'type'; pointer: string; value: unknown }) => {
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
  const kinds: fc.Arbitrary<DeepCase>[] = [
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
    fc
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
      })),
    ...(signatureArbs.length
      ? [fc.oneof(...signatureArbs)]
      : [
          fc.constant<DeepCase>({
            kind: 'signature',
            pointer: `/${FIELD.signature}`,
            value: wrongSignature(ctx),
            rule: 'PAGI-AUTH-006',
          }),
        ]),
  ];
  const invalid = kinds.length ? fc.oneof(...kinds) : undefined;

  let invalidTurn = 0;
  /** The record an invalid case names: the invalid pool in turn, or a fresh payment for an isolated case. */
  const invalidRecord = async (isolated: boolean): Promise<PaymentRecord | undefined> => {
    if (!isBatch) return undefined;
    if (!isolated) return invalidPool[invalidTurn++ % invalidPool.length];
    const [fresh] = await paymentsIn(client, ctx, new Steps(), startStateFor(ctx, op as BatchOperation), 1);
    return fresh;
  };

  const followUpOf = async (
    body: Body,
    record: PaymentRecord | undefined,
    x: Exchange,
  ): Promise<Observation | undefined> => {
    const f = record
      ? {
          kind: 'state' as const,
          transactionId: String(record.fields[FIELD.transactionId]),
          orderNo: String(record.fields[FIELD.orderNo]),
          expectedCode: startCode,
        }
      : { kind: 'absent' as const, orderNo: String(body[FIELD.orderNo]) };
    if (
      selecting ||
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
  };

  const send: Generator['send'] = async (c, isolated) => {
    if (c.kind === 'valid') {
      const body = validBody(c);
      if (validateSigned(ctx, schemaId, body).length) return { exchange: undefined };
      const x = await client.send(op, body, GENERATED);
      return { exchange: x, ledger: book(op, x, body) };
    }
    // A case breaking no rule, or more than one, is not sent (the generator cannot tell which rule it tests).
    if (!c.rule) return { exchange: undefined };
    const record = await invalidRecord(isolated);
    const body = base(record ? [record] : pool.slice(0, 1));
    let x: Exchange;
    // A value the signature does not cover (the same value, a nested value sorted pairs skip) breaks no rule.
    if (c.kind === 'signature' && c.pointer !== `/${FIELD.signature}` && !signatureCovers(ctx, op, body, c))
      return { exchange: undefined };
    if (c.kind === 'signature') {
      x =
        c.pointer === `/${FIELD.signature}`
          ? await client.send(op, { ...body, [FIELD.signature]: c.value }, { sign: false, ...GENERATED })
          : await client.send(op, setAt(body, c.pointer, c.value), {
              signedBody: readView(ctx, op, body),
              ...GENERATED,
            });
    } else if (c.kind === 'missing' && c.pointer === `/${FIELD.signature}`) {
      x = await client.send(op, body, { sign: false, ...GENERATED });
    } else {
      // Batch pointers name the first item: the body has one.
      x = await client.send(op, setAt(body, c.pointer, c.kind === 'missing' ? undefined : c.value), GENERATED);
    }
    if (!isolated) {
      if (record) bulkRecords.add(String(record.fields[FIELD.transactionId]));
      else if (typeof body[FIELD.orderNo] === 'string') bulkOrders.add(String(body[FIELD.orderNo]));
      return { exchange: x };
    }
    return { exchange: x, followUp: await followUpOf(body, record, x) };
  };

  /** Book a batch answer in the ledger; the entry of the first item breaking an invariant, if any. */
  const book = (operation: OperationKey, x: Exchange, body: Body): DeepFailure['ledger'] => {
    if (operation !== 'capture' && operation !== 'refund') return undefined;
    const results = batchResults(ctx.spec, operation, responseObject(x, ctx.spec)) ?? [];
    let broken: DeepFailure['ledger'];
    for (const result of results) {
      if (!itemSucceeded(ctx, operation, result)) continue;
      const id = String(result[FIELD.transactionId]);
      const entry = ledger.get(id);
      if (!entry) continue;
      const item = batchItems(ctx.spec, operation, body).find((i) => i[FIELD.transactionId] === id);
      if (operation === 'capture') entry.capturedCents += cents(item?.[FIELD.amount]) ?? 0;
      else entry.refundedCents += cents(item?.[FIELD.refundAmount]) ?? 0;
      if (!broken && (entry.refundedCents > entry.capturedCents || (entry.cancelled && entry.capturedCents > 0)))
        broken = { transactionId: id, ...entry };
    }
    return broken;
  };

  const bulkOrders = new Set<string>();
  const bulkRecords = new Set<string>();
  const changed: Generator['changed'] = async () => {
    queries = 0;
    const orderNos = new Set<string>();
    const records = new Set<string>();
    if (selecting || op === 'payout') return { orderNos, records };
    const limit = operationOf(ctx.spec, 'retrievalTrans').selectionLimit?.maxOrders ?? 100;
    const field = isBatch ? FIELD.transactionId : FIELD.orderNo;
    if (!ctx.profile.selection.retrievalTrans.fields.includes(field)) return { orderNos, records };
    const values = [...(isBatch ? bulkRecords : bulkOrders)];
    for (let i = 0; i < values.length; i += limit) {
      const chunk = values.slice(i, i + limit);
      const q = await client.send('retrievalTrans', selectionBody(client, ctx, 'retrievalTrans', field, chunk), {
        record: false,
      });
      queries++;
      for (const v of chunk) {
        const found = statusOf(q) === 200 ? queryRecords(ctx, responseObject(q, ctx.spec), { [field]: v }) : [];
        if (!isBatch && found.length) orderNos.add(v);
        if (isBatch && found[0] && startCode !== undefined && found[0][FIELD.paymentStatus] !== startCode)
          records.add(v);
      }
    }
    return { orderNos, records };
  };
  let queries = 0;

  return { valid, invalid, send, changed, followUps: () => queries };
}

/** Run `count` jobs, `lanes` at a time. */
async function inLanes(count: number, lanes: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(lanes, count) }, async () => {
      while (next < count) await job(next++);
    }),
  );
}

/** Cases generated at once: the cases of a deep run are made a block at a time, never all held. */
const SAMPLE_BLOCK = 1_000;

/**
 * The `i`-th case fast-check generates from `arb` and `seed` (the case at path `i`, as `shrink` replays it), asked
 * for in increasing order: a block is sampled when first asked for (fast-check's path skips the cases before it), up to `count`.
 */
export function sampler(arb: fc.Arbitrary<DeepCase>, seed: number, count: number): (i: number) => DeepCase {
  let start = -1;
  let block: DeepCase[] = [];
  return (i) => {
    const wanted = i - (i % SAMPLE_BLOCK);
    if (wanted !== start) {
      block = fc.sample(arb, {
        seed,
        numRuns: Math.min(SAMPLE_BLOCK, count - wanted),
        ...(wanted ? { path: String(wanted) } : {}),
      });
      start = wanted;
    }
    return block[i - start]!;
  };
}

/** The generated case at `path` of `arb`, shrunk to the smallest that still fails `checkId` (or its unshrunk self past the budget). */
async function shrink(
  arb: fc.Arbitrary<DeepCase>,
  seed: number,
  index: number,
  fails: (c: DeepCase) => Promise<{ failed: boolean; exchange?: Exchange; followUp?: Observation }>,
): Promise<{ case: DeepCase; path: string; exchange?: Exchange; followUp?: Observation } | undefined> {
  let calls = 0;
  let last: { case: DeepCase; exchange?: Exchange; followUp?: Observation } | undefined;
  const result = await fc.check(
    fc.asyncProperty(arb, async (c) => {
      if (calls++ >= SHRINK_BUDGET) return true;
      const r = await fails(c);
      if (r.failed) last = { case: c, exchange: r.exchange, followUp: r.followUp };
      return !r.failed;
    }),
    { seed, path: String(index), numRuns: 1 },
  );
  if (!result.failed || !last) return undefined;
  return { ...last, path: result.counterexamplePath ?? String(index) };
}

/** Whether a valid exchange was accepted (2xx with every batch item a success), for the counts. */
function accepted(ctx: CheckContext, op: OperationKey, x: Exchange): boolean {
  if (statusOf(x) !== 200) return false;
  const results = batchResults(ctx.spec, op, responseObject(x, ctx.spec));
  if (results) return results.every((r) => itemSucceeded(ctx, op, r));
  const status = responseObject(x, ctx.spec)?.[FIELD.orderStatus];
  return status === undefined || status === ctx.profile.statusValues.order_status.approved;
}

export const deep = defineProbe('deep', 'all', {}, async (op, client, ctx, steps) => {
  const depth = ctx.config.depth ?? 0;
  if (depth <= 0) throw new Inconclusive('no depth was asked (--depth N)');
  const seed = (ctx.config.seed + 7919 * (operationSet(ctx.spec, 'all').indexOf(op) + 1)) % 2 ** 31;
  const gen = await generator(op, client, ctx, steps);
  const counts: DeepCounts = { valid: 0, accepted: 0, declined: 0, invalid: 0, refused: 0, followUps: 0 };
  const failures: DeepFailure[] = [];
  steps.facts.depth = depth;
  steps.facts.seed = seed;

  const judge = (
    c: DeepCase,
    checkId: string,
    x: Exchange | undefined,
    extra: Parameters<typeof deepVerdict>[5] = {},
  ) => (x ? deepVerdict(checkId, ctx, op, c, x, extra).length > 0 : false);
  let lastExchange: Exchange | undefined;

  for (const [kind, arb, kindSeed] of [
    ['valid', gen.valid, seed],
    ['invalid', gen.invalid, seed + 1],
  ] as const) {
    if (!arb) continue;
    const cases = sampler(arb, kindSeed, depth);
    const firstFailing = new Map<string, { index: number; count: number }>();
    let lifecycle:
      | { index: number; case: DeepCase; exchange: Exchange; ledger: NonNullable<DeepFailure['ledger']> }
      | undefined;
    const caseOfOrder = new Map<string, number>();
    const caseOfRecord = new Map<string, number>();
    await inLanes(depth, LANES, async (i) => {
      const c = cases(i);
      const { exchange: x, ledger } = await gen.send(c, false);
      if (!x) return;
      lastExchange = x;
      if (kind === 'valid') {
        counts.valid++;
        if (accepted(ctx, op, x)) counts.accepted++;
        else if (statusOf(x) === 200) counts.declined++;
      } else {
        counts.invalid++;
        if ((statusOf(x) ?? 0) >= 400 && (statusOf(x) ?? 0) < 500) counts.refused++;
        const body = x.request.body as Body | undefined;
        if (typeof body?.[FIELD.orderNo] === 'string' && !caseOfOrder.has(String(body[FIELD.orderNo])))
          caseOfOrder.set(String(body[FIELD.orderNo]), i);
        for (const item of body ? batchItems(ctx.spec, op, body) : []) {
          const id = item[FIELD.transactionId];
          if (typeof id === 'string' && !caseOfRecord.has(id)) caseOfRecord.set(id, i);
        }
      }
      for (const id of STATELESS_DEEP_CHECKS) {
        if (!judge(c, id, x)) continue;
        const seen = firstFailing.get(id);
        if (!seen || i < seen.index) firstFailing.set(id, { index: i, count: (seen?.count ?? 0) + 1 });
        else seen.count++;
      }
      if (ledger && !lifecycle) lifecycle = { index: i, case: c, exchange: x, ledger };
    });

    for (const [checkId, { index, count }] of firstFailing) {
      const shrunk = await shrink(arb, kindSeed, index, async (c) => {
        const r = await gen.send(c, false);
        return { failed: judge(c, checkId, r.exchange), exchange: r.exchange };
      });
      if (!shrunk?.exchange) continue;
      const step = `fail:${checkId}`;
      steps.addComputed(step, shrunk.exchange);
      failures.push({ checkId, case: shrunk.case, seed: kindSeed, path: shrunk.path, step, failing: count });
    }
    if (lifecycle) {
      const step = 'fail:deepLifecycleInvariants';
      steps.addComputed(step, lifecycle.exchange);
      failures.push({
        checkId: 'deepLifecycleInvariants',
        case: lifecycle.case,
        seed: kindSeed,
        path: String(lifecycle.index),
        step,
        failing: 1,
        ledger: lifecycle.ledger,
      });
    }

    if (kind === 'invalid') {
      // One follow-up query per 100 refused requests; a change is replayed on a fresh payment and shrunk.
      const changed = await gen.changed(steps);
      counts.followUps += gen.followUps();
      const indexes = [
        ...[...changed.orderNos].map((o) => caseOfOrder.get(o)),
        ...[...changed.records].map((r) => caseOfRecord.get(r)),
      ].filter((i): i is number => i !== undefined);
      if (indexes.length) {
        const index = Math.min(...indexes);
        const shrunk = await shrink(arb, kindSeed, index, async (c) => {
          const r = await gen.send(c, true);
          return {
            failed:
              !!r.exchange &&
              !!r.followUp &&
              judge(c, 'deepInvalidChangesNothing', r.exchange, { followUp: r.followUp }),
            exchange: r.exchange,
            followUp: r.followUp,
          };
        });
        if (shrunk?.exchange && shrunk.followUp) {
          const step = 'fail:deepInvalidChangesNothing';
          steps.addComputed(step, shrunk.exchange);
          steps.addComputed(`${step}:followUp`, shrunk.followUp.steps.followUp!);
          steps.facts[`${step}:followUp`] = shrunk.followUp.facts.followUp;
          failures.push({
            checkId: 'deepInvalidChangesNothing',
            case: shrunk.case,
            seed: kindSeed,
            path: shrunk.path,
            step,
            failing: indexes.length,
          });
        }
      }
    }
  }
  steps.facts.counts = counts;
  steps.facts.failures = failures;
  if (!lastExchange) throw new Inconclusive(`no generated ${op} request could be sent`);
  return steps.add(op, lastExchange);
});
