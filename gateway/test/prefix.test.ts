/**
 * A base URL with a path (`baseUrl: http://host:port/pay`): the operations, the issuer page and the hosted payment
 * page are served under it, as the banner says (`operations under …/pay/v1`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../index.js';
import { formModel } from './page.js';
import * as h from './helpers.js';

/** The base URL the gateway is told it is reached at; its requests are sent to its listening address instead. */
const PUBLIC = 'http://127.0.0.1:1/pay';
let gw: RunningGateway;
beforeAll(async () => {
  gw = await h.gateway({ baseUrl: PUBLIC });
});
afterAll(() => gw.close());

/** An operation's request signed and sent under the prefix. */
function underPrefix(op: Parameters<typeof h.call>[1], body: Record<string, unknown>) {
  return h.send(`${gw.url}/pay${h.pathOf(op)}`, {
    body: h.signed(op, body),
    encoding: h.profile.requestMedia.types[op],
  });
}

describe('a base URL with a path prefix', () => {
  it('serves every operation under the prefix: a payment, then a capture of it', async () => {
    expect(gw.baseUrl).toBe(PUBLIC);
    const body = h.directBody();
    const paid = await underPrefix('authoriseDirect', body);
    expect(paid.status).toBe(200);
    const transactionId = String(h.xmlBody(paid).transaction_id);
    expect(transactionId).not.toBe('undefined');
    const orders = h.spec.operations.get('capture')!.batch!.orders;
    const captured = await underPrefix('capture', {
      merchant_id: h.MERCHANT,
      account_id: h.ACCOUNT,
      [orders]: [h.item(transactionId, body)],
    });
    expect(captured.status).toBe(200);
    expect(JSON.parse(captured.text)[orders]).toHaveLength(1);
  });

  it('hands out issuer pages and hosted payment pages under the prefix, and serves them there', async () => {
    const apm = h.xmlBody(await underPrefix('authoriseApm', h.apmBody()));
    const issuerUrl = String(apm.issuer_url);
    expect(issuerUrl.startsWith(`${PUBLIC}/issuer/`)).toBe(true);
    expect((await h.send(issuerUrl.replace('http://127.0.0.1:1', gw.url), { method: 'GET' })).status).toBe(200);
    const local = (url: string) => url.replace('http://127.0.0.1:1', gw.url);
    const page = formModel((await underPrefix('checkout', h.checkoutBody())).text);
    expect(page.action.startsWith(`${PUBLIC}/v1/`)).toBe(true);
    const back = await h.send(local(page.action), { body: new URLSearchParams(page.inputs).toString() });
    expect(back.status).toBe(200);
    const payment = formModel(back.text);
    expect(payment.action.startsWith(`${PUBLIC}/pay/`)).toBe(true);
    const done = await h.send(local(payment.action), {
      body: new URLSearchParams({ ...h.cardFields(), action: 'pay' }).toString(),
    });
    expect(done.status).toBe(200);
  });

  it('answers a path of no operation under the prefix with the unknown-path refusal', async () => {
    const res = await h.send(`${gw.url}/pay/v1/noSuchOperation`, { body: {} });
    expect(res.status).toBe(404);
    expect(res.headers['x-pagi-reason']).toMatch(/^unknownPath/);
  });
});
