/**
 * Hosted checkout (`/v1/checkout`). The first request answers the page that auto-submits the checkout form to
 * `{base_url}/v1/checkout`; that form POST (recognised by the gateway-added `gbc_id`, the session id) answers the
 * hosted payment page, whose form posts to `/pay/<token>`; paying there creates the payment, once.
 */
import { resolveAccount } from '../config.js';
import type { OperationModel } from '../../core/spec/load.js';
import { liveSession, openSession, str, type Gateway, type GatewayRequest, type OperationHandler } from '../context.js';
import { renderTemplate } from '../../core/profile/template.js';
import { errorReply } from '../errors.js';
import type { HtmlInput } from '../html.js';
import { pageReply, type Reply } from '../reply.js';
import { Store, type Session } from '../store.js';
import { cardProblem, createPayment, paymentNeeds, readCard } from './payment.js';
import { resultPage } from './pages.js';

/** The gateway-added input that carries the checkout session id back to the gateway. */
const SESSION_FIELD = 'gbc_id';

/** Path prefix of the hosted payment page. */
export const PAY_PATH = '/pay/';

/** The value of a hidden input for a submitted value (nested values and numbers as their JSON text). */
function inputValue(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `encodeURIComponent` that never throws: a lone UTF-16 surrogate is encoded as U+FFFD, as UTF-8 would carry it. */
function encodeComponent(text: string): string {
  return encodeURIComponent(text.replace(LONE_SURROGATE, '\uFFFD'));
}

/** Alias names as the page carries them: the spec's list, with a repeated name once or as listed (profile). */
function aliasNames(gw: Gateway, model: OperationModel): string[] {
  const form = model.checkoutForm!;
  if (gw.profile.checkout.duplicateAliasInputs === 'once') return form.aliasNames;
  const listed: unknown = gw.spec.openapi.paths[model.path]?.post?.['x-pagi-checkout-form']?.aliases?.names;
  return Array.isArray(listed) ? listed.map(String) : form.aliasNames;
}

/**
 * The text of a submitted field on the page: the text sent where the profile's gateway keeps a form body's values as
 * text (`requestMedia.formNestedValues: text`), else the value written out (nested values as their JSON text).
 */
function submittedText(req: GatewayRequest, name: string): string {
  const sent = req.formText?.[name];
  return sent !== undefined && Object.hasOwn(req.formText!, name) ? sent : inputValue(req.body[name]);
}

/** The submitted fields that go on the page: all but the profile's full card number and security code. */
function submittedEntries(gw: Gateway, req: GatewayRequest): [string, string][] {
  const card = gw.profile.fields.card;
  return Object.keys(req.body)
    .filter((name) => name !== card.number && name !== card.securityCode)
    .map((name) => [name, submittedText(req, name)]);
}

/** Values the gateway itself gives some of its added inputs (others: the profile's values, else the unsourced value). */
function ownGatewayValues(req: GatewayRequest, token: string): Record<string, string | undefined> {
  return {
    [SESSION_FIELD]: token,
    webSite: str(req.body, 'website'),
    send_bank_website: str(req.body, 'website'),
    source_request_ip: str(req.body, 'shopper_ip') ?? req.remoteAddress,
    source_notify_url: str(req.body, 'notify_url'),
  };
}

/** The auto-submitting checkout page of a new session. */
function checkoutPage(gw: Gateway, req: GatewayRequest, token: string): Reply {
  const form = req.op.model.checkoutForm!;
  const settings = gw.profile.checkout;
  const submitted = submittedEntries(gw, req);
  const inputs: HtmlInput[] = submitted.map(([name, value]) => ({ type: 'hidden', name, value }));
  const submittedNames = new Set(submitted.map(([name]) => name));
  for (const alias of aliasNames(gw, req.op.model)) {
    if (submittedNames.has(alias)) continue; // the submitted field's own input already carries that name
    const source = (settings.aliases as Record<string, string | null>)[alias];
    const value = source && req.body[source] !== undefined ? submittedText(req, source) : settings.unsourcedValue;
    inputs.push({ type: 'hidden', name: alias, value });
  }
  const allParams = submitted.map(([name, value]) => `${encodeComponent(name)}=${encodeComponent(value)}`).join('&');
  inputs.push({ type: 'hidden', name: form.allParamsName, value: allParams });
  const own = ownGatewayValues(req, token);
  const derived = settings.derivedGatewayFields ?? {};
  for (const name of form.gatewayFields) {
    // Values computed from the request (checkout.derivedGatewayFields), e.g. a descriptor made of the order number.
    const computed = Object.hasOwn(derived, name) ? renderTemplate(derived[name]!, req.body) : undefined;
    const value =
      name === SESSION_FIELD
        ? token
        : (settings.gatewayFieldValues?.[name] ?? computed ?? own[name] ?? settings.unsourcedValue);
    inputs.push({ type: 'hidden', name, value });
  }
  return pageReply({
    title: 'Redirecting to the payment page',
    autoSubmit: true,
    paragraphs: [],
    form: {
      name: 'checkout',
      method: form.method,
      action: form.action.replace('{base_url}', gw.baseUrl),
      inputs,
      buttons: [],
    },
  });
}

/** The hosted checkout operation (first request). */
export const checkoutPayment: OperationHandler = {
  refusals: (req) => paymentNeeds(req.body),
  run(req, gw) {
    const token = Store.token();
    openSession(gw, {
      token,
      kind: 'checkout',
      merchantId: req.account.merchant.merchantId,
      accountId: req.account.account.accountId,
      request: req.body,
      createdAt: gw.now(),
    });
    return checkoutPage(gw, req, token);
  },
};

/** The hosted payment page of a pending session. */
function paymentPage(gw: Gateway, session: Session): Reply {
  const card = gw.profile.fields.card;
  const r = session.request;
  return pageReply({
    title: 'Payment',
    autoSubmit: false,
    paragraphs: [{ id: 'order', text: `Order ${String(r.order_no)}: ${String(r.amount)} ${String(r.currency)}` }],
    form: {
      name: 'payment',
      method: 'POST',
      action: `${gw.baseUrl}${PAY_PATH}${session.token}`,
      inputs: [
        { type: 'text', name: card.number, value: '', label: 'Card number' },
        { type: 'text', name: card.expiryMonth, value: '', label: `Expiry month (${card.expiryMonthFormat})` },
        { type: 'text', name: card.expiryYear, value: '', label: `Expiry year (${card.expiryYearFormat})` },
        { type: 'password', name: card.securityCode, value: '', label: 'Security code' },
      ],
      buttons: [
        { name: 'action', value: 'pay', label: 'Pay' },
        { name: 'action', value: 'decline', label: 'Cancel payment' },
      ],
    },
  });
}

/** Whether a `/v1/checkout` body is the checkout form posted back (it carries the gateway's session field). */
export function isPostBack(body: Record<string, unknown>): boolean {
  return Object.hasOwn(body, SESSION_FIELD);
}

/** The pending (or completed) checkout session a posted-back form names, if it matches its merchant account. */
export function postBackSession(gw: Gateway, body: Record<string, unknown>): Session | undefined {
  const session = liveSession(gw, str(body, SESSION_FIELD) ?? '');
  return session &&
    session.kind === 'checkout' &&
    body.merchant_id === session.merchantId &&
    body.account_id === session.accountId
    ? session
    : undefined;
}

/** Answer the posted-back checkout form: the hosted payment page (or the result once paid). */
export function postBackPage(gw: Gateway, session: Session): Reply {
  return session.transactionId ? resultPage(gw, session) : paymentPage(gw, session);
}

/** The hosted payment page (`GET` or `POST /pay/<token>`); `action=pay|decline` completes the payment once. */
export function payPage(gw: Gateway, token: string, form: Record<string, unknown>): Reply {
  const session = liveSession(gw, token);
  if (session?.kind !== 'checkout') return errorReply(gw, 'unknownRecord', 'checkout', form, undefined, 'html');
  if (session.transactionId || (form.action !== 'pay' && form.action !== 'decline')) return postBackPage(gw, session);
  const cardGiven = (str(form, gw.profile.fields.card.number) ?? '') !== '';
  if (form.action === 'pay' && cardGiven) {
    const problem = cardProblem(gw, form);
    if (problem)
      return {
        ...errorReply(gw, 'invalidInput', 'checkout', session.request, undefined, 'html'),
        headers: { 'x-pagi-reason': problem },
      };
  }
  const account = resolveAccount(gw.config, session.merchantId, session.accountId);
  if (!account)
    return errorReply(gw, gw.profile.errors.unknownMerchant, 'checkout', session.request, undefined, 'html');
  const { txn } = createPayment(gw, {
    source: 'checkout',
    account,
    body: session.request,
    card: form.action === 'pay' && cardGiven ? readCard(gw, form) : undefined,
    declineRequested: form.action === 'decline',
  });
  session.transactionId = txn.transactionId;
  gw.store.sessionChanged(session);
  return resultPage(gw, session);
}
