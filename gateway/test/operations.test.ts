/**
 * Every operation answers per spec and profile: success responses validate against the spec's response schemas,
 * and every error kind is answered with the profile's status and body, whose fields keep the schema's forms.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationKey } from '../../core/model.js';
import { verify } from '../../core/signing.js';
import type { RunningGateway } from '../index.js';
import * as h from './helpers.js';
import { formModel } from './page.js';

let gw: RunningGateway;
beforeAll(async () => {
  gw = await h.gateway();
});
afterAll(() => gw.close());

const kinds = h.profile.errors.kinds;
const OPS = [...h.spec.operations.keys()];

/** A valid request body of each operation (payments and payout fresh; batch items name an unknown transaction). */
function validBody(op: OperationKey): Record<string, unknown> {
  const envelope = { merchant_id: h.MERCHANT, account_id: h.ACCOUNT };
  switch (op) {
    case 'authoriseDirect':
      return h.directBody();
    case 'authoriseApm':
      return h.apmBody();
    case 'checkout':
      return h.checkoutBody();
    case 'payout':
      return h.payoutBody();
    case 'retrievalTrans':
    case 'retrievalRefund':
      return envelope;
    default: {
      const orders = h.spec.operations.get(op)!.batch!.orders;
      return { ...envelope, [orders]: h.example(`${op}-request`)[orders] };
    }
  }
}

/** The body of a response, decoded as its operation answers (JSON, XML respon, HTML page as text). */
function decode(op: OperationKey | undefined, res: h.Res): Record<string, unknown> {
  const format = op ? h.profile.errors.formatByOperation[op] : h.profile.errors.unknownOperationFormat;
  if (res.status === 200)
    return op === 'checkout'
      ? (formModel(res.text) as unknown as Record<string, unknown>)
      : op?.startsWith('authorise')
        ? h.xmlBody(res)
        : JSON.parse(res.text);
  return format === 'xml'
    ? h.xmlBody(res, h.profile.errors.bodies.xml.root)
    : format === 'json'
      ? JSON.parse(res.text)
      : { html: res.text };
}

/** Assert an error response is the profile's error of `kind`, with a body whose fields keep the schema's forms. */
function expectError(op: OperationKey | undefined, res: h.Res, kind: keyof typeof kinds, unreadable = false) {
  const { status, code, message } = kinds[kind]!;
  expect(res.status, `${op} ${kind}: ${res.text.slice(0, 300)}`).toBe(status);
  const format = op ? h.profile.errors.formatByOperation[op] : h.profile.errors.unknownOperationFormat;
  const body = decode(op, res);
  if (format === 'html') {
    const page = formModel(res.text);
    expect(page.text(h.profile.errors.bodies.html.messageElementId)).toBe(`${code}:${message}`);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    return;
  }
  const text = format === 'json' ? String(body.return_message) : String(body.result_info);
  expect(text).toBe(`${code}:${message}`);
  if (op) expect(h.errorBodyViolations(op, body, unreadable)).toEqual([]);
  expect(res.headers['content-type']).toMatch(format === 'json' ? /^application\/json/ : /^application\/xml/);
}

describe('success responses validate against the spec schemas', () => {
  it.each(OPS)('%s', async (op) => {
    const body = validBody(op);
    const res = await h.call(gw, op, body);
    expect(res.status, res.text.slice(0, 500)).toBe(200);
    const value = decode(op, res);
    expect(h.violations(op, value)).toEqual([]);
    if (op === 'checkout') {
      expect((value as any).inputs.merchant_id).toBe(h.MERCHANT);
      return;
    }
    expect(value.merchant_id).toBe(h.MERCHANT);
    expect(value.account_id).toBe(h.ACCOUNT);
    for (const rule of h.spec.operations.get(op)!.echo) for (const f of rule.fields) expect(value[f]).toEqual(body[f]);
    if (
      h.profile.signature.response.signed &&
      'fields' in h.profile.signature.response &&
      (h.profile.signature.response.fields as Record<string, unknown>)[op]
    ) {
      expect(verify(h.profile.signature, 'response', op, value, h.SECRET)).toBe(true);
    }
  });
});

