/**
 * Bounded resources whatever the target does: parser limits that become undecodable bodies (findings), large bodies
 * spooled to disk with their length and digest in the evidence, HAR timings without the kit's own queue, an
 * operation the target leaves unanswered given up after two rounds of timeouts, and the notification receiver's
 * bounds (413/429 and counts).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_LIMITS, jsonOverLimit, markupOverLimit, XML_LIMITS } from '../../core/codecs/limits.js';
import { readXml } from '../../core/codecs/xml.js';
import { createProbeClient, type KitClient } from '../../engine/client.js';
import { decodeBody, decodeExternal } from '../../engine/decode.js';
import { EXCERPT_CHARS } from '../../engine/evidence.js';
import { refusalSentence, remoteNotifications, startReceiver, type Receiver } from '../../engine/receiver.js';
import { clearSpool } from '../../engine/spool.js';
import { loadProfile } from '../../core/profile/load.js';
import { kitSpec } from '../../core/spec/load.js';
import { KIT_ROOT } from '../../core/spec/paths.js';
import { readYamlFile } from '../../core/yaml.js';
import { runConfig } from '../support/config.js';
import { tempDir } from '../support/temp.js';

const spec = kitSpec();
const { profile } = loadProfile('reference');

describe('parser limits', () => {
  it('pass every example of the spec, and stop deep or wide JSON at its bound', () => {
    const dir = path.join(KIT_ROOT, 'spec', 'examples');
    const examples = fs.readdirSync(dir).filter((f) => f.endsWith('.yaml'));
    expect(examples.length).toBeGreaterThan(5);
    for (const f of examples)
      expect(jsonOverLimit(JSON.stringify(readYamlFile(path.join(dir, f)).value)), f).toBeUndefined();
    // A query answer at the interface's limit of 100 orders, each a full record, is far inside the bound.
    const order = readYamlFile(path.join(dir, 'retrieval-trans-response.yaml')).value as { orders_list: unknown[] };
    expect(
      jsonOverLimit(JSON.stringify({ ...order, orders_list: Array(100).fill(order.orders_list[0]) })),
    ).toBeUndefined();
    expect(jsonOverLimit(`${'['.repeat(64)}${']'.repeat(64)}`)).toBeUndefined();
    expect(jsonOverLimit(`${'['.repeat(65)}${']'.repeat(65)}`)).toBe('nesting deeper than 64 levels');
    expect(
      jsonOverLimit(
        `{"a":[${Array(JSON_LIMITS.maxMembers - 1)
          .fill('0')
          .join(',')}]}`,
      ),
    ).toBeUndefined();
    expect(jsonOverLimit(`{"a":[${Array(JSON_LIMITS.maxMembers).fill('0').join(',')}]}`)).toMatch(
      /^more than 20000 members/,
    );
    // Brackets and colons inside strings are text, escaped quotes included.
    expect(jsonOverLimit(JSON.stringify({ note: `${'[{:'.repeat(50_000)}\\"` }))).toBeUndefined();
  });

  it('stop deep or wide XML and HTML before parsing, comments and CDATA aside', () => {
    expect(markupOverLimit(`<r>${'<a>'.repeat(63)}${'</a>'.repeat(63)}</r>`, XML_LIMITS)).toBeUndefined();
    expect(markupOverLimit(`<r>${'<a>'.repeat(64)}${'</a>'.repeat(64)}</r>`, XML_LIMITS)).toBe(
      'elements nested deeper than 64 levels',
    );
    expect(markupOverLimit(`<r>${'<k/>'.repeat(20_001)}</r>`, XML_LIMITS)).toBe('more than 20000 elements');
    expect(
      markupOverLimit(`<r><!--${'<a>'.repeat(100)}--><![CDATA[${'<a>'.repeat(100)}]]></r>`, XML_LIMITS),
    ).toBeUndefined();
    const deep = readXml(`<respon>${'<a>'.repeat(100_000)}x${'</a>'.repeat(100_000)}</respon>`);
    expect(deep).toMatchObject({ ok: false, problem: { kind: 'limit' } });
  });

  it('make a body past a limit, or sent with a content coding, an undecodable body with the reason', async () => {
    const deepJson = await decodeBody(
      spec,
      profile,
      'capture',
      200,
      'application/json',
      `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
      false,
    );
    expect(deepJson).toEqual({
      kind: 'undecodable',
      format: 'json',
      problem: expect.stringContaining('nesting deeper than 64 levels'),
    });
    const wideXml = await decodeBody(
      spec,
      profile,
      'authoriseDirect',
      200,
      'application/xml',
      `<respon>${'<k/>'.repeat(1_000_000)}</respon>`,
      false,
    );
    expect(wideXml).toMatchObject({
      kind: 'undecodable',
      format: 'xml',
      problem: expect.stringContaining('more than 20000 elements'),
    });
    const widePage = await decodeBody(
      spec,
      profile,
      'checkout',
      200,
      'text/html',
      `<form>${'<i></i>'.repeat(30_000)}</form>`,
      false,
    );
    expect(widePage).toMatchObject({
      kind: 'undecodable',
      format: 'html',
      problem: expect.stringContaining('more than 20000 elements'),
    });
    const gz = await decodeBody(spec, profile, 'capture', 200, 'application/json', '\u001f\u008b\u0008', false, 'gzip');
    expect(gz).toMatchObject({ kind: 'undecodable', problem: expect.stringContaining('Content-Encoding gzip') });
    expect(await decodeExternal('application/json', '{}', false, 'br')).toMatchObject({ kind: 'undecodable' });
    expect(await decodeExternal('application/json', '{}', false, 'identity')).toEqual({ kind: 'json', value: {} });
  });
});

describe('the client against a large, slow or silent target', () => {
  let server: http.Server;
  let client: KitClient;
  const spoolDir = tempDir('pagi-bounds-spool-');
  let handle: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_, res) => res.end();
  const sockets = new Set<import('node:net').Socket>();

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => handle(req, res));
    });
    server.on('connection', (s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const config = runConfig(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, {
      orderPrefix: 'B',
      notifyWaitMs: 100,
    });
    client = createProbeClient({
      spec,
      profile,
      config,
      secret: 'bounds-secret-0001',
      cardSecurityCode: '987',
      transport: { timeoutMs: 400, maxResponseBytes: 2 * 1024 * 1024, concurrency: 1, rate: 0 },
      tag: 'b',
      spoolDir,
    });
  });
  afterAll(async () => {
    clearSpool(spoolDir);
    await client.close();
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('keeps a large body on disk, reads it back whole for the checks, and records its length and sha-256 beside a bounded excerpt', async () => {
    const body = JSON.stringify({ merchant_id: 'M', note: 'n'.repeat(1024 * 1024) });
    handle = (_, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    const x = await client.send('capture', client.sample('capture'));
    expect(x.response!.bodyText).toBe(body);
    expect(x.response!.decoded).toMatchObject({ kind: 'json', value: { merchant_id: 'M' } });
    expect(Object.getOwnPropertyDescriptor(x.response!, 'bodyText')!.get).toBeTypeOf('function');
    expect(fs.readdirSync(spoolDir)).toHaveLength(1);
    expect(x.evidence.response).toMatchObject({
      bodyBytes: Buffer.byteLength(body),
      bodySha256: createHash('sha256').update(body).digest('hex'),
    });
    expect(x.evidence.response!.bodyExcerpt.length).toBe(EXCERPT_CHARS + 1);
  });

  it('scans a large body for its reader as it arrives: past a bound it is refused as the reader would, the secret still found', async () => {
    // 30,000 members and the secret past the excerpt: refused as the JSON reader refuses it, no JSON built.
    const json = `{"return_status":"1","orders_list":[${'{"a":0},'.repeat(40_000)}{"x":"bounds-secret-0001"}]}`;
    handle = (_, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(json);
    const x = await client.send('capture', client.sample('capture'));
    expect(x.response!.decoded).toEqual({
      kind: 'undecodable',
      format: 'json',
      problem: 'JSON with more than 20000 members (object keys and array items); the kit reads no further',
    });
    expect(x.response!.secretEchoed).toEqual(['body']);
    expect(x.response!.bodyText).toBe(json); // the checks may still read it whole
    // An XML answer of 100,000 elements: the XML reader's refusal; one declaring a DOCTYPE: that refusal first.
    const xml = `<?xml version="1.0"?><respon>${'<k/>'.repeat(100_000)}</respon>`;
    handle = (_, res) => res.writeHead(200, { 'content-type': 'application/xml' }).end(xml);
    const direct = await client.send('authoriseDirect', client.sample('authoriseDirect'));
    expect(direct.response!.decoded).toMatchObject({
      kind: 'undecodable',
      problem: 'limit: document has more than 20000 elements; the kit reads no further',
    });
    handle = (_, res) => res.writeHead(200, { 'content-type': 'application/xml' }).end(`${xml}<!DOCTYPE x>`);
    const declared = await client.send('authoriseDirect', client.sample('authoriseDirect'));
    expect(declared.response!.decoded).toMatchObject({
      kind: 'undecodable',
      problem: expect.stringMatching(/^doctype/),
    });
  });

  it('stops reading at the size cap: the evidence says truncated, with the length read', async () => {
    handle = (_, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(Buffer.alloc(3 * 1024 * 1024, 'a'));
    };
    const x = await client.send('capture', client.sample('capture'));
    expect(x.error?.kind).toBe('too-large');
    expect(x.evidence.response).toMatchObject({ bodyBytes: 2 * 1024 * 1024, truncated: true });
    expect(x.response!.decoded).toMatchObject({ kind: 'undecodable', problem: expect.stringContaining('size cap') });
  });

  it('keeps at most 100 response headers in the evidence, each cut at 1024 characters', async () => {
    handle = (_, res) => {
      for (let i = 0; i < 300; i++) res.setHeader(`x-h${i}`, i === 0 ? 'v'.repeat(5000) : 'v');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    };
    const x = await client.send('capture', client.sample('capture'));
    const headers = x.evidence.response!.headers;
    expect(Object.keys(headers)).toHaveLength(100);
    expect(headers['x-h0']).toHaveLength(1025);
  });

  it('times an exchange from when it leaves the queue, not from when it joined it', async () => {
    handle = (_, res) => setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'), 300);
    // One request at a time: the third waits two answers in the queue, and its own time is one answer's.
    const [a, , c] = await Promise.all([0, 1, 2].map(() => client.send('refund', client.sample('refund'))));
    const waited = Date.parse(c!.startedAt) - Date.parse(a!.startedAt);
    expect(waited).toBeGreaterThanOrEqual(550);
    expect(c!.durationMs).toBeGreaterThanOrEqual(290);
    expect(c!.durationMs).toBeLessThan(waited);
  });

  it('gives up an operation the target left unanswered in two rounds of timeouts; other operations are still sent', async () => {
    handle = () => undefined; // never answered
    const started = performance.now();
    const xs = [];
    for (let i = 0; i < 5; i++) xs.push(await client.send('cancel', client.sample('cancel')));
    expect(xs.map((x) => x.error?.kind)).toEqual(['timeout', 'timeout', 'timeout', 'timeout', 'timeout']);
    expect(
      xs
        .slice(2)
        .map((x) => x.error!.message)
        .filter((m) => !m.startsWith('not sent: the target left cancel unanswered 2 times in a row')),
    ).toEqual([]);
    expect(performance.now() - started).toBeLessThan(2000);
    handle = (_, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    expect((await client.send('review', client.sample('review'))).response?.status).toBe(200);
  });
});

describe('notification receiver bounds', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver({
      listenOn: '127.0.0.1:0',
      rules: {},
      bounds: { maxBodyBytes: 1024, maxPerRun: 5, maxPerSecond: 3 },
    });
  });
  afterAll(() => receiver.close());

  const post = (body: string | Buffer) =>
    request(receiver.notifyUrl, { method: 'POST', body, headers: { 'content-type': 'application/json' } }).then(
      async (r) => {
        await r.body.dump();
        return r.statusCode;
      },
      () => 'closed',
    );

  it('answers 413 past the body bound and 429 past the rate and the count per run, recording none of them', async () => {
    expect(await post(Buffer.alloc(64 * 1024, 'x'))).toBe(413);
    const burst = await Promise.all([1, 2, 3, 4].map((i) => post(JSON.stringify({ order_no: `B-${i}` }))));
    expect(burst.filter((s) => s === 429).length).toBeGreaterThanOrEqual(1); // 3 a second (the 413 counted too)
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const later = [];
    for (let i = 0; i < 4; i++) later.push(await post(JSON.stringify({ order_no: `L-${i}` })));
    expect(later).toContain(429); // at most 5 in the run
    const refusals = await remoteNotifications(receiver.controlUrl).refusals!();
    expect(refusals.tooLarge).toBe(1);
    expect(refusals.overRate + refusals.overCount).toBeGreaterThanOrEqual(2);
    expect(refusals.overCount).toBeGreaterThanOrEqual(1);
    expect(receiver.received().length).toBeLessThanOrEqual(4);
    expect(refusalSentence(refusals)).toMatch(
      /^the notification receiver refused [0-9]+ request\(s\): 1 with a body over 65536 bytes \(413\)/,
    );
  });

  it('keeps a notification past the JSON bounds as text, not parsed', async () => {
    const own = await startReceiver({ listenOn: '127.0.0.1:0', rules: {} });
    try {
      const deep = `{"order_no":"DEEP-1","x":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
      const res = await request(own.notifyUrl, {
        method: 'POST',
        body: deep,
        headers: { 'content-type': 'application/json' },
      });
      await res.body.dump();
      expect(res.statusCode).toBe(200);
      expect(own.received()[0]!.request).toMatchObject({ body: undefined, encoding: 'raw' });
    } finally {
      await own.close();
    }
  });
});
