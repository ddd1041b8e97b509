/** Cases of the status and security families. */
import type { Exchange, Observation, ObservationFacts, OperationKey } from '../../../core/model.js';
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
  queryExchange,
} from '../fixtures.js';
import { type BatchOp, FIRST } from './limits.js';
import { type Case, fail, pass } from './types.js';

/** A refusal-probe observation (no follow-up). */
const refused = (probe: string, op: OperationKey, main: Exchange, facts: ObservationFacts = {}) =>
  observation(probe, op, main, { [op]: main }, facts);
const mutated = { mutated: { pointer: '/currency', value: 'x' } };
const IDS = { merchant_id: 'M10001', account_id: 'A20001' };

/** The same answer with HTTP 200 (a refusal carried in the body). */
function answeredOk(x: Exchange): Exchange {
  return { ...x, response: { ...x.response!, status: 200 } };
}

/** The answer with the message of its `<code>:<message>` worded otherwise. */
function reworded(x: Exchange): Exchange {
  const decoded = x.response!.decoded;
  if (decoded.kind !== 'json') throw new Error('fixture: a JSON answer');
  const value = { ...(decoded.value as Record<string, unknown>) };
  value.return_message = String(value.return_message).replace(/:.*/, ':Request not valid');
  return { ...x, response: { ...x.response!, bodyText: JSON.stringify(value), decoded: { kind: 'json', value } } };
}

/** The reference profile with an operation's refusal forms replaced. */
function formsOf(op: OperationKey, forms: ('httpError' | 'statusInBody' | 'failureType')[]) {
  return context({ profile: (p) => void ((p.errors.refusalForms as Record<string, string[]>)[op] = forms) });
}

/** A refusal-probe observation of a payment with a follow-up query showing `records` for its order. */
function refusedPayment(
  probe: string,
  op: OperationKey,
  main: Exchange,
  records: Record<string, unknown>[],
  facts: ObservationFacts = {},
): Observation {
  const followUp = queryExchange(records, { merchant_id: 'M10001', account_id: 'A20001', order_no: 'ORD-1' });
  return observation(
    probe,
    op,
    main,
    { [op]: main, followUp },
    { ...facts, followUp: { kind: 'absent', orderNo: 'ORD-1' } },
  );
}

/** A refusal-probe observation of a batch with a follow-up query showing the prepared payment in `state`. */
function refusedBatch(
  probe: string,
  op: BatchOp,
  main: Exchange,
  state: string,
  facts: ObservationFacts = {},
): Observation {
  const followUp = queryExchange([orderRecord(FIRST, state)]);
  return observation(
    probe,
    op,
    main,
    { [op]: main, followUp },
    { ...facts, followUp: { kind: 'state', transactionId: 'T1', orderNo: 'O1', expectedCode: '3000' } },
  );
}

const CASE_STEPS = Array.from({ length: 3 }, (_, i) => [`case0${i + 1}`, i]) as [string, number][];
function generated(op: OperationKey, statuses: (number | 'reset')[]): Observation {
  const steps: Record<string, Exchange> = {};
  for (const [name, i] of CASE_STEPS) {
    const s = statuses[i]!;
    steps[name] =
      s === 'reset'
        ? exchange(op, { error: { kind: 'network', message: 'socket hang up' } })
        : exchange(op, { status: s, json: {} });
  }
  return observation('generatedNegative', op, steps.case03!, steps, {
    seed: 9,
    cases: [
      { field: 'amount', kind: 'wrongType' },
      { field: 'note', kind: 'oddText' },
      { field: 'x_a', kind: 'extra' },
    ],
  });
}

