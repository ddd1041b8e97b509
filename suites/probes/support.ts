/**
 * What probes share: the probe definition wrapper (inconclusive on rate limits and failed set-up), payments in a
 * wanted state (planned from the profile's transitions), batch items built from the spec's example item, query
 * selection through the profile's selection fields, following pages, and scenarios memoised per run.
 */
import { randomUUID } from 'node:crypto';
import type {
  CheckContext,
  CheckoutFormModel,
  Exchange,
  Observation,
  ObservationFacts,
  OperationKey,
  Probe,
  ProbeClient,
  ProbeOf,
} from '../../core/model.js';
import { batchTransition, isBatchOperation, recordSource, type OperationScope } from '../../core/spec/operations.js';
import { answeredRetryLater } from '../../engine/inconclusive.js';
import { ifStated } from '../../core/profile/reads.js';
import { FIELD } from '../fields.js';
import {
  batchResults,
  cents,
  envelopeSucceeded,
  formOf,
  absoluteUrl,
  isObject,
  itemSucceeded,
  money,
  operationOf,
  queryRecords,
  responseObject,
  statusOf,
  text,
} from '../observe.js';
import { Inconclusive, SetupFailed, SpecError } from '../../core/types/errors.js';

export { Inconclusive, SetupFailed };

/**
 * Records steps as a probe runs. `S` are the step names the probe declares (checks read them by name); an operation's
 * name is a step too (the request of the operation under test, set-up payments and batches), numbered when it repeats.
 */
export class Steps<S extends string = string> {
  readonly all: Record<string, Exchange> = {};
  readonly facts: ObservationFacts = {};
  private counter = new Map<string, number>();

  /** Record an exchange under `name` (numbered when the name repeats) and return it. */
  add(name: S | OperationKey, exchange: Exchange): Exchange {
    const n = (this.counter.get(name) ?? 0) + 1;
    this.counter.set(name, n);
    this.all[n === 1 ? name : `${name}${n}`] = exchange;
    return exchange;
  }

  /**
   * Record an exchange under a name the probe computes (one per decline rule, numbered generated cases): checks
   * read such steps through the facts naming them (`stepNamed`), never as a declared step.
   */
  addComputed(name: string, exchange: Exchange): Exchange {
    return (this as Steps<string>).add(name, exchange);
  }
}

/** The body of a probe: fills steps and returns the main exchange. */
export type ProbeBody<S extends string = string> = (
  operation: OperationKey,
  client: ProbeClient,
  ctx: CheckContext,
  steps: Steps<S>,
) => Promise<Exchange>;

/**
 * A synthetic exchange standing for a request that was never sent (inconclusive observations need a `main`; so does
 * an observation that sends nothing of its own, `tag` naming it).
 */
export function notSent(ctx: CheckContext, operation: OperationKey, tag = 'not-sent'): Exchange {
  const url = `${ctx.config.baseUrl.replace(/\/$/, '')}${ctx.spec.operations.get(operation)?.path ?? ''}`;
  return {
    id: `${operation}#${tag}`,
    operation,
    request: { method: 'POST', url, headers: {}, body: undefined, bodyText: '', encoding: 'raw' },
    startedAt: new Date().toISOString(),
    durationMs: 0,
    evidence: { request: { method: 'POST', url, headers: {}, body: '' }, curl: '' },
  };
}

/**
 * Define a probe with the steps it records under a name (name → what the step is): checks naming the probe read
 * those names only (`ProbeOf<S>`). A set-up failure or a 429/503 answer anywhere makes the observation inconclusive
 * with its reason; a failure of the kit itself (anything else thrown) propagates.
 */
export function defineProbe<const S extends string = never>(
  id: string,
  operations: OperationScope,
  declared: Readonly<Record<S, string>>,
  body: ProbeBody<NoInfer<S>>,
  options: Pick<Probe, 'waitsOnTarget' | 'readsLedger'> = {},
): ProbeOf<S> {
  return {
    id,
    operations,
    steps: declared,
    ...options,
    async run(operation, client, ctx): Promise<Observation> {
      const steps = new Steps<S>();
      let main: Exchange | undefined;
      let inconclusive: string | undefined;
      try {
        main = await body(operation, client, ctx, steps);
      } catch (error) {
        if (!(error instanceof SetupFailed || error instanceof Inconclusive)) throw error;
        inconclusive = error.message;
        main = error instanceof SetupFailed ? (error.exchange as Exchange | undefined) : undefined;
      }
      const limited = Object.entries(steps.all).find(([, x]) => answeredRetryLater(x));
      if (limited)
        inconclusive = `rate-limited or unavailable: step ${limited[0]} was answered HTTP ${limited[1].response?.status}`;
      return {
        probeId: id,
        operation,
        main: main ?? notSent(ctx, operation),
        steps: steps.all,
        facts: steps.facts,
        ...(inconclusive ? { inconclusive } : {}),
      };
    },
  };
}

