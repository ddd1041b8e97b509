/**
 * Cases of the choices real gateways make that the profile format states: decline outcomes per rule, wording and
 * check order per operation, messages pinned as a prefix, an unknown merchant as its own kind, error envelopes with
 * empty result lists, payout failure fields under an HTTP error, the signing of booleans, nulls and nested form
 * values, fees to the cent, checkout inputs computed from the request, notifications in the gateway's own shape.
 */
import type { CheckoutFormModel, Exchange, Observation, OperationKey } from '../../../core/model.js';
import type { Profile } from '../../../core/profile/load.js';
import {
  context,
  errorExchange,
  exchange,
  happyExchange,
  happyObservation,
  observation,
  profile,
} from '../fixtures.js';
import { type Case, fail, pass } from './types.js';

const IDS = { merchant_id: 'M10001', account_id: 'A20001' };

/** The reference profile changed by `change`. */
const ctxWith = (change: (p: Profile) => void) => () => context({ profile: change });

/** A JSON error answer of an operation: the reference envelope with `code:message`, and `extra` members. */
function jsonError(
  op: OperationKey,
  status: number,
  codeMessage: string,
  extra: Record<string, unknown> = {},
  request: Record<string, unknown> = IDS,
): Exchange {
  return exchange(op, {
    request,
    status,
    json: {
      merchant_id: request.merchant_id,
      account_id: request.account_id,
      return_status: '0',
      return_message: codeMessage,
      ...extra,
    },
  });
}

// ------------------------------------------------------------------ unknown merchant, envelopes, payout failures

/** The `unknownMerchant` probe's observation, both requests answered by `answer`. */
function unknownMerchant(op: OperationKey, answer: (request: Record<string, unknown>) => Exchange): Observation {
  const merchant = answer({ merchant_id: 'FXNONE-1', account_id: 'A20001' });
  const account = answer({ merchant_id: 'M10001', account_id: 'FXNONE-2' });
  return observation('unknownMerchant', op, merchant, { unknownMerchant: merchant, unknownAccount: account });
}

/** A kind of its own for unknown merchants (`E410`, HTTP 401). */
function ownKind(p: Profile): void {
  p.errors.kinds.unknownMerchant = { status: 401, code: 'E410', message: 'Unknown merchant account' };
  p.errors.precedence = [...p.errors.precedence, 'unknownMerchant'];
  p.errors.unknownMerchant = 'unknownMerchant';
}

const UNKNOWN_MERCHANT_CASES: Case[] = [
  pass('unknownMerchantRefusedPerProfile', 'PAGI-PRF-010', "the profile's badSignature (reference)", 'capture', () =>
    unknownMerchant('capture', (r) => errorExchange('capture', 'badSignature', r)),
  ),
  fail(
    'unknownMerchantRefusedPerProfile',
    'PAGI-PRF-010',
    'accepted',
    'capture',
    () => unknownMerchant('capture', () => happyExchange('capture')),
    ['NOT_REFUSED'],
  ),
  pass(
    'unknownMerchantRefusedPerProfile',
    'PAGI-PRF-010',
    'a kind of its own',
    'capture',
    () => unknownMerchant('capture', (r) => jsonError('capture', 401, 'E410:Unknown merchant account', {}, r)),
    ctxWith(ownKind),
  ),
  fail(
    'unknownMerchantRefusedPerProfile',
    'PAGI-PRF-010',
    'a bad signature where the profile has a kind of its own',
    'capture',
    () => unknownMerchant('capture', (r) => errorExchange('capture', 'badSignature', r)),
    ['ERROR_ANSWER'],
    ctxWith(ownKind),
  ),
  pass(
    'unknownMerchantRefusedPerProfile',
    'PAGI-PRF-010',
    'an error envelope carrying the empty result list (emptyResults)',
    'capture',
    () =>
      unknownMerchant('capture', (r) => jsonError('capture', 401, '1001:Invalid signature', { capture_orders: [] }, r)),
    ctxWith((p) => void (p.errors.bodies.json.emptyResults = true)),
  ),
  fail(
    'unknownMerchantRefusedPerProfile',
    'PAGI-PRF-010',
    'an error envelope without the result list the profile says it carries',
    'capture',
    () => unknownMerchant('capture', (r) => errorExchange('capture', 'badSignature', r)),
    ['ERROR_ANSWER'],
    ctxWith((p) => void (p.errors.bodies.json.emptyResults = true)),
  ),
  pass(
    'unknownMerchantRefusedPerProfile',
    'PAGI-PRF-010',
    'payout failure fields under an HTTP error (httpFailureType)',
    'payout',
    () =>
      unknownMerchant('payout', (r) =>
        exchange('payout', {
          request: r,
          status: 401,
          json: { ...r, status: 'FAILED', failure_type: '1001', failure_reason: 'Invalid signature' },
        }),
      ),
    ctxWith((p) => void (p.errors.refusalForms.payout = ['httpFailureType'])),
  ),
  fail(
    'unknownMerchantRefusedPerProfile',
    'PAGI-PRF-010',
    'payout failure fields with HTTP 200 where the profile says an HTTP error carries them',
    'payout',
    () =>
      unknownMerchant('payout', (r) =>
        exchange('payout', {
          request: r,
          status: 200,
          json: { ...r, status: 'FAILED', failure_type: '1001', failure_reason: 'Invalid signature' },
        }),
      ),
    ['NOT_REFUSED'],
    ctxWith((p) => void (p.errors.refusalForms.payout = ['httpFailureType'])),
  ),
];

