/**
 * Valid request bodies built from the spec's own request examples (`requestBody.content[*].examples`), adapted
 * to the run: its merchant and account, a fresh order number, the profile's card fields filled with the
 * configured test card, the profile's anti-fraud cookie name and the kit's notification URL.
 */
import path from 'node:path';
import { readYamlFile } from '../core/yaml.js';
import type { Profile } from '../core/profile/load.js';
import { ifStated } from '../core/profile/reads.js';
import type { OperationKey, RunConfigView } from '../core/model.js';
import type { SpecModel } from '../core/spec/load.js';
import { sinkUrlOf } from './sink.js';
import { SpecError, UsageError } from '../core/types/errors.js';

const examplesCache = new WeakMap<SpecModel, Map<OperationKey, Record<string, unknown>>>();

function matchesVariant(
  value: Record<string, unknown>,
  when: { present?: string; absent?: string } | undefined,
): boolean {
  if (when?.present && !(when.present in value)) return false;
  if (when?.absent && when.absent in value) return false;
  return true;
}

/** The first request example of each operation (by variant for a shared path), read from the spec's files. */
export function requestExamples(spec: SpecModel): Map<OperationKey, Record<string, unknown>> {
  const cached = examplesCache.get(spec);
  if (cached) return cached;
  const out = new Map<OperationKey, Record<string, unknown>>();
  for (const op of spec.operations.values()) {
    const content: Record<string, any> = spec.openapi.paths[op.path]?.post?.requestBody?.content ?? {};
    for (const media of Object.values(content)) {
      for (const example of Object.values<any>(media.examples ?? {})) {
        const value = example.$ref ? readYamlFile(path.join(spec.root, 'spec', example.$ref)).value : example.value;
        if (!out.has(op.key) && value && typeof value === 'object' && matchesVariant(value, op.when))
          out.set(op.key, value);
      }
    }
    if (!out.has(op.key)) throw new SpecError(`spec: no request example for ${op.key}`);
  }
  examplesCache.set(spec, out);
  return out;
}

/** Fresh values of one sample. */
export interface SampleFresh {
  orderNo: string;
  /** Fresh idempotency key (UUID) for operations whose example carries the profile's idempotency key field. */
  requestId: string;
}

/** Run values a sample needs besides the configuration view. */
export interface SampleSettings {
  config: RunConfigView;
  cardSecurityCode: string;
  now?: Date;
}

const cookieNames = new WeakMap<SpecModel, string>();

/** The document's own name of the anti-fraud cookie field: the spec's reference profile keeps the document's word. */
function documentAntifraudField(spec: SpecModel): string {
  let name = cookieNames.get(spec);
  if (!name) {
    const reference = readYamlFile(path.join(spec.root, 'spec', 'profiles', 'reference.yaml')) as Profile;
    cookieNames.set(spec, (name = reference.fields.antifraudTokenCookie));
  }
  return name;
}

/** Card fields of the direct payment (the profile names them; the document does not), filled with a test card. */
export function cardFields(
  profile: Profile,
  number: string,
  securityCode: string,
  now = new Date(),
): Record<string, string> {
  const card = profile.fields.card;
  const year = now.getUTCFullYear() + 3;
  return {
    [card.number]: number,
    [card.expiryMonth]: '12', // December reads the same in the MM and M forms
    [card.expiryYear]: card.expiryYearFormat === 'YYYY' ? String(year) : String(year).slice(-2),
    [card.securityCode]: securityCode,
  };
}

/**
 * The profile's payout currency conversion (schemas/profile.schema.json `payout.currencyConversion`): with `none`,
 * the source currency and amount (when given) must equal the payment's, so the sample makes them equal.
 */
function applyCurrencyConversion(profile: Profile, body: Record<string, unknown>): void {
  if (profile.payout.currencyConversion !== 'none') return;
  if ('source_currency' in body) body.source_currency = body.payment_currency;
  if ('source_amount' in body) body.source_amount = body.payment_amount;
}

/**
 * The part of an operation's sample that is the same for every request of a run: the example adapted to the
 * configuration and the profile, its fields in order, with the order number and the idempotency key still to fill.
 */
interface Prepared {
  body: Record<string, unknown>;
  /** The profile's idempotency key when the example has it. */
  requestIdKey: string | undefined;
  /** The body without the fields an override set removes, by those fields (the body itself for none). */
  without: Map<string, Template>;
}

/** A body to copy: the object, and its fields holding objects or arrays (copied deeply, each request its own). */
interface Template {
  body: Record<string, unknown>;
  nested: string[];
}

/**
 * `body` as a template. It is made by JSON.parse, in the same field order: V8 keeps such an object in fast mode
 * (an object built field by field past a dozen fields, or one a field was deleted from, is a slow dictionary), and
 * copies a fast object in one step.
 */
function templateOf(body: Record<string, unknown>): Template {
  const fast = JSON.parse(JSON.stringify(body)) as Record<string, unknown>;
  return { body: fast, nested: Object.keys(fast).filter((k) => fast[k] !== null && typeof fast[k] === 'object') };
}

/** Prepared samples by spec and profile, then by operation and the run values they read. */
const preparedCache = new WeakMap<SpecModel, WeakMap<Profile, Map<string, Prepared>>>();

