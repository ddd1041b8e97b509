/**
 * The interactions of the interface, generated from the spec: one per operation and variant (the direct and APM
 * payments answered in XML `respon`, the hosted checkout's HTML page, the JSON operations, and the APM payment's
 * documented 400 and 404), each request built from the spec's example, encoded and signed as the profile says,
 * each response holding only what the interface guarantees, with matchers derived from the schemas.
 */
import fs from 'node:fs';
import path from 'node:path';
import { encodeForm } from '../core/codecs/form.js';
import type { OperationKey } from '../core/model.js';
import { loadProfile, type Profile } from '../core/profile/load.js';
import { sign } from '../core/signing.js';
import { kitSpec, type OperationModel, type SpecModel } from '../core/spec/load.js';
import { operationSet, recordSource } from '../core/spec/operations.js';
import { KIT_ROOT } from '../core/spec/paths.js';
import { readYamlFile } from '../core/yaml.js';
import { requestExamples } from '../engine/sample.js';
import { buildTemplate, bodyRules, toJsonBody, toXmlBody, type Template } from './matchers.js';
import type {
  Generator,
  MatcherList,
  PactBody,
  PactFile,
  PactInteraction,
  PactRequest,
  PactResponse,
} from './pact-file.js';
import { flatten, shownRecordGuarantee } from './schema.js';
import { PACT_NOTIFY_URL, profileHeaders, STATES, type StateKey } from './states.js';
import type { BatchOperationKey } from '../core/spec/terms.js';
import { SpecError } from '../core/types/errors.js';

/** Consumer and provider names of the generated pact. */
export const CONSUMER = 'merchant';
export const PROVIDER = 'pagi-gateway';

/** The sandbox's example credentials (gateway/config.default.yaml), which sign the generated requests. */
export function sandboxCredentials(): { merchantId: string; accountId: string; secret: string } {
  const config = readYamlFile(path.join(KIT_ROOT, 'gateway', 'config.default.yaml')) as {
    merchants: { merchantId: string; accounts: { accountId: string; secret: string }[] }[];
  };
  const merchant = config.merchants[0]!;
  return {
    merchantId: merchant.merchantId,
    accountId: merchant.accounts[0]!.accountId,
    secret: merchant.accounts[0]!.secret,
  };
}

/** Response body formats, with the content-type rule the spec calls conventional. */
const FORMATS = {
  xml: { example: 'application/xml; charset=utf-8', regex: '^(application|text)/xml(\\s*;.*)?$' },
  html: { example: 'text/html; charset=utf-8', regex: '^text/html(\\s*;.*)?$' },
  json: { example: 'application/json; charset=utf-8', regex: '^application/json(\\s*;.*)?$' },
} as const;

/** Batch results: every request item is answered by one result. */
const BATCH_ANSWERED = 'PAGI-INV-007';
const MEDIA_REQUIREMENT = 'PAGI-MED-009';

/** Checkout page rules (Rust regex syntax; case-insensitive; Pact evaluates them with Oniguruma). */
function checkoutPageRules(spec: SpecModel, submitted: string[]): { matchers: MatcherList; requirements: string[] } {
  const form = spec.operations.get('checkout')!.checkoutForm!;
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // Pact matches a regex against the whole page: each rule is wrapped in `.*` with Oniguruma's dot-all (`m`).
  const input = (name: string) => `<input\\b[^>]*\\bname\\s*=\\s*["']?${esc(name)}["'\\s/>]`;
  const regexes: string[] = [
    `<form\\b[^>]*\\bmethod\\s*=\\s*["']?${esc(form.method)}\\b`,
    `<form\\b[^>]*\\baction\\s*=\\s*["']?[^"'\\s>]*${esc(new URL(form.action.replace('{base_url}', 'http://x')).pathname)}["'\\s>]`,
    `(<body\\b[^>]*\\bonload\\s*=\\s*["'][^"']*submit\\s*\\(|<script\\b[^>]*>[^<]*\\.(request)?submit\\s*\\()`,
    ...[...new Set([...submitted, ...form.aliasNames, form.allParamsName, ...form.gatewayFields])].map(input),
  ];
  return {
    matchers: {
      combine: 'AND',
      matchers: regexes.map((regex) => ({ match: 'regex', regex: `(?im)\\A.*${regex}.*\\z` })),
    },
    requirements: [
      'PAGI-CHK-002',
      'PAGI-CHK-003',
      'PAGI-CHK-004',
      form.submittedFieldsRequirement,
      form.aliasRequirement,
      form.allParamsRequirement,
      form.gatewayFieldsRequirement,
    ],
  };
}

