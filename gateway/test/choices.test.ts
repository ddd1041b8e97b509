/**
 * The reference gateway running the `sha256-pairs-ownshape` personality makes each choice its profile states: decline
 * outcomes per rule, wording and check order per operation, messages pinned as a prefix, an unknown merchant as a
 * kind of its own, error envelopes carrying the empty result list, payout failure fields under an HTTP error,
 * booleans and nulls left out of the signature, nested form values signed as the text sent, fees to the cent,
 * checkout inputs computed from the request, and notifications in its own shape.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationKey } from '../../core/model.js';
import { notificationSchemaValidator } from '../../core/profile/notification-shape.js';
import { loadProfile } from '../../core/profile/load.js';
import { sign, signedView } from '../../core/signing.js';
import type { RunningGateway } from '../index.js';
import * as h from './helpers.js';
import { formModel } from './page.js';

const NAME = 'sha256-pairs-ownshape';
const p = loadProfile(NAME).profile;
const card = p.fields.card;

/** The body signed as the personality signs a request read as `encoding` (or as `signedBody` says). */
function signedFor(
  op: OperationKey,
  body: Record<string, unknown>,
  encoding: 'json' | 'form' = 'json',
  signedBody?: Record<string, unknown>,
) {
  const view = signedBody ?? signedView(body, encoding, p.requestMedia.formNestedValues);
  return { ...body, encryption_data: sign(p.signature, 'request', op, view, h.SECRET) };
}

let gw: RunningGateway;
const call = (
  op: OperationKey,
  body: Record<string, unknown>,
  encoding: 'json' | 'form' = 'json',
  signedBody?: Record<string, unknown>,
) => h.send(gw.url + h.pathOf(op), { body: signedFor(op, body, encoding, signedBody), encoding });

const cardOf = (number = p.payments.testCards.approve[0]!) => ({
  [card.number]: number,
  [card.expiryMonth]: '7',
  [card.expiryYear]: String(new Date().getUTCFullYear() + 2),
  [card.securityCode]: '123',
});
const direct = (overrides: Record<string, unknown> = {}) => h.directBody({ ...cardOf(), ...overrides });

beforeAll(async () => {
  gw = await h.gateway({ port: 0, host: '127.0.0.1', profile: NAME });
});
afterAll(() => gw?.close());

describe(`the gateway running ${NAME}`, () => {
  it('declines a fraud and an issuer decline each with its own result_info and risk_action', async () => {
    const fraud = h.xmlBody(await call('authoriseDirect', direct({ shopper_email: 'buyer@Fraud.Example' })));
    expect([fraud.order_status, fraud.result_info, fraud.risk_action]).toEqual(['5', 'F059:Suspected fraud', 'DENY']);
    const issuer = h.xmlBody(await call('authoriseDirect', direct({ amount: '66.66' })));
    expect([issuer.order_status, issuer.result_info, issuer.risk_action]).toEqual(['5', 'D005:Do not honour', 'ALLOW']);
    expect(p.payments.testCards.decline).toEqual([]);
  });

  it('checks the payout input before the signature, a direct payment after it', async () => {
    const payout = await call('payout', h.payoutBody({ payment_currency: 'x', source_currency: 'x' }), 'json', {});
    expect(payout.status).toBe(400);
    const failure = JSON.parse(payout.text);
    // The payout's failure fields under an HTTP error (httpFailureType), the message pinned as a prefix.
    expect(failure).toMatchObject({ status: 'DECLINED', failure_type: 'E422' });
    expect(failure.failure_reason).toMatch(/^Invalid request: \/payment_currency /);
    const payment = await call('authoriseDirect', direct({ currency: 'x' }), 'json', {});
    expect(payment.status).toBe(401);
    expect(h.xmlBody(payment).result_info).toBe('E401:Bad signature');
  });

  it('words a bad signature otherwise on capture and on cancel, with the empty result list', async () => {
    for (const [op, message] of [
      ['capture', 'C401:Capture signature mismatch'],
      ['cancel', 'V401:Cancel signature mismatch'],
    ] as const) {
      const body = h.example(`${op}-request`);
      const res = await call(op, body, 'json', {});
      expect(res.status).toBe(200);
      const answer = JSON.parse(res.text);
      expect(answer.return_message).toBe(message);
      expect(answer[`${op}_orders`]).toEqual([]);
    }
  });

  it('refuses an unknown merchant and an unknown account as a kind of its own', async () => {
    const merchant = h.xmlBody(await call('authoriseDirect', direct({ merchant_id: 'M-NOBODY' })));
    expect(merchant.result_info).toBe('E410:Unknown merchant account');
    const account = await call('retrievalTrans', { merchant_id: h.MERCHANT, account_id: 'A-NOBODY' }, 'form');
    expect(account.status).toBe(401);
    expect(JSON.parse(account.text)).toMatchObject({
      return_message: 'E410:Unknown merchant account',
      orders_list: [],
    });
  });

  it('leaves booleans and nulls out of the signature', async () => {
    const body = direct({ pagi_flag: true, pagi_none: null });
    expect((await call('authoriseDirect', body)).status).toBe(200);
    const counted = { ...body, pagi_flag: 'true', pagi_none: '' };
    expect((await call('authoriseDirect', body, 'json', counted)).status).toBe(401);
  });

  it('signs and echoes the nested values of a form body as the JSON text sent', async () => {
    const body = direct();
    expect((await call('authoriseDirect', body, 'form')).status).toBe(200);
    const decoded = signedView(body, 'form', 'decoded');
    expect((await call('authoriseDirect', body, 'form', decoded)).status).toBe(401);
    // JSON text as a merchant may write it (spaces), echoed as sent, not as the value decoded and written again.
    const text = '[ { "basic_item_data": { "name": "Tea" } } ]';
    const page = await call('checkout', h.checkoutBody({ cart_items: text }), 'form');
    expect(page.status).toBe(200);
    expect(formModel(page.text).inputs.cart_items).toBe(text);
  });

  it('keeps the payout fee to the cent', async () => {
    const res = JSON.parse((await call('payout', h.payoutBody({ fee_paid_by: 'OURS' }))).text);
    expect([res.fee_amount, res.amount_payer_pays, res.amount_beneficiary_receives]).toEqual([12.5, 1012.5, 1000]);
  });

  it('computes gateway-added checkout inputs from the request', async () => {
    const body = h.checkoutBody({ order_no: 'ord-7x', website: 'https://Shop.Example/path' });
    const form = formModel((await call('checkout', body)).text);
    expect([form.inputs.descriptor, form.inputs.ordernumlength, form.inputs.webSite]).toEqual([
      'SHOP*ORD-7X',
      '6',
      'shop.example',
    ]);
  });

  it("notifies in its own shape, following the profile's schema", async () => {
    const received: Record<string, unknown>[] = [];
    const server = http.createServer((req, res) => {
      let text = '';
      req.on('data', (c) => (text += c));
      req.on('end', () => {
        received.push(JSON.parse(text));
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/n`;
      const body = direct({ notify_url: url });
      const answer = h.xmlBody(await call('authoriseDirect', body));
      await gw.notificationsIdle();
      for (let i = 0; i < 50 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      const [n] = received;
      expect(n).toMatchObject({
        event: 'payment.result',
        payment: {
          order_no: body.order_no,
          transaction_id: answer.transaction_id,
          status: '1',
          result: 'A000:Approved',
        },
      });
      const validate = notificationSchemaValidator(p.notifications.kinds.payment.ownShape!.schema);
      expect(validate instanceof Error ? validate.message : validate(n)).toBe(true);
    } finally {
      server.close();
    }
  });
});