// ------------------------------------------------------------------ check order and wording per operation

const twoFaults = (op: OperationKey, main: Exchange) =>
  observation('twoFaults', op, main, { [op]: main }, { invalidField: 'currency' });

/** The reference profile with the payout checking its input before the signature. */
function payoutInputFirst(p: Profile): void {
  const order: Profile['errors']['precedence'] = p.errors.precedence.filter((k) => k !== 'invalidInput');
  order.splice(order.indexOf('badSignature'), 0, 'invalidInput');
  p.errors.precedenceByOperation = { payout: order };
}

const ORDER_AND_WORDING_CASES: Case[] = [
  pass(
    'requestFaultsResolvedInProfileOrder',
    'PAGI-PRF-001',
    "the payout's own order: input first (precedenceByOperation)",
    'payout',
    () => twoFaults('payout', errorExchange('payout', 'invalidInput', IDS)),
    ctxWith(payoutInputFirst),
  ),
  fail(
    'requestFaultsResolvedInProfileOrder',
    'PAGI-PRF-001',
    "another operation keeps the profile's order: signature first",
    'authoriseDirect',
    () => twoFaults('authoriseDirect', errorExchange('authoriseDirect', 'invalidInput', IDS)),
    ['ERROR_ANSWER'],
    ctxWith(payoutInputFirst),
  ),
  pass(
    'requestFaultsResolvedInProfileOrder',
    'PAGI-PRF-001',
    "the payout's own wording of invalid input (byOperation)",
    'payout',
    () => twoFaults('payout', jsonError('payout', 400, 'P422:Payout rejected')),
    ctxWith((p) => {
      payoutInputFirst(p);
      p.errors.byOperation = { payout: { invalidInput: { code: 'P422', message: 'Payout rejected', pinned: true } } };
    }),
  ),
  fail(
    'requestFaultsResolvedInProfileOrder',
    'PAGI-PRF-001',
    "the kind's own wording where the payout words it otherwise",
    'payout',
    () => twoFaults('payout', errorExchange('payout', 'invalidInput', IDS)),
    ['ERROR_ANSWER'],
    ctxWith((p) => {
      payoutInputFirst(p);
      p.errors.byOperation = { payout: { invalidInput: { code: 'P422', message: 'Payout rejected' } } };
    }),
  ),
  pass(
    'requestFaultsResolvedInProfileOrder',
    'PAGI-PRF-001',
    'a message pinned as a prefix, with a detail after it',
    'payout',
    () => twoFaults('payout', jsonError('payout', 400, '1002:Invalid input: /currency must match pattern')),
    ctxWith((p) => {
      payoutInputFirst(p);
      p.errors.kinds.invalidInput.pinned = 'prefix';
    }),
  ),
  fail(
    'requestFaultsResolvedInProfileOrder',
    'PAGI-PRF-001',
    'a message not starting with the one pinned as a prefix',
    'payout',
    () => twoFaults('payout', jsonError('payout', 400, '1002:Bad currency')),
    ['ERROR_ANSWER'],
    ctxWith((p) => {
      payoutInputFirst(p);
      p.errors.kinds.invalidInput.pinned = 'prefix';
    }),
  ),
];

// ------------------------------------------------------------------ decline outcomes

/** A fraud decline (e-mail domain) with its own result_info and risk_action, before the reference's card rule. */
function fraudRule(p: Profile): void {
  p.payments.declineRules = [
    {
      shopperEmailDomain: 'fraud.example',
      resultInfo: { code: 'F059', message: 'Suspected fraud', pinned: true },
      riskAction: 'DENY',
    },
    ...p.payments.declineRules,
  ];
}

