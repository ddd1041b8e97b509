/**
 * What the three payment operations share: card checks from the profile, the outcome rules (decline rules,
 * review triggers), the transaction record, the direct-payment-shaped result and the payment notification.
 */
import type { OperationKey } from '../../core/model.js';
import { luhnValid } from '../../core/mask.js';
import { type DeclineRule, declineOutcome, declineRuleOf } from '../../core/profile/choices.js';
import { addInterval, dateTime } from '../clock.js';
import type { ResolvedAccount } from '../config.js';
import { echo, factsOf, ordered, str, type Gateway, type Refusal } from '../context.js';
import { codeMessage } from '../errors.js';
import { toMinor } from '../money.js';
import { Store, type Outcome, type RiskCheck, type Transaction } from '../store.js';

/**
 * Fields the gateway needs to create any payment. The schemas leave every payment field optional (the document
 * does not show which are required); without these three there is no payment to make.
 */
const PAYMENT_NEEDS = ['order_no', 'currency', 'amount'] as const;

/** Full card data (never logged, never answered). */
export interface CardData {
  number: string;
  expiryMonth: string;
  expiryYear: string;
}

/** Refusals shared by the payment operations: a needed field missing. */
export function paymentNeeds(body: Record<string, unknown>): Refusal[] {
  return PAYMENT_NEEDS.filter((f) => typeof body[f] !== 'string' || body[f] === '').map((f) => ({
    kind: 'invalidInput' as const,
    reason: `${f} is missing`,
  }));
}

const MONTH = { MM: /^(0[1-9]|1[0-2])$/, M: /^(0?[1-9]|1[0-2])$/ };
const YEAR = { YYYY: /^[0-9]{4}$/, YY: /^[0-9]{2}$/ };
// Card conventions the profile does not spell out: 12 to 19 digits (the profile's test-card form), a 3- or 4-digit code.
const CARD_NUMBER = /^[0-9]{12,19}$/;
const SECURITY_CODE = /^[0-9]{3,4}$/;

/** Why the card fields the profile names are unusable (never quoting a value), or undefined when they are fine. */
export function cardProblem(gw: Gateway, source: Record<string, unknown>): string | undefined {
  const f = gw.profile.fields.card;
  const number = source[f.number];
  const month = source[f.expiryMonth];
  const year = source[f.expiryYear];
  if (typeof number !== 'string' || !CARD_NUMBER.test(number)) return `${f.number} is not a card number`;
  if (f.luhnCheck && !luhnValid(number)) return `${f.number} fails the Luhn check`;
  if (typeof month !== 'string' || !MONTH[f.expiryMonthFormat].test(month))
    return `${f.expiryMonth} is not in the form ${f.expiryMonthFormat}`;
  if (typeof year !== 'string' || !YEAR[f.expiryYearFormat].test(year))
    return `${f.expiryYear} is not in the form ${f.expiryYearFormat}`;
  const now = gw.now();
  const fullYear = f.expiryYearFormat === 'YY' ? 2000 + Number(year) : Number(year);
  if (fullYear * 12 + Number(month) < now.getUTCFullYear() * 12 + now.getUTCMonth() + 1) return 'the card has expired';
  const code = source[f.securityCode];
  if (typeof code !== 'string' || !SECURITY_CODE.test(code)) return `${f.securityCode} is not a security code`;
  return undefined;
}

/** The card of a request whose card fields passed `cardProblem`. */
export function readCard(gw: Gateway, source: Record<string, unknown>): CardData {
  const f = gw.profile.fields.card;
  return {
    number: String(source[f.number]),
    expiryMonth: String(source[f.expiryMonth]),
    expiryYear: String(source[f.expiryYear]),
  };
}

/** The card number masked as the profile's `cardMask` says. */
function maskCard(gw: Gateway, number: string): string {
  if (gw.switches.unmaskedCard) return number;
  const { keepFirst, keepLast, maskChar, hiddenWidth } = gw.profile.fields.cardMask;
  const hidden = hiddenWidth === 'perDigit' ? Math.max(0, number.length - keepFirst - keepLast) : hiddenWidth;
  return (
    number.slice(0, Math.min(keepFirst, number.length)) +
    maskChar.repeat(hidden) +
    number.slice(number.length - Math.min(keepLast, number.length - keepFirst))
  );
}