// ------------------------------------------------------------------ memoised scenarios

const memo = new WeakMap<CheckContext, Map<string, Promise<unknown>>>();

/**
 * Run `fn` once per run context and key; later callers share its result. Keyed by the context (one per run and
 * worker), not the client: an engine may hand every probe run its own scoped client.
 */
export function once<T>(ctx: CheckContext, key: string, fn: () => Promise<T>): Promise<T> {
  let byKey = memo.get(ctx);
  if (!byKey) memo.set(ctx, (byKey = new Map()));
  let p = byKey.get(key) as Promise<T> | undefined;
  if (!p) byKey.set(key, (p = fn()));
  return p;
}

// ------------------------------------------------------------------ payments and states

/** A payment the probe made: its identifiers and amounts, the fields later requests refer to it by. */
export interface PaymentRecord {
  fields: Record<string, unknown>;
  exchange: Exchange;
}

/** What a payment should come out as (the profile's `afterAuthorise` outcomes). */
export type Outcome = 'approved' | 'declined' | 'pendingReview';

/** A decline rule of the profile (`payments.declineRules`). */
export type DeclineRule = CheckContext['profile']['payments']['declineRules'][number];

/**
 * Request overrides of a direct payment that trigger a decline rule: a decline card ending in the rule's digits (the
 * configured one, else the profile's test cards), the security code, an e-mail at the domain, or the amount.
 */
export function declineOverrides(ctx: CheckContext, rule: DeclineRule): Record<string, unknown> | undefined {
  if ('cardNumberSuffix' in rule) {
    const card = [ctx.config.cards.decline, ...ctx.profile.payments.testCards.decline].find((c) =>
      c?.endsWith(rule.cardNumberSuffix),
    );
    return card ? { [ctx.profile.fields.card.number]: card } : undefined;
  }
  if ('securityCode' in rule) return { [ctx.profile.fields.card.securityCode]: rule.securityCode };
  if ('shopperEmailDomain' in rule) return { [FIELD.shopperEmail]: `decline-probe@${rule.shopperEmailDomain}` };
  return { [FIELD.amount]: rule.amount };
}

/** Request overrides that give a direct payment an outcome: a decline rule's trigger, or the profile's review trigger. */
export function outcomeOverrides(ctx: CheckContext, outcome: Outcome): Record<string, unknown> {
  if (outcome === 'declined') {
    const card = ctx.config.cards.decline;
    if (card) return { [ctx.profile.fields.card.number]: card };
    for (const rule of ctx.profile.payments.declineRules) {
      const overrides = declineOverrides(ctx, rule);
      if (overrides) return overrides;
    }
    throw new Inconclusive(
      'no decline card in the configuration and no decline rule of the profile the kit can trigger',
    );
  }
  if (outcome === 'pendingReview') {
    const triggers = ctx.profile.review.triggers;
    if (!triggers) throw new Inconclusive('the profile holds no payment for review');
    // Either trigger the profile states holds a payment (a draft may state one and leave the other out).
    const domain = ifStated(() => triggers.shopperEmailDomains[0]);
    if (domain) return { [FIELD.shopperEmail]: `review-probe@${domain}` };
    const amount = ifStated(() => triggers.amountAtLeast);
    return { [FIELD.amount]: amount ?? triggers.amountAtLeast };
  }
  return {};
}

/**
 * A direct payment made to have an outcome. Its record holds what the kit sent (order_no, amount, currency: never
 * the gateway's echo of them, which the echo checks judge) and what only the answer knows (transaction_id,
 * order_status, …). An answer without a transaction id is looked up by its order number in a query, when the
 * profile's query selects by it; the set-up fails only when neither gives one.
 */