/** A declined direct payment by a shopper at `fraud.example`, answered with `resultInfo` and `riskAction`. */
function fraudDecline(resultInfo: string, riskAction: string): Observation {
  const main = happyExchange('authoriseDirect', (b) => {
    b.request.shopper_email = 'buyer@fraud.example';
    Object.assign(b.response, {
      order_status: profile.statusValues.order_status.declined,
      result_info: resultInfo,
      risk_action: riskAction,
    });
  });
  return observation('declinedPayment', 'authoriseDirect', main, { authoriseDirect: main }, { rules: [] });
}

const DECLINE_CASES: Case[] = [
  pass(
    'declinedCardDeclinedPerProfile',
    'PAGI-PAY-013',
    "a fraud decline with its rule's own result_info and risk_action",
    'authoriseDirect',
    () => fraudDecline('F059:Suspected fraud', 'DENY'),
    ctxWith(fraudRule),
  ),
  fail(
    'declinedCardDeclinedPerProfile',
    'PAGI-PAY-013',
    "a fraud decline worded as the profile's other declines",
    'authoriseDirect',
    () => fraudDecline('0051:Declined', 'DENY'),
    ['STATUS_VALUE'],
    ctxWith(fraudRule),
  ),
  fail(
    'declinedCardDeclinedPerProfile',
    'PAGI-PAY-013',
    "a fraud decline with the declined outcome's risk_action",
    'authoriseDirect',
    () => fraudDecline('F059:Suspected fraud', 'ACCEPT'),
    ['STATUS_VALUE'],
    ctxWith(fraudRule),
  ),
];

// ------------------------------------------------------------------ signing of booleans, nulls and nested form values

function signedValues(own: Exchange, other?: Exchange): Observation {
  const steps: Record<string, Exchange> = { scalars: own };
  if (other) steps.scalarsOther = other;
  return observation('signedValues', 'authoriseDirect', own, steps, {
    parts: [{ step: 'scalars', encoding: 'json', choiceSigned: other !== undefined }],
  });
}

const SIGNING_CASES: Case[] = [
  pass(
    'valuesSignedPerProfile',
    'PAGI-PRF-011',
    'accepted as signed, refused signed the other way',
    'authoriseDirect',
    () => signedValues(happyExchange('authoriseDirect'), errorExchange('authoriseDirect', 'badSignature', IDS)),
  ),
  pass('valuesSignedPerProfile', 'PAGI-PRF-011', 'the same string to sign either way', 'authoriseDirect', () =>
    signedValues(happyExchange('authoriseDirect')),
  ),
  fail(
    'valuesSignedPerProfile',
    'PAGI-PRF-011',
    "refused for its signature although signed as the profile's leaveOut says",
    'authoriseDirect',
    () => signedValues(errorExchange('authoriseDirect', 'badSignature', IDS)),
    ['REQUEST_REFUSED'],
  ),
  fail(
    'valuesSignedPerProfile',
    'PAGI-PRF-011',
    'accepted although signed the other way',
    'authoriseDirect',
    () => signedValues(happyExchange('authoriseDirect'), happyExchange('authoriseDirect')),
    ['NOT_REFUSED'],
  ),
];

// ------------------------------------------------------------------ fees, computed inputs, own notification shape

/** A payout answer with a fee kept to the cent (1.25 % of 1000 = 12.5). */
function centPayout(fee: number, paidBy: string): Exchange {
  return happyExchange('payout', (b) => {
    b.request.payment_amount = '1000';
    b.request.fee_paid_by = paidBy;
    const payer = paidBy === profile.payout.feePaidBy.payer;
    Object.assign(b.response, {
      payment_amount: '1000',
      fee_paid_by: paidBy,
      fee_amount: fee,
      amount_payer_pays: payer ? 1000 + fee : 1000,
      amount_beneficiary_receives: payer ? 1000 : 1000 - fee,
    });
    const beneficiary = b.response.beneficiary as { bank_details: Record<string, unknown> };
    beneficiary.bank_details.local_clearing_system = profile.payout.localClearingSystem;
  });
}
const centFee = ctxWith(
  (p) => void (p.payout.fee = { type: 'percentage', percent: '1.25', rounding: 'halfUp', decimals: 2 }),
);
const payoutPair = (fee: number) => {
  const first = centPayout(fee, profile.payout.feePaidBy.payer);
  const beneficiaryPays = centPayout(fee, profile.payout.feePaidBy.beneficiary);
  return observation('payoutLifecycle', 'payout', first, { first, replay: first, beneficiaryPays });
};

