/**
 * The hosted checkout page (`checkout`): a checkout request carrying every field of its schema, each with a value
 * no other field has, so each alias input names its source by its value; the value of inputs with no source; how
 * many inputs a name the document lists twice gets; the gateway-added inputs whose value is the same on two pages.
 */
import { answerOf } from '../answers.js';
import { attempt, type Discoverer, type Facts } from '../context.js';
import { schemaFields } from '../fields.js';
import type { CheckoutFormSpec } from '../../core/spec/load.js';
import type { Session } from '../session.js';

/** Fields distinctBody sends only given a value from elsewhere: a stored card's token, a valid payment method. */
const LACKING = ['token_id', 'payment_method'];

const COUNTRIES = ['FR', 'GB', 'IT', 'ES', 'NL', 'BE', 'AT', 'PL', 'SE', 'DK'];

/** A checkout body whose scalar values are pairwise different (valid forms kept). */
function distinctBody(s: Session, facts: Facts, n: number, madeUpToken: boolean): Record<string, unknown> {
  const body = s.body('checkout');
  const direct = s.body('authoriseDirect');
  const fields = schemaFields(s.spec, s.spec.operations.get('checkout')!.requestSchemaId);
  const card = new Set(Object.values(s.work.fields.card).filter((v) => typeof v === 'string') as string[]);
  for (const f of [...fields, 'payment_method']) {
    if (body[f] !== undefined || f === 'encryption_data' || card.has(f)) continue;
    if (f === 'token_id') {
      // Without a stored card, a token of the probe's own: a gateway that takes it shows which alias carries it.
      if (facts.tokenId) body[f] = facts.tokenId;
      else if (madeUpToken) body[f] = `tok${n}probe`;
    } else if (f === 'payment_method') {
      if (s.options.paymentMethods.valid[0]) body[f] = s.options.paymentMethods.valid[0];
    } else if (/url$/i.test(f)) body[f] = `https://merchant.example/${f}/${n}`;
    else if (direct[f] !== undefined && typeof direct[f] !== 'object') body[f] = direct[f];
  }
  const used = new Set<string>();
  for (const [k, v] of Object.entries(body)) {
    if (typeof v !== 'string' && typeof v !== 'number') continue;
    let text = String(v);
    if (k === 'merchant_id' || k === 'account_id' || k === 'order_no' || k === 'currency' || k === 'amount') {
      used.add(text);
      continue;
    }
    let i = 1;
    while (used.has(text) || text === '') {
      if (/^[0-9]+\.[0-9]{2}$/.test(String(v))) text = (Number(v) + i / 100).toFixed(2);
      else if (/^[A-Z]{2}$/.test(String(v))) text = COUNTRIES[(i - 1) % COUNTRIES.length]!;
      else if (/^https?:/.test(String(v))) text = `${String(v)}${String(v).includes('?') ? '&' : '?'}v=${i}`;
      else if (/@/.test(String(v))) text = `${i}.${String(v)}`;
      else if (typeof v === 'number') text = String(Number(v) + i);
      else text = `${String(v)}-${i}`;
      i++;
      if (i > 50) break;
    }
    used.add(text);
    body[k] = typeof v === 'number' ? Number(text) : text;
  }
  return body;
}

/** Checkout page `n` (1 or 2) of a body whose values are pairwise different. */
async function page(s: Session, facts: Facts, n: number, madeUpToken = false) {
  const body = distinctBody(s, facts, n, madeUpToken);
  // The second page's order number is longer, with lower-case letters, and its website on another host: a value the gateway computes from
  // them (a length, a host) then differs between the pages.
  if (n === 2) {
    body.order_no = `${String(body.order_no)}x7q`;
    if (typeof body.website === 'string') body.website = 'https://second-shop.example/store';
  }
  const r = await attempt(s, 'checkout', body);
  const a = answerOf(r.x);
  const d = r.x.response?.decoded;
  const form = d?.kind === 'html' ? d.form : undefined;
  const sent = (r.x.request.body as Record<string, unknown> | undefined) ?? body;
  return { x: r.x, body: sent, inputs: a?.page?.inputs ?? {}, order: form?.inputOrder ?? [], ok: !r.refusal };
}

/** A checkout page: the exchange, the body sent, the form's inputs (and their order), whether it was taken. */
type Page = Awaited<ReturnType<typeof page>>;