describe('every operation accepts JSON and form bodies whatever the declared type (rule 6)', () => {
  it.each(OPS)('%s', async (op) => {
    const other = h.profile.requestMedia.types[op] === 'json' ? 'form' : 'json';
    const asOther = await h.call(gw, op, validBody(op), { encoding: other });
    expect(asOther.status, asOther.text.slice(0, 300)).toBe(200);
    const jsonUnderForm = await h.call(gw, op, validBody(op), {
      encoding: 'json',
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(jsonUnderForm.status, jsonUnderForm.text.slice(0, 300)).toBe(200);
  });
});

describe('error kinds: the profile status and body, fields in the schema forms', () => {
  it.each(OPS)('%s: bad signature, malformed body, wrong method, body too large', async (op) => {
    const body = validBody(op);
    expectError(
      op,
      await h.send(gw.url + h.pathOf(op), { body: h.signed(op, body, 'not-the-secret') }),
      'badSignature',
    );
    expectError(
      op,
      await h.send(gw.url + h.pathOf(op), { body: { ...body, encryption_data: undefined } }),
      'badSignature',
    );
    expectError(op, await h.send(gw.url + h.pathOf(op), { body: '{"merchant_id": "M10001", ' }), 'malformedBody', true);
    expectError(op, await h.send(gw.url + h.pathOf(op), { body: '' }), 'malformedBody', true);
    expectError(op, await h.send(gw.url + h.pathOf(op), { method: 'GET' }), 'methodNotAllowed', true);
    expectError(
      op,
      await h.send(gw.url + h.pathOf(op), { body: `{"note":"${'x'.repeat(h.profile.limits.maxBodyBytes)}"}` }),
      'bodyTooLarge',
      true,
    );
  });

  const invalid: Record<OperationKey, () => Record<string, unknown>> = {
    authoriseDirect: () => h.directBody({ amount: '10.3' }),
    authoriseApm: () => h.apmBody({ currency: 'EURO' }),
    checkout: () => h.checkoutBody({ checkout_time: 'soon' }),
    retrievalTrans: () => ({ merchant_id: h.MERCHANT, account_id: h.ACCOUNT, order_no: ['not', 'text'] }),
    capture: () => ({ merchant_id: h.MERCHANT, account_id: h.ACCOUNT, capture_orders: 'all of them' }),
    review: () => ({ merchant_id: h.MERCHANT, account_id: h.ACCOUNT, review_orders: { one: 1 } }),
    cancel: () => ({ merchant_id: h.MERCHANT, account_id: h.ACCOUNT }),
    refund: () => ({ merchant_id: h.MERCHANT, account_id: h.ACCOUNT, refund_orders: 3 }),
    retrievalRefund: () => ({ merchant_id: h.MERCHANT, account_id: h.ACCOUNT, transaction_id: 12 }),
    payout: () => h.payoutBody({ payment_amount: '10.50' }),
  };
  it.each(OPS)('%s: invalid input', async (op) => {
    const res = await h.call(gw, op, invalid[op](), { encoding: 'json' });
    expectError(op, res, 'invalidInput');
    if (h.profile.errors.formatByOperation[op] !== 'html') {
      const body = decode(op, res);
      expect([body.merchant_id, body.account_id]).toEqual([h.MERCHANT, h.ACCOUNT]);
    }
  });

  it.each(OPS.filter((op) => h.spec.operations.get(op)!.batch || h.spec.operations.get(op)!.selectionLimit))(
    '%s: over the limit',
    async (op) => {
      const model = h.spec.operations.get(op)!;
      const body = model.batch
        ? {
            merchant_id: h.MERCHANT,
            account_id: h.ACCOUNT,
            [model.batch.orders]: Array.from({ length: model.batch.maxItems + 1 }, (_, i) => ({
              ...h.example(`${op}-request`)[model.batch!.orders][0],
              order_no: `O${i}`,
            })),
          }
        : {
            merchant_id: h.MERCHANT,
            account_id: h.ACCOUNT,
            order_no: Array.from({ length: model.selectionLimit!.maxOrders + 1 }, (_, i) => `O${i}`).join(
              h.profile.selection[op as 'retrievalTrans'].listSeparator,
            ),
          };
      expectError(op, await h.call(gw, op, body, { encoding: 'json' }), 'overLimit');
    },
  );

  it('refused source address (query from 127.0.0.2)', async () => {
    const res = await h.call(gw, 'retrievalTrans', validBody('retrievalTrans'), { localAddress: '127.0.0.2' });
    expectError('retrievalTrans', res, 'refusedAddress');
  });

  it('unknown record: APM payment method, stored-card token, checkout session', async () => {
    const apm = await h.call(gw, 'authoriseApm', h.apmBody({ payment_method: 'CARRIER_PIGEON' }));
    expect(apm.status).toBe(404);
    expectError('authoriseApm', apm, 'unknownRecord');
    const card = h.profile.fields.card;
    const token = h.directBody({ token_id: 'TK-never-issued' });
    for (const f of [card.number, card.expiryMonth, card.expiryYear, card.securityCode]) delete token[f];
    expectError('authoriseDirect', await h.call(gw, 'authoriseDirect', token), h.profile.payments.token.unknownToken);
    const postBack = { ...h.checkoutBody(), gbc_id: 'no-such-session' };
    expectError(
      'checkout',
      await h.send(gw.url + h.pathOf('checkout'), { body: postBack, encoding: 'form' }),
      'unknownRecord',
    );
  });

  it('unknown path', async () => {
    expectError(undefined, await h.send(`${gw.url}/v1/nothing`, { body: validBody('capture') }), 'unknownPath');
    expectError(undefined, await h.send(`${gw.url}/v2/capture`, { body: validBody('capture') }), 'unknownPath');
  });
});

describe('direct payment response fields', () => {
  it('masks the card (first six, last four), answers result_info, connector, 3-D Secure and risk fields', async () => {
    const { result } = await h.pay(gw);
    const mask = h.profile.fields.cardMask;
    expect(result.card).toBe(
      h.APPROVE_CARD.slice(0, mask.keepFirst) +
        mask.maskChar.repeat(h.APPROVE_CARD.length - 10) +
        h.APPROVE_CARD.slice(-mask.keepLast),
    );
    expect(result.result_info).toBe(
      `${h.profile.payments.resultInfo.approved.code}:${h.profile.payments.resultInfo.approved.message}`,
    );
    expect(result.order_status).toBe(h.profile.statusValues.order_status.approved);
    expect(result.connector).toBe(gw.config.connector);
    expect(result.threeds_result).toBe(h.profile.payments.threeDS.resultWhenRequested);
    expect(result.risk_action).toBe(h.profile.payments.risk.action.approved);
    expect(result.risk_score).toMatch(/^[0-9]+$/);
    expect((result.risk_reasons as unknown[]).length).toBeGreaterThan(0);
  });

  it('answers subscription fields only for a payment with subscription terms, no threeds_result without open3d', async () => {
    const { result } = await h.pay(gw, { subscription: undefined, open3d: undefined });
    for (const f of [
      'contract_name',
      'recurring_id',
      'recurring_deduction_period',
      'recurring_deduction_time',
      'threeds_result',
    ])
      expect(result[f]).toBeUndefined();
    const withTerms = await h.pay(gw);
    expect(withTerms.result.contract_name).toBe(withTerms.body.subscription.contract_name);
    expect(withTerms.result.recurring_deduction_time).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it('issues a token when token_flag asks for one, and a payment by that token_id works', async () => {
    const { result } = await h.pay(gw, { token_flag: h.profile.payments.token.requestValue });
    expect(result.token_id).toMatch(/.+/);
    const card = h.profile.fields.card;
    const byToken = h.directBody({ token_id: result.token_id, token_flag: h.profile.payments.token.noRequestValue });
    for (const f of [card.number, card.expiryMonth, card.expiryYear, card.securityCode]) delete byToken[f];
    const res = await h.call(gw, 'authoriseDirect', byToken);
    expect(res.status).toBe(200);
    const paid = h.xmlBody(res);
    expect(paid.order_status).toBe(h.profile.statusValues.order_status.approved);
    expect(paid.card).toBe(result.card);
    expect(paid.token_id).toBe(result.token_id);
  });

  it('refuses card fields the profile rejects (Luhn, expiry, format) as invalid input', async () => {
    const card = h.profile.fields.card;
    for (const bad of [
      { [card.number]: '4111111111111112' },
      { [card.expiryYear]: '2001' },
      { [card.expiryMonth]: '13' },
      { [card.securityCode]: '12' },
      { [card.number]: undefined },
    ]) {
      expectError('authoriseDirect', await h.call(gw, 'authoriseDirect', h.directBody(bad)), 'invalidInput');
    }
  });

  it('never answers the full card number', async () => {
    const res = await h.call(gw, 'authoriseDirect', h.directBody());
    expect(res.text).not.toContain(h.APPROVE_CARD);
  });
});