/** One interaction to generate. */
interface Plan {
  operation: OperationKey;
  description: string;
  state?: StateKey;
  status: 200 | 400 | 404;
  /** Changes to the request body after the example is taken (`undefined` removes a field). */
  change?: (body: Record<string, unknown>, profile: Profile) => void;
  /** Request positions (JSONPath) filled from the state's values. */
  inject?: Record<string, string>;
  /** Extra requirement ids the interaction stands on. */
  requirements?: string[];
}

const ITEM_INJECTS = { transaction_id: 'transaction_id', order_no: 'order_no', amount: 'amount', currency: 'currency' };

function batchPlan(
  operation: BatchOperationKey,
  state: StateKey,
  description: string,
  extra: Record<string, string> = {},
): Plan {
  const injects = { ...ITEM_INJECTS, ...extra };
  return {
    operation,
    description,
    state,
    status: 200,
    inject: Object.fromEntries(
      Object.entries(injects).map(([field, value]) => [`$.${operation}_orders[0].${field}`, value]),
    ),
  };
}

/**
 * The selections of the spec, each after the plan making what it selects: those returning payments (the query) after
 * the payments, of the authorised payment; those returning a batch's results after that batch (the refund search
 * after the refund), of the payment the batch left.
 */
const SELECTIONS: Record<string, { after: OperationKey; state: StateKey; description: string }> = {
  payments: { after: 'checkout', state: 'authorised', description: 'a query of the authorised payment' },
  refund: { after: 'refund', state: 'refunded', description: 'a refund search of the refunded payment' },
};

/** Every interaction the generator writes, in order: the fixed plans with the spec's selections among them. */
function plansFor(spec: SpecModel): Plan[] {
  const out: Plan[] = [];
  const selecting = operationSet(spec, 'selecting');
  for (const plan of PLANS) {
    out.push(plan);
    for (const op of selecting) {
      const kind = SELECTIONS[recordSource(spec, op) ?? 'payments'];
      if (kind?.after === plan.operation)
        out.push({ operation: op, description: kind.description, state: kind.state, status: 200 });
    }
  }
  return out;
}

/** The interactions of the operations the spec does not select by (every one but the selections), in order. */
const PLANS: Plan[] = [
  {
    operation: 'authoriseDirect',
    description: 'a direct card payment',
    state: 'card',
    status: 200,
    // The profile names the card fields; the state injects the test card, so no card number is written down.
    change: (body, profile) => {
      const c = profile.fields.card;
      Object.assign(body, {
        [c.number]: '411111******1111',
        [c.expiryMonth]: '12',
        [c.expiryYear]: c.expiryYearFormat === 'YYYY' ? '2030' : '30',
        [c.securityCode]: '***',
      });
    },
  },
  { operation: 'authoriseApm', description: 'an APM payment', status: 200 },
  {
    operation: 'authoriseApm',
    description: 'an APM payment with an amount not in the decimal form',
    status: 400,
    change: (body) => void (body.amount = '150,00'),
    requirements: ['PAGI-APM-004', 'PAGI-FMT-001'],
  },
  {
    operation: 'authoriseApm',
    description: 'an APM payment by a payment method the gateway does not offer',
    state: 'unknownMethod',
    status: 404,
    inject: { '$.payment_method': 'payment_method' },
    requirements: ['PAGI-APM-005'],
  },
  { operation: 'checkout', description: 'a hosted checkout', status: 200 },
  batchPlan('capture', 'authorised', 'a capture of the authorised payment'),
  batchPlan('review', 'review', 'a review of the payment held for review'),
  batchPlan('cancel', 'authorised', 'a cancel of the authorised payment'),
  batchPlan('refund', 'captured', 'a refund of the captured payment', { refund_amount: 'amount' }),
  {
    operation: 'payout',
    description: 'a payout',
    status: 200,
    // Without currency conversion in the profile, the source currency and amount are the payment's.
    change: (body, profile) => {
      if (profile.payout.currencyConversion !== 'none') return;
      if ('source_currency' in body) body.source_currency = body.payment_currency;
      if ('source_amount' in body) body.source_amount = body.payment_amount;
    },
  },
];

