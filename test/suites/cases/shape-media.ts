/** Cases of the shape and media families. */
import type { CheckoutFormModel } from '../../../core/model.js';
import { context, exchange, happyObservation, observation } from '../fixtures.js';
import { type Case, fail, pass } from './types.js';

type Bodies = { request: Record<string, unknown>; response: Record<string, unknown> };
const form = (b: Bodies) => b.response as unknown as CheckoutFormModel;

/** A happy observation whose main answer is replaced (same request). */
function answered(op: Parameters<typeof happyObservation>[0], spec: Parameters<typeof exchange>[1]) {
  const o = happyObservation(op);
  return observation('happy', op, exchange(op, { request: o.main.request.body, ...spec }), o.steps, o.facts);
}

export const SHAPE_CASES: Case[] = [
  pass('responseMatchesSchema', 'PAGI-BAT-001', 'capture answer of the example', 'capture', () =>
    happyObservation('capture'),
  ),
  pass('responseMatchesSchema', 'PAGI-MED-007', 'checkout page model', 'checkout', () => happyObservation('checkout')),
  fail(
    'responseMatchesSchema',
    'PAGI-BAT-001',
    'envelope without return_status',
    'capture',
    () => happyObservation('capture', (b) => delete b.response.return_status),
    ['SCHEMA_VIOLATION'],
  ),
  fail(
    'responseMatchesSchema',
    'PAGI-OBJ-011',
    'risk_reasons not an array',
    'authoriseDirect',
    () => happyObservation('authoriseDirect', (b) => (b.response.risk_reasons = 'none')),
    ['SCHEMA_VIOLATION'],
  ),
  fail(
    'responseMatchesSchema',
    'PAGI-GEN-004',
    'payout without account_id',
    'payout',
    () => happyObservation('payout', (b) => delete b.response.account_id),
    ['SCHEMA_VIOLATION'],
  ),
  pass('unknownResponseFields', 'PAGI-PAY-002', 'only declared fields', 'authoriseDirect', () =>
    happyObservation('authoriseDirect'),
  ),
  {
    ...fail(
      'unknownResponseFields',
      'PAGI-PAY-002',
      'an extra element',
      'authoriseDirect',
      () => happyObservation('authoriseDirect', (b) => (b.response.surprise = 'x')),
      ['UNKNOWN_FIELD'],
    ),
    expect: { codes: ['UNKNOWN_FIELD'], info: true },
  },
  {
    ...fail(
      'unknownResponseFields',
      'PAGI-MED-007',
      'an extra checkout input',
      'checkout',
      () => happyObservation('checkout', (b) => (form(b).inputs.surprise = 'x')),
      ['UNKNOWN_FIELD'],
    ),
    expect: { codes: ['UNKNOWN_FIELD'], info: true },
  },
  pass('documentedRequestAccepted', 'PAGI-PAY-001', 'the example payment accepted', 'authoriseDirect', () =>
    happyObservation('authoriseDirect'),
  ),
  fail(
    'documentedRequestAccepted',
    'PAGI-MED-002',
    'a valid capture refused',
    'capture',
    () => answered('capture', { status: 400, json: {} }),
    ['REQUEST_REFUSED'],
  ),
  fail(
    'documentedRequestAccepted',
    'PAGI-PO-001',
    'a valid payout refused',
    'payout',
    () => answered('payout', { status: 422, json: {} }),
    ['REQUEST_REFUSED'],
  ),
  {
    ...pass('documentedRequestAccepted', 'PAGI-PAY-001', "the kit's own request invalid", 'authoriseDirect', () =>
      happyObservation('authoriseDirect', (b) => (b.request.currency = 'x')),
    ),
    expect: 'notApplicable',
  },
  pass('responseAddsDocumentedFields', 'PAGI-PO-004', 'payout with every added field', 'payout', () =>
    happyObservation('payout'),
  ),
  fail(
    'responseAddsDocumentedFields',
    'PAGI-PO-004',
    'payout without fee_amount',
    'payout',
    () => happyObservation('payout', (b) => delete b.response.fee_amount),
    ['LISTED_FIELD_ABSENT'],
  ),
  pass('responseHoldsListedFields', 'PAGI-GEN-011', 'every listed field of a refund search', 'retrievalRefund', () =>
    happyObservation('retrievalRefund'),
  ),
  pass(
    'responseHoldsListedFields',
    'PAGI-GEN-011',
    'token_id absent when no token was asked for',
    'authoriseDirect',
    () => happyObservation('authoriseDirect', (b) => delete b.response.token_id),
  ),
  fail(
    'responseHoldsListedFields',
    'PAGI-GEN-011',
    'a capture result without currency',
    'capture',
    () =>
      happyObservation('capture', (b) => delete (b.response.capture_orders as Record<string, unknown>[])[0]!.currency),
    ['LISTED_FIELD_ABSENT'],
  ),
  pass(
    'responseHoldsListedFields',
    'PAGI-GEN-011',
    'a required field absent is responseMatchesSchema’s finding',
    'capture',
    () =>
      happyObservation(
        'capture',
        (b) => delete (b.response.capture_orders as Record<string, unknown>[])[0]!.error_message,
      ),
  ),
  fail(
    'responseHoldsListedFields',
    'PAGI-GEN-011',
    'payout bank details without local_clearing_system',
    'payout',
    () =>
      happyObservation(
        'payout',
        (b) =>
          delete ((b.response.beneficiary as Record<string, unknown>).bank_details as Record<string, unknown>)
            .local_clearing_system,
      ),
    ['LISTED_FIELD_ABSENT'],
  ),
  // An XML element written twice where the schema holds one value reads as a list: the schema's type fails.
  fail(
    'responseMatchesSchema',
    'PAGI-GEN-006',
    'an element the answer writes twice',
    'authoriseDirect',
    () => happyObservation('authoriseDirect', (b) => (b.response.order_no = [b.request.order_no, 'OTHER'])),
    ['SCHEMA_VIOLATION'],
  ),
  pass('jsonMembersNamedOnce', 'PAGI-MED-010', 'every name once', 'capture', () => happyObservation('capture')),
  fail(
    'jsonMembersNamedOnce',
    'PAGI-MED-010',
    'a result item naming transaction_id twice',
    'capture',
    () => {
      const o = happyObservation('capture');
      const decoded = o.main.response!.decoded;
      if (decoded.kind === 'json') decoded.duplicates = [{ pointer: '/capture_orders/0', name: 'transaction_id' }];
      return o;
    },
    ['DUPLICATE_MEMBER'],
  ),
  fail(
    'jsonMembersNamedOnce',
    'PAGI-MED-010',
    'a step of the scenario naming a member twice',
    'retrievalTrans',
    () => {
      const o = happyObservation('retrievalTrans');
      const step = exchange('refund', { json: { return_status: '1' } });
      const decoded = step.response!.decoded;
      if (decoded.kind === 'json') decoded.duplicates = [{ pointer: '', name: 'return_status' }];
      return observation('happy', 'retrievalTrans', o.main, { ...o.steps, refund: step }, o.facts);
    },
    ['DUPLICATE_MEMBER'],
  ),
];

