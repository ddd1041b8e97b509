/**
 * Provider states of the generated pact, and a merchant-side client that makes them true through the interface
 * itself: every state is reached with the same signed HTTP requests a merchant sends (a direct payment, then a
 * capture, then a refund), never by reaching into a gateway's storage.
 */
import { request } from 'undici';
import { encodeForm } from '../core/codecs/form.js';
import { normaliseArrays, readXml } from '../core/codecs/xml.js';
import type { OperationKey } from '../core/model.js';
import type { Profile } from '../core/profile/load.js';
import { maskText } from '../core/mask.js';
import { sign } from '../core/signing.js';
import { renderHeaderValue } from '../core/profile/template.js';
import type { SpecModel } from '../core/spec/load.js';
import { requestExamples } from '../engine/sample.js';
import { ProviderStateError } from '../core/types/errors.js';

/** notify_url of the contract's payment and payout requests: the discard port of the gateway's own host. */
export const PACT_NOTIFY_URL = 'http://127.0.0.1:9/notify';

/** The provider states the generated pact uses, with the values each injects into the request. */
export const STATES = {
  card: {
    name: 'the merchant holds a test card the gateway approves',
    injects: ['card_number', 'expiry_month', 'expiry_year', 'security_code'],
  },
  authorised: { name: 'a payment authorised', injects: ['transaction_id', 'order_no', 'amount', 'currency'] },
  review: { name: 'a payment held for review', injects: ['transaction_id', 'order_no', 'amount', 'currency'] },
  captured: { name: 'a payment captured', injects: ['transaction_id', 'order_no', 'amount', 'currency'] },
  refunded: {
    name: 'a payment refunded',
    injects: ['transaction_id', 'order_no', 'amount', 'currency', 'refund_amount'],
  },
  unknownMethod: { name: 'a payment method the gateway does not offer', injects: ['payment_method'] },
} as const;

export type StateKey = keyof typeof STATES;

/** What the state client needs: the gateway, the merchant's credentials, the profile, test values. */
export interface StateClientOptions {
  target: string;
  spec: SpecModel;
  profile: Profile;
  merchantId: string;
  accountId: string;
  secret: string;
  /** Security code sent with the test card. */
  cardSecurityCode: string;
  /** A payment_method value the gateway does not offer. */
  unknownPaymentMethod: string;
  timeoutMs?: number;
}

/** The extra request headers the profile names, rendered from the body as the kit's client sends them. */
export function profileHeaders(profile: Profile, body: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, template] of Object.entries(profile.requestHeaders.headers ?? {}))
    out[name] = renderHeaderValue(template, body);
  return out;
}

let sequence = 0;

/** Makes provider states true with signed requests to the target. */
export class StateClient {
  constructor(private readonly options: StateClientOptions) {}

  private orderNo(): string {
    sequence += 1;
    return `PACT-${Date.now().toString(36)}-${process.pid}-${sequence}`;
  }

  /** Sign, encode as the profile says, send; the decoded body (XML `respon` or JSON) and the status. */
  async send(
    operation: OperationKey,
    body: Record<string, unknown>,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const { spec, profile, secret, target } = this.options;
    const op = spec.operations.get(operation)!;
    const signature = sign(profile.signature, 'request', operation, body, secret);
    const signed = signature === undefined ? body : { ...body, encryption_data: signature };
    const form = profile.requestMedia.types[operation] === 'form';
    const headers: Record<string, string> = {
      'content-type': `${form ? 'application/x-www-form-urlencoded' : 'application/json'}; charset=utf-8`,
      ...profileHeaders(profile, signed),
    };
    const res = await request(target + op.path, {
      method: 'POST',
      headers,
      body: form ? encodeForm(signed) : JSON.stringify(signed),
      headersTimeout: this.options.timeoutMs ?? 10_000,
      bodyTimeout: this.options.timeoutMs ?? 10_000,
    });
    const text = await res.body.text();
    if (res.statusCode !== 200)
      throw new ProviderStateError(
        `${operation} answered HTTP ${res.statusCode}: ${maskText(text.slice(0, 200), { cards: [...profile.payments.testCards.approve, ...profile.payments.testCards.decline], secrets: [secret] })}`,
      );
    if (operation === 'authoriseDirect' || operation === 'authoriseApm') {
      const xml = readXml(text, 'respon');
      if (!xml.ok) throw new ProviderStateError(`${operation} answered no XML respon: ${xml.problem.detail}`);
      return { status: res.statusCode, body: normaliseArrays(xml.value, ['risk_reasons']) };
    }
    return { status: res.statusCode, body: JSON.parse(text) as Record<string, unknown> };
  }