export const STATUS_CASES: Case[] = [
  pass('successAnsweredWith200', 'PAGI-GEN-007', '200', 'payout', () => happyObservation('payout')),
  fail(
    'successAnsweredWith200',
    'PAGI-GEN-007',
    '201',
    'payout',
    () => observation('happy', 'payout', exchange('payout', { status: 201, json: {} })),
    ['HTTP_STATUS'],
  ),
  pass('operationServedAtVersionedPath', 'PAGI-GEN-002', 'POST /v1/capture', 'capture', () =>
    happyObservation('capture'),
  ),
  fail(
    'operationServedAtVersionedPath',
    'PAGI-GEN-001',
    'not found',
    'review',
    () => observation('happy', 'review', exchange('review', { status: 404, bodyText: 'Not Found' })),
    ['WRONG_PATH'],
  ),
  pass('malformedBodyRefused', 'PAGI-APM-004', "APM: 400, the profile's malformedBody", 'authoriseApm', () =>
    refused('malformedBody', 'authoriseApm', errorExchange('authoriseApm', 'malformedBody')),
  ),
  pass('malformedBodyRefused', 'PAGI-ERR-004', "checkout: the profile's HTML error", 'checkout', () =>
    refused('malformedBody', 'checkout', errorExchange('checkout', 'malformedBody')),
  ),
  // The page judged as read: character references and an unquoted id are the same page (never its raw text).
  pass(
    'malformedBodyRefused',
    'PAGI-ERR-004',
    "checkout: the profile's HTML error, with character references and unquoted attributes",
    'checkout',
    () => {
      const answer = errorExchange('checkout', 'malformedBody');
      const response = answer.response!;
      response.bodyText = response.bodyText
        .replace(/id="([^"]*)"/g, 'id=$1')
        .replace(/>([^<]+)</g, (_m, t: string) => `>${t.replace(/[A-Za-z0-9:]/g, (c) => `&#${c.charCodeAt(0)};`)}<`);
      response.decoded = {
        kind: 'html',
        form: {
          forms: 0,
          method: '',
          action: '',
          autoSubmit: false,
          autoSubmitBy: 'none',
          inputs: {},
          inputTypes: {},
          inputOrder: [],
        },
      };
      return refused('malformedBody', 'checkout', answer);
    },
  ),
  fail(
    'malformedBodyRefused',
    'PAGI-APM-004',
    'APM: 422',
    'authoriseApm',
    () => refused('malformedBody', 'authoriseApm', exchange('authoriseApm', { status: 422, xml: {} })),
    ['HTTP_STATUS', 'ERROR_ANSWER'],
  ),
  fail(
    'malformedBodyRefused',
    'PAGI-ERR-002',
    'capture: 500',
    'capture',
    () => refused('malformedBody', 'capture', exchange('capture', { status: 500, bodyText: 'boom' })),
    ['SERVER_ERROR'],
  ),
  fail(
    'malformedBodyRefused',
    'PAGI-ERR-002',
    'payout: accepted',
    'payout',
    () => refused('malformedBody', 'payout', happyExchange('payout')),
    ['NOT_REFUSED'],
  ),
  pass('wrongFormatRefused', 'PAGI-ERR-004', "the profile's invalidInput", 'capture', () =>
    refused(
      'wrongFormat',
      'capture',
      errorExchange('capture', 'invalidInput', { merchant_id: 'M10001', account_id: 'A20001' }),
      mutated,
    ),
  ),
  pass('wrongFormatRefused', 'PAGI-ERR-004', "an item refused with the profile's invalidItem", 'review', () =>
    refused(
      'wrongFormat',
      'review',
      batchExchange('review', [item('T1', 'O1', { currency: 'x' })], () => 'invalidItem'),
      { mutated: { pointer: '/review_orders/0/currency', value: 'x' } },
    ),
  ),
  fail(
    'wrongFormatRefused',
    'PAGI-ERR-002',
    'an item with a wrong format processed',
    'cancel',
    () =>
      refused('wrongFormat', 'cancel', batchExchange('cancel', [item('T1', 'O1', { currency: 'x' })]), {
        mutated: { pointer: '/cancel_orders/0/currency', value: 'x' },
      }),
    ['NOT_REFUSED'],
  ),
  fail(
    'wrongFormatRefused',
    'PAGI-ERR-004',
    'an item refused with another failure',
    'refund',
    () =>
      refused(
        'wrongFormat',
        'refund',
        batchExchange('refund', [item('T1', 'O1', { currency: 'x' })], () => 'currencyMismatch'),
        { mutated: { pointer: '/refund_orders/0/currency', value: 'x' } },
      ),
    ['ERROR_ANSWER'],
  ),
  fail(
    'wrongFormatRefused',
    'PAGI-APM-004',
    'APM: 404',
    'authoriseApm',
    () => refused('wrongFormat', 'authoriseApm', errorExchange('authoriseApm', 'unknownRecord'), mutated),
    ['HTTP_STATUS'],
  ),
  fail(
    'wrongFormatRefused',
    'PAGI-ERR-002',
    'accepted',
    'authoriseDirect',
    () => refused('wrongFormat', 'authoriseDirect', happyExchange('authoriseDirect'), mutated),
    ['NOT_REFUSED'],
  ),
  // Refusal forms: outside the APM payment a refusal may be an HTTP 200 whose body carries the failure, as the profile declares.
  pass(
    'wrongFormatRefused',
    'PAGI-ERR-002',
    'capture: HTTP 200 with a failed envelope (profile: statusInBody)',
    'capture',
    () => refused('wrongFormat', 'capture', answeredOk(errorExchange('capture', 'invalidInput', IDS)), mutated),
    () => formsOf('capture', ['statusInBody']),
  ),
  pass(
    'wrongFormatRefused',
    'PAGI-ERR-002',
    'direct payment: HTTP 200 with result_info (profile: httpError or statusInBody)',
    'authoriseDirect',
    () =>
      refused(
        'wrongFormat',
        'authoriseDirect',
        answeredOk(errorExchange('authoriseDirect', 'invalidInput', IDS)),
        mutated,
      ),
    () => formsOf('authoriseDirect', ['httpError', 'statusInBody']),
  ),
  pass(
    'wrongFormatRefused',
    'PAGI-ERR-002',
    'payout: HTTP 200 with status FAILED and failure_type (profile: failureType)',
    'payout',
    () =>
      refused(
        'wrongFormat',
        'payout',
        exchange('payout', {
          request: IDS,
          json: { ...IDS, status: 'FAILED', failure_type: '1002', failure_reason: 'Invalid input' },
        }),
        mutated,
      ),
    () => formsOf('payout', ['failureType']),
  ),
  fail(
    'wrongFormatRefused',
    'PAGI-ERR-002',
    'capture: HTTP 200 success envelope (profile: statusInBody)',
    'capture',
    () => refused('wrongFormat', 'capture', batchExchange('capture', [item('T1', 'O1')]), mutated),
    ['NOT_REFUSED'],
    () => formsOf('capture', ['statusInBody']),
  ),
  fail(
    'wrongFormatRefused',
    'PAGI-ERR-004',
    'capture: a 4xx where the profile refuses in the body',
    'capture',
    () => refused('wrongFormat', 'capture', errorExchange('capture', 'invalidInput', IDS), mutated),
    ['ERROR_ANSWER'],
    () => formsOf('capture', ['statusInBody']),
  ),
  fail(
    'wrongFormatRefused',
    'PAGI-ERR-002',
    'capture: HTTP 200 with a failed envelope the profile does not declare',
    'capture',
    () => refused('wrongFormat', 'capture', answeredOk(errorExchange('capture', 'invalidInput', IDS)), mutated),
    ['NOT_REFUSED'],
  ),
  fail(
    'wrongFormatRefused',
    'PAGI-APM-004',
    'APM: HTTP 200 with the error body',
    'authoriseApm',
    () =>
      refused('wrongFormat', 'authoriseApm', answeredOk(errorExchange('authoriseApm', 'invalidInput', IDS)), mutated),
    ['HTTP_STATUS'],
  ),
  fail(
    'wrongFormatRefused',
    'PAGI-APM-004',
    'APM: 422',
    'authoriseApm',
    () =>
      refused('wrongFormat', 'authoriseApm', exchange('authoriseApm', { request: IDS, status: 422, xml: {} }), mutated),
    ['HTTP_STATUS'],
  ),
  pass(
    'wrongFormatRefused',
    'PAGI-ERR-004',
    'capture: the code with another message text (not pinned)',
    'capture',
    () => refused('wrongFormat', 'capture', reworded(errorExchange('capture', 'invalidInput', IDS)), mutated),
  ),
  fail(
    'wrongFormatRefused',
    'PAGI-ERR-004',
    'capture: another message text where the profile pins it',
    'capture',
    () => refused('wrongFormat', 'capture', reworded(errorExchange('capture', 'invalidInput', IDS)), mutated),
    ['ERROR_ANSWER'],
    () => context({ profile: (p) => void ((p.errors.kinds.invalidInput as { pinned?: boolean }).pinned = true) }),
  ),
  pass(
    'badSignatureRefusedPerProfile',
    'PAGI-AUTH-006',
    'refund: HTTP 200 with a failed envelope (profile: statusInBody)',
    'refund',
    () =>
      refusedBatch('badSignature', 'refund', answeredOk(errorExchange('refund', 'badSignature', IDS)), 'authorised'),
    () => formsOf('refund', ['statusInBody']),
  ),
  {
    ...pass('wrongFormatRefused', 'PAGI-ERR-004', 'no format to break', 'retrievalTrans', () =>
      refused('wrongFormat', 'retrievalTrans', happyExchange('retrievalTrans'), { noFormat: 'nothing to break' }),
    ),
    expect: 'notApplicable',
  },
  pass('wrongFormatChangesNothing', 'PAGI-ERR-003', 'no payment created', 'authoriseDirect', () =>
    refusedPayment('wrongFormat', 'authoriseDirect', errorExchange('authoriseDirect', 'invalidInput'), [], mutated),
  ),
  fail(
    'wrongFormatChangesNothing',
    'PAGI-ERR-003',
    'a payment created',
    'checkout',
    () =>
      refusedPayment(
        'wrongFormat',
        'checkout',
        errorExchange('checkout', 'invalidInput'),
        [orderRecord({ ...FIRST, order_no: 'ORD-1' }, 'authorised')],
        mutated,
      ),
    ['STATE_CHANGED'],
  ),
  fail(
    'wrongFormatChangesNothing',
    'PAGI-ERR-003',
    'the payment captured',
    'capture',
    () => refusedBatch('wrongFormat', 'capture', errorExchange('capture', 'invalidInput'), 'captured', mutated),
    ['STATE_CHANGED'],
  ),
  pass('apmUnknownRecordIs404', 'PAGI-APM-005', "404, the profile's unknownRecord", 'authoriseApm', () =>
    refused(
      'unknownRecord',
      'authoriseApm',
      errorExchange('authoriseApm', 'unknownRecord', { merchant_id: 'M10001', account_id: 'A20001', order_no: 'O1' }),
    ),
  ),
  fail(
    'apmUnknownRecordIs404',
    'PAGI-APM-007',
    '400',
    'authoriseApm',
    () => refused('unknownRecord', 'authoriseApm', errorExchange('authoriseApm', 'invalidInput')),
    ['HTTP_STATUS'],
  ),
  fail(
    'apmUnknownRecordIs404',
    'PAGI-APM-007',
    '404 with another body',
    'authoriseApm',
    () =>
      refused('unknownRecord', 'authoriseApm', exchange('authoriseApm', { status: 404, xml: { result_info: '9:x' } })),
    ['ERROR_ANSWER'],
  ),
  pass('unknownTransactionItemFails', 'PAGI-BAT-010', "the profile's unknownTransaction failure", 'refund', () =>
    refused(
      'unknownTransaction',
      'refund',
      batchExchange('refund', [item('TX', 'OX', { refund_amount: '1.00' })], () => 'unknownTransaction'),
    ),
  ),
  fail(
    'unknownTransactionItemFails',
    'PAGI-BAT-010',
    'answered as a success',
    'capture',
    () => refused('unknownTransaction', 'capture', batchExchange('capture', [item('TX', 'OX')])),
    ['ITEM_STATUS'],
  ),
  fail(
    'unknownTransactionItemFails',
    'PAGI-BAT-008',
    'another failure code',
    'cancel',
    () =>
      refused(
        'unknownTransaction',
        'cancel',
        batchExchange('cancel', [item('TX', 'OX')], () => 'invalidItem'),
      ),
    ['ITEM_MESSAGE'],
  ),
  fail(
    'unknownTransactionItemFails',
    'PAGI-BAT-010',
    'the whole batch refused',
    'review',
    () => refused('unknownTransaction', 'review', errorExchange('review', 'invalidInput')),
    ['ITEM_NOT_ANSWERED'],
  ),
  pass('generatedInputNeverServerError', 'PAGI-ERR-002', 'every case 4xx', 'payout', () =>
    generated('payout', [400, 400, 401]),
  ),
  fail(
    'generatedInputNeverServerError',
    'PAGI-ERR-002',
    'a 500 and a reset',
    'capture',
    () => generated('capture', [400, 500, 'reset']),
    ['SERVER_ERROR', 'NO_RESPONSE'],
  ),
];