const headerProfile = () =>
  context({ profile: (p) => (p.requestHeaders.headers = { 'X-Merchant-Id': '{request.merchant_id}' }) });
const withHeader = (status: number) => () => {
  const o = happyObservation('capture');
  const main = exchange('capture', {
    request: o.main.request.body,
    requestHeaders: { 'x-merchant-id': 'M10001' },
    status,
    json: (o.main.response!.decoded as { value: unknown }).value,
  });
  return observation('happy', 'capture', main, {}, o.facts);
};

export const MEDIA_CASES: Case[] = [
  pass('responseBodyFormat', 'PAGI-MED-006', 'XML payment answer', 'authoriseDirect', () =>
    happyObservation('authoriseDirect'),
  ),
  fail(
    'responseBodyFormat',
    'PAGI-MED-006',
    'XML that does not parse',
    'authoriseDirect',
    () =>
      answered('authoriseDirect', {
        decoded: { kind: 'undecodable', format: 'xml', problem: 'unclosed tag' },
        headers: { 'content-type': 'application/xml' },
      }),
    ['UNDECODABLE_BODY'],
  ),
  fail(
    'responseBodyFormat',
    'PAGI-MED-008',
    'HTML for a JSON operation',
    'capture',
    () =>
      answered('capture', {
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
      }),
    ['WRONG_BODY_FORMAT'],
  ),
  fail(
    'responseBodyFormat',
    'PAGI-MED-007',
    'an empty checkout answer',
    'checkout',
    () => answered('checkout', { decoded: { kind: 'empty' } }),
    ['WRONG_BODY_FORMAT'],
  ),
  pass('xmlRootIsRespon', 'PAGI-MED-006', 'root respon', 'authoriseApm', () => happyObservation('authoriseApm')),
  fail(
    'xmlRootIsRespon',
    'PAGI-MED-006',
    'root response',
    'authoriseApm',
    () => answered('authoriseApm', { xml: { merchant_id: 'M10001' }, xmlRoot: 'response' }),
    ['XML_ROOT'],
  ),
  fail(
    'xmlRootIsRespon',
    'PAGI-MED-006',
    'XML that does not parse',
    'authoriseDirect',
    () => answered('authoriseDirect', { decoded: { kind: 'undecodable', format: 'xml', problem: 'unexpected end' } }),
    ['UNDECODABLE_BODY'],
  ),
  pass('responseContentTypeConventional', 'PAGI-MED-009', 'text/xml with a charset', 'authoriseDirect', () => {
    const o = happyObservation('authoriseDirect');
    o.main.response!.headers = { 'content-type': 'text/xml; charset=ISO-8859-1' };
    return o;
  }),
  fail(
    'responseContentTypeConventional',
    'PAGI-MED-009',
    'JSON declared text/plain',
    'refund',
    () => answered('refund', { json: {}, headers: { 'content-type': 'text/plain' } }),
    ['CONTENT_TYPE'],
  ),
  pass('requestMediaAcceptedPerProfile', 'PAGI-MED-005', 'form query accepted', 'retrievalTrans', () =>
    happyObservation('retrievalTrans'),
  ),
  fail(
    'requestMediaAcceptedPerProfile',
    'PAGI-MED-005',
    'JSON capture refused as malformed',
    'capture',
    () => {
      const o = happyObservation('capture');
      return observation(
        'happy',
        'capture',
        exchange('capture', {
          request: o.main.request.body,
          status: 400,
          json: { return_status: '0', return_message: '1006:Malformed body' },
        }),
      );
    },
    ['MEDIA_REFUSED'],
  ),
  {
    ...pass('requestHeadersPerProfile', 'PAGI-AUTH-012', 'the reference profile names no header', 'capture', () =>
      happyObservation('capture'),
    ),
    expect: 'notApplicable',
  },
  pass(
    'requestHeadersPerProfile',
    'PAGI-AUTH-012',
    'header sent and accepted',
    'capture',
    withHeader(200),
    headerProfile,
  ),
  fail(
    'requestHeadersPerProfile',
    'PAGI-AUTH-012',
    'header sent, request refused',
    'capture',
    withHeader(401),
    ['REQUEST_REFUSED'],
    headerProfile,
  ),
  pass('checkoutPageHasOneForm', 'PAGI-CHK-002', 'one form', 'checkout', () => happyObservation('checkout')),
  pass('checkoutPageHasOneForm', 'PAGI-CHK-002', 'two forms (the document says "a form")', 'checkout', () =>
    happyObservation('checkout', (b) => (form(b).forms = 2)),
  ),
  fail(
    'checkoutPageHasOneForm',
    'PAGI-CHK-002',
    'no form',
    'checkout',
    () => happyObservation('checkout', (b) => (form(b).forms = 0)),
    ['FORM_COUNT'],
  ),
  pass(
    'checkoutFormPostsToBaseUrl',
    'PAGI-CHK-003',
    'a relative action resolving to the checkout URL',
    'checkout',
    () => happyObservation('checkout', (b) => (form(b).action = '/v1/checkout')),
  ),
  fail(
    'checkoutFormPostsToBaseUrl',
    'PAGI-CHK-002',
    'method GET',
    'checkout',
    () => happyObservation('checkout', (b) => (form(b).method = 'get')),
    ['FORM_METHOD'],
  ),
  fail(
    'checkoutFormPostsToBaseUrl',
    'PAGI-CHK-003',
    'action elsewhere',
    'checkout',
    () => happyObservation('checkout', (b) => (form(b).action = 'https://evil.example/v1/checkout')),
    ['FORM_ACTION'],
  ),
  pass('checkoutFormSubmitsOnLoad', 'PAGI-CHK-004', 'inline script submit', 'checkout', () =>
    happyObservation('checkout', (b) => (form(b).autoSubmitBy = 'script')),
  ),
  fail(
    'checkoutFormSubmitsOnLoad',
    'PAGI-CHK-004',
    'not submitted',
    'checkout',
    () => happyObservation('checkout', (b) => Object.assign(form(b), { autoSubmit: false, autoSubmitBy: 'none' })),
    ['FORM_NOT_AUTO_SUBMITTED'],
  ),
  pass('checkoutFormEchoesSubmittedFields', 'PAGI-CHK-005', 'every field echoed', 'checkout', () =>
    happyObservation('checkout'),
  ),
  fail(
    'checkoutFormEchoesSubmittedFields',
    'PAGI-CHK-005',
    'note altered, custom missing, email visible',
    'checkout',
    () =>
      happyObservation('checkout', (b) => {
        form(b).inputs.note = 'Ring twice';
        delete form(b).inputs.custom;
        form(b).inputTypes.shopper_email = 'text';
      }),
    ['FORM_INPUT_VALUE', 'FORM_INPUT_MISSING', 'FORM_INPUT_NOT_HIDDEN'],
  ),
  fail(
    'checkoutFormEchoesSubmittedFields',
    'PAGI-CHK-010',
    'a nested value not as its JSON text',
    'checkout',
    () =>
      happyObservation('checkout', (b) => {
        b.request.total_discount = [{ coupon_code_used: 'A', discount_type: 'fixed' }];
        form(b).inputs.total_discount = '[object Object]';
      }),
    ['FORM_INPUT_VALUE'],
  ),
  pass('checkoutFormHasEveryAlias', 'PAGI-CHK-006', 'every alias', 'checkout', () => happyObservation('checkout')),
  fail(
    'checkoutFormHasEveryAlias',
    'PAGI-CHK-006',
    'merNo missing',
    'checkout',
    () => happyObservation('checkout', (b) => delete form(b).inputs.merNo),
    ['FORM_INPUT_MISSING'],
  ),
  pass('checkoutAliasesEqualSources', 'PAGI-CHK-007', 'aliases equal their sources', 'checkout', () =>
    happyObservation('checkout'),
  ),
  fail(
    'checkoutAliasesEqualSources',
    'PAGI-CHK-007',
    'orderNo differs from order_no',
    'checkout',
    () => happyObservation('checkout', (b) => (form(b).inputs.orderNo = 'OTHER')),
    ['FORM_INPUT_VALUE'],
  ),
  fail(
    'checkoutAliasesEqualSources',
    'PAGI-CHK-010',
    'an unsourced alias not the profile value',
    'checkout',
    () => happyObservation('checkout', (b) => (form(b).inputs.token = 'tk')),
    ['FORM_INPUT_VALUE'],
  ),
  pass('checkoutAllParamsMatchSubmitted', 'PAGI-CHK-008', 'allParams of every submitted field', 'checkout', () =>
    happyObservation('checkout'),
  ),
  fail(
    'checkoutAllParamsMatchSubmitted',
    'PAGI-CHK-008',
    'allParams without note',
    'checkout',
    () =>
      happyObservation('checkout', (b) => {
        const p = new URLSearchParams(form(b).inputs.allParams);
        p.delete('note');
        form(b).inputs.allParams = p.toString();
      }),
    ['ALL_PARAMS_MISMATCH'],
  ),
  fail(
    'checkoutAllParamsMatchSubmitted',
    'PAGI-CHK-010',
    'allParams in another order',
    'checkout',
    () =>
      happyObservation('checkout', (b) => {
        const p = [...new URLSearchParams(form(b).inputs.allParams)].reverse();
        form(b).inputs.allParams = new URLSearchParams(p).toString();
      }),
    ['ALL_PARAMS_MISMATCH'],
  ),
  pass('checkoutFormHasGatewayFields', 'PAGI-CHK-009', 'every gateway field', 'checkout', () =>
    happyObservation('checkout'),
  ),
  fail(
    'checkoutFormHasGatewayFields',
    'PAGI-CHK-009',
    'gbc_id missing',
    'checkout',
    () => happyObservation('checkout', (b) => delete form(b).inputs.gbc_id),
    ['FORM_INPUT_MISSING'],
  ),
  fail(
    'checkoutFormHasGatewayFields',
    'PAGI-CHK-010',
    'connector_code not the profile value',
    'checkout',
    () => happyObservation('checkout', (b) => (form(b).inputs.connector_code = 'other')),
    ['FORM_INPUT_VALUE'],
  ),
  pass('checkoutNeedsNoDirectOnlyField', 'PAGI-CHK-001', 'page without direct-only fields', 'checkout', () =>
    happyObservation('checkout'),
  ),
  fail(
    'checkoutNeedsNoDirectOnlyField',
    'PAGI-CHK-001',
    'refused without them',
    'checkout',
    () => answered('checkout', { status: 400, bodyText: 'need card' }),
    ['REQUEST_REFUSED'],
  ),
  pass('checkoutInputNamesOnce', 'PAGI-CHK-012', 'one input per name', 'checkout', () => happyObservation('checkout')),
  pass('checkoutInputNamesOnce', 'PAGI-CHK-012', 'isOpen3D twice, as the document lists it', 'checkout', () =>
    happyObservation('checkout', (b) => form(b).inputOrder.push('isOpen3D')),
  ),
  fail(
    'checkoutInputNamesOnce',
    'PAGI-CHK-012',
    'note written twice',
    'checkout',
    () => happyObservation('checkout', (b) => form(b).inputOrder.push('note')),
    ['FORM_INPUT_REPEATED'],
  ),
  fail(
    'checkoutInputNamesOnce',
    'PAGI-CHK-012',
    'isOpen3D three times',
    'checkout',
    () => happyObservation('checkout', (b) => form(b).inputOrder.push('isOpen3D', 'isOpen3D')),
    ['FORM_INPUT_REPEATED'],
  ),
];
