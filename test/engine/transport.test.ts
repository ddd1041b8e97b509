/** Transport options of the client: TLS with a CA file, an HTTP proxy, the rate and concurrency limits. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Agent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { createProbeClient, type TransportOptions } from '../../engine/client.js';
import { createLimiter } from '../../engine/limiter.js';
import { SPOOL_BYTES } from '../../engine/spool.js';
import { exchangeOnce, type ExchangeLimits } from '../../engine/transport.js';
import { loadProfile } from '../../core/profile/load.js';
import { kitSpec } from '../../core/spec/load.js';
import { runConfig } from '../support/config.js';
import { tempDir } from '../support/temp.js';

const spec = kitSpec();
const { profile } = loadProfile('reference');
const closers: (() => void)[] = [];
afterAll(() => closers.forEach((c) => c()));

const config = (baseUrl: string) => runConfig(baseUrl, { cards: {}, paymentMethods: { valid: [], unknown: 'X' } });
const client = (baseUrl: string, transport: Partial<TransportOptions> = {}) =>
  createProbeClient({
    spec,
    profile,
    config: config(baseUrl),
    secret: 'transport-secret',
    cardSecurityCode: '000',
    transport: { timeoutMs: 2000, maxResponseBytes: 1 << 20, concurrency: 2, rate: 0, ...transport },
    tag: 'tr',
  });

function listen(server: net.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

describe('transport', () => {
  it('trusts the target certificate through the CA file', async () => {
    const dir = tempDir('pagi-tls-');
    const [key, cert] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')];
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    const server = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, (_, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
    );
    const port = await listen(server);
    closers.push(() => server.close());
    const untrusted = await client(`https://127.0.0.1:${port}`).send('capture', {});
    expect(untrusted.error?.kind).toBe('network');
    const trusted = await client(`https://127.0.0.1:${port}`, { caFile: cert }).send('capture', {});
    expect(trusted.response?.status).toBe(200);
  });

  it('sends through the HTTP proxy', async () => {
    const target = http.createServer((_, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"via":"target"}'),
    );
    const targetPort = await listen(target);
    const tunnels: string[] = [];
    const proxy = http.createServer((_, res) => res.writeHead(502).end());
    proxy.on('connect', (req, socket) => {
      tunnels.push(req.url ?? '');
      const [host, port] = (req.url ?? '').split(':');
      const upstream = net.connect(Number(port), host, () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      upstream.on('error', () => socket.destroy());
    });
    const proxyPort = await listen(proxy);
    closers.push(
      () => target.close(),
      () => proxy.close(),
    );
    const x = await client(`http://127.0.0.1:${targetPort}`, { proxy: `http://127.0.0.1:${proxyPort}` }).send(
      'capture',
      {},
    );
    expect(x.response?.decoded).toEqual({ kind: 'json', value: { via: 'target' } });
    expect(tunnels).toEqual([`127.0.0.1:${targetPort}`]);
  });
});

describe('limiter', () => {
  it('keeps at most `concurrency` tasks in flight', async () => {
    const limiter = createLimiter(2, 0);
    let active = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 6 }, () =>
        limiter.run(async () => {
          peak = Math.max(peak, ++active);
          await new Promise((r) => setTimeout(r, 20));
          active--;
        }),
      ),
    );
    expect(peak).toBe(2);
  });

  it('gives a freed place to the waiting task of the highest priority, then to the oldest', async () => {
    const limiter = createLimiter(1, 0);
    const order: string[] = [];
    const task = (name: string) => async () => {
      order.push(name);
      await new Promise((r) => setTimeout(r, 5));
    };
    await Promise.all([
      limiter.run(task('first')),
      limiter.run(task('fresh1')),
      limiter.run(task('fresh2')),
      limiter.run(task('chain1'), 1),
      limiter.run(task('chain2'), 1),
    ]);
    expect(order).toEqual(['first', 'chain1', 'chain2', 'fresh1', 'fresh2']);
  });

  it('never lets a newcomer take a place freed for a waiting task', async () => {
    const limiter = createLimiter(1, 0);
    const order: string[] = [];
    const first = limiter.run(async () => void order.push('first'));
    const waiting = limiter.run(async () => void order.push('waiting'));
    await first;
    await Promise.all([waiting, limiter.run(async () => void order.push('newcomer'))]);
    expect(order).toEqual(['first', 'waiting', 'newcomer']);
  });

  it('starts at most `rate` tasks per second', async () => {
    const limiter = createLimiter(10, 20);
    const starts: number[] = [];
    await Promise.all(Array.from({ length: 5 }, () => limiter.run(async () => void starts.push(Date.now()))));
    expect(starts[4]! - starts[0]!).toBeGreaterThanOrEqual(4 * 50 - 5);
  });
});

describe('exchangeOnce: the bounds of a spooled body', () => {
  /** Answers every request with `body` as `type`; the URL to request. */
  async function answering(body: string, type: string): Promise<string> {
    const server = http.createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': type }).end(body);
    });
    const port = await listen(server);
    closers.push(() => server.close());
    return `http://127.0.0.1:${port}/`;
  }
  const agent = new Agent();
  closers.push(() => void agent.close());
  const read = async (url: string, readerOf: ExchangeLimits['readerOf']) =>
    (
      await exchangeOnce(
        agent,
        { url, method: 'POST', headers: {}, body: '' },
        { timeoutMs: 5000, maxResponseBytes: 4 * SPOOL_BYTES, spoolDir: undefined, readerOf },
      )
    ).read;
  const nested = (levels: number, padding: number) =>
    `${'['.repeat(levels)}${' '.repeat(padding)}${']'.repeat(levels)}`;

  it('scans a body that reaches the spool for the reader its answer goes to, asked once with status and headers', async () => {
    const asked: [number, unknown][] = [];
    const got = await read(await answering(nested(100, SPOOL_BYTES), 'application/json'), (status, headers) => {
      asked.push([status, headers['content-type']]);
      return 'json';
    });
    expect(got.spool).toBeDefined();
    expect(got.over).toEqual({ format: 'json', over: 'nesting deeper than 64 levels', declares: false });
    expect(asked).toEqual([[200, 'application/json']]);
    // Without a reader, or for a reader without bounds, nothing is scanned.
    expect((await read(await answering(nested(100, SPOOL_BYTES), 'application/json'), undefined)).over).toBeUndefined();
  });

  it('leaves a small body to its reader (not asked, not scanned) and notes an XML declaration past the bounds', async () => {
    let asked = 0;
    const small = await read(await answering(nested(100, 10), 'application/json'), () => {
      asked++;
      return 'json';
    });
    expect(small.text).toBe(nested(100, 10));
    expect(small.over).toBeUndefined();
    expect(asked).toBe(0);
    const xml = `<!DOCTYPE r>${'<a>'.repeat(100)}${' '.repeat(SPOOL_BYTES)}${'</a>'.repeat(100)}`;
    const got = await read(await answering(xml, 'application/xml'), () => 'xml');
    expect(got.over).toMatchObject({ format: 'xml', declares: true });
  });
});