  /** The card fields of the profile filled with its first approving test card (expiry three years ahead). */
  card(): Record<string, string> {
    const { profile } = this.options;
    const year = new Date().getUTCFullYear() + 3;
    return {
      card_number: profile.payments.testCards.approve[0]!,
      expiry_month: '12',
      expiry_year: profile.fields.card.expiryYearFormat === 'YYYY' ? String(year) : String(year).slice(-2),
      security_code: this.options.cardSecurityCode,
    };
  }

  /** An approved direct payment; `amount` and `email` steer the profile's review rule. */
  async authorise(overrides: Record<string, unknown> = {}): Promise<Record<string, string>> {
    const { spec, profile, merchantId, accountId } = this.options;
    const body: Record<string, unknown> = structuredClone(requestExamples(spec).get('authoriseDirect')!);
    delete body.encryption_data;
    body.notify_url = PACT_NOTIFY_URL; // no notification leaves the gateway's host for a state's payment
    const card = this.card();
    const names = profile.fields.card;
    Object.assign(body, {
      merchant_id: merchantId,
      account_id: accountId,
      order_no: this.orderNo(),
      [names.number]: card.card_number,
      [names.expiryMonth]: card.expiry_month,
      [names.expiryYear]: card.expiry_year,
      [names.securityCode]: card.security_code,
      ...overrides,
    });
    const { body: answer } = await this.send('authoriseDirect', body);
    return {
      transaction_id: String(answer.transaction_id ?? ''),
      order_no: String(body.order_no),
      amount: String(body.amount),
      currency: String(body.currency),
      order_status: String(answer.order_status ?? ''),
    };
  }

  private async batch(
    operation: 'capture' | 'refund',
    item: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const op = this.options.spec.operations.get(operation)!;
    const orders = op.batch!.orders;
    const { body } = await this.send(operation, {
      merchant_id: this.options.merchantId,
      account_id: this.options.accountId,
      [orders]: [item],
    });
    const result = (body[orders] as Record<string, unknown>[] | undefined)?.[0];
    const statusField = op.batch!.status;
    const success = (this.options.profile.statusValues as Record<string, any>)[statusField]?.success;
    if (!result || result[statusField] !== success)
      throw new ProviderStateError(
        `${operation} of ${String(item.transaction_id)} did not succeed: ${JSON.stringify(result ?? body).slice(0, 200)}`,
      );
    return result;
  }

  /** Make a state true; the values the pact's requests take from it. */
  async setUp(state: StateKey): Promise<Record<string, string>> {
    const { profile } = this.options;
    if (state === 'card') return this.card();
    if (state === 'unknownMethod') return { payment_method: this.options.unknownPaymentMethod };
    if (state === 'review') {
      const trigger = profile.review.triggers;
      if (!trigger) throw new ProviderStateError('the profile holds no payment for review (review.triggers: null)');
      const overrides: Record<string, unknown> = {};
      if (trigger.amountAtLeast) overrides.amount = trigger.amountAtLeast;
      else if (trigger.shopperEmailDomains?.[0]) overrides.shopper_email = `shopper@${trigger.shopperEmailDomains[0]}`;
      const payment = await this.authorise(overrides);
      if (payment.order_status !== profile.statusValues.order_status.pendingReview)
        throw new ProviderStateError(`the payment was not held for review (order_status ${payment.order_status})`);
      return pick(payment, STATES.review.injects);
    }
    const payment = await this.authorise();
    if (payment.order_status !== profile.statusValues.order_status.approved)
      throw new ProviderStateError(`the test card's payment was not approved (order_status ${payment.order_status})`);
    if (state === 'authorised') return pick(payment, STATES.authorised.injects);
    const item = {
      transaction_id: payment.transaction_id,
      order_no: payment.order_no,
      currency: payment.currency,
      amount: payment.amount,
    };
    await this.batch('capture', item);
    if (state === 'captured') return pick(payment, STATES.captured.injects);
    await this.batch('refund', { ...item, refund_amount: payment.amount, refund_reason: 'Pact provider state' });
    return { ...pick(payment, STATES.refunded.injects), refund_amount: payment.amount! };
  }
}

function pick(values: Record<string, string>, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.filter((n) => values[n] !== undefined).map((n) => [n, values[n]!]));
}
