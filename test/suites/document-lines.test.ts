/**
 * Levels every line of the interface document defends, no false alarm from a choice the profile declares, and every
 * declared choice verified where it applies. Each case is a point where the kit asserted more than the document says
 * (a `must` no line states, a choice judged at `expected`), less than it says (a stated result at `expected`, a field
 * left unchecked) or judged a declared choice as a fault. Document line numbers refer to the interface document.
 */
import { describe, expect, it } from 'vitest';
import type { CheckContext, Exchange, Finding, Observation } from '../../core/model.js';
import type { Profile } from '../../core/profile/load.js';
import { stringToSign, verify } from '../../core/signing.js';
import { checkOf } from '../../suites/registry.js';
import { operationsIn } from '../../core/spec/operations.js';
import { exampleValue } from '../support/examples.js';
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
  spec,
} from './fixtures.js';

type Outcome = Finding[] | { notApplicable: string };

function run(checkId: string, o: Observation, ctx: CheckContext = context()): Outcome {
  return checkOf(checkId).run(o, ctx);
}
/** The failing findings of a check, as `code severity requirement pointer` lines. */
function failing(checkId: string, o: Observation, ctx: CheckContext = context()): string[] {
  const out = run(checkId, o, ctx);
  return Array.isArray(out)
    ? out
        .filter((f) => f.severity !== 'info')
        .map((f) => `${f.code} ${f.severity} ${f.requirementIds.join(',')} ${f.location.pointer}`)
    : [];
}
const schemaId = (name: string) => `https://pagi-conformance.dev/schemas/${name}.schema.json`;
/** Violations of a schema as `requirement keyword pointer`, and those whose requirement is at `must`. */
const violations = (name: string, body: unknown) =>
  spec.validate(schemaId(name), body).map((v) => `${v.requirementId} ${v.keyword} ${v.instancePath}`);
const mustViolations = (name: string, body: unknown) =>
  spec
    .validate(schemaId(name), body)
    .filter((v) => !v.requirementId || spec.requirements.get(v.requirementId)!.level === 'must')
    .map((v) => `${v.requirementId} ${v.keyword} ${v.instancePath}`);
const level = (id: string) => spec.requirements.get(id)!.level;
const IDS = { merchant_id: 'M10001', account_id: 'A20001' };

/** A checkout observation whose page the change rewrites. */
function checkoutPage(change: (inputs: Record<string, string>) => void): Observation {
  return happyObservation('checkout', (b) =>
    change((b.response as unknown as { inputs: Record<string, string> }).inputs),
  );
}

