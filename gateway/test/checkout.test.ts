/** Hosted checkout round trip and the APM issuer page. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig, type RunningGateway } from '../index.js';
import { Store, type Session } from '../store.js';
import * as h from './helpers.js';
import { formModel } from './page.js';

let gw: RunningGateway;
let rx: Awaited<ReturnType<typeof h.receiver>>;
beforeAll(async () => {
  rx = await h.receiver();
  gw = await h.gateway({ baseUrl: 'http://gateway.test:8443/base' });
});
afterAll(async () => {
  await gw.close();
  await rx.close();
});

const p = h.profile;
const form = h.spec.operations.get('checkout')!.checkoutForm!;

/** Post a form to the gateway at a `{base_url}` path (the test gateway's base URL is not its listen address). */
function postForm(action: string, fields: Record<string, string>) {
  return h.send(action.replace(gw.baseUrl, gw.url), { body: new URLSearchParams(fields).toString() });
}

describe('hosted checkout', () => {
  it('answers a page auto-submitting every field, alias, allParams and gateway field to {base_url}/v1/checkout', async () => {
    const body = h.checkoutBody({ note: 'Ring <b>twice</b> & "leave" it', notify_url: rx.url });
    const res = await h.call(gw, 'checkout', body, { headers: { host: 'evil.example' } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const page = formModel(res.text);
    expect(h.violations('checkout', page)).toEqual([]);
    expect(page.forms).toBe(1);
    expect(page.method).toBe(form.method);
    expect(page.action).toBe(form.action.replace('{base_url}', gw.baseUrl));
    expect(res.text).not.toContain('evil.example');
    expect(page.autoSubmit).toBe(true);
    const sent = h.signed('checkout', body);
    for (const [name, value] of Object.entries(sent))
      expect(page.inputs[name], name).toBe(typeof value === 'string' ? value : JSON.stringify(value));
    for (const alias of form.aliasNames) {
      expect(page.inputs, alias).toHaveProperty(alias);
      const source = (p.checkout.aliases as Record<string, string | null>)[alias];
      if (source) expect(page.inputs[alias], alias).toBe(page.inputs[source] ?? p.checkout.unsourcedValue);
    }
    expect(page.inputs[form.allParamsName]).toBe(
      Object.entries(sent)
        .map(
          ([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))}`,
        )
        .join('&'),
    );
    for (const field of form.gatewayFields) expect(page.inputs, field).toHaveProperty(field);
    expect(Object.values(page.inputTypes).filter((t) => t !== 'hidden')).toEqual([]);
    expect(res.text).toContain('Ring &lt;b&gt;twice&lt;/b&gt; &amp; &quot;leave&quot; it');
    expect(res.text).not.toContain('<b>');
  });

  it('round trip: page → form POST back → hosted payment page → pay → payment completed → notification', async () => {
    const body = h.checkoutBody({ notify_url: rx.url });
    const page = formModel((await h.call(gw, 'checkout', body)).text);
    const before = rx.received.length;
    const back = await postForm(page.action, page.inputs);
    expect(back.status).toBe(200);
    const payment = formModel(back.text);
    expect(payment.method).toBe('POST');
    const pay = `${gw.baseUrl}/pay/`;
    expect(payment.action.slice(0, pay.length)).toBe(pay);
    expect(Object.keys(payment.inputs)).toContain(p.fields.card.number);
    const card = h.cardFields();
    const done = await postForm(payment.action, { ...card, action: 'pay' });
    expect(done.status).toBe(200);
    const result = formModel(done.text);
    const transactionId = result.text('transaction')!;
    expect(result.text('result')).toBe(
      `${p.payments.resultInfo.approved.code}:${p.payments.resultInfo.approved.message}`,
    );
    expect(done.text).not.toContain(h.APPROVE_CARD);
    const { json } = await h.query(gw, { order_no: body.order_no });
    expect(json.orders_list).toHaveLength(1);
    expect(json.orders_list[0]).toMatchObject({
      transaction_id: transactionId,
      amount: body.amount,
      payment_status: p.statusValues.payment_status.authorised,
    });
    const [note] = (await rx.waitFor(before + 1)).slice(before);
    const notified = JSON.parse(note!.text);
    expect(notified).toMatchObject({
      order_no: body.order_no,
      transaction_id: transactionId,
      order_status: p.statusValues.order_status.approved,
    });
    expect(h.violations('authoriseDirect', notified)).toEqual([]);
    // No loop: paying again or posting the form back again shows the result, no second payment.
    const count = gw.counts().transactions;
    expect((await postForm(payment.action, { action: 'pay' })).text).toContain(transactionId);
    expect((await postForm(page.action, page.inputs)).text).toContain(transactionId);
    expect(gw.counts().transactions).toBe(count);
  });

  it('declines when the shopper cancels or pays with a declining test card', async () => {
    for (const fields of [{ action: 'decline' }, { ...h.cardFields(h.DECLINE_CARD), action: 'pay' }]) {
      const page = formModel((await h.call(gw, 'checkout', h.checkoutBody())).text);
      const payment = formModel((await postForm(page.action, page.inputs)).text);
      const result = formModel((await postForm(payment.action, fields)).text);
      expect(result.text('result')).toBe(
        `${p.payments.resultInfo.declined.code}:${p.payments.resultInfo.declined.message}`,
      );
    }
  });

  it('refuses an unusable card on the payment page and keeps the session open', async () => {
    const page = formModel((await h.call(gw, 'checkout', h.checkoutBody())).text);
    const payment = formModel((await postForm(page.action, page.inputs)).text);
    const before = gw.stateDigest();
    const bad = await postForm(payment.action, { ...h.cardFields('4111111111111112'), action: 'pay' });
    expect(bad.status).toBe(p.errors.kinds.invalidInput.status);
    expect(gw.stateDigest()).toBe(before);
    expect((await postForm(payment.action, { action: 'pay' })).status).toBe(200);
  });
});

describe('APM payment', () => {
  it('answers issuer_url; requesting it gives the issuer page where paying completes the payment', async () => {
    const body = h.apmBody({ notify_url: rx.url });
    const res = await h.call(gw, 'authoriseApm', body);
    expect(res.status).toBe(200);
    const answer = h.xmlBody(res);
    expect(h.violations('authoriseApm', answer)).toEqual([]);
    const issuerUrl = String(answer.issuer_url);
    const issuer = `${gw.baseUrl}/issuer/`;
    expect(issuerUrl.slice(0, issuer.length)).toBe(issuer);
    expect((await h.query(gw, { order_no: body.order_no })).json.orders_list[0].query_result).toBe(
      p.statusValues.query_result.notFound,
    );
    const pageRes = await h.send(issuerUrl.replace(gw.baseUrl, gw.url), { method: 'GET' });
    expect(pageRes.status).toBe(200);
    const page = formModel(pageRes.text);
    expect(page.method).toBe('POST');
    const before = rx.received.length;
    const done = formModel((await postForm(page.action, { action: 'pay' })).text);
    const transactionId = done.text('transaction');
    const { json } = await h.query(gw, { order_no: body.order_no });
    expect(json.orders_list[0]).toMatchObject({
      transaction_id: transactionId,
      payment_status: p.statusValues.payment_status.authorised,
    });
    const [note] = (await rx.waitFor(before + 1)).slice(before);
    expect(JSON.parse(note!.text)).toMatchObject({ order_no: body.order_no, transaction_id: transactionId });
    expect(
      formModel((await h.send(issuerUrl.replace(gw.baseUrl, gw.url), { method: 'GET' })).text).text('transaction'),
    ).toBe(transactionId);
  });

  it('answers 404 for a payment method not offered, 400 for invalid input, 404 for an unknown issuer page', async () => {
    expect((await h.call(gw, 'authoriseApm', h.apmBody({ payment_method: 'UNKNOWN_METHOD' }))).status).toBe(404);
    expect((await h.call(gw, 'authoriseApm', h.apmBody({ amount: 'lots' }))).status).toBe(400);
    expect((await h.call(gw, 'authoriseApm', h.apmBody({ amount: undefined }))).status).toBe(400);
    expect((await h.send(`${gw.url}/issuer/nope`, { method: 'GET' })).status).toBe(p.errors.kinds.unknownRecord.status);
  });
});

describe('sessions', () => {
  const session = (token: string, at: number): Session => ({
    token,
    kind: 'apm',
    merchantId: h.MERCHANT,
    accountId: h.ACCOUNT,
    request: {},
    createdAt: new Date(at),
  });

  it('live for the configured time; a lookup of an expired one changes nothing, a new session drops expired and excess ones', () => {
    const store = new Store();
    store.addSession(session('a', 0), 1000, 3);
    store.addSession(session('b', 500), 1000, 3);
    expect(store.liveSession('a', new Date(999), 1000)?.token).toBe('a');
    expect(store.liveSession('a', new Date(1000), 1000)).toBeUndefined();
    expect([...store.sessions.keys()]).toEqual(['a', 'b']);
    store.addSession(session('c', 1200), 1000, 3); // a is past its lifetime when c opens
    expect([...store.sessions.keys()]).toEqual(['b', 'c']);
    store.addSession(session('d', 1300), 1000, 2); // over the cap: the oldest goes
    expect([...store.sessions.keys()]).toEqual(['c', 'd']);
  });

  it('answer unknownRecord on their pages once expired or dropped over the cap, with nothing changed', async () => {
    const config = { ...defaultConfig(), sessions: { ttlSeconds: 1, maxSessions: 2 } };
    const short = await h.gateway({ config });
    try {
      const issuerUrl = async () =>
        String(h.xmlBody(await h.call(short, 'authoriseApm', h.apmBody())).issuer_url).replace(
          short.baseUrl,
          short.url,
        );
      const [first, second, third] = [await issuerUrl(), await issuerUrl(), await issuerUrl()];
      expect((await h.send(first, { method: 'GET' })).status).toBe(404); // dropped: a third session opened past the cap
      expect((await h.send(second, { method: 'GET' })).status).toBe(200);
      const before = short.stateDigest();
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const expired = await h.send(third, { method: 'POST', body: 'action=pay' });
      expect(expired.status).toBe(404);
      expect(expired.headers['content-type']).toMatch(/^text\/html/);
      expect(short.stateDigest()).toBe(before);
    } finally {
      await short.close();
    }
  });
});
