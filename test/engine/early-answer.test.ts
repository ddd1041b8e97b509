/**
 * An early answer is an answer: a gateway answering before the request's body is sent (a 413 at the declared length)
 * and resetting the connection, its own bytes unread, has its answer read, not a network error.
 *
 * The loss is a race: Node destroys a socket whose write fails, and an answer that arrived but was not yet read goes
 * with it (on loopback about one exchange in two hundred, when the write of the body's rest comes just after the
 * reset). Here the race is made certain: the server runs in another thread or process, and the client's write of the
 * body's rest waits, the main thread blocked, until that server has answered and reset the connection, so the write
 * fails before the answer is read. Against a raw server (a worker thread), then against the reference gateway with
 * `server.earlyTooLarge` (`pagi-conform serve`): the oversized query of `outsideRequests` is answered with the
 * profile's bodyTooLarge refusal, and its check passes; discovery's size-limit bisection reads the refusals and states
 * the limit to the byte.
 */
import fs from 'node:fs';
import net from 'node:net';
import { Worker } from 'node:worker_threads';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { discoverProfile } from '../../discover/index.js';
import { limitsDiscoverer } from '../../discover/discoverers/limits.js';
import { createProbeClient } from '../../engine/client.js';
import { createDispatcher } from '../../engine/dispatch.js';
import { exchangeOnce } from '../../engine/transport.js';
import type { CheckContext } from '../../core/model.js';
import { loadProfile } from '../../core/profile/load.js';
import { kitSpec } from '../../core/spec/load.js';
import { CHECKS, PROBES } from '../../suites/registry.js';
import { serve, type ServeProcess } from '../support/cli.js';
import { runConfig } from '../support/config.js';
import { tempDir } from '../support/temp.js';

const CAP = 1 << 20;
const ANSWER = '{"error":"body too large"}';

/** A server (worker thread) answering 413 to a declared length over CAP, then resetting the connection. */
const SERVER = `
const net = require('node:net');
const { parentPort, workerData } = require('node:worker_threads');
const flag = new Int32Array(workerData.shared);
const server = net.createServer((sock) => {
  let head = '';
  let done = false;
  sock.on('error', () => {});
  sock.on('data', (chunk) => {
    if (done) return;
    head += chunk.toString('latin1');
    const end = head.indexOf('\\r\\n\\r\\n');
    if (end < 0) return;
    done = true;
    const length = Number(/content-length: *([0-9]+)/i.exec(head.slice(0, end))?.[1] ?? 0);
    if (length <= ${CAP}) { sock.end('HTTP/1.1 200 OK\\r\\ncontent-length: 2\\r\\n\\r\\n{}'); return; }
    const signal = () => { Atomics.store(flag, 0, 1); Atomics.notify(flag, 0); };
    if (head.startsWith('POST /v1/silent')) { sock.resetAndDestroy(); signal(); return; }
    const body = ${JSON.stringify(ANSWER)};
    sock.write('HTTP/1.1 413 Payload Too Large\\r\\ncontent-type: application/json\\r\\ncontent-length: ' + body.length + '\\r\\n\\r\\n' + body, () => {
      sock.resetAndDestroy();
      signal();
    });
  });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
parentPort.on('message', () => server.close(() => process.exit(0)));
`;

type Chunk = { chunk: Buffer | string; encoding: BufferEncoding | 'buffer' };
type Writev = (this: net.Socket, chunks: Chunk[], cb: (error?: Error | null) => void) => void;

let worker: Worker;
let port: number;
const shared = new SharedArrayBuffer(4);
const flag = new Int32Array(shared);
const proto = net.Socket.prototype as unknown as { _writev: Writev };
const writev = proto._writev;
/** Blocks the thread until the server has answered and reset the connection. */
let hold = () => {
  Atomics.wait(flag, 0, 0, 10_000);
  Atomics.wait(flag, 0, 1, 50); // the reset on its way in
};

beforeAll(async () => {
  worker = new Worker(SERVER, { eval: true, workerData: { shared } });
  port = await new Promise<number>((resolve) => worker.once('message', resolve));
  // The head and a first piece of the body go at once; the rest once the server has answered and reset.
  proto._writev = function (this: net.Socket, chunks, cb) {
    const body = chunks[1]?.chunk;
    if (chunks.length !== 2 || !Buffer.isBuffer(body) || body.length <= CAP) return writev.call(this, chunks, cb);
    Atomics.store(flag, 0, 0);
    writev.call(this, [chunks[0]!, { chunk: body.subarray(0, 64 * 1024), encoding: 'buffer' }], (error) => {
      if (error) cb(error);
    });
    hold();
    (this as unknown as { _write: (c: Buffer, e: string, cb: (error?: Error | null) => void) => void })._write(
      body.subarray(64 * 1024),
      'buffer',
      cb,
    );
  };
});
afterEach(() => {
  Atomics.store(flag, 0, 0);
});
afterAll(async () => {
  proto._writev = writev;
  worker.postMessage('stop');
  await new Promise((resolve) => worker.once('exit', resolve));
});