describe('point 3: levels the document defends', () => {
  it('PAGI-SEC-002 applies to the checkout inputs (l.120-121); the XML note of the direct payment is expected (PAGI-SEC-004)', () => {
    const sent = 'Leave"><script>alert(1)</script>';
    const direct = happyObservation('authoriseDirect', (b) => {
      b.request.note = sent;
      b.response.note = 'Leave';
    });
    const o = observation('injection', 'authoriseDirect', direct.main, {}, { injected: { note: sent } });
    // The response lists note under the request field's name, but no line says it is the request's: not must.
    expect(failing('freeTextParsesBackExactly', o)).toEqual(['TEXT_ALTERED expected PAGI-SEC-004 /note']);
    expect(spec.requirements.get('PAGI-SEC-002')!.operations).toEqual(['checkout']);
  });

  it('PAGI-CHK-007: an alias holding another submitted value fails the profile’s alias map, not the document', () => {
    // orderNo holds the submitted currency: a value the request submitted, under the profile's map a wrong one.
    const swapped = checkoutPage((inputs) => (inputs.orderNo = inputs.currency!));
    expect(failing('checkoutAliasesEqualSources', swapped)).toEqual([
      'FORM_INPUT_VALUE profile PAGI-CHK-010 /inputs/orderNo',
    ]);
    // A value the request never submitted breaks "the same values under alias names".
    const foreign = checkoutPage((inputs) => (inputs.orderNo = 'NOT-SUBMITTED'));
    expect(failing('checkoutAliasesEqualSources', foreign)).toEqual([
      'FORM_INPUT_VALUE must PAGI-CHK-007 /inputs/orderNo',
    ]);
  });

  it('PAGI-CHK-008: allParams is a query string of the parameters; nested serialisation and extras are the profile’s', () => {
    const nested = (write: (value: unknown) => string) =>
      happyObservation('checkout', (b) => {
        b.request.subscription = { contract: 'C1', billing_cycle: 12 };
        const inputs = (b.response as unknown as { inputs: Record<string, string> }).inputs;
        inputs.subscription = JSON.stringify(b.request.subscription);
        const p = new URLSearchParams(inputs.allParams);
        p.set('subscription', write(b.request.subscription));
        inputs.allParams = p.toString();
      });
    expect(
      failing(
        'checkoutAllParamsMatchSubmitted',
        nested((v) => JSON.stringify(v)),
      ),
    ).toEqual([]);
    // Nested values written another way (PHP-style brackets would be another choice): a profile-level finding.
    expect(
      failing(
        'checkoutAllParamsMatchSubmitted',
        nested(() => 'contract=C1&billing_cycle=12'),
      ),
    ).toEqual(['ALL_PARAMS_MISMATCH profile PAGI-CHK-010 /inputs/allParams']);
    const extra = checkoutPage((inputs) => (inputs.allParams = `${inputs.allParams}&gbc_id=7`));
    expect(failing('checkoutAllParamsMatchSubmitted', extra)).toEqual([
      'ALL_PARAMS_MISMATCH profile PAGI-CHK-010 /inputs/allParams',
    ]);
    // A flat parameter with another value is what the document rules out.
    const changed = checkoutPage((inputs) => {
      const p = new URLSearchParams(inputs.allParams);
      p.set('amount', '1.00');
      inputs.allParams = p.toString();
    });
    expect(failing('checkoutAllParamsMatchSubmitted', changed)).toEqual([
      'ALL_PARAMS_MISMATCH must PAGI-CHK-008 /inputs/allParams',
    ]);
  });

  it('anti-fraud results returned with payments and queries (l.13) are must; one field is enough', () => {
    const none = happyObservation('authoriseDirect', (b) => {
      for (const f of ['risk_action', 'risk_score', 'risk_reasons']) delete b.response[f];
    });
    expect(failing('paymentReturnsRequestedResults', none)).toEqual(['RESULT_MISSING must PAGI-PAY-005 ']);
    const one = happyObservation('authoriseDirect', (b) => {
      delete b.response.risk_action;
      delete b.response.risk_reasons;
    });
    expect(failing('paymentReturnsRequestedResults', one)).toEqual([]);
    expect([level('PAGI-PAY-005'), level('PAGI-QRY-008')]).toEqual(['must', 'must']);
  });

  it('PAGI-LIM-007: a batch over its limit refused whole is the profile’s choice (limits.overLimit.refuseWhole)', () => {
    const truncating = context({ profile: (p) => (p.limits.overLimit.refuseWhole = false) });
    const items = Array.from({ length: 50 }, (_, i) => item(`T${i}`, `O${i}`));
    const answered = batchExchange('capture', items);
    const o = observation('overLimit', 'capture', answered, { capture: answered }, { count: 51 });
    expect(run('batchOverLimitRefusedWhole', o, truncating)).toHaveProperty('notApplicable');
    // The query and refund search: the first orders up to the limit answered, as the profile says.
    const first = { transaction_id: 'T202611220001', order_no: 'O1', amount: '10.36', currency: 'USD' };
    const query = queryExchange([orderRecord(first, 'authorised')]);
    const selection = observation('selectionOverLimit', 'retrievalTrans', query, {}, { count: 101, first, last: {} });
    expect(failing('selectionOverLimitRefused', selection, truncating)).toEqual([]);
    expect(level('PAGI-LIM-007')).toBe('profile');
  });

  it('PAGI-REF-003: partial and repeated refunds are the profile’s choice (refunds.partial)', () => {
    const P1 = { transaction_id: 'T1', order_no: 'O1', amount: '100.00', currency: 'USD' };
    const refund = (amount: string, outcome: 'success' | 'amountMismatch') =>
      batchExchange('refund', [item('T1', 'O1', { amount: '100.00', refund_amount: amount })], () => outcome);
    const steps: Record<string, Exchange> = {
      authorise: happyExchange('authoriseDirect'),
      capture: batchExchange('capture', [item('T1', 'O1', { amount: '100.00' })]),
      queryAfterCapture: queryExchange([orderRecord(P1, profile.transitions.capture.to)]),
      refund1: refund('25.00', 'amountMismatch'),
    };
    const o = observation('paymentLifecycle', 'refund', steps.refund1!, steps, { record: P1, refunds: ['25.00'] });
    const wholeOnly = context({ profile: (p) => Object.assign(p.refunds, { partial: 'amountMismatch' }) });
    expect(failing('partialRefundsSucceedTwice', o, wholeOnly)).toEqual([]);
    // Where the profile allows them, a refused partial refund is a profile-level finding.
    expect(failing('partialRefundsSucceedTwice', o)).toContain('TRANSITION_REFUSED profile PAGI-REF-003 ');
    expect(level('PAGI-REF-003')).toBe('profile');
  });

  it('encryption_data absent from a query or APM answer (l.34, l.253) is reported at expected, unless declared omitted', () => {
    const query = happyObservation('retrievalTrans', (b) => delete b.response.encryption_data);
    const apm = happyObservation('authoriseApm', (b) => delete b.response.encryption_data);
    expect([...failing('responseHoldsListedFields', query), ...failing('responseHoldsListedFields', apm)]).toEqual([
      'LISTED_FIELD_ABSENT expected PAGI-AUTH-004 /encryption_data',
      'LISTED_FIELD_ABSENT expected PAGI-AUTH-004 /encryption_data',
    ]);
    const omitting = context({
      profile: (p) => (p.responseFields = { omitted: { retrievalTrans: ['/encryption_data'] } }),
    });
    expect(failing('responseHoldsListedFields', query, omitting)).toEqual([]);
    expect(level('PAGI-AUTH-004')).toBe('expected');
  });

  it('the APM request (l.96) keeps the common payment fields it does not exclude, birth_date in DD-MM-YYYY', () => {
    const body = exampleValue('authorise-apm-request.yaml');
    Object.assign(body, {
      document: '12345678900',
      birth_date: '21-04-1990',
      platform_source: 'web',
      order_type: 'WEB',
      checkout_time: 1763822400,
      antifraud_token_cookie: 'tok',
      storefront_domains: 'shop.example',
    });
    expect(violations('apm-payment-request', body)).toEqual([]);
    body.birth_date = '1990-04-21';
    body.checkout_time = '1763822400';
    expect(mustViolations('apm-payment-request', body).sort()).toEqual([
      'PAGI-FMT-015 pattern /birth_date',
      'PAGI-FMT-021 type /checkout_time',
    ]);
  });

  it('formats: file_url a string (l.107, l.178), payout echoes free of the request form (l.22), refund_processing_date free (l.146), contract_amount an amount at expected (l.22)', () => {
    const apm = exampleValue('authorise-apm-request.yaml');
    const docs = apm.person.documents;
    for (const doc of Array.isArray(docs) ? docs : [docs]) doc.file_url = 'kyc/ben-000042/registration.pdf';
    expect(violations('apm-payment-request', apm)).toEqual([]);
    const payout = exampleValue('payout-response.yaml');
    payout.payment_amount = '1000.00';
    payout.beneficiary.person_documents[0].file_url = 'registration.pdf';
    expect(mustViolations('payout-response', payout)).toEqual([]);
    const search = exampleValue('retrieval-refund-response.yaml');
    search.refund_orders[0].refund_processing_date = '2026-11-22 14:30';
    expect(violations('refund-search-response', search)).toEqual([]);
    const direct = exampleValue('authorise-direct-request.yaml');
    direct.subscription.contract_amount = '9.9';
    expect(violations('direct-payment-request', direct)).toEqual([
      'PAGI-FMT-026 pattern /subscription/contract_amount',
    ]);
    expect(level('PAGI-FMT-026')).toBe('expected');
  });
});