/** A request value as text (undefined: not a scalar). */
const text = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : undefined);

async function run(s: Session, facts: Facts): Promise<void> {
  const d = s.draft;
  const model = s.spec.operations.get('checkout')!.checkoutForm!;
  const madeUp = !facts.tokenId;
  let one = await page(s, facts, 1, madeUp);
  // A gateway that refuses a token it never issued: the page without one (its aliases then say less, aliasSources).
  if (madeUp && !one.ok) one = await page(s, facts, 1);
  if (!one.ok || !Object.keys(one.inputs).length) {
    d.unknown(
      'checkout',
      'the checkout request was not answered with a page holding a form',
      undefined,
      s.evidence(one.x),
    );
    return;
  }
  const two = await page(s, facts, 2, madeUp && one.body.token_id !== undefined);
  const unsourced = aliasSources(s, model, one);
  const common = unsourcedValue(s, unsourced);
  listedForms(s, model, one);
  gatewayFields(s, model, one, two, common);
}

/** Each alias input's source: the request field holding its value; returns the values of inputs with none. */
function aliasSources(s: Session, model: CheckoutFormSpec, one: Page): string[] {
  const ev = s.evidence(one.x, 'a checkout whose fields all hold different values');
  const aliases = [...new Set(model.aliasNames.filter((a) => a !== model.allParamsName))];
  const sources: Record<string, string | null> = {};
  const unsourced: string[] = [];
  // The fields the probe would have sent had it had a value (a token needs a stored card or a gateway that takes one
  // made up, a payment method one the options list): an alias input holding no value sent may be one of theirs.
  const unsent = LACKING.filter((f) => one.body[f] === undefined || one.body[f] === '');
  for (const alias of aliases) {
    const value = one.inputs[alias];
    const fromRequest = Object.keys(one.body).filter(
      (k) => text(one.body[k]) === value && value !== undefined && value !== '',
    );
    // A gateway shows an alias whose source was not sent as it shows one without a source (checkout.unsourcedValue).
    if (!(alias in one.body) && !fromRequest.length && unsent.length) {
      s.draft.unknown(
        `checkout.aliases.${alias}`,
        `the ${alias} input held ${JSON.stringify(value ?? '')}, no value the checkout request sent, and the request held no value for ${unsent.join(', ')}: is one of them its source (or none, null)?`,
        undefined,
        ev,
      );
      continue;
    }
    if (alias in one.body || !fromRequest.length) {
      sources[alias] = null;
      if (value !== undefined && !(alias in one.body)) unsourced.push(value);
      continue;
    }
    sources[alias] =
      fromRequest.length === 1
        ? fromRequest[0]!
        : (fromRequest.find((f) => f.replace(/_/g, '').toLowerCase().includes(alias.toLowerCase().slice(0, 4))) ??
          fromRequest[0]!);
  }
  s.draft.set(
    'checkout.aliases',
    sources,
    `${ev}: each alias input's value matched to the request field holding it (null: no field holds it, or the alias is a field's own name)`,
  );
  return unsourced;
}

/** The value most alias inputs without a source hold (returned with their count). */
function unsourcedValue(s: Session, unsourced: string[]): [string, number] | undefined {
  const counts = new Map<string, number>();
  for (const v of unsourced) counts.set(v, (counts.get(v) ?? 0) + 1);
  const common = [...counts].sort((a, b) => b[1] - a[1])[0];
  if (common)
    s.draft.set(
      'checkout.unsourcedValue',
      common[0],
      `${common[1]} alias inputs without a source hold ${JSON.stringify(common[0])}`,
    );
  else
    s.draft.unknown(
      'checkout.unsourcedValue',
      'every alias input had a source: the value of an input without one no probe saw',
    );
  return common;
}

