/** Cases of the checks of profile rules (error precedence, item check order, result order, payout fees, result values, requests outside the operations' forms). */
import type { Exchange, Observation } from '../../../core/model.js';
import {
  batchExchange,
  context,
  errorExchange,
  exchange,
  happyExchange,
  happyObservation,
  item,
  observation,
  orderRecord,
  profile,
  queryExchange,
} from '../fixtures.js';
import { type Case, fail, pass } from './types.js';

const IDS = { merchant_id: 'M10001', account_id: 'A20001' };
const A = { transaction_id: 'T1', order_no: 'O1', amount: '10.00', currency: 'USD' };
const B = { transaction_id: 'T2', order_no: 'O2', amount: '10.00', currency: 'USD' };

const twoFaults = (main: Exchange) =>
  observation('twoFaults', 'authoriseDirect', main, { authoriseDirect: main }, { invalidField: 'currency' });

function itemFaults(
  first: 'currencyMismatch' | 'amountMismatch',
  second: 'invalidItem' | 'unknownTransaction',
): Observation {
  const currencyAmount = batchExchange('cancel', [item('T1', 'O1', { currency: 'EUR', amount: '11.00' })], () => first);
  const unknownInvalid = batchExchange('cancel', [item('TX', 'OX', { currency: 'x' })], () => second);
  return observation('itemFaults', 'cancel', currencyAmount, { currencyAmount, unknownInvalid }, { record: A });
}

function ordered(records: Record<string, unknown>[]): Observation {
  const main = queryExchange(records, { ...IDS, transaction_id: 'T1,T2' });
  return observation('selectionOrder', 'retrievalTrans', main, { retrievalTrans: main }, { records: [A, B] });
}
const record = (fields: typeof A, date: string) => ({ ...orderRecord(fields, 'authorised'), transaction_date: date });

/** A query selecting A and B by transaction_id (with a value matching nothing) and A by order_no, answered with `list`. */
function combined(list: Record<string, unknown>[]): Observation {
  const main = queryExchange(list, { ...IDS, transaction_id: 'T1,FXNONE-1,T2', order_no: 'O1' });
  return observation(
    'selectionCombined',
    'retrievalTrans',
    main,
    { retrievalTrans: main },
    { records: [A, B], selection: { first: 'order_no', second: 'transaction_id', unmatchedValue: 'FXNONE-1' } },
  );
}
const notFoundItem = (field: string, value: string) => ({
  [field]: value,
  query_result: profile.statusValues.query_result.notFound,
});

/** A payout answer for `paidBy` with the reference fee (fixed 0) unless `change` says otherwise. */
function payoutAnswer(paidBy: string, change?: (response: Record<string, unknown>) => void): Exchange {
  return happyExchange('payout', (b) => {
    b.request.payment_amount = '1000';
    b.request.fee_paid_by = paidBy;
    Object.assign(b.response, {
      payment_amount: '1000',
      fee_paid_by: paidBy,
      fee_amount: 0,
      amount_payer_pays: 1000,
      amount_beneficiary_receives: 1000,
    });
    const beneficiary = b.response.beneficiary as { bank_details: Record<string, unknown> };
    beneficiary.bank_details.local_clearing_system = profile.payout.localClearingSystem;
    change?.(b.response);
  });
}
const payout = (first: Exchange, beneficiaryPays: Exchange) =>
  observation('payoutLifecycle', 'payout', first, { first, replay: first, beneficiaryPays });

function outside(change: Partial<Record<string, Exchange>> = {}): Observation {
  const steps: Record<string, Exchange> = {
    unknownPath: exchange('retrievalTrans', {
      request: IDS,
      status: 404,
      json: { return_status: '0', return_message: `${profile.errors.kinds.unknownPath.code}:x` },
    }),
    wrongMethod: errorExchange('retrievalTrans', 'methodNotAllowed', IDS),
    tooLarge: errorExchange('retrievalTrans', 'bodyTooLarge'),
    otherMedia: happyExchange('retrievalTrans'),
    jsonDeclaredForm: happyExchange('retrievalTrans'),
    ...change,
  } as Record<string, Exchange>;
  return observation('outsideRequests', 'retrievalTrans', steps.otherMedia!, steps);
}