const send = (body: string, path = '/v1/capture') =>
  exchangeOnce(
    createDispatcher({ timeoutMs: 10_000 }, undefined),
    { url: `http://127.0.0.1:${port}${path}`, method: 'POST', headers: { 'content-type': 'application/json' }, body },
    { timeoutMs: 10_000, maxResponseBytes: 1 << 20, spoolDir: undefined },
  );

describe('an early answer', () => {
  it('is read when the write of the body that follows it fails on the reset connection', async () => {
    const got = await send(`{"pad":"${'x'.repeat(2 * CAP)}"}`);
    expect(got.status).toBe(413);
    expect(got.read.text).toBe(ANSWER);
  });

  it('leaves a connection reset without an answer a network error', async () => {
    await expect(send(`{"pad":"${'x'.repeat(2 * CAP)}"}`, '/v1/silent')).rejects.toMatchObject({
      code: expect.stringMatching(/ECONNRESET|UND_ERR_SOCKET|EPIPE/),
    });
  });

  it('does not hold back a body the server reads whole', async () => {
    expect((await send('{}')).status).toBe(200);
  });
});

describe('the reference gateway with server.earlyTooLarge', () => {
  const spec = kitSpec();
  const { profile } = loadProfile('reference');
  let gateway: ServeProcess;
  beforeAll(async () => {
    const file = `${tempDir('pagi-early-')}/gateway.yaml`;
    fs.writeFileSync(file, 'server:\n  earlyTooLarge: true\n');
    gateway = await serve(['--config', file]);
    // The gateway answers at the declared length: the body's rest goes once it had the time to answer and reset.
    hold = () => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
  }, 60_000);
  afterAll(() => gateway?.stop());

  it('answers the oversized query of outsideRequests with its bodyTooLarge refusal, read by the kit', async () => {
    const config = runConfig(gateway.url, { merchantId: 'M10001', accountId: 'A20001', orderPrefix: 'EA' });
    const client = createProbeClient({
      spec,
      profile,
      config,
      secret: 'reference-secret-0001',
      cardSecurityCode: '123',
      transport: { timeoutMs: 10_000, maxResponseBytes: 8 * 1024 * 1024, concurrency: 2, rate: 0 },
      tag: 'ea',
    });
    try {
      const ctx: CheckContext = { spec, profile, config, requirement: (id) => spec.requirements.get(id)! };
      const o = await PROBES.find((p) => p.id === 'outsideRequests')!.run('retrievalTrans', client, ctx);
      expect(o.inconclusive).toBeUndefined();
      const tooLarge = o.steps.tooLarge!;
      expect(tooLarge.error).toBeUndefined();
      expect(tooLarge.response?.status).toBe(profile.errors.kinds.bodyTooLarge.status);
      expect(tooLarge.response?.headers.connection).toBe('close');
      const check = CHECKS.find((c) => c.id === 'outsideRequestsAnsweredPerProfile')!;
      const outcome = check.run(o, ctx);
      expect('notApplicable' in outcome ? outcome : outcome.filter((f) => f.severity !== 'info')).toEqual([]);
    } finally {
      await client.close();
    }
  }, 60_000);

  it("lets discovery's size-limit bisection read the early refusals and state the limit", async () => {
    const found = await discoverProfile({
      baseUrl: gateway.url,
      merchantId: 'M10001',
      accountId: 'A20001',
      secret: 'reference-secret-0001',
      transport: { timeoutMs: 10_000, maxResponseBytes: 8 * 1024 * 1024, concurrency: 2, rate: 0 },
      cardSecurityCode: '123',
      orderPrefix: 'EAD',
      paymentMethods: { valid: ['PIX'], unknown: 'NOPE' },
      budget: 200,
      log: () => {},
      table: [limitsDiscoverer],
    });
    const limit = found.points.find((p) => p.path === 'limits.maxBodyBytes')!;
    expect(limit.unknown).toBeUndefined();
    expect(limit.value).toBe(profile.limits.maxBodyBytes);
    // Decided on the answer, not on a connection lost (which the bisection also takes for a refusal).
    const { status, code } = profile.errors.kinds.bodyTooLarge;
    expect(limit.evidence).toContain(`${profile.limits.maxBodyBytes + 1} refused`);
    expect(limit.evidence).toMatch(new RegExp(`→ HTTP ${status} .*${code}`));
    expect(limit.evidence).not.toMatch(/no answer/);
  }, 120_000);
});