describe('point 4: no false alarm from a declared choice', () => {
  it('an ill-formed batch item refused as the check batch.checkOrder runs first (a currency mismatch) is no fault', () => {
    const ctx = context({
      profile: (p) =>
        (p.batch.checkOrder = [
          'currencyMismatch',
          'invalidItem',
          'unknownTransaction',
          'amountMismatch',
          'state',
          'overAmount',
        ]),
    });
    const answered = batchExchange('capture', [item('T1', 'O1', { currency: 'x' })], () => 'currencyMismatch');
    const o = observation(
      'wrongFormat',
      'capture',
      answered,
      { capture: answered },
      { mutated: { pointer: '/capture_orders/0/currency', value: 'x' } },
    );
    expect(failing('wrongFormatRefused', o, ctx)).toEqual([]);
    // Under the reference order the same answer is the wrong failure.
    expect(failing('wrongFormatRefused', o)).toEqual([
      'ERROR_ANSWER profile PAGI-ERR-004 /capture_orders/0/error_message',
    ]);
  });

  it('an ill-formed item of an unknown transaction fails as unknown where a check needing the transaction comes first', () => {
    const ctx = context({
      profile: (p) =>
        (p.batch.checkOrder = [
          'currencyMismatch',
          'invalidItem',
          'unknownTransaction',
          'amountMismatch',
          'state',
          'overAmount',
        ]),
    });
    const currencyAmount = batchExchange('cancel', [item('T1', 'O1', { currency: 'EUR' })], () => 'currencyMismatch');
    const unknownInvalid = batchExchange('cancel', [item('TX', 'OX', { currency: 'x' })], () => 'unknownTransaction');
    const o = observation('itemFaults', 'cancel', currencyAmount, { currencyAmount, unknownInvalid }, {});
    expect(failing('itemFaultsResolvedInProfileOrder', o, ctx)).toEqual([]);
  });

  it('an HTML error page is never expected to carry encryption_data (errors.signed, responses signed in pairs)', () => {
    const signedPairs = (p: Profile) => {
      p.signature.response = {
        signed: true,
        pairs: {
          mode: 'sortedPairs',
          keyValueSeparator: '=',
          pairSeparator: '&',
          skipEmpty: true,
          exclude: ['encryption_data'],
          valueEncoding: 'raw',
        },
      };
      p.errors.signed = true;
    };
    const base = context({ profile: signedPairs });
    // The client's verification: undefined where the profile has no rule, else whether the signature matches.
    const ctx: CheckContext = {
      ...base,
      verifySignature: (op, direction, body) =>
        stringToSign(base.profile.signature, direction, op, body) === undefined
          ? undefined
          : verify(base.profile.signature, direction, op, body, 'secret'),
    };
    // The page the kit reads from a checkout refused for invalid input (the engine decodes every page to a form model).
    const page = errorExchange('checkout', 'invalidInput', { ...IDS, order_no: 'O1', currency: 'x' });
    page.response!.decoded = {
      kind: 'html',
      form: { forms: 0, method: '', action: '', autoSubmit: false, inputs: {}, inputTypes: {}, inputOrder: [] },
    } as never;
    const o = observation(
      'wrongFormat',
      'checkout',
      page,
      { checkout: page },
      { mutated: { pointer: '/currency', value: 'x' } },
    );
    expect(failing('wrongFormatRefused', o, ctx)).toEqual([]);
  });

  it('a refusal given before the body is read (a wrong method) is never judged on echoing request fields', () => {
    const refusedUnread = errorExchange('retrievalTrans', 'methodNotAllowed', IDS);
    Object.assign((refusedUnread.response!.decoded as { value: Record<string, unknown> }).value, {
      merchant_id: '',
      account_id: '',
    });
    const steps: Record<string, Exchange> = {
      unknownPath: exchange('retrievalTrans', {
        request: IDS,
        status: 404,
        json: { return_status: '0', return_message: `${profile.errors.kinds.unknownPath.code}:x` },
      }),
      wrongMethod: refusedUnread,
      tooLarge: errorExchange('retrievalTrans', 'bodyTooLarge'),
      otherMedia: happyExchange('retrievalTrans'),
      jsonDeclaredForm: happyExchange('retrievalTrans'),
    };
    const o = observation('outsideRequests', 'retrievalTrans', steps.otherMedia!, steps);
    expect(failing('outsideRequestsAnsweredPerProfile', o)).toEqual([]);
  });
});