/** Options of the generator. */
export interface InteractionOptions {
  /** Profile name under spec/profiles or file (default `reference`). */
  profile?: string;
  spec?: SpecModel;
  /** Secret the requests are signed with (default: the sandbox's example secret). */
  secret?: string;
}

function responseExample(spec: SpecModel, operation: OperationKey): Record<string, unknown> {
  const op = spec.operations.get(operation)!;
  const content: Record<string, any> = spec.openapi.paths[op.path].post.responses['200'].content;
  for (const media of Object.values(content)) {
    for (const example of Object.values<any>(media.examples ?? {})) {
      const value = example.$ref ? readYamlFile(path.join(spec.root, 'spec', example.$ref)).value : example.value;
      if (typeof value === 'string' && operation === 'checkout') return { page: value };
      if (value && typeof value === 'object') {
        const apm = 'issuer_url' in value;
        if (operation === 'authoriseApm' ? apm : operation === 'authoriseDirect' ? !apm : true) return value;
      }
    }
  }
  throw new SpecError(`spec: no response example for ${operation}`);
}

/** The requirement ids a template's matchers stand on. */
function templateRequirements(template: Template, out = new Set<string>()): Set<string> {
  if (template && typeof template === 'object') {
    if ('pagiMatched' in template) {
      for (const r of (template as { requirements: string[] }).requirements) out.add(r);
      const v = (template as { value: unknown }).value;
      if (Array.isArray(v)) for (const item of v) templateRequirements(item as Template, out);
    } else for (const v of Object.values(template)) templateRequirements(v as Template, out);
  }
  return out;
}

/** The request body of a plan from the spec's example, and the positions the provider state fills in it. */
function planRequestBody(
  spec: SpecModel,
  profile: Profile,
  plan: Plan,
): { body: Record<string, unknown>; inject: Record<string, string> } {
  const op = spec.operations.get(plan.operation)!;
  const body: Record<string, unknown> = structuredClone(requestExamples(spec).get(plan.operation)!);
  delete body.encryption_data;
  // Payment and payout requests carry notify_url (Events 1); the contract's points at the verifying host's discard
  // port, so no notification of a verification leaves that host.
  if ('notify_url' in body) body.notify_url = PACT_NOTIFY_URL;
  if (op.batch) body[op.batch.orders] = (body[op.batch.orders] as unknown[]).slice(0, 1);
  plan.change?.(body, profile);
  const inject: Record<string, string> = { ...plan.inject };
  const selection = (profile.selection as Record<string, { fields: string[] } | undefined>)[plan.operation];
  if (selection && plan.state) {
    // The profile's selection field picks the state's payment (which orders a query returns is not shown).
    const field =
      selection.fields.find((f) => (STATES[plan.state!].injects as readonly string[]).includes(f)) ??
      selection.fields[0]!;
    body[field] = field === 'transaction_id' ? 'T202611220001' : 'ORD-20261122-0001';
    inject[`$.${field}`] = field;
  }
  if (plan.operation === 'payout') inject[`$.${profile.payout.idempotencyKey}`] = 'uuid';
  if (plan.operation === 'authoriseDirect') {
    const c = profile.fields.card;
    Object.assign(inject, {
      [`$.${c.number}`]: 'card_number',
      [`$.${c.expiryMonth}`]: 'expiry_month',
      [`$.${c.expiryYear}`]: 'expiry_year',
      [`$.${c.securityCode}`]: 'security_code',
    });
  }
  return { body, inject };
}