function prepare(
  spec: SpecModel,
  profile: Profile,
  settings: SampleSettings,
  operation: OperationKey,
  now: Date,
): Prepared {
  const example = requestExamples(spec).get(operation);
  if (!example) throw new SpecError(`spec: no request example for ${operation}`);
  const body = JSON.parse(JSON.stringify(example)) as Record<string, unknown>;
  const { config } = settings;
  delete body.encryption_data;
  body.merchant_id = config.merchantId;
  body.account_id = config.accountId;
  const idempotencyKey = profile.payout.idempotencyKey;
  if (idempotencyKey in body) applyCurrencyConversion(profile, body);
  // The payout's fee_paid_by value meaning "the payer pays" is the profile's (the document shows PAYER).
  if ('fee_paid_by' in body) body.fee_paid_by = profile.payout.feePaidBy.payer;
  if ('notify_url' in body && config.notifyUrl) body.notify_url = sinkUrlOf(config.notifyUrl);
  const docCookie = documentAntifraudField(spec);
  // A name the profile does not state is not guessed: the field is left out of the request.
  const cookie = ifStated(() => profile.fields.antifraudTokenCookie);
  if (docCookie in body && docCookie !== cookie) {
    if (cookie !== undefined) body[cookie] = body[docCookie];
    delete body[docCookie];
  }
  // The field selecting the APM variant carries the payment method.
  const method = spec.operations.get(operation)?.when?.present;
  if (method && config.paymentMethods.valid[0]) body[method] = config.paymentMethods.valid[0];
  // The profile's card fields belong to the direct card payment request (schemas/profile.schema.json fields.card).
  if (operation === 'authoriseDirect') {
    const approve = config.cards.approve;
    if (!approve) {
      // No approving card because the profile does not state one: the read throws ProfilePointNotStated (not judged).
      void profile.payments.testCards.approve;
      throw new UsageError('config: no test card for the approve outcome');
    }
    Object.assign(body, cardFields(profile, approve, settings.cardSecurityCode, now));
  }
  const template = templateOf(body);
  return {
    body: template.body,
    requestIdKey: idempotencyKey in body ? idempotencyKey : undefined,
    without: new Map([['', template]]),
  };
}

/** `body` copied into a fresh object in the same order, without the fields in `left`. */
function rebuilt(body: Record<string, unknown>, left: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(body)) if (!left.has(key)) put(out, key, body[key]);
  return out;
}

/** The prepared body without the fields `overrides` removes. */
function templateFor(prepared: Prepared, overrides: Record<string, unknown>): Template {
  let removed = '';
  for (const key of Object.keys(overrides))
    if (overrides[key] === undefined && Object.hasOwn(prepared.body, key)) removed += `${key}\u0000`;
  let template = prepared.without.get(removed);
  if (!template) {
    const left = new Set(removed.split('\u0000'));
    if (prepared.without.size >= 64) prepared.without.clear();
    prepared.without.set(removed, (template = templateOf(rebuilt(prepared.body, left))));
  }
  return template;
}

function preparedFor(spec: SpecModel, profile: Profile, settings: SampleSettings, operation: OperationKey): Prepared {
  let byProfile = preparedCache.get(spec);
  if (!byProfile) preparedCache.set(spec, (byProfile = new WeakMap()));
  let byKey = byProfile.get(profile);
  if (!byKey) byProfile.set(profile, (byKey = new Map()));
  const { config } = settings;
  const direct = operation === 'authoriseDirect';
  const now = direct ? (settings.now ?? new Date()) : undefined;
  // Everything the prepared sample read of the run (the card's expiry year turns with the calendar).
  const key = `${operation}\u0000${config.merchantId}\u0000${config.accountId}\u0000${config.notifyUrl ?? ''}\u0000${config.paymentMethods.valid[0] ?? ''}${direct ? `\u0000${config.cards.approve ?? ''}\u0000${settings.cardSecurityCode}\u0000${now!.getUTCFullYear()}` : ''}`;
  let prepared = byKey.get(key);
  if (!prepared) {
    if (byKey.size >= 64) byKey.clear();
    byKey.set(key, (prepared = prepare(spec, profile, settings, operation, now ?? new Date())));
  }
  return prepared;
}

/**
 * A fresh copy of JSON data from a template: objects copied by spreading (one step for a fast object; an own
 * `__proto__` key stays an own property, as JSON.parse makes it), then their object fields copied in turn.
 */
function copyJson(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(copyJson);
  const out: Record<string, unknown> = { ...value };
  for (const key of Object.keys(out)) {
    const field = out[key];
    if (field !== null && typeof field === 'object') out[key] = copyJson(field);
  }
  return out;
}

function put(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/**
 * A valid request body for `operation`, without `encryption_data` (the client signs when sending).
 * `overrides` are applied last; an `undefined` value removes the field.
 */
export function sampleBody(
  spec: SpecModel,
  profile: Profile,
  settings: SampleSettings,
  operation: OperationKey,
  fresh: SampleFresh,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  const prepared = preparedFor(spec, profile, settings, operation);
  const { body, nested } = templateFor(prepared, overrides);
  // A copy of a fast object in one step (no field is ever deleted from it: an object fields were deleted from is a
  // slow dictionary for V8 to copy, serialise and validate, and every request is copied and serialised several
  // times on its way out), then this request's values: fresh nested objects, order number, idempotency key and the
  // overrides (a field they add comes last, in their order).
  const out: Record<string, unknown> = { ...body };
  for (const key of nested) out[key] = copyJson(body[key]);
  if (Object.hasOwn(out, 'order_no')) out.order_no = fresh.orderNo;
  if (prepared.requestIdKey !== undefined && Object.hasOwn(out, prepared.requestIdKey))
    out[prepared.requestIdKey] = fresh.requestId;
  for (const key of Object.keys(overrides)) {
    const value = overrides[key];
    // A new field named __proto__ would set the body's prototype, not add a field: it is left out.
    if (value !== undefined && (key !== '__proto__' || Object.hasOwn(out, key))) out[key] = value;
  }
  return out;
}
