/**
 * Valid request bodies built from the spec's own request examples (`requestBody.content[*].examples`), adapted
 * to the run: its merchant and account, a fresh order number, the profile's card fields filled with the
 * configured test card, the profile's anti-fraud cookie name and the kit's notification URL.
 */
import path from 'node:path';
import { readYamlFile } from '../yaml.js';
import type { Profile } from '../profile/load.js';
import type { OperationKey, RunConfigView } from '../model.js';
import type { SpecModel } from '../spec/load.js';
import { sinkUrlOf } from './sink.js';

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
    if (!out.has(op.key)) throw new Error(`spec: no request example for ${op.key}`);
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

const exampleTexts = new WeakMap<object, string>();

/** An example's JSON text, kept: each request's copy is parsed from it (cheaper than a structured clone each time). */
function exampleText(example: object): string {
  let text = exampleTexts.get(example);
  if (text === undefined) exampleTexts.set(example, (text = JSON.stringify(example)));
  return text;
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
  const example = requestExamples(spec).get(operation);
  if (!example) throw new Error(`spec: no request example for ${operation}`);
  const body = JSON.parse(exampleText(example)) as Record<string, unknown>;
  const { config } = settings;
  delete body.encryption_data;
  body.merchant_id = config.merchantId;
  body.account_id = config.accountId;
  if ('order_no' in body) body.order_no = fresh.orderNo;
  const idempotencyKey = profile.payout.idempotencyKey;
  if (idempotencyKey in body) {
    body[idempotencyKey] = fresh.requestId;
    applyCurrencyConversion(profile, body);
  }
  // The payout's fee_paid_by value meaning "the payer pays" is the profile's (the document shows PAYER).
  if ('fee_paid_by' in body) body.fee_paid_by = profile.payout.feePaidBy.payer;
  if ('notify_url' in body && config.notifyUrl) body.notify_url = sinkUrlOf(config.notifyUrl);
  const docCookie = documentAntifraudField(spec);
  if (docCookie in body && docCookie !== profile.fields.antifraudTokenCookie) {
    body[profile.fields.antifraudTokenCookie] = body[docCookie];
    delete body[docCookie];
  }
  // The field selecting the APM variant carries the payment method.
  const method = spec.operations.get(operation)?.when?.present;
  if (method && config.paymentMethods.valid[0]) body[method] = config.paymentMethods.valid[0];
  // The profile's card fields belong to the direct card payment request (schemas/profile.schema.json fields.card).
  if (operation === 'authoriseDirect') {
    const approve = config.cards.approve;
    if (!approve) throw new Error('config: no test card for the approve outcome');
    Object.assign(body, cardFields(profile, approve, settings.cardSecurityCode, settings.now));
  }
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) delete body[name];
    else body[name] = value;
  }
  // Copied into a fresh object, same order: an object fields were deleted from is slow for V8 to copy, serialise and
  // validate (a dictionary), and every request is copied and serialised several times on its way out.
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(body))
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: body[key], enumerable: true, writable: true, configurable: true });
    else out[key] = body[key];
  return out;
}