export async function pay<S extends string>(
  client: ProbeClient,
  ctx: CheckContext,
  steps: Steps<S>,
  outcome: Outcome = 'approved',
  overrides: Record<string, unknown> = {},
  step: NoInfer<S> | 'authorise' = 'authorise',
): Promise<PaymentRecord> {
  const body = client.sample('authoriseDirect', { ...outcomeOverrides(ctx, outcome), ...overrides });
  const exchange = (steps as Steps).add(step, await client.send('authoriseDirect', body));
  const response = responseObject(exchange, ctx.spec) ?? {};
  const fields: Record<string, unknown> = { ...response, ...body };
  if (!text(response, FIELD.transactionId)) {
    if (statusOf(exchange) !== 200)
      throw new SetupFailed(step, exchange, `no ${FIELD.transactionId} in the answer (${describe(exchange)})`);
    // The next best evidence: the payment as a query shows it, found by the order number the kit sent.
    const orderNo = String(body[FIELD.orderNo]);
    const query = await queryOrder(client, ctx, steps as Steps, orderNo, `${step}Query`).catch(() => undefined);
    const [record] = query ? queryRecords(ctx, responseObject(query, ctx.spec), { [FIELD.orderNo]: orderNo }) : [];
    const found = text(record, FIELD.transactionId);
    if (!found)
      throw new SetupFailed(
        step,
        exchange,
        `no ${FIELD.transactionId} in the answer (${describe(exchange)})${query ? ', nor in a query by its order_no' : ''}`,
      );
    fields[FIELD.transactionId] = found;
    noteAbsent(steps, step, FIELD.transactionId, 'taken from a query by order_no');
  }
  return { fields, exchange };
}

/**
 * Note that a set-up answer lacked a field the probe needed and what it carried on from (`facts.absentFields`): the
 * absence itself is reported by the checks reading that operation's answers (responseHoldsListedFields).
 */
function noteAbsent(steps: Steps, step: string, field: string, instead: string): void {
  const notes = steps.facts.absentFields ?? [];
  notes.push(`${step}: no ${field} in the answer; ${instead}`);
  steps.facts.absentFields = notes;
}

/** A direct payment with an outcome; the set-up fails unless it is answered with that outcome and a transaction id. */
export async function authorise<S extends string>(
  client: ProbeClient,
  ctx: CheckContext,
  steps: Steps<S>,
  outcome: Outcome = 'approved',
  overrides: Record<string, unknown> = {},
  step: NoInfer<S> | 'authorise' = 'authorise',
): Promise<PaymentRecord> {
  const record = await pay(client, ctx, steps, outcome, overrides, step);
  const status = record.fields[FIELD.orderStatus];
  // An answer that does not say the outcome: the transaction id it carries is the evidence the probe goes on from;
  // a later step that needs the outcome shows whether the payment had it.
  if ((status === undefined || status === '') && statusOf(record.exchange) === 200) {
    noteAbsent(steps, step, FIELD.orderStatus, `carried on as ${outcome} from its ${FIELD.transactionId}`);
    return record;
  }
  if (status !== ctx.profile.statusValues.order_status[outcome]) {
    throw new SetupFailed(
      step,
      record.exchange,
      `${FIELD.orderStatus} ${JSON.stringify(status)} is not the profile's ${outcome} value`,
    );
  }
  return record;
}

/** HTTP status or transport error of an exchange, in words. */
export function describe(exchange: Exchange | undefined): string {
  if (!exchange) return 'not sent';
  return exchange.error ? `${exchange.error.kind}: ${exchange.error.message}` : `HTTP ${exchange.response?.status}`;
}

/**
 * How the profile refunds (`refunds.partial`, `transitions.refund`): whether a refund may take less than what remains
 * (else the per-item failure a smaller one gets), and whether a partly refunded payment can be refunded again.
 */
export function refundRules(ctx: CheckContext): { partial: true | string; repeated: boolean } {
  const partial = ctx.profile.refunds.partial ?? 'allowed';
  const t = ctx.profile.transitions.refund;
  return {
    partial: partial === 'allowed' ? true : partial,
    repeated: partial === 'allowed' && (t.from as string[]).includes(t.toPartial),
  };
}

/**
 * The payment's state after the refund steps of the payment scenario: partly refunded, or still captured where the
 * profile refuses partial refunds (`refunds.partial`).
 */
export function stateAfterRefunds(ctx: CheckContext): string {
  const t = ctx.profile.transitions;
  return refundRules(ctx).partial === true ? t.refund.toPartial : t.capture.to;
}