describe('point 6: every declared choice verified where it applies', () => {
  it('every answer that can carry encryption_data is verified, query and APM answers included (derived, not listed)', () => {
    const derived = [...spec.operations.values()]
      .filter((op) => JSON.stringify(spec.schemas.get(op.responseSchemaId)).includes('"encryption_data"'))
      .map((op) => op.key);
    expect(operationsIn(spec, checkOf('responseSignatureVerifies').operations)).toEqual(
      expect.arrayContaining(derived),
    );
    expect(derived).toEqual(expect.arrayContaining(['authoriseApm', 'retrievalTrans']));
    const signing = context({
      profile: (p) => {
        const fields = (p.signature.response as { fields: Record<string, string[]> }).fields;
        fields.retrievalTrans = ['merchant_id', 'account_id', 'return_status', 'return_message'];
      },
    });
    const query = happyObservation('retrievalTrans', (b) => (b.response.encryption_data = 'b'.repeat(64)));
    query.facts.signatureValid = false;
    expect(failing('responseSignatureVerifies', query, signing)).toEqual([
      'SIGNATURE_INVALID profile PAGI-AUTH-007 /encryption_data',
    ]);
  });

  it('every field a request item and its result both list is compared as an echo (review_flag): another value is an integrity failure', () => {
    const flag = profile.review.approve.flag;
    const answered = batchExchange('review', [item('T1', 'O1', { review_flag: flag })]);
    const result = (answered.response!.decoded as { value: { review_orders: Record<string, unknown>[] } }).value
      .review_orders[0]!;
    result.review_flag = `${flag}9`;
    const o = observation('happy', 'review', answered, { review: answered });
    expect(failing('batchResultsEchoRequestIds', o)).toEqual([
      'ECHO_MISMATCH invariant PAGI-BAT-009,PAGI-INV-006 /review_orders/0/review_flag',
    ]);
    expect(spec.operations.get('review')!.echoItems!.fields).toContain('review_flag');
  });
});