/** The domain of the request's `shopper_email`, lower case ('' without one). */
function emailDomain(body: Record<string, unknown>): string {
  const email = str(body, 'shopper_email') ?? '';
  return email.includes('@') ? email.slice(email.lastIndexOf('@') + 1).toLowerCase() : '';
}

/** The review triggers' amount threshold in minor units, per profile (read once). */
const thresholds = new WeakMap<object, bigint>();

/** The anti-fraud checks the review triggers of the profile define (one passed screening when it holds nothing). */
function riskChecks(gw: Gateway, body: Record<string, unknown>): RiskCheck[] {
  const triggers = gw.profile.review.triggers;
  if (!triggers) return [{ name: 'screening', passed: true }];
  const amount = toMinor(body.amount) ?? 0n;
  const domain = emailDomain(body);
  let threshold = thresholds.get(triggers);
  if (threshold === undefined) thresholds.set(triggers, (threshold = toMinor(triggers.amountAtLeast) ?? 0n));
  return [
    { name: 'amount_threshold', passed: amount < threshold },
    { name: 'email_domain', passed: !triggers.shopperEmailDomains.some((d) => d.toLowerCase() === domain) },
  ];
}

/** The decline rule that decides a payment's decline (the first it triggers: card, security code, e-mail domain, amount). */
function declineRule(gw: Gateway, input: PaymentInput): DeclineRule | undefined {
  return declineRuleOf(gw.profile, {
    cardNumber: input.card?.number,
    securityCode: input.securityCode,
    shopperEmail: input.body.shopper_email,
    amount: input.body.amount,
  });
}

function outcomeOf(gw: Gateway, input: PaymentInput, risk: RiskCheck[]): { outcome: Outcome; rule?: DeclineRule } {
  if (input.declineRequested) return { outcome: 'declined' };
  const rule = declineRule(gw, input);
  if (rule) return { outcome: 'declined', rule };
  return { outcome: risk.every((c) => c.passed) ? 'approved' : 'pendingReview' };
}

/** How a payment is made. */
export interface PaymentInput {
  source: OperationKey;
  account: ResolvedAccount;
  body: Record<string, unknown>;
  card?: CardData;
  /** The security code the request carried (direct payment with a card, not a token). */
  securityCode?: string;
  /** The shopper declined (true) or paid (false) on the issuer or hosted payment page. */
  declineRequested?: boolean;
  /** Paid with this stored-card token. */
  tokenId?: string;
}

/** Delivery fields of the request (kept for the query's `delivery_information`; its field names come from the spec). */
function deliveryOf(gw: Gateway, body: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of factsOf(gw, 'retrievalTrans').records?.objects.delivery_information ?? []) {
    const v = str(body, f);
    if (v !== undefined) out[f] = v;
  }
  return out;
}

/**
 * Create a payment: decide its outcome, store the transaction (and a token when asked), and return the
 * transaction with its result in the direct payment response's fields (unsigned). Synchronous.
 */
