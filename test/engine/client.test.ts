import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeForm } from '../../core/codecs/form.js';
import { writeXml } from '../../core/codecs/xml.js';
import { createProbeClient, isoTime, type KitClient } from '../../engine/client.js';
import { inconclusiveReason } from '../../engine/suite.js';
import { everyRequestAnswered, noAnswerFinding, unansweredExchange } from '../../engine/rules.js';
import type { CheckContext, RunConfigView } from '../../core/model.js';
import { loadProfile, readProfile } from '../../core/profile/load.js';
import { kitProfile } from '../../core/profile/reads.js';
import { ProfilePointNotStated } from '../../core/types/errors.js';
import { sign, verify } from '../../core/signing.js';
import { remoteNotifications, startReceiver } from '../../engine/receiver.js';
import { request } from 'undici';
import { kitSpec } from '../../core/spec/load.js';
import { exampleValue } from '../support/examples.js';
import { sinkUrlOf } from '../../engine/sink.js';
import { runConfig } from '../support/config.js';

type Handler = (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void;

const spec = kitSpec();
const { profile } = loadProfile('reference');
const SECRET = 'client-test-secret-0001';
const PAN = profile.payments.testCards.approve[0]!;
let handler: Handler = (_, __, res) => res.end();
let seen: { method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string; remote?: string }[] = [];
let server: http.Server;
let client: KitClient;
let config: RunConfigView;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body, remote: req.socket.remoteAddress });
      handler(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  config = runConfig(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, {
    merchantId: 'M-TEST',
    accountId: 'A-TEST',
    orderPrefix: 'T-abc',
    cards: { approve: PAN },
    notifyUrl: 'http://127.0.0.1:1/notify',
    notifyWaitMs: 100,
  });
  client = createProbeClient({
    spec,
    profile,
    config,
    secret: SECRET,
    cardSecurityCode: '987',
    transport: { timeoutMs: 500, maxResponseBytes: 64 * 1024, concurrency: 4, rate: 0 },
    tag: 't1',
  });
});

afterAll(async () => {
  await client.close();
  server.close();
});

const reply =
  (status: number, type: string, body: string): Handler =>
  (_, __, res) =>
    res.writeHead(status, { 'content-type': type }).end(body);

describe('sample', () => {
  it('builds a valid request from the spec example with the run merchant, a fresh order_no, card fields and the notify URL', () => {
    const a = client.sample('authoriseDirect');
    const b = client.sample('authoriseDirect');
    // The kit's own payments notify the receiver's sink; the events family sets the judged notify_url itself.
    expect(a).toMatchObject({ merchant_id: 'M-TEST', account_id: 'A-TEST', notify_url: sinkUrlOf(config.notifyUrl!) });
    expect(a.order_no).toMatch(/^T-abc-t1-[0-9]+$/);
    expect(a.order_no).not.toBe(b.order_no);
    expect(a).not.toHaveProperty('encryption_data');
    const card = profile.fields.card;
    expect(a[card.number]).toBe(PAN);
    expect(a[card.securityCode]).toBe('987');
    expect(a[card.expiryMonth]).toMatch(/^[0-9]{2}$/);
    expect(String(a[card.expiryYear])).toHaveLength(card.expiryYearFormat === 'YYYY' ? 4 : 2);
    expect(a[profile.fields.antifraudTokenCookie]).toBeDefined();
    expect(
      spec.validate(spec.operations.get('authoriseDirect')!.requestSchemaId, { ...a, encryption_data: 'a'.repeat(64) }),
    ).toEqual([]);
  });

  it('picks the example of the variant, sets the payment method and the idempotency key, and applies overrides', () => {
    const apm = client.sample('authoriseApm', { note: 'n', amount: undefined });
    expect(apm.payment_method).toBe('PIX');
    expect(apm.note).toBe('n');
    expect(apm).not.toHaveProperty('amount');
    expect(apm).not.toHaveProperty(profile.fields.card.number);
    const p1 = client.sample('payout');
    const p2 = client.sample('payout');
    const key = profile.payout.idempotencyKey;
    expect(p1[key]).toMatch(/^[0-9a-f-]{36}$/);
    expect(p1[key]).not.toBe(p2[key]);
    // The reference profile converts no currency: source and payment currency and amount agree.
    expect(profile.payout.currencyConversion).toBe('none');
    expect([p1.source_currency, p1.source_amount]).toEqual([p1.payment_currency, p1.payment_amount]);
  });
});

