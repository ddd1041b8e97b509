/** Signatures, registered source addresses, unknown merchants, masking; the same under another profile. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeForm } from '../../core/codecs/form.js';
import type { OperationKey } from '../../core/model.js';
import { loadProfile } from '../../core/profile/load.js';
import { sign, verify } from '../../core/signing.js';
import type { RunningGateway } from '../index.js';
import * as h from './helpers.js';

let gw: RunningGateway;
const lines: string[] = [];
beforeAll(async () => {
  gw = await h.gateway({ log: (line) => lines.push(line) });
});
afterAll(() => gw.close());

const p = h.profile;

describe('request signatures', () => {
  it('refuses a missing, wrong or foreign signature with the profile error and changes nothing', async () => {
    const { transactionId, body } = await h.pay(gw);
    const capture = { merchant_id: h.MERCHANT, account_id: h.ACCOUNT, capture_orders: [h.item(transactionId, body)] };
    const before = gw.stateDigest();
    const attempts: [OperationKey, Record<string, unknown>][] = [
      ['capture', { ...capture, encryption_data: undefined }],
      ['capture', { ...h.signed('capture', capture), encryption_data: '0'.repeat(64) }],
      ['capture', h.signed('capture', capture, 'another-merchants-secret')],
      ['authoriseDirect', { ...h.signed('authoriseDirect', h.directBody()), amount: '1.00' }],
      ['payout', h.signed('payout', h.payoutBody(), 'wrong-secret')],
    ];
    for (const [op, sent] of attempts) {
      const res = await h.send(gw.url + h.pathOf(op), { body: sent });
      expect(res.status).toBe(p.errors.kinds.badSignature.status);
      expect(res.text).toContain(p.errors.kinds.badSignature.code);
    }
    expect(gw.stateDigest()).toBe(before);
  });

  it('treats an unknown merchant account as the profile says', async () => {
    const res = await h.call(gw, 'authoriseDirect', h.directBody({ account_id: 'A99999' }));
    expect(res.status).toBe(p.errors.kinds[p.errors.unknownMerchant]!.status);
  });

  it('signs the responses whose envelope lists encryption_data, verifiable with the merchant secret', async () => {
    const { transactionId, body, result } = await h.pay(gw);
    expect(verify(p.signature, 'response', 'authoriseDirect', result, h.SECRET)).toBe(true);
    expect(verify(p.signature, 'response', 'authoriseDirect', { ...result, amount: '0.01' }, h.SECRET)).toBe(false);
    const out = await h.batch(gw, 'capture', [h.item(transactionId, body)]);
    expect(verify(p.signature, 'response', 'capture', out.json, h.SECRET)).toBe(true);
  });
});

describe('registered source addresses', () => {
  it('refuses a query from an unregistered address (127.0.0.2) and answers it from a registered one', async () => {
    const refused = await h.query(gw, {}, { localAddress: '127.0.0.2' });
    expect(refused.res.status).toBe(p.errors.kinds.refusedAddress.status);
    expect(refused.json.return_message).toBe(
      `${p.errors.kinds.refusedAddress.code}:${p.errors.kinds.refusedAddress.message}`,
    );
    const served = await h.query(gw, {}, { localAddress: '127.0.0.1' });
    expect(served.res.status).toBe(200);
  });

  it('restricts only the operations the profile lists', async () => {
    for (const op of ['retrievalRefund', 'capture'] as const) {
      if (p.addressRestriction.operations.includes(op)) continue;
      const body =
        op === 'capture'
          ? { merchant_id: h.MERCHANT, account_id: h.ACCOUNT, capture_orders: [] }
          : { merchant_id: h.MERCHANT, account_id: h.ACCOUNT };
      expect((await h.call(gw, op, body, { localAddress: '127.0.0.2' })).status).toBe(200);
    }
  });
});

describe('masking', () => {
  it('logs one line per request and never a card number, security code or secret', async () => {
    lines.length = 0;
    await h.pay(gw, { order_no: `ORD-${h.APPROVE_CARD}` });
    await h.send(`${gw.url}/v1/authorise?card=${h.APPROVE_CARD}`, {
      body: h.signed('authoriseDirect', h.directBody()),
    });
    await h.send(`${gw.url}/${h.APPROVE_CARD}`, { body: 'x' });
    // Notification attempts to the requests' notify_url are logged besides: one line per request is about requests.
    expect(lines.filter((l) => !l.startsWith('notify ')).length).toBe(3);
    const all = lines.join('\n');
    expect(all).not.toContain(h.APPROVE_CARD);
    expect(all).not.toContain(h.SECRET);
    expect(all).not.toMatch(/security_code=1|"123"/);
  });
});

describe('another profile: a vendor profile (HMAC over sorted pairs, declared media only, a required header, per-merchant secret, over-limit batches truncated)', () => {
  const VENDOR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'vendor-unsigned-truncating.yaml');
  const sample = loadProfile(VENDOR).profile;
  let vendor: RunningGateway;
  let secret: string;
  beforeAll(async () => {
    vendor = await h.gateway({ profile: VENDOR });
    secret = vendor.config.merchants[0]!.secret!;
  });
  afterAll(() => vendor.close());

  const header = { 'X-Merchant-Id': h.MERCHANT };

  function signedBody(op: OperationKey, body: Record<string, unknown>): Record<string, unknown> {
    const { encryption_data: _old, notify_url: notify, ...fields } = body;
    // notify_url is required in payment requests: one nothing listens on, never the example's host.
    const rest = notify === undefined ? fields : { ...fields, notify_url: h.SILENT_NOTIFY_URL };
    return { ...rest, encryption_data: sign(sample.signature, 'request', op, rest, secret) };
  }

  /** Send as the sample profile says: its media type per operation and its header. */
  function send(op: OperationKey, body: Record<string, unknown>, opts: Parameters<typeof h.send>[1] = {}) {
    const form = sample.requestMedia.types[op] === 'form';
    return h.send(vendor.url + h.pathOf(op), {
      body: form ? encodeForm(body) : body,
      contentType: form ? 'application/x-www-form-urlencoded' : 'application/json',
      headers: header,
      ...opts,
    });
  }

  async function pay(): Promise<{ transactionId: string; body: Record<string, unknown> }> {
    const c = sample.fields.card;
    const body = signedBody('authoriseDirect', {
      ...h.example('authorise-direct-request'),
      order_no: h.orderNo(),
      [c.number]: sample.payments.testCards.approve[0],
      [c.expiryMonth]: '12',
      [c.expiryYear]: '39',
      [c.securityCode]: '123',
    });
    const res = await send('authoriseDirect', body);
    expect(res.status, res.text).toBe(200);
    return { transactionId: String(h.xmlBody(res).transaction_id), body };
  }

  it('pays with the profile card fields and masks the card its way', async () => {
    const c = sample.fields.card;
    const body = signedBody('authoriseDirect', {
      ...h.example('authorise-direct-request'),
      order_no: h.orderNo(),
      [c.number]: '4111111111111111',
      [c.expiryMonth]: '12',
      [c.expiryYear]: '39',
      [c.securityCode]: '123',
    });
    const result = h.xmlBody(await send('authoriseDirect', body));
    expect(result.card).toBe('4111XXXXXXXX1111');
    expect(result.result_info).toBe(
      `${sample.payments.resultInfo.approved.code}:${sample.payments.resultInfo.approved.message}`,
    );
    expect(result.encryption_data).toBeUndefined();
  });

  it('accepts only the declared media type and requires the header', async () => {
    const { transactionId, body } = await pay();
    const capture = signedBody('capture', {
      merchant_id: h.MERCHANT,
      account_id: h.ACCOUNT,
      capture_orders: [h.item(transactionId, body as Record<string, any>)],
    });
    const asJson = await send('capture', capture, { body: capture, contentType: 'application/json' });
    expect(asJson.status).toBe(sample.errors.kinds.malformedBody.status);
    expect(JSON.parse(asJson.text).error.code).toBe(sample.errors.kinds.malformedBody.code);
    const noHeader = await send('capture', capture, { headers: {} });
    expect(noHeader.status).toBe(sample.errors.kinds[sample.requestHeaders.onMissing]!.status);
    const ok = await send('capture', capture);
    expect(ok.status, ok.text).toBe(200);
    expect(JSON.parse(ok.text).capture_orders[0].capture_status).toBe(sample.statusValues.capture_status.success);
  });

  it('processes only the first N items of an over-limit batch (refuseWhole false)', async () => {
    const { transactionId, body } = await pay();
    const max = h.spec.operations.get('cancel')!.batch!.maxItems;
    const items = [
      ...Array.from({ length: max }, () => h.item('T-none', body as Record<string, any>)),
      h.item(transactionId, body as Record<string, any>),
    ];
    const res = await send(
      'cancel',
      signedBody('cancel', { merchant_id: h.MERCHANT, account_id: h.ACCOUNT, cancel_orders: items }),
    );
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).cancel_orders).toHaveLength(max);
  });

  it('restricts refund search to registered addresses too, as this profile lists it', async () => {
    const res = await send(
      'retrievalRefund',
      signedBody('retrievalRefund', { merchant_id: h.MERCHANT, account_id: h.ACCOUNT, transaction_id: 'T-none' }),
      { localAddress: '127.0.0.2' },
    );
    expect(res.status).toBe(sample.errors.kinds.refusedAddress.status);
  });
});