/** The refund steps of the payment scenario the profile lets succeed, in order (`upToSearch`: those before the search). */
export function refundsMade(ctx: CheckContext, upToSearch = false): ('refund1' | 'refund2' | 'refundRest')[] {
  const rules = refundRules(ctx);
  if (rules.partial !== true) return upToSearch ? [] : ['refundRest'];
  return rules.repeated ? ['refund1', 'refund2'] : ['refund1'];
}

/** One action that moves a payment from a state to another, as the profile's transitions say. */
type Action =
  | { kind: 'authorise'; outcome: Outcome }
  | { kind: 'capture' | 'cancel' | 'refundFull' | 'refundPartial' | 'reviewApprove' | 'reviewReject' };

/** The shortest list of actions leading a new payment to `state`, read from the profile's transitions. */
export function planTo(ctx: CheckContext, state: string): Action[] | undefined {
  const t = ctx.profile.transitions;
  const r = ctx.profile.review;
  const edges = (from: string): [Action, string][] => {
    const out: [Action, string][] = [];
    if ((t.capture.from as string[]).includes(from)) out.push([{ kind: 'capture' }, t.capture.to]);
    if ((t.cancel.from as string[]).includes(from)) out.push([{ kind: 'cancel' }, t.cancel.to]);
    if ((t.refund.from as string[]).includes(from)) {
      if (refundRules(ctx).partial === true) out.push([{ kind: 'refundPartial' }, t.refund.toPartial]);
      out.push([{ kind: 'refundFull' }, t.refund.toFull]);
    }
    if ((t.review.from as string[]).includes(from))
      out.push([{ kind: 'reviewApprove' }, r.approve.to], [{ kind: 'reviewReject' }, r.reject.to]);
    return out;
  };
  // Without a review hold no payment starts pending review.
  const outcomes = r.triggers
    ? (['approved', 'pendingReview', 'declined'] as const)
    : (['approved', 'declined'] as const);
  const queue: [string, Action[]][] = outcomes.map((o) => [t.afterAuthorise[o], [{ kind: 'authorise', outcome: o }]]);
  const seen = new Set<string>();
  while (queue.length) {
    const [at, path] = queue.shift()!;
    if (at === state) return path;
    if (seen.has(at)) continue;
    seen.add(at);
    for (const [action, to] of edges(at)) queue.push([to, [...path, action]]);
  }
  return undefined;
}

/**
 * A state the profile allows a batch operation from (`transitions.<its x-pagi-batch.transition>.from`), preferring
 * the first listed one that can be reached; a batch following no transition acts on an approved payment.
 */
export function startStateFor(ctx: CheckContext, operation: OperationKey): string {
  const transition = batchTransition(ctx.spec, operation);
  if (!transition) return ctx.profile.transitions.afterAuthorise.approved;
  const from = ctx.profile.transitions[transition].from as string[];
  const state = from.find((s) => planTo(ctx, s));
  if (!state)
    throw new Inconclusive(`no state the profile allows ${operation} from can be reached by the profile's transitions`);
  return state;
}