export const SECURITY_CASES: Case[] = [
  pass('missingSignatureRefused', 'PAGI-AUTH-005', 'refused, nothing created', 'authoriseDirect', () =>
    refusedPayment('noSignature', 'authoriseDirect', errorExchange('authoriseDirect', 'badSignature'), []),
  ),
  fail(
    'missingSignatureRefused',
    'PAGI-AUTH-005',
    'accepted',
    'retrievalTrans',
    () => refused('noSignature', 'retrievalTrans', happyExchange('retrievalTrans')),
    ['NOT_REFUSED'],
  ),
  fail(
    'missingSignatureRefused',
    'PAGI-ERR-003',
    'refused, but the payment cancelled',
    'cancel',
    () => refusedBatch('noSignature', 'cancel', errorExchange('cancel', 'badSignature'), 'cancelled'),
    ['STATE_CHANGED'],
  ),
  pass('badSignatureRefusedPerProfile', 'PAGI-AUTH-006', "the profile's badSignature", 'refund', () =>
    refusedBatch(
      'badSignature',
      'refund',
      errorExchange('refund', 'badSignature', { merchant_id: 'M10001', account_id: 'A20001' }),
      'authorised',
    ),
  ),
  fail(
    'badSignatureRefusedPerProfile',
    'PAGI-AUTH-006',
    'accepted',
    'payout',
    () => refused('badSignature', 'payout', happyExchange('payout')),
    ['NOT_REFUSED'],
  ),
  fail(
    'badSignatureRefusedPerProfile',
    'PAGI-ERR-004',
    'refused as invalid input',
    'capture',
    () => refused('badSignature', 'capture', errorExchange('capture', 'invalidInput')),
    ['ERROR_ANSWER'],
  ),
  pass('responseSignatureVerifies', 'PAGI-AUTH-007', 'verifies', 'capture', () => happyObservation('capture')),
  fail(
    'responseSignatureVerifies',
    'PAGI-AUTH-007',
    'does not verify',
    'payout',
    () => {
      const o = happyObservation('payout');
      o.facts.signatureValid = false;
      return o;
    },
    ['SIGNATURE_INVALID'],
  ),
  {
    ...pass(
      'responseSignatureVerifies',
      'PAGI-AUTH-007',
      'profile with unsigned responses',
      'capture',
      () => happyObservation('capture'),
      () => context({ profile: (p) => (p.signature.response = { signed: false }) }),
    ),
    expect: 'notApplicable',
  },
  pass('queryRefusedFromUnregisteredAddress', 'PAGI-AUTH-008', "the profile's refusedAddress", 'retrievalTrans', () =>
    refused(
      'unregisteredAddress',
      'retrievalTrans',
      errorExchange('retrievalTrans', 'refusedAddress', { merchant_id: 'M10001', account_id: 'A20001' }),
    ),
  ),
  fail(
    'queryRefusedFromUnregisteredAddress',
    'PAGI-AUTH-008',
    'served',
    'retrievalTrans',
    () => refused('unregisteredAddress', 'retrievalTrans', happyExchange('retrievalTrans')),
    ['NOT_REFUSED'],
  ),
  {
    ...pass(
      'queryRefusedFromUnregisteredAddress',
      'PAGI-AUTH-009',
      'refund search not restricted by the profile',
      'retrievalRefund',
      () => refused('unregisteredAddress', 'retrievalRefund', happyExchange('retrievalRefund')),
    ),
    expect: 'notApplicable',
  },
  fail(
    'queryRefusedFromUnregisteredAddress',
    'PAGI-AUTH-009',
    'refund search restricted by the profile, served',
    'retrievalRefund',
    () => refused('unregisteredAddress', 'retrievalRefund', happyExchange('retrievalRefund')),
    ['NOT_REFUSED'],
    () => context({ profile: (p) => (p.addressRestriction.operations = ['retrievalTrans', 'retrievalRefund']) }),
  ),
  pass('freeTextParsesBackExactly', 'PAGI-SEC-002', 'note returned exactly', 'authoriseDirect', () =>
    injected('authoriseDirect', (r) => r),
  ),
  pass('freeTextParsesBackExactly', 'PAGI-SEC-002', 'checkout inputs exact', 'checkout', () =>
    injected('checkout', (r) => r),
  ),
  fail(
    'freeTextParsesBackExactly',
    'PAGI-SEC-004',
    'XML note not the sent text',
    'authoriseDirect',
    () => injected('authoriseDirect', (r) => ({ ...r, note: 'Leave</note>', x: '' })),
    ['TEXT_ALTERED'],
  ),
  fail(
    'freeTextParsesBackExactly',
    'PAGI-SEC-004',
    'XML note written unescaped: its markup read as an element',
    'authoriseDirect',
    () => injected('authoriseDirect', (r) => ({ ...r, note: { '#text': 'Leave', x: '' } })),
    ['MARKUP_INJECTED'],
  ),
  {
    ...pass('freeTextParsesBackExactly', 'PAGI-SEC-004', 'XML answer without note: not judged', 'authoriseDirect', () =>
      injected('authoriseDirect', (r) => {
        const { note: _, ...rest } = r;
        return rest;
      }),
    ),
    expect: 'notApplicable',
  },
  fail(
    'freeTextParsesBackExactly',
    'PAGI-MED-006',
    'markup in free text breaks the XML answer',
    'authoriseDirect',
    () => {
      const o = injected('authoriseDirect', (r) => r);
      o.main.response!.decoded = { kind: 'undecodable', format: 'xml', problem: 'mismatched closing tag' };
      return o;
    },
    ['MARKUP_INJECTED'],
  ),
  fail(
    'freeTextParsesBackExactly',
    'PAGI-SEC-002',
    'an input added by a value',
    'checkout',
    () =>
      injected('checkout', (r) => {
        const form = r as unknown as { inputs: Record<string, string>; inputOrder: string[] };
        form.inputs.note = 'Ring twice ';
        form.inputOrder.push('x');
        return r;
      }),
    ['TEXT_ALTERED', 'MARKUP_INJECTED'],
  ),
  {
    ...pass(
      'freeTextParsesBackExactly',
      'PAGI-SEC-002',
      'markup in free text refused: nothing returned to judge',
      'authoriseDirect',
      () => {
        const o = injected('authoriseDirect', (r) => r);
        return observation(
          'injection',
          'authoriseDirect',
          errorExchange('authoriseDirect', 'invalidInput'),
          {},
          o.facts,
        );
      },
    ),
    expect: 'notApplicable',
  },
  pass('noSecretInResponse', 'PAGI-INV-009', 'no trace of the key', 'capture', () => happyObservation('capture')),
  fail(
    'noSecretInResponse',
    'PAGI-INV-009',
    'the key in a header name and the body',
    'capture',
    () => {
      const o = happyObservation('capture');
      o.main.response!.secretEchoed = ['body', 'header name'];
      return o;
    },
    ['SECRET_ECHOED'],
  ),
  fail(
    'noSecretInResponse',
    'PAGI-INV-009',
    'the key in a payment answer',
    'authoriseDirect',
    () => {
      const o = happyObservation('authoriseDirect');
      o.main.response!.secretEchoed = ['header value'];
      return o;
    },
    ['SECRET_ECHOED'],
  ),
];

/** An injection observation: note (and for checkout the form input) carrying markup, the answer changed by `answer`. */
function injected(
  op: 'authoriseDirect' | 'checkout',
  answer: (response: Record<string, unknown>) => Record<string, unknown>,
): Observation {
  const value = 'Leave</note><x>';
  const o = happyObservation(op, (b) => {
    b.request.note = value;
    if (op === 'checkout') {
      const form = b.response as unknown as { inputs: Record<string, string> };
      form.inputs.note = value;
      form.inputs.remark = value;
      const p = new URLSearchParams(form.inputs.allParams);
      p.set('note', value);
      form.inputs.allParams = p.toString();
    } else b.response.note = value;
    const changed = { ...answer(b.response) };
    for (const k of Object.keys(b.response)) delete b.response[k];
    Object.assign(b.response, changed);
  });
  return observation('injection', op, o.main, { [op]: o.main }, { injected: { note: value } });
}
