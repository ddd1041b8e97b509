/**
 * The proxy's safety and transparency: it forwards to its upstream only (a request naming an absolute URL is refused
 * and reaches nobody; a body naming another host is forwarded to the upstream, never followed), it forwards the
 * request's bytes and passes the answer's status, headers and bytes back unchanged, and `--notify` rewrites a
 * notify_url only to forward to loopback or a listed host. The command: its help from the options table, and SIGTERM
 * writes the reports of the session and exits with its verdict.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openProxy, proxyHelp, type ProxyRun } from '../../cli/proxy.js';
import { defaults, type RunOptions } from '../../core/config/options.js';
import { MAX_REQUEST_BYTES, mayForwardNotification } from '../../proxy/server.js';
import { sandboxCredentials } from '../../pact/interactions.js';
import { Merchant } from '../../examples/merchant/client.js';
import { spawnKit } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

/** A stand-in upstream: records every request it gets and answers one fixed answer. */
interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}
const seen: Seen[] = [];
const ANSWER = Buffer.from('{"merchant_id":"M10001","account_id":"A20001","return_status":"1","return_message":"OK"}');
const upstream = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) });
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'x-gateway': 'stand-in' }).end(ANSWER);
  });
});
let run: ProxyRun;

beforeAll(async () => {
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const port = (upstream.address() as AddressInfo).port;
  const options = {
    ...defaults('proxy'),
    ...sandboxCredentials(),
    upstream: `http://127.0.0.1:${port}/base`,
    proxyPort: 0,
    reporter: [],
  } as RunOptions;
  run = await openProxy(options, () => {});
});
afterAll(async () => {
  await run?.stop();
  upstream.closeAllConnections();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

/** Send raw HTTP text to the proxy; the status line of its answer. */
function raw(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(run.proxy.port, '127.0.0.1', () => socket.end(text));
    let got = '';
    socket.on('data', (d) => {
      got += d.toString('latin1');
    });
    socket.on('end', () => resolve(got.split('\r\n')[0]!));
    socket.on('error', reject);
  });
}

describe('the proxy forwards to its upstream only', () => {
  it('passes the request bytes on to the upstream and the answer back unchanged', async () => {
    const body =
      '{"merchant_id":"M10001","account_id":"A20001","encryption_data":"x","capture_orders":[],"note":"http://elsewhere.example/steal"}';
    seen.length = 0;
    const res = await fetch(`${run.proxy.url}/v1/capture`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-merchant': 'kept' },
      body,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway')).toBe('stand-in');
    expect(Buffer.from(await res.arrayBuffer()).equals(ANSWER)).toBe(true);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.url).toBe('/base/v1/capture');
    expect(seen[0]!.body.toString()).toBe(body);
    expect(seen[0]!.headers['x-merchant']).toBe('kept');
  });

  it('refuses a request naming an absolute URL, which reaches nobody', async () => {
    seen.length = 0;
    const status = await raw(
      'POST http://169.254.169.254/v1/capture HTTP/1.1\r\nHost: 169.254.169.254\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
    );
    expect(status).toMatch(/^HTTP\/1\.1 400/);
    expect(seen).toHaveLength(0);
  });

  it('refuses a body over 1 MB without forwarding it', async () => {
    seen.length = 0;
    const res = await fetch(`${run.proxy.url}/v1/capture`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"note":"${'x'.repeat(MAX_REQUEST_BYTES)}"}`,
    });
    expect(res.status).toBe(413);
    expect(seen).toHaveLength(0);
  });

  it('forwards a request outside the interface without judging it', async () => {
    seen.length = 0;
    const res = await fetch(`${run.proxy.url}/health`);
    expect(res.status).toBe(200);
    expect(seen.map((s) => s.url)).toEqual(['/base/health']);
  });

  it('sends notifications only to loopback or the listed hosts', () => {
    expect(mayForwardNotification('http://127.0.0.1:9000/notify', [])).toBe(true);
    expect(mayForwardNotification('http://localhost/notify', [])).toBe(true);
    expect(mayForwardNotification('https://shop.merchant.example/notify', [])).toBe(false);
    expect(mayForwardNotification('https://shop.merchant.example/notify', ['shop.merchant.example'])).toBe(true);
    expect(mayForwardNotification('https://other.example/notify', ['shop.merchant.example'])).toBe(false);
    expect(mayForwardNotification('file:///etc/passwd', ['shop.merchant.example'])).toBe(false);
    expect(mayForwardNotification('not a url', [])).toBe(false);
  });
});

describe('pagi-conform proxy', () => {
  it('stops on SIGTERM, writing the reports of the session, with the verdict as exit code', async () => {
    const out = tempDir('pagi-proxy-cli-');
    const child = spawnKit([
      'proxy',
      '--port',
      '0',
      '--out',
      out,
      '--reporter',
      'json,har',
      '--pact',
      path.join(out, 'p.json'),
    ]);
    let stdout = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => {
        stdout += d.toString();
        const m = /listening on (http:\/\/[0-9.]+:[0-9]+)/.exec(stdout);
        if (m) resolve(m[1]!);
      });
      child.once('exit', () => reject(new Error(`the proxy exited: ${stdout}`)));
    });
    const merchant = new Merchant({ baseUrl: url, ...sandboxCredentials() });
    const payment = await merchant.pay(`ORD-cli-${Date.now().toString(36)}`, '25.00', 'http://127.0.0.1:9/notify');
    expect(payment.transactionId).not.toBe('');
    const code = await new Promise<number | null>((resolve) => {
      child.once('exit', (c) => resolve(c));
      setTimeout(() => child.kill('SIGTERM'), 200);
    });
    expect(stdout).toMatch(/authoriseDirect#1 +authoriseDirect +HTTP 200 +your request: 0, the gateway's answer: 0/);
    expect(code).toBe(0);
    const results = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'));
    expect(results.totals.exchanges).toBe(1);
    expect(fs.existsSync(path.join(out, 'exchanges.har'))).toBe(true);
    expect(JSON.parse(fs.readFileSync(path.join(out, 'p.json'), 'utf8')).interactions).toHaveLength(1);
    expect(fs.readFileSync(path.join(out, 'exchanges.har'), 'utf8')).not.toContain('4111111111111111');
  });

  it('prints its options from the table', () => {
    const help = proxyHelp();
    for (const flag of [
      '--upstream URL',
      '--port N',
      '--notify',
      '--notify-hosts LIST',
      '--pact FILE',
      '--profile FILE',
    ])
      expect(help).toContain(flag);
  });
});