function cards(change: Partial<Record<string, Exchange>> = {}): Observation {
  const steps = {
    notLuhn: errorExchange('authoriseDirect', 'invalidInput', IDS),
    oneDigitMonth: errorExchange('authoriseDirect', 'invalidInput', IDS),
    unknownToken: errorExchange('authoriseDirect', profile.payments.token.unknownToken, IDS),
    ...change,
  } as Record<string, Exchange>;
  return observation('cardForms', 'authoriseDirect', steps.unknownToken!, steps);
}

function lengths(change: Partial<Record<string, Exchange>> = {}): Observation {
  const steps = {
    atLength: happyExchange('authoriseDirect'),
    overLength: errorExchange('authoriseDirect', 'invalidInput', IDS),
    ...change,
  } as Record<string, Exchange>;
  return observation('fieldLength', 'authoriseDirect', steps.overLength!, steps);
}

export const PROFILE_RULE_CASES: Case[] = [
  pass(
    'requestFaultsResolvedInProfileOrder',
    'PAGI-PRF-001',
    'the signature is checked first (reference)',
    'authoriseDirect',
    () => twoFaults(errorExchange('authoriseDirect', 'badSignature', IDS)),
  ),
  fail(
    'requestFaultsResolvedInProfileOrder',
    'PAGI-PRF-001',
    'invalid input answered where the signature comes first',
    'authoriseDirect',
    () => twoFaults(errorExchange('authoriseDirect', 'invalidInput', IDS)),
    ['ERROR_ANSWER'],
  ),
  pass(
    'requestFaultsResolvedInProfileOrder',
    'PAGI-PRF-001',
    'invalid input first where the profile checks input first',
    'authoriseDirect',
    () => twoFaults(errorExchange('authoriseDirect', 'invalidInput', IDS)),
    () =>
      context({
        profile: (p) =>
          void (p.errors.precedence = [
            'unknownPath',
            'methodNotAllowed',
            'bodyTooLarge',
            'malformedBody',
            'invalidInput',
            'refusedAddress',
            'badSignature',
            'overLimit',
            'unknownRecord',
          ]),
      }),
  ),
  fail(
    'requestFaultsResolvedInProfileOrder',
    'PAGI-PRF-001',
    'accepted',
    'authoriseDirect',
    () => twoFaults(happyExchange('authoriseDirect')),
    ['NOT_REFUSED'],
  ),
  pass('itemFaultsResolvedInProfileOrder', 'PAGI-PRF-002', 'the first failure of batch.checkOrder', 'cancel', () =>
    itemFaults('currencyMismatch', 'invalidItem'),
  ),
  fail(
    'itemFaultsResolvedInProfileOrder',
    'PAGI-PRF-002',
    'a later failure of batch.checkOrder',
    'cancel',
    () => itemFaults('amountMismatch', 'invalidItem'),
    ['ITEM_MESSAGE'],
  ),
  fail(
    'itemFaultsResolvedInProfileOrder',
    'PAGI-PRF-002',
    'unknown transaction before an invalid item',
    'cancel',
    () => itemFaults('currencyMismatch', 'unknownTransaction'),
    ['ITEM_MESSAGE'],
  ),
  pass(
    'selectionResultsInProfileOrder',
    'PAGI-PRF-003',
    'in the order of the values (listOrder)',
    'retrievalTrans',
    () => ordered([record(A, '20261122120000'), record(B, '20261122120001')]),
  ),
  fail(
    'selectionResultsInProfileOrder',
    'PAGI-PRF-003',
    'reversed (listOrder)',
    'retrievalTrans',
    () => ordered([record(B, '20261122120001'), record(A, '20261122120000')]),
    ['RESULT_ORDER'],
  ),
  pass(
    'selectionResultsInProfileOrder',
    'PAGI-PRF-003',
    'newest first',
    'retrievalTrans',
    () => ordered([record(B, '20261122120001'), record(A, '20261122120000')]),
    () => context({ profile: (p) => void (p.selection.retrievalTrans.resultOrder = 'newestFirst') }),
  ),
  fail(
    'selectionResultsInProfileOrder',
    'PAGI-PRF-003',
    'oldest first where the profile lists newest first',
    'retrievalTrans',
    () => ordered([record(A, '20261122120000'), record(B, '20261122120001')]),
    ['RESULT_ORDER'],
    () => context({ profile: (p) => void (p.selection.retrievalTrans.resultOrder = 'newestFirst') }),
  ),
  pass(
    'selectionCombinedPerProfile',
    'PAGI-PRF-009',
    'union, with a failure item for the value matching nothing (reference)',
    'retrievalTrans',
    () => combined([orderRecord(A, 'authorised'), orderRecord(B, 'authorised'), notFoundItem('order_no', 'FXNONE-1')]),
  ),
  fail(
    'selectionCombinedPerProfile',
    'PAGI-PRF-009',
    'the record of the first field only',
    'retrievalTrans',
    () => combined([orderRecord(A, 'authorised'), notFoundItem('order_no', 'FXNONE-1')]),
    ['RECORD_NOT_FOUND'],
  ),
  fail(
    'selectionCombinedPerProfile',
    'PAGI-PRF-009',
    'no failure item (unmatched: failureItem)',
    'retrievalTrans',
    () => combined([orderRecord(A, 'authorised'), orderRecord(B, 'authorised')]),
    ['RECORD_NOT_FOUND'],
  ),
  fail(
    'selectionCombinedPerProfile',
    'PAGI-PRF-009',
    'refused because one value matches nothing',
    'retrievalTrans',
    () => {
      const main = errorExchange('retrievalTrans', 'unknownRecord', IDS);
      return observation(
        'selectionCombined',
        'retrievalTrans',
        main,
        { retrievalTrans: main },
        { records: [A, B], selection: { first: 'order_no', second: 'transaction_id', unmatchedValue: 'FXNONE-1' } },
      );
    },
    ['RECORD_NOT_FOUND'],
  ),
  pass(
    'selectionCombinedPerProfile',
    'PAGI-PRF-009',
    'intersection, the value matching nothing skipped',
    'retrievalTrans',
    () => combined([orderRecord(A, 'authorised')]),
    () =>
      context({
        profile: (p) => Object.assign(p.selection.retrievalTrans, { combine: 'intersection', unmatched: 'skip' }),
      }),
  ),
  fail(
    'selectionCombinedPerProfile',
    'PAGI-PRF-009',
    'a union where the profile intersects, a failure item where it skips',
    'retrievalTrans',
    () => combined([orderRecord(A, 'authorised'), orderRecord(B, 'authorised'), notFoundItem('order_no', 'FXNONE-1')]),
    ['UNSELECTED_RECORD'],
    () =>
      context({
        profile: (p) => Object.assign(p.selection.retrievalTrans, { combine: 'intersection', unmatched: 'skip' }),
      }),
  ),
  pass('payoutFeesPerProfile', 'PAGI-PRF-004', 'the fixed fee, either payer', 'payout', () =>
    payout(payoutAnswer(profile.payout.feePaidBy.payer), payoutAnswer(profile.payout.feePaidBy.beneficiary)),
  ),
  fail(
    'payoutFeesPerProfile',
    'PAGI-PRF-004',
    'another clearing system',
    'payout',
    () =>
      payout(
        payoutAnswer(
          profile.payout.feePaidBy.payer,
          (r) =>
            ((r.beneficiary as { bank_details: Record<string, unknown> }).bank_details.local_clearing_system = 'ACH'),
        ),
        payoutAnswer(profile.payout.feePaidBy.beneficiary),
      ),
    ['PAYOUT_AMOUNTS'],
  ),
  fail(
    'payoutFeesPerProfile',
    'PAGI-PRF-004',
    'a percentage fee not charged',
    'payout',
    () => payout(payoutAnswer('PAYER'), payoutAnswer('BENEFICIARY')),
    ['PAYOUT_AMOUNTS'],
    () => context({ profile: (p) => void (p.payout.fee = { type: 'percentage', percent: '1.5', rounding: 'up' }) }),
  ),
  pass('resultValuesPerProfile', 'PAGI-PRF-005', "the profile's risk and 3-D Secure values", 'authoriseDirect', () =>
    happyObservation('authoriseDirect', (b) =>
      Object.assign(b.response, {
        risk_action: profile.payments.risk.action.approved,
        threeds_result: profile.payments.threeDS.resultWhenRequested,
      }),
    ),
  ),
  fail(
    'resultValuesPerProfile',
    'PAGI-PRF-005',
    'the review action on an approved payment',
    'authoriseDirect',
    () =>
      happyObservation('authoriseDirect', (b) =>
        Object.assign(b.response, {
          risk_action: profile.payments.risk.action.pendingReview,
          threeds_result: profile.payments.threeDS.resultWhenRequested,
        }),
      ),
    ['STATUS_VALUE'],
  ),
  pass('resultValuesPerProfile', 'PAGI-PRF-005', "the profile's query values", 'retrievalTrans', () =>
    happyObservation(
      'retrievalTrans',
      (b) =>
        ((b.response.orders_list as Record<string, unknown>[])[0]!.antifraud_provider = profile.payments.risk.provider),
    ),
  ),
  fail(
    'resultValuesPerProfile',
    'PAGI-PRF-005',
    'another anti-fraud provider',
    'retrievalTrans',
    () =>
      happyObservation(
        'retrievalTrans',
        (b) => ((b.response.orders_list as Record<string, unknown>[])[0]!.antifraud_provider = 'someone-else'),
      ),
    ['STATUS_VALUE'],
  ),
  pass(
    'outsideRequestsAnsweredPerProfile',
    'PAGI-PRF-006',
    "the profile's catalogue and media rules",
    'retrievalTrans',
    () => outside(),
  ),
  // The code judged decoded: a JSON answer writing it with \uXXXX escapes carries the same code.
  pass(
    'outsideRequestsAnsweredPerProfile',
    'PAGI-PRF-006',
    'the code written with JSON escapes',
    'retrievalTrans',
    () => {
      const o = outside();
      const answer = o.steps.unknownPath!.response!;
      answer.bodyText = answer.bodyText.replace(
        /[A-Za-z0-9]/g,
        (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
      );
      return o;
    },
  ),
  fail(
    'outsideRequestsAnsweredPerProfile',
    'PAGI-PRF-006',
    'the other media type refused where the profile accepts it',
    'retrievalTrans',
    () => outside({ otherMedia: errorExchange('retrievalTrans', 'malformedBody') }),
    ['REQUEST_REFUSED'],
  ),
  fail(
    'outsideRequestsAnsweredPerProfile',
    'PAGI-PRF-006',
    'an oversize body answered 400',
    'retrievalTrans',
    () => outside({ tooLarge: errorExchange('retrievalTrans', 'malformedBody') }),
    ['ERROR_ANSWER'],
  ),
  pass('cardFieldsPerProfile', 'PAGI-PRF-006', "the profile's card rules and token error", 'authoriseDirect', () =>
    cards(),
  ),
  fail(
    'cardFieldsPerProfile',
    'PAGI-PRF-006',
    'a card failing the Luhn check accepted',
    'authoriseDirect',
    () => cards({ notLuhn: happyExchange('authoriseDirect') }),
    ['NOT_REFUSED'],
  ),
  pass(
    'fieldLengthPerProfile',
    'PAGI-PRF-006',
    "a note at the profile's length accepted, one longer refused as invalidInput",
    'authoriseDirect',
    () => lengths(),
  ),
  fail(
    'fieldLengthPerProfile',
    'PAGI-PRF-006',
    "a note longer than the profile's length accepted",
    'authoriseDirect',
    () => lengths({ overLength: happyExchange('authoriseDirect') }),
    ['NOT_REFUSED'],
  ),
  fail(
    'fieldLengthPerProfile',
    'PAGI-PRF-006',
    "a note at the profile's length refused",
    'authoriseDirect',
    () => lengths({ atLength: errorExchange('authoriseDirect', 'invalidInput', IDS) }),
    ['REQUEST_REFUSED'],
  ),
  fail(
    'fieldLengthPerProfile',
    'PAGI-PRF-006',
    'a note longer than the length refused with another error kind',
    'authoriseDirect',
    () => lengths({ overLength: errorExchange('authoriseDirect', 'badSignature', IDS) }),
    ['ERROR_ANSWER'],
  ),
];