/** The body signed as the profile says: the signature in `encryption_data` after the merchant's ids, or as it is. */
function signedBody(
  profile: Profile,
  plan: Plan,
  body: Record<string, unknown>,
  secret: string,
): Record<string, unknown> {
  const signature = sign(profile.signature, 'request', plan.operation, body, secret);
  return signature === undefined
    ? body
    : { merchant_id: body.merchant_id, account_id: body.account_id, encryption_data: signature, ...body };
}

/** The generators filling the injected positions: a fresh UUID, or the provider state's value. */
function requestGenerators(inject: Record<string, string>): Record<string, Generator> {
  const generators: Record<string, Generator> = {};
  for (const [at, value] of Object.entries(inject)) {
    generators[at] =
      value === 'uuid'
        ? { type: 'Uuid', format: 'lower-case-hyphenated' }
        : { type: 'ProviderState', expression: `\${${value}}`, dataType: 'STRING' };
  }
  return generators;
}

/** The interaction's request: the signed body in the profile's media type, with its matchers and generators. */
function pactRequest(
  spec: SpecModel,
  profile: Profile,
  plan: Plan,
  signed: Record<string, unknown>,
  inject: Record<string, string>,
): PactRequest {
  const op = spec.operations.get(plan.operation)!;
  const form = profile.requestMedia.types[plan.operation] === 'form';
  const requestTemplate = buildTemplate(spec, flatten(spec, op.requestSchemaId), signed, { fields: 'all' });
  const generators = requestGenerators(inject);
  const requestBody = toJsonBody(requestTemplate);
  const contentType = `${form ? 'application/x-www-form-urlencoded' : 'application/json'}; charset=utf-8`;
  return {
    method: op.method.toUpperCase(),
    path: op.path,
    headers: {
      'Content-Type': [contentType],
      ...Object.fromEntries(Object.entries(profileHeaders(profile, signed)).map(([k, v]) => [k, [v]])),
    },
    body: { content: form ? encodeForm(signed) : signed, contentType, encoded: false },
    matchingRules: bodyRules(requestBody.rules),
    ...(Object.keys(generators).length ? { generators: { body: generators } } : {}),
  };
}

/** The format of an operation's successful response. */
function responseFormat(op: OperationModel): keyof typeof FORMATS {
  return op.responseMedia.some((m) => m.type.includes('xml'))
    ? 'xml'
    : op.responseMedia.some((m) => m.type === 'text/html')
      ? 'html'
      : 'json';
}

/** A successful XML or JSON response: the example holding only the required fields, with the schemas' matchers. */
function structuredBody(
  spec: SpecModel,
  plan: Plan,
  signed: Record<string, unknown>,
  format: 'xml' | 'json',
  requirements: Set<string>,
): { body: PactBody; rules: ReturnType<typeof toJsonBody>['rules'] } {
  const op = spec.operations.get(plan.operation)!;
  const example = responseExample(spec, plan.operation);
  // A selection's answer holds the record its provider state made (the invariant behind it), a batch's every item.
  const guarantee = shownRecordGuarantee(spec, plan.operation);
  const arrayMin = (pointer: string) => {
    if (op.batch && pointer === `/${op.batch.orders}`)
      return { min: (signed[op.batch.orders] as unknown[]).length, requirement: BATCH_ANSWERED };
    return guarantee && pointer === `/${guarantee.field}` ? { min: 1, requirement: guarantee.requirement } : undefined;
  };
  const template = buildTemplate(spec, flatten(spec, op.responseSchemaId), example, { fields: 'required', arrayMin });
  templateRequirements(template).forEach((r) => requirements.add(r));
  const converted = format === 'xml' ? toXmlBody('respon', template) : toJsonBody(template);
  return {
    body: {
      content: converted.content,
      contentType: format === 'xml' ? 'application/xml' : 'application/json',
      encoded: false,
    },
    rules: converted.rules,
  };
}