/** Run async jobs with at most `width` at a time, in order. */
async function inChunks<T, R>(
  items: readonly T[],
  width: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  // `width` at a time, the next one started as soon as one ends (no wait for the slowest of a group).
  const out: R[] = new Array(items.length);
  let next = 0;
  let failed = false;
  const lane = async (): Promise<void> => {
    while (next < items.length && !failed) {
      const i = next++;
      try {
        out[i] = await fn(items[i]!, i);
      } catch (e) {
        failed = true; // nothing more is started
        throw e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
  return out;
}

/** `count` new payments in `state`, batched through the operations the plan needs. */
export async function paymentsIn(
  client: ProbeClient,
  ctx: CheckContext,
  steps: Steps,
  state: string,
  count: number,
): Promise<PaymentRecord[]> {
  const plan = planTo(ctx, state);
  if (!plan) throw new Inconclusive(`no sequence of the profile's transitions leads a payment to ${state}`);
  const [first, ...rest] = plan;
  const outcome = first?.kind === 'authorise' ? first.outcome : 'approved';
  // Set-up payments carry the sample's notify_url (a payment request carries one, PAGI-EVT-001); the events family's
  // probes check notifications on payments of their own, so the ones these cause are never judged.
  const records = await inChunks(Array.from({ length: count }), 8, () =>
    authorise(client, ctx, steps, outcome, {}, 'prepare'),
  );
  for (const action of rest) {
    if (action.kind === 'authorise') continue;
    const operation =
      action.kind === 'capture'
        ? 'capture'
        : action.kind === 'cancel'
          ? 'cancel'
          : action.kind.startsWith('refund')
            ? 'refund'
            : 'review';
    const extra = (r: PaymentRecord) => actionFields(ctx, action.kind, r);
    const max = operationOf(ctx.spec, operation).batch?.maxItems ?? 1;
    for (let i = 0; i < records.length; i += max) {
      const chunk = records.slice(i, i + max);
      await batch(client, ctx, steps, operation, chunk, extra, `prepare-${operation}`, true);
    }
  }
  return records;
}

/** Item fields an action sets besides the payment's own (refunded amount, review flag). */
function actionFields(ctx: CheckContext, kind: string, record: PaymentRecord): Record<string, unknown> {
  const amount = cents(record.fields[FIELD.amount]) ?? 0;
  if (kind === 'refundFull') return { [FIELD.refundAmount]: money(amount) };
  if (kind === 'refundPartial') return { [FIELD.refundAmount]: money(Math.max(1, Math.floor(amount / 2))) };
  if (kind === 'reviewApprove') return { [FIELD.reviewFlag]: ctx.profile.review.approve.flag };
  if (kind === 'reviewReject') return { [FIELD.reviewFlag]: ctx.profile.review.reject.flag };
  return {};
}

/** The refunded amount, review flag, … an operation's happy item sets (none for capture and cancel). */
export function happyItemFields(
  ctx: CheckContext,
  operation: OperationKey,
  record: PaymentRecord,
  partOfAmount = 2,
): Record<string, unknown> {
  const transition = batchTransition(ctx.spec, operation);
  if (transition === 'refund') {
    // A profile refunding only the whole remaining amount (refunds.partial) gets the whole captured amount.
    const amount = cents(record.fields[FIELD.amount]) ?? 0;
    const part = refundRules(ctx).partial === true ? partOfAmount : 1;
    return { [FIELD.refundAmount]: money(Math.max(1, Math.floor(amount / part))) };
  }
  if (transition === 'review') return actionFields(ctx, 'reviewApprove', record);
  return {};
}

/**
 * A batch item for a payment: the spec example's first item with every field the payment has (transaction id,
 * order number, amount, currency) taken from the payment, then `extra`.
 */
export function itemFor(
  client: ProbeClient,
  ctx: CheckContext,
  operation: OperationKey,
  record: PaymentRecord | undefined,
  extra: Record<string, unknown> = {},
) {
  const orders = operationOf(ctx.spec, operation).batch?.orders;
  if (!orders) throw new SpecError(`${operation} is not a batch operation`);
  const template = (client.sample(operation)[orders] as unknown[] | undefined)?.find(isObject) ?? {};
  const item: Record<string, unknown> = { ...template };
  for (const key of Object.keys(item)) if (record && record.fields[key] !== undefined) item[key] = record.fields[key];
  return { ...item, ...extra };
}

/** An item naming a transaction the gateway cannot know. */
export function unknownItem(
  client: ProbeClient,
  ctx: CheckContext,
  operation: OperationKey,
  n: number,
  like?: PaymentRecord,
): Record<string, unknown> {
  return itemFor(client, ctx, operation, like, {
    [FIELD.transactionId]: `${ctx.config.orderPrefix}UNKNOWN-${n}-${randomUUID().slice(0, 8)}`,
    [FIELD.orderNo]: client.orderNo(),
  });
}

/** A batch body holding `items`. */
export function batchBody(
  client: ProbeClient,
  ctx: CheckContext,
  operation: OperationKey,
  items: unknown[],
): Record<string, unknown> {
  const orders = operationOf(ctx.spec, operation).batch?.orders;
  if (!orders) throw new SpecError(`${operation} is not a batch operation`);
  return client.sample(operation, { [orders]: items });
}

/** Send a batch for payments; with `mustSucceed` every item must succeed or the set-up fails. */
export async function batch<S extends string>(
  client: ProbeClient,
  ctx: CheckContext,
  steps: Steps<S>,
  operation: OperationKey,
  records: readonly PaymentRecord[],
  extra: (r: PaymentRecord) => Record<string, unknown>,
  step: NoInfer<S> | OperationKey,
  mustSucceed = false,
): Promise<Exchange> {
  const items = records.map((r) => itemFor(client, ctx, operation, r, extra(r)));
  const exchange = steps.add(step, await client.send(operation, batchBody(client, ctx, operation, items)));
  if (mustSucceed) {
    const body = responseObject(exchange, ctx.spec);
    const results = batchResults(ctx.spec, operation, body) ?? [];
    // Each item succeeded by the results naming it (by any of its key fields): a result answered twice, or naming
    // its order otherwise, is for the checks to judge; the set-up needs only the items done.
    const key = operationOf(ctx.spec, operation).echoItems?.key ?? [FIELD.transactionId, FIELD.orderNo];
    const done = (item: Record<string, unknown>) => {
      const mine = results.filter((r) => key.some((k) => item[k] !== undefined && r[k] === item[k]));
      return mine.length > 0 && mine.every((r) => itemSucceeded(ctx, operation, r));
    };
    if (!envelopeSucceeded(ctx, body) || !items.every(done)) {
      throw new SetupFailed(
        step,
        exchange,
        `the ${operation} of ${items.length} prepared payment(s) did not succeed item by item (${describe(exchange)})`,
      );
    }
  }
  return exchange;
}

// ------------------------------------------------------------------ query and refund search selection

/** Operations that select records through the profile's selection fields. */
export type { SelectingOperation } from '../../core/profile/operations.js';
import { isSelecting as selects, type SelectingOperation } from '../../core/profile/operations.js';

/** A batch operation of the interface (the profile's transitions name them). */
export type BatchOperation = Extract<keyof CheckContext['profile']['transitions'], OperationKey>;

/** Whether an operation selects records through the profile's selection fields (`x-pagi-limit`). */
export function isSelecting(ctx: CheckContext, op: OperationKey): op is SelectingOperation {
  return selects(ctx.spec, op);
}

/** Whether an operation is a batch (`x-pagi-batch`). */
export function isBatch(ctx: CheckContext, op: OperationKey): op is BatchOperation {
  return isBatchOperation(ctx.spec, op);
}

/** The batch whose results a selecting operation returns (refund search: refunds), or undefined: it returns payments. */
export function recordSourceOf(ctx: CheckContext, op: OperationKey): BatchOperation | undefined {
  return recordSource(ctx.spec, op) as BatchOperation | undefined;
}

/** The selecting field the records can be selected by (the first of the profile's fields they all have a value for). */
export function selectingField(
  ctx: CheckContext,
  operation: SelectingOperation,
  records: readonly Record<string, unknown>[],
): string {
  const field = ctx.profile.selection[operation].fields.find((f) =>
    records.every((r) => typeof r[f] === 'string' && r[f] !== ''),
  );
  if (!field)
    throw new Inconclusive(
      `none of the profile's selection fields of ${operation} (${ctx.profile.selection[operation].fields.join(', ')}) is known for the records`,
    );
  return field;
}

/** A query or refund-search body selecting `values` of `field` (joined by the profile's list separator). */
export function selectionBody(
  client: ProbeClient,
  ctx: CheckContext,
  operation: SelectingOperation,
  field: string,
  values: readonly string[],
) {
  return client.sample(operation, { [field]: values.join(ctx.profile.selection[operation].listSeparator) });
}

/** Query (or refund-search) the records, recording the step; facts name the selection. */
export async function select<S extends string>(
  client: ProbeClient,
  ctx: CheckContext,
  steps: Steps<S>,
  operation: SelectingOperation,
  records: readonly Record<string, unknown>[],
  step: NoInfer<S> | OperationKey,
  extraValues: readonly string[] = [],
): Promise<Exchange> {
  const field = selectingField(ctx, operation, records);
  const values = [...records.map((r) => String(r[field])), ...extraValues];
  return steps.add(step, await client.send(operation, selectionBody(client, ctx, operation, field, values)));
}

/** Query whether a payment exists for an order number (for "nothing created"), when the profile selects by it. */
export async function queryOrder<S extends string>(
  client: ProbeClient,
  ctx: CheckContext,
  steps: Steps<S>,
  orderNo: string,
  step: NoInfer<S>,
): Promise<Exchange | undefined> {
  if (!ctx.profile.selection.retrievalTrans.fields.includes(FIELD.orderNo)) return undefined;
  return select(client, ctx, steps, 'retrievalTrans', [{ [FIELD.orderNo]: orderNo }], step);
}

/** Fake selection values that match nothing. */
export function fakeValues(ctx: CheckContext, count: number): string[] {
  const tag = randomUUID().slice(0, 8);
  return Array.from({ length: count }, (_, i) => `${ctx.config.orderPrefix}NONE-${tag}-${i + 1}`);
}

// ------------------------------------------------------------------ pages

/** Why pages cannot be followed, or undefined when they can. */
export function cannotFollow(client: ProbeClient): string | undefined {
  return client.follow ? undefined : "the kit's client cannot request pages outside the operations";
}

/**
 * The fields a shopper submits with a form: its inputs; empty card inputs (the profile's card field names) filled
 * with the approve test card of a direct payment sample; and, for a form the page does not submit by itself, the
 * first named submit button (the default button a shopper presses).
 */
export function shopperSubmission(
  client: ProbeClient,
  ctx: CheckContext,
  form: CheckoutFormModel,
  choice?: RegExp,
): Record<string, string> {
  const data: Record<string, string> = { ...form.inputs };
  const card = ctx.profile.fields.card;
  const cardFields = [card.number, card.expiryMonth, card.expiryYear, card.securityCode].filter((f) => data[f] === '');
  if (cardFields.length) {
    const sample = client.sample('authoriseDirect');
    for (const f of cardFields) if (sample[f] !== undefined) data[f] = String(sample[f]);
  }
  const button = form.autoSubmit
    ? undefined
    : choice
      ? form.buttons?.find((b) => choice.test(b.value) || choice.test(b.name))
      : form.buttons?.[0];
  if (button) data[button.name] = button.value;
  return data;
}

/** The documented action of the checkout page's form, on the target (`{base_url}/v1/checkout`). */
function checkoutAction(ctx: CheckContext): string | undefined {
  const action = operationOf(ctx.spec, 'checkout').checkoutForm?.action;
  return action ? new URL(action.replace('{base_url}', ctx.config.baseUrl.replace(/\/$/, ''))).href : undefined;
}

/**
 * Act as the shopper on a page: while the page holds a form, submit it (its method, action and the shopper's
 * submission), at most `hops` times. With `choice`, the button whose value or name matches it is pressed (and a page
 * offering none is left alone). Returns the exchanges in order; `stoppedAt` says why it stopped.
 */
export async function followForms<S extends string>(
  client: ProbeClient,
  ctx: CheckContext,
  steps: Steps<S>,
  start: Exchange,
  hops = 4,
  choice?: RegExp,
  step: NoInfer<S> | 'page' = 'page',
): Promise<{ pages: Exchange[]; stoppedAt: string }> {
  const pages: Exchange[] = [];
  let page = start;
  for (let i = 0; i < hops; i++) {
    const form = formOf(page);
    if (!form || form.forms === 0 || !form.action) return { pages, stoppedAt: 'a page without a form' };
    const action = absoluteUrl(form.action, page.request.url);
    if (!action)
      return {
        pages,
        stoppedAt: `a form whose action ${JSON.stringify(form.action.slice(0, 80))} is not a URL`,
      };
    // The checkout page's form goes to the documented action or nowhere: no data for an action that fails its check.
    const documented = page.operation === 'checkout' ? checkoutAction(ctx) : undefined;
    if (documented && action !== documented)
      return {
        pages,
        stoppedAt: `a checkout form whose action ${action} is not ${documented}; nothing was submitted to it`,
      };
    // A chosen action (declining) is taken only where the page offers a button for it; nothing else is submitted.
    if (choice && !form.autoSubmit && !form.buttons?.some((b) => choice.test(b.value) || choice.test(b.name)))
      return { pages, stoppedAt: `a page without a button matching ${choice}` };
    page = (steps as Steps).add(
      step,
      await client.follow!(action, {
        method: form.method || 'GET',
        form: shopperSubmission(client, ctx, form, choice),
      }),
    );
    pages.push(page);
    if (!page.response || page.response.status >= 400) return { pages, stoppedAt: `a page answered ${describe(page)}` };
  }
  return { pages, stoppedAt: `${hops} forms` };
}

/** A payout request id that was never used (the profile's idempotency key). */
export function freshRequestId(): string {
  return randomUUID();
}