export function createPayment(gw: Gateway, input: PaymentInput): { txn: Transaction; result: Record<string, unknown> } {
  const { profile, store } = gw;
  const now = gw.now();
  const body = input.body;
  const risk = riskChecks(gw, body);
  const { outcome, rule } = outcomeOf(gw, input, risk);
  const transactionId = store.nextId('T', now);
  const with3ds = body.open3d === profile.payments.threeDS.requestValue;
  const subscription =
    body.subscription && typeof body.subscription === 'object'
      ? (body.subscription as Record<string, unknown>)
      : undefined;
  const txn: Transaction = {
    transactionId,
    referenceNo: `R${transactionId.slice(1)}`,
    merchantId: input.account.merchant.merchantId,
    accountId: input.account.account.accountId,
    orderNo: String(body.order_no),
    currency: String(body.currency),
    amount: String(body.amount),
    amountMinor: toMinor(body.amount) ?? 0n,
    state:
      input.source === 'authoriseApm' && outcome !== 'pendingReview'
        ? profile.transitions.afterIssuerPage[outcome === 'declined' ? 'declined' : 'paid']
        : profile.transitions.afterAuthorise[outcome],
    outcome,
    declinedBy: rule,
    createdAt: now,
    refundedMinor: 0n,
    refunds: [],
    refundSeq: profile.refunds.referenceId.sequenceStart,
    with3ds,
    risk,
    shopperEmail: str(body, 'shopper_email'),
    shopperPhone: str(body, 'shopper_phone'),
    website: str(body, 'website'),
    delivery: deliveryOf(gw, body),
  };
  if (subscription) {
    const count = Number.parseInt(String(subscription.interval_count ?? '1'), 10);
    txn.subscription = {
      contractName: typeof subscription.contract_name === 'string' ? subscription.contract_name : '',
      recurringId: `RC-${transactionId.slice(1)}`,
      period: typeof subscription.interval_count === 'string' ? subscription.interval_count : '',
      nextDeduction: addInterval(
        now,
        String(subscription.interval ?? 'day'),
        Number.isFinite(count) && count > 0 ? count : 1,
      ),
    };
  }
  let tokenId = input.tokenId;
  if (!tokenId && input.card && outcome !== 'declined' && body.token_flag === profile.payments.token.requestValue) {
    tokenId = `TK${Store.token()}`;
    const { number: cardNumber, expiryMonth, expiryYear } = input.card;
    store.tokens.set(tokenId, {
      tokenId,
      merchantId: txn.merchantId,
      accountId: txn.accountId,
      cardNumber,
      expiryMonth,
      expiryYear,
    });
  }
  if (txn.state === 'captured') txn.capturedMinor = txn.amountMinor;
  store.addTransaction(txn);
  const result = paymentResult(gw, txn, body, input.card, tokenId);
  notifyPayment(gw, input, result);
  return { txn, result };
}

/** The `result_info` pair of a payment: its outcome's, or the one of the decline rule that declined it. */
export function resultInfoOf(gw: Gateway, txn: Transaction): { code: string; message: string } {
  return txn.outcome === 'declined'
    ? declineOutcome(gw.profile, txn.declinedBy).resultInfo
    : gw.profile.payments.resultInfo[txn.outcome];
}

/** The result of a payment in the direct payment response's fields, in schema order, without signature. */
function paymentResult(
  gw: Gateway,
  txn: Transaction,
  body: Record<string, unknown>,
  card: CardData | undefined,
  tokenId: string | undefined,
): Record<string, unknown> {
  const { payments, statusValues } = gw.profile;
  const direct = factsOf(gw, 'authoriseDirect');
  const values: Record<string, unknown> = {
    transaction_id: txn.transactionId,
    card: card ? maskCard(gw, card.number) : undefined,
    order_status: statusValues.order_status[txn.outcome],
    result_info: codeMessage(resultInfoOf(gw, txn)),
    note: str(body, 'note'),
    token_id: tokenId,
    connector: gw.config.connector,
    threeds_result: txn.with3ds
      ? payments.threeDS.resultWhenRequested
      : payments.threeDS.resultWhenNotRequested || undefined,
    risk_action:
      txn.outcome === 'declined'
        ? declineOutcome(gw.profile, txn.declinedBy).riskAction
        : payments.risk.action[txn.outcome],
    risk_score: txn.risk.every((c) => c.passed) ? '10' : '85',
    risk_reasons: txn.risk.map((c) => ({
      name: c.name,
      status: c.passed ? payments.risk.checkStatus.pass : payments.risk.checkStatus.fail,
    })),
  };
  if (txn.subscription) {
    values.contract_name = txn.subscription.contractName;
    values.recurring_id = txn.subscription.recurringId;
    values.recurring_deduction_period = txn.subscription.period;
    values.recurring_deduction_time = dateTime(txn.subscription.nextDeduction);
  }
  echo(direct.model, { ...body, merchant_id: txn.merchantId, account_id: txn.accountId }, values);
  return ordered(direct.responseFields, values);
}

function notifyPayment(gw: Gateway, input: PaymentInput, result: Record<string, unknown>): void {
  const url = str(input.body, 'notify_url');
  const kind = gw.profile.notifications.kinds.payment;
  if (!url || gw.switches.suppressNotifications || !kind.sentAfter.includes(input.source)) return;
  gw.notifier.send({
    kind: 'payment',
    key: String(input.body.order_no),
    url,
    body: result,
    secret: input.account.secret,
    merchantId: input.account.merchant.merchantId,
    accountId: input.account.account.accountId,
  });
}