/** Fill a successful response: its content type, and the checkout page's rules or the structured body. */
function addSuccessResponse(
  spec: SpecModel,
  plan: Plan,
  signed: Record<string, unknown>,
  response: PactResponse,
  requirements: Set<string>,
): void {
  requirements.add('PAGI-GEN-007');
  const format = responseFormat(spec.operations.get(plan.operation)!);
  const header = {
    'Content-Type': { combine: 'AND' as const, matchers: [{ match: 'regex', regex: FORMATS[format].regex }] },
  };
  requirements.add(MEDIA_REQUIREMENT);
  response.headers = { 'Content-Type': [FORMATS[format].example] };
  if (format === 'html') {
    const page = checkoutPageRules(spec, Object.keys(signed));
    page.requirements.forEach((r) => requirements.add(r));
    const example = responseExample(spec, plan.operation);
    response.body = { content: String(example.page), contentType: 'text/html', encoded: false };
    response.matchingRules = bodyRules({ $: page.matchers }, header);
  } else {
    const structured = structuredBody(spec, plan, signed, format, requirements);
    response.body = structured.body;
    response.matchingRules = bodyRules(structured.rules, header);
  }
}

/** Build one interaction. */
function build(spec: SpecModel, profile: Profile, secret: string, plan: Plan): PactInteraction {
  const { body, inject } = planRequestBody(spec, profile, plan);
  const signed = signedBody(profile, plan, body, secret);
  const interaction: PactInteraction = {
    type: 'Synchronous/HTTP',
    key: `${plan.operation}-${plan.status}`,
    description: `${plan.description} (${plan.operation}, HTTP ${plan.status})`,
    ...(plan.state ? { providerStates: [{ name: STATES[plan.state].name }] } : {}),
    request: pactRequest(spec, profile, plan, signed, inject),
    response: { status: plan.status },
    pending: false,
  };
  const requirements = new Set<string>(plan.requirements ?? []);
  if (plan.status === 200) addSuccessResponse(spec, plan, signed, interaction.response, requirements);
  interaction.comments = {
    text: [`operation: ${plan.operation}`, `requirements: ${[...requirements].sort().join(', ')}`],
  };
  return interaction;
}

/** The generated interactions for a profile (requests signed with the sandbox's example secret unless given). */
export function interactions(options: InteractionOptions = {}): PactInteraction[] {
  const spec = options.spec ?? kitSpec();
  const profile = loadProfile(options.profile ?? 'reference').profile;
  const secret = options.secret ?? sandboxCredentials().secret;
  return plansFor(spec).map((plan) => build(spec, profile, secret, plan));
}

/** The generated pact file for a profile. */
export function generatePact(options: InteractionOptions = {}): PactFile {
  const profile = loadProfile(options.profile ?? 'reference').profile;
  return {
    consumer: { name: CONSUMER },
    provider: { name: PROVIDER },
    interactions: interactions(options),
    metadata: {
      pactSpecification: { version: '4.0' },
      'pagi-conformance': {
        generatedBy: 'npm run pact:generate (pagi-conform pact generate)',
        profile: `${profile.name} ${profile.version}`,
        signedWith: 'the sandbox example secret of gateway/config.default.yaml',
      },
    },
  };
}

/** The file name of a profile's generated pact. */
export function pactFileName(profile: string): string {
  return `${CONSUMER}-${PROVIDER}-${path.basename(profile).replace(/\.ya?ml$/, '')}.json`;
}

/** The text written for a pact (stable: two-space JSON, trailing newline). */
export function pactText(pact: PactFile): string {
  return `${JSON.stringify(pact, null, 2)}\n`;
}

/** Write the generated pact of a profile into `dir`; the file written. */
export function writePact(dir: string, options: InteractionOptions = {}): string {
  const file = path.join(dir, pactFileName(options.profile ?? 'reference'));
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(file, pactText(generatePact(options)));
  return file;
}