/** The checkout page with `descriptor` holding `value`; the profile computes it from the order number. */
const derived = (value: (orderNo: string) => string) => () =>
  happyObservation('checkout', (b) => {
    (b.response as unknown as CheckoutFormModel).inputs.descriptor = value(String(b.request.order_no));
  });
const descriptorRule = ctxWith(
  (p) => void (p.checkout.derivedGatewayFields = { descriptor: 'SHOP*{request.order_no|upper}' }),
);

/** A notification in the gateway's own shape (`event`, `payment.order_no`, `payment.status`). */
function ownShape(p: Profile): void {
  p.notifications.kinds.payment.ownShape = {
    schema: {
      type: 'object',
      required: ['event', 'payment'],
      properties: {
        event: { const: 'payment.result' },
        payment: {
          type: 'object',
          required: ['order_no', 'status'],
          properties: { order_no: { type: 'string' }, status: { type: 'string' } },
        },
      },
    },
    template: {
      event: 'payment.result',
      payment: { order_no: '{response.order_no}', status: '{response.order_status}' },
    },
  };
}
function ownShapeNotified(body: Record<string, unknown>): Observation {
  const main = happyExchange('authoriseDirect');
  const n = exchange('external', {
    method: 'POST',
    request: body,
    requestHeaders: { 'content-type': 'application/json' },
    status: 200,
    bodyText: '',
  });
  return observation(
    'notified',
    'authoriseDirect',
    main,
    { authoriseDirect: main, notification: n },
    {
      key: 'O1',
      notifications: 1,
      signatures: {},
    },
  );
}
const mainOrder = () => {
  const main = happyExchange('authoriseDirect');
  const decoded = main.response!.decoded as { value: Record<string, string> };
  return { orderNo: decoded.value.order_no!, status: decoded.value.order_status! };
};

const VALUE_CASES: Case[] = [
  pass(
    'payoutFeesPerProfile',
    'PAGI-PRF-004',
    'a fee kept to the cent (decimals: 2)',
    'payout',
    () => payoutPair(12.5),
    centFee,
  ),
  fail(
    'payoutFeesPerProfile',
    'PAGI-PRF-004',
    'a fee rounded to whole units where the profile keeps cents',
    'payout',
    () => payoutPair(13),
    ['PAYOUT_AMOUNTS'],
    centFee,
  ),
  pass(
    'checkoutFormHasGatewayFields',
    'PAGI-CHK-010',
    'an input computed from the request (derivedGatewayFields)',
    'checkout',
    derived((orderNo) => `SHOP*${orderNo.toUpperCase()}`),
    descriptorRule,
  ),
  fail(
    'checkoutFormHasGatewayFields',
    'PAGI-CHK-010',
    'an input not computed as the profile says',
    'checkout',
    derived((orderNo) => `SHOP-${orderNo}`),
    ['FORM_INPUT_VALUE'],
    descriptorRule,
  ),
  pass(
    'notificationFollowsProfile',
    'PAGI-EVT-002',
    "a body in the gateway's own shape, filled from the response",
    'authoriseDirect',
    () => {
      const { orderNo, status } = mainOrder();
      return ownShapeNotified({ event: 'payment.result', payment: { order_no: orderNo, status } });
    },
    ctxWith(ownShape),
  ),
  fail(
    'notificationFollowsProfile',
    'PAGI-EVT-002',
    "a body breaking the profile's schema",
    'authoriseDirect',
    () => ownShapeNotified({ event: 'payment.done', order_no: mainOrder().orderNo }),
    ['NOTIFICATION_FORM'],
    ctxWith(ownShape),
  ),
  fail(
    'notificationFollowsProfile',
    'PAGI-EVT-002',
    'a body whose fields differ from the template filled from the response',
    'authoriseDirect',
    () => ownShapeNotified({ event: 'payment.result', payment: { order_no: 'OTHER', status: mainOrder().status } }),
    ['NOTIFICATION_FORM'],
    ctxWith(ownShape),
  ),
];

/** Every case of the profile's choices. */
export const CHOICE_CASES: Case[] = [
  ...UNKNOWN_MERCHANT_CASES,
  ...ORDER_AND_WORDING_CASES,
  ...DECLINE_CASES,
  ...SIGNING_CASES,
  ...VALUE_CASES,
];