/** How many inputs a name the document lists twice gets, and the order of the all-parameters input. */
function listedForms(s: Session, model: CheckoutFormSpec, one: Page): void {
  const d = s.draft;
  // The document's list as written (the spec model keeps each name once).
  const written: string[] =
    s.spec.openapi.paths?.[s.spec.operations.get('checkout')!.path]?.post?.['x-pagi-checkout-form']?.aliases?.names ??
    model.aliasNames;
  const listedTwice = written.filter((a, i) => written.indexOf(a) !== i);
  if (listedTwice.length) {
    const n = one.order.filter((x) => x === listedTwice[0]).length;
    d.set('checkout.duplicateAliasInputs', n > 1 ? 'asListed' : 'once', `${n} input(s) named ${listedTwice[0]}`);
  }
  const allParams = one.inputs[model.allParamsName] ?? '';
  const firstField = Object.keys(one.body)[0]!;
  if (allParams.startsWith(`${encodeURIComponent(firstField)}=`))
    d.set(
      'checkout.allParams.order',
      'requestOrder',
      `${model.allParamsName} starts with ${firstField}, the request's first field`,
    );
  else d.unknown('checkout.allParams.order', `${model.allParamsName} does not start with the request's first field`);
}

/** Gateway-added inputs: those computed from a request field, and those holding the same value on both pages. */
function gatewayFields(
  s: Session,
  model: CheckoutFormSpec,
  one: Page,
  two: Page,
  common: [string, number] | undefined,
): void {
  const d = s.draft;
  // Gateway-added inputs computed from the request: a request field (through one filter), between fixed texts,
  // renders both pages' values, and the two differ.
  const derived: Record<string, string> = {};
  for (const name of model.gatewayFields) {
    const v1 = one.inputs[name];
    const v2 = two.inputs[name];
    if (!v1 || v2 === undefined || v1 === v2) continue;
    const t = derivedTemplate(one.body, two.body, v1, v2);
    if (t) derived[name] = t;
  }
  if (Object.keys(derived).length)
    d.set(
      'checkout.derivedGatewayFields',
      derived,
      `${s.evidence(one.x)}; ${s.evidence(two.x, 'a longer order number, another website')}`,
    );
  // Gateway-added inputs: a value the same on two pages of different requests, not taken from them.
  const values: Record<string, string> = {};
  const requestValues = new Set([...Object.values(one.body), ...Object.values(two.body)].map(text));
  for (const name of model.gatewayFields) {
    const v = one.inputs[name];
    if (v === undefined || v === '' || v !== two.inputs[name] || v === common?.[0] || requestValues.has(v)) continue;
    if (name in derived) continue;
    values[name] = v;
  }
  d.set(
    'checkout.gatewayFieldValues',
    values,
    `gateway-added inputs with the same value on two pages of different requests`,
  );
}

const FILTERS = ['', 'length', 'upper', 'lower', 'host'] as const;

function filtered(value: unknown, filter: (typeof FILTERS)[number]): string {
  const t = typeof value === 'string' || typeof value === 'number' ? String(value) : '';
  if (filter === 'length') return String(t.length);
  if (filter === 'upper') return t.toUpperCase();
  if (filter === 'lower') return t.toLowerCase();
  if (filter === 'host') {
    try {
      return new URL(t).hostname;
    } catch {
      return '';
    }
  }
  return t;
}

/** The `derivedGatewayFields` template rendering `v1` from `b1` and `v2` from `b2` (undefined: none of the forms). */
export function derivedTemplate(
  b1: Record<string, unknown>,
  b2: Record<string, unknown>,
  v1: string,
  v2: string,
): string | undefined {
  for (const filter of FILTERS)
    for (const field of Object.keys(b1)) {
      const r1 = filtered(b1[field], filter);
      const r2 = filtered(b2[field], filter);
      if (!r1 || r1 === r2) continue;
      // A filter that changes neither value tells nothing (an already lower-case field through |lower).
      if (filter && r1 === filtered(b1[field], '') && r2 === filtered(b2[field], '')) continue;
      for (let i = v1.indexOf(r1); i >= 0; i = v1.indexOf(r1, i + 1)) {
        const prefix = v1.slice(0, i);
        const suffix = v1.slice(i + r1.length);
        // A plain copy of a request field is no computation (the page's own rules cover copies).
        if (!filter && !prefix && !suffix) continue;
        if (v2 === `${prefix}${r2}${suffix}` && !/[{}]/.test(prefix + suffix))
          return `${prefix}{request.${field}${filter ? `|${filter}` : ''}}${suffix}`;
      }
    }
  return undefined;
}

export const checkoutDiscoverer: Discoverer = {
  id: 'checkout',
  decides: ['checkout'],
  after: ['payments'],
  run,
};