describe('send', () => {
  it('signs as the profile says, encodes JSON and form bodies, and decodes the response media', async () => {
    handler = reply(
      200,
      'application/xml',
      writeXml('respon', {
        ...exampleValue('authorise-direct-response.yaml'),
        risk_reasons: {
          risk_reason: [
            { name: 'a', status: 'ACCEPT' },
            { name: 'b', status: 'ACCEPT' },
          ],
        },
      }),
    );
    seen = [];
    const x = await client.send('authoriseDirect', client.sample('authoriseDirect'));
    const sent = JSON.parse(seen[0]!.body);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/v1/authorise' });
    expect(seen[0]!.headers['content-type']).toMatch(/^application\/json/);
    expect(verify(profile.signature, 'request', 'authoriseDirect', sent, SECRET)).toBe(true);
    expect(x.request.body).toEqual(sent);
    expect(x.response?.decoded).toMatchObject({ kind: 'xml', root: 'respon' });
    const value = (x.response!.decoded as { value: Record<string, unknown> }).value;
    expect(value.risk_reasons).toEqual([
      { name: 'a', status: 'ACCEPT' },
      { name: 'b', status: 'ACCEPT' },
    ]);
    expect(x.id).toMatch(/^authoriseDirect#t1\.[0-9]+$/);

    handler = reply(200, 'application/json', JSON.stringify({ return_status: '1' }));
    seen = [];
    const q = await client.send('retrievalTrans', client.sample('retrievalTrans'));
    expect(seen[0]!.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(verify(profile.signature, 'request', 'retrievalTrans', decodeForm(seen[0]!.body), SECRET)).toBe(true);
    expect(q.response?.decoded).toEqual({ kind: 'json', value: { return_status: '1' } });
  });

  it('sends JSON where the profile states no media type of the operation but that either is read (acceptOther)', async () => {
    const leftOut = (acceptOther: boolean) => {
      const value = structuredClone(profile) as any;
      delete value.requestMedia.types.retrievalTrans;
      value.requestMedia.acceptOther = acceptOther;
      const read = readProfile(value);
      expect(read.unstated).toContain('/requestMedia/types/retrievalTrans');
      return createProbeClient({
        spec,
        profile: kitProfile(read.profile!, read.unstated),
        config,
        secret: SECRET,
        cardSecurityCode: '987',
        transport: { timeoutMs: 500, maxResponseBytes: 64 * 1024, concurrency: 4, rate: 0 },
        tag: 't3',
      });
    };
    handler = reply(200, 'application/json', JSON.stringify({ return_status: '1' }));
    seen = [];
    const either = leftOut(true);
    await either.send('retrievalTrans', either.sample('retrievalTrans'));
    await either.close();
    expect(seen[0]!.headers['content-type']).toMatch(/^application\/json/);
    const one = leftOut(false);
    await expect(one.send('retrievalTrans', one.sample('retrievalTrans'))).rejects.toBeInstanceOf(
      ProfilePointNotStated,
    );
    await one.close();
  });

  it('sends unsigned, raw, from another path or source address when asked', async () => {
    handler = reply(200, 'application/json', '{}');
    seen = [];
    await client.send('capture', { merchant_id: 'M' }, { sign: false });
    await client.send(
      'capture',
      {},
      { rawBody: '{"broken"', contentType: 'text/plain', path: '/v1/other', method: 'PUT' },
    );
    await client.send('capture', {}, { localAddress: '127.0.0.2' });
    expect(JSON.parse(seen[0]!.body)).toEqual({ merchant_id: 'M' });
    expect(seen[1]).toMatchObject({ method: 'PUT', url: '/v1/other', body: '{"broken"' });
    expect(seen[1]!.headers['content-type']).toBe('text/plain');
    expect(seen[2]!.remote).toBe('127.0.0.2');
  });

  it('reads the checkout page into the form model, and a non-JSON body as undecodable', async () => {
    handler = reply(200, 'text/html', exampleValue('checkout-response.yaml'));
    const page = await client.send('checkout', client.sample('checkout'));
    expect(page.response?.decoded).toMatchObject({ kind: 'html', form: { forms: 1, autoSubmitBy: 'onload' } });
    handler = reply(200, 'application/json', '{"a":');
    const bad = await client.send('capture', client.sample('capture'));
    expect(bad.response?.decoded).toMatchObject({ kind: 'undecodable', format: 'json' });
    handler = reply(200, 'application/json', '');
    expect((await client.send('capture', {})).response?.decoded).toEqual({ kind: 'empty' });
  });

  it('decodes an error body by its content type', async () => {
    handler = reply(400, 'application/json', '{"return_status":"0"}');
    const x = await client.send('authoriseDirect', client.sample('authoriseDirect'));
    expect(x.response).toMatchObject({ status: 400, decoded: { kind: 'json' } });
  });

  it('times out, caps the response size, and does not follow redirects', async () => {
    handler = () => undefined; // never answers
    const slow = await client.send('capture', {});
    expect(slow.error?.kind).toBe('timeout');
    expect(slow.response).toBeUndefined();

    handler = reply(200, 'application/json', JSON.stringify({ pad: 'x'.repeat(100_000) }));
    const big = await client.send('capture', {});
    expect(big.response?.truncated).toBe(true);
    expect(big.response?.bodyText.length).toBe(64 * 1024);
    expect(big.error?.kind).toBe('too-large');
    expect(big.response?.decoded.kind).toBe('undecodable');

    seen = [];
    handler = (_, __, res) => res.writeHead(302, { location: '/v1/elsewhere' }).end();
    const moved = await client.send('capture', {});
    expect(moved.response?.status).toBe(302);
    expect(moved.error?.kind).toBe('redirect');
    expect(seen).toHaveLength(1);
  });

  it('reports a refused connection as a network error', async () => {
    const other = createProbeClient({
      spec,
      profile,
      config: { ...config, baseUrl: 'http://127.0.0.1:9' },
      secret: SECRET,
      cardSecurityCode: '987',
      transport: { timeoutMs: 500, maxResponseBytes: 1024, concurrency: 1, rate: 0 },
      tag: 't2',
    });
    const x = await other.send('capture', {});
    expect(x.error?.kind).toBe('network');
    await other.close();
  });

  it('masks the card number, the security code and the secret in the evidence and the curl line', async () => {
    handler = (_, body, res) =>
      res
        .writeHead(200, { 'content-type': 'application/xml' })
        .end(`<respon><echo>${JSON.parse(body)[profile.fields.card.number]}</echo><s>${SECRET}</s></respon>`);
    const x = await client.send('authoriseDirect', client.sample('authoriseDirect'), { localAddress: '127.0.0.2' });
    const evidence = JSON.stringify(x.evidence);
    expect(evidence).not.toContain(PAN);
    expect(evidence).not.toContain(SECRET);
    expect(evidence).not.toContain('"987"');
    expect(x.evidence.curl).toMatch(
      /^PAGI_SIGNATURE=\$\(printf [^\n]*\); curl -sS -X POST 'http:\/\/127\.0\.0\.1:[0-9]+\/v1\/authorise' -H 'content-type: application\/json; charset=utf-8' --interface '127\.0\.0\.2' --data-raw '\{/,
    );
    expect(x.evidence.response?.bodyExcerpt).toContain('411111******1111');
  });

  it('notes the secret in a body written with JSON escapes or XML character references (decoded as well as raw)', async () => {
    const escaped = [...SECRET].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    handler = reply(200, 'application/json', `{"return_status":"1","x":"${escaped}"}`);
    expect((await client.send('capture', {})).response!.secretEchoed).toEqual(['body']);
    const referenced = [...SECRET].map((c) => `&#${c.charCodeAt(0)};`).join('');
    handler = reply(200, 'application/xml', `<respon><x>${referenced}</x></respon>`);
    expect((await client.send('authoriseDirect', {})).response!.secretEchoed).toEqual(['body']);
  });

  it('counts exchanges per scoped client', async () => {
    handler = reply(200, 'application/json', '{}');
    const scoped = client.scoped();
    await scoped.send('capture', {});
    await scoped.send('capture', {});
    expect(scoped.usage().exchanges).toBe(2);
  });

  it("keeps, with the replay, which of a probe's steps waited for which; the next step of a chain goes first", async () => {
    const replaying = createProbeClient({
      spec,
      profile,
      config,
      secret: SECRET,
      cardSecurityCode: '987',
      transport: { timeoutMs: 500, maxResponseBytes: 64 * 1024, concurrency: 1, rate: 0 },
      tag: 't2',
      captureReplay: true,
    });
    try {
      handler = (_, _body, res) =>
        setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'), 10);
      seen = [];
      const chained = replaying.scoped();
      const fresh = replaying.scoped();
      const first = chained.send('capture', { step: 'first' });
      const others = [1, 2, 3].map((i) => fresh.send('capture', { step: `fresh${i}` }));
      await first;
      // Sent after its probe's first answer (fresh1 took the place meanwhile): it passes the fresh requests still waiting.
      await Promise.all([chained.send('capture', { step: 'second' }), ...others]);
      expect(seen.map((r) => JSON.parse(r.body).step)).toEqual(['first', 'fresh1', 'second', 'fresh2', 'fresh3']);
      expect(chained.usage().chain).toEqual([{ after: 0 }, { after: 1 }]);
      expect(fresh.usage().chain).toEqual([{ after: 0 }, { after: 0 }, { after: 0 }]);
      expect(client.scoped().usage().chain).toBeUndefined(); // kept only with the replay
    } finally {
      await replaying.close();
    }
  });
});

describe('pages, signatures and refusals', () => {
  it('follows pages as a browser would: GET with the form in the query, POST urlencoded, unsigned, recorded as external', async () => {
    handler = reply(
      200,
      'text/html; charset=utf-8',
      '<form method="POST" action="/next"><input name="a" value="1"><input type="submit" name="pay" value="Pay"></form>',
    );
    seen = [];
    const get = await client.follow!(`${config.baseUrl}/issuer/page?x=1`, { method: 'GET', form: { q: 'a b' } });
    const post = await client.follow!(`${config.baseUrl}/next`, { method: 'post', form: { a: '1', pay: 'Pay' } });
    expect(seen.map((r) => [r.method, r.url, r.body])).toEqual([
      ['GET', '/issuer/page?q=a+b', ''],
      ['POST', '/next', 'a=1&pay=Pay'],
    ]);
    expect(seen[1]!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(get).toMatchObject({
      operation: 'external',
      response: {
        decoded: { kind: 'html', form: { forms: 1, action: '/next', buttons: [{ name: 'pay', value: 'Pay' }] } },
      },
    });
    expect(post.id).toMatch(/^external#t1\.[0-9]+$/);
    expect(post.request.body).toEqual({ a: '1', pay: 'Pay' });
  });

  it('verifies signatures with the run secret, and says when the profile signs nothing', () => {
    const body = { merchant_id: 'M-TEST', account_id: 'A-TEST', return_status: '1', return_message: 'OK' };
    const good = { ...body, encryption_data: sign(profile.signature, 'response', 'capture', body, SECRET)! };
    expect(client.verifySignature!('capture', 'response', good)).toBe(true);
    expect(client.verifySignature!('capture', 'response', { ...good, return_status: '0' })).toBe(false);
    expect(
      profile.signature.response.signed &&
        'fields' in profile.signature.response &&
        !('checkout' in profile.signature.response.fields),
    ).toBe(true);
    expect(client.verifySignature!('checkout', 'response', body)).toBeUndefined();
  });

  it('has the receiver refuse the notifications of a key before the next request leaves', async () => {
    const receiver = await startReceiver({
      listenOn: '127.0.0.1:0',
      rules: {},
      acknowledgement: profile.notifications.acknowledgement,
    });
    const withReceiver = createProbeClient({
      spec,
      profile,
      config: { ...config, notifyUrl: receiver.notifyUrl },
      secret: SECRET,
      cardSecurityCode: '987',
      transport: { timeoutMs: 2000, maxResponseBytes: 64 * 1024, concurrency: 2, rate: 0 },
      notifications: remoteNotifications(receiver.controlUrl),
      tag: 't3',
    });
    handler = (_, body, res) => {
      const { order_no } = JSON.parse(body) as { order_no: string };
      void request(receiver.notifyUrl, {
        method: 'POST',
        body: JSON.stringify({ order_no }),
        headers: { 'content-type': 'application/json' },
      }).then((r) => r.body.dump());
      res.writeHead(200, { 'content-type': 'application/xml' }).end('<respon/>');
    };
    const refusedBody = withReceiver.sample('authoriseDirect');
    withReceiver.refuseNotifications!(String(refusedBody.order_no));
    await withReceiver.send('authoriseDirect', refusedBody);
    const acknowledgedBody = withReceiver.sample('authoriseDirect');
    await withReceiver.send('authoriseDirect', acknowledgedBody);
    const [refused] = await withReceiver.notifications(String(refusedBody.order_no), 2000);
    const [acknowledged] = await withReceiver.notifications(String(acknowledgedBody.order_no), 2000);
    const { statusMin, statusMax } = profile.notifications.acknowledgement;
    expect(refused!.response!.status, `outside ${statusMin}-${statusMax}`).not.toSatisfy(
      (s: number) => s >= statusMin && s <= statusMax,
    );
    expect(acknowledged!.response!.status).toBe(statusMin);
    await withReceiver.close();
    await receiver.close();
  });
});

describe('inconclusiveReason', () => {
  it('makes 429 and 503 answers inconclusive, not failures', async () => {
    handler = reply(503, 'text/plain', 'busy');
    const main = await client.send('capture', {});
    expect(inconclusiveReason({ probeId: 'p', operation: 'capture', main, steps: {}, facts: {} })).toMatch(/HTTP 503/);
    handler = reply(429, 'text/plain', 'slow down');
    const step = await client.send('capture', {});
    handler = reply(200, 'application/json', '{}');
    const ok = await client.send('capture', {});
    expect(
      inconclusiveReason({ probeId: 'p', operation: 'capture', main: ok, steps: { again: step }, facts: {} }),
    ).toMatch(/HTTP 429/);
    expect(inconclusiveReason({ probeId: 'p', operation: 'capture', main: ok, steps: {}, facts: {} })).toBeUndefined();
    // A notification the kit's receiver refused on purpose is not the target being unavailable.
    const refusedNotification = { ...step, operation: 'external' as const, incoming: true };
    expect(
      inconclusiveReason({
        probeId: 'p',
        operation: 'capture',
        main: ok,
        steps: { n: refusedNotification },
        facts: {},
      }),
    ).toBeUndefined();
  });
});

describe('an operation that does not answer', () => {
  it('is no reason to skip: the request is found unanswered and fails PAGI-INV-008 (availability) with NO_ANSWER', async () => {
    handler = (req) => req.socket.destroy();
    const reset = await client.send('capture', {});
    handler = () => undefined; // never answers: the client's timeout (500 ms) ends it
    const silent = await client.send('refund', {});
    handler = reply(200, 'application/json', '{}');
    const ok = await client.send('capture', {});
    expect(reset.error?.kind).toBe('network');
    expect(silent.error?.kind).toBe('timeout');
    const observation = { probeId: 'p', operation: 'capture' as const, main: ok, steps: { setUp: reset }, facts: {} };
    expect(inconclusiveReason(observation)).toBeUndefined();
    expect(unansweredExchange(observation)).toBe(reset);
    expect(unansweredExchange({ ...observation, main: silent, steps: {} })).toBe(silent);
    expect(unansweredExchange({ ...observation, steps: {} })).toBeUndefined();
    // A page outside the operations (an issuer page) is its checks' business.
    expect(
      unansweredExchange({ ...observation, steps: { page: { ...reset, operation: 'external' as const } } }),
    ).toBeUndefined();
    // A request the kit could not send at all says nothing of the target: inconclusive, as before.
    const unsent = {
      ...reset,
      error: { kind: 'network' as const, message: 'EADDRNOTAVAIL: connect EADDRNOTAVAIL 127.0.0.9' },
    };
    const local = { ...observation, steps: { fromElsewhere: unsent } };
    expect(unansweredExchange(local)).toBeUndefined();
    expect(inconclusiveReason(local)).toMatch(/^the kit could not send capture#.*: EADDRNOTAVAIL/);
    const finding = noAnswerFinding(spec, silent);
    expect(finding).toMatchObject({
      checkId: 'everyRequestAnswered',
      code: 'NO_ANSWER',
      severity: 'invariant',
      requirementIds: ['PAGI-INV-008'],
      title: 'Operation not answered',
      location: { operation: 'refund', exchangeId: silent.id },
    });
    expect(finding.message).toMatch(/^expected an HTTP response to POST \/v1\/refund \(refund\) \/ received none: /);
    // The table's rule finds it on any observation holding it: the first unanswered request, once.
    const reader = { checkId: 'someCheck', operation: 'refund' as const, requirementIds: [] };
    const ctx = { spec } as unknown as CheckContext;
    expect(everyRequestAnswered.run({ ...observation, main: silent, steps: {} }, ctx, reader)).toEqual([finding]);
    expect(everyRequestAnswered.run({ ...observation, steps: {} }, ctx, reader)).toEqual([]);
  });
});

describe('a reader that gives up', () => {
  it('makes the body undecodable (a finding of the checks), never a transport failure or a skipped check', async () => {
    const deepXml = `<respon>${'<a>'.repeat(5_000)}${'</a>'.repeat(5_000)}</respon>`;
    handler = reply(200, 'application/xml', deepXml);
    const deep = await client.send('authoriseDirect', {});
    expect(deep.error).toBeUndefined();
    expect(deep.response!.decoded).toMatchObject({ kind: 'undecodable', format: 'xml' });
    handler = (_, __, res) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]));
    const latin = await client.send('capture', {});
    expect(latin.error).toBeUndefined();
    expect(latin.response!.decoded).toEqual({
      kind: 'undecodable',
      format: 'json',
      problem: 'the body is not valid UTF-8',
    });
    for (const x of [deep, latin]) {
      const observation = { probeId: 'happy', operation: x.operation as 'capture', main: x, steps: {}, facts: {} };
      expect(inconclusiveReason(observation)).toBeUndefined();
      expect(unansweredExchange(observation)).toBeUndefined();
    }
    // XML that declares another encoding is read as before.
    handler = (_, __, res) =>
      res
        .writeHead(200, { 'content-type': 'application/xml' })
        .end(
          Buffer.concat([
            Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?><respon><note>'),
            Buffer.from([0xe9]),
            Buffer.from('</note></respon>'),
          ]),
        );
    const declared = await client.send('authoriseDirect', {});
    expect(declared.response!.decoded.kind).toBe('xml');
  });
});

describe('isoTime', () => {
  it('prints a time as Date#toISOString does, across seconds, milliseconds and years', () => {
    const times = [0, 9, 10, 99, 100, 999, 1000, 1_700_000_000_000, 1_700_000_000_999, 253_402_300_799_999];
    for (let i = 0; i < 5_000; i++) times.push(Date.now() + i * 7_919, Math.floor(Math.random() * 253_402_300_800_000));
    for (const ms of times) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    for (const ms of [-1, -62_198_755_200_000, 253_402_300_800_000, 1.5])
      expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });
});
