/**
 * `pagi-conform serve` stopping: on SIGTERM it stops accepting, answers every request already received (bodies
 * still arriving, requests waiting in socket buffers), then exits 0 with a last line saying so; requests still
 * unanswered at the drain deadline are cut off, counted in the last line, and the exit status is 1.
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import * as h from './helpers.js';
import { serve } from '../../test/support/cli.js';

/** GET /_admin/stats of a gateway started with --admin. */
async function stats(url: string) {
  return JSON.parse((await h.send(`${url}/_admin/stats`, { method: 'GET' })).text) as {
    server: { connections: { open: number; busy: number } };
  };
}

/** A raw HTTP/1.1 request on its own connection; `split` bytes of the body are held back until `rest()`. */
function rawRequest(port: number, pathName: string, body: string, split: number) {
  const socket = net.connect(port, '127.0.0.1');
  const head = `POST ${pathName} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
  let received = '';
  socket.on('data', (c) => (received += c.toString()));
  socket.on('error', () => undefined);
  const done = new Promise<string>((resolve) => socket.on('close', () => resolve(received)));
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return {
    connected,
    send: (text: string) => new Promise<void>((resolve) => socket.write(text, () => resolve())),
    head,
    first: body.slice(0, split),
    rest: body.slice(split),
    done,
  };
}

function paymentBody(): string {
  return JSON.stringify(h.signed('authoriseDirect', h.directBody()));
}

describe('graceful stop', () => {
  it('SIGTERM with 100 requests in flight (bodies half sent): all 100 answered, exit 0', async () => {
    const gw = await serve(['--admin']);
    const requests = Array.from({ length: 100 }, () => {
      const body = paymentBody();
      return rawRequest(gw.port, '/v1/authorise', body, body.length >> 1);
    });
    await Promise.all(requests.map((r) => r.connected));
    await Promise.all(requests.map((r) => r.send(r.head + r.first)));
    for (let i = 0; i < 200 && (await stats(gw.url)).server.connections.busy < 101; i++)
      await new Promise((r) => setTimeout(r, 25));
    expect((await stats(gw.url)).server.connections.busy).toBeGreaterThanOrEqual(101); // the 100 and the stats request
    gw.child.kill('SIGTERM');
    expect(await gw.until(/SIGTERM: draining/)).not.toBeNull();
    // New connections are refused while the drain lasts.
    const refused = await new Promise<string>((resolve) => {
      const s = net.connect(gw.port, '127.0.0.1', () => resolve('connected'));
      s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
    });
    expect(refused).toBe('ECONNREFUSED');
    await Promise.all(requests.map((r) => r.send(r.rest)));
    const answers = await Promise.all(requests.map((r) => r.done));
    expect(answers.filter((a) => /^HTTP\/1\.1 200 /.test(a) && /<transaction_id>T/.test(a))).toHaveLength(100);
    for (const a of answers) expect(a).toMatch(/\r\nconnection: close\r\n/i);
    expect(await gw.exited).toBe(0);
    expect(gw.log().trim().split('\n').at(-1)).toBe('stopped: 100 requests answered while draining, none cut off');
  }, 60_000);

  it('SIGTERM right after 100 whole requests were written on open connections: all answered', async () => {
    const gw = await serve(['--admin']);
    const requests = Array.from({ length: 100 }, () => {
      const body = paymentBody();
      return rawRequest(gw.port, '/v1/authorise', body, body.length);
    });
    await Promise.all(requests.map((r) => r.connected));
    for (let i = 0; i < 200 && (await stats(gw.url)).server.connections.open < 101; i++)
      await new Promise((r) => setTimeout(r, 25));
    await Promise.all(requests.map((r) => r.send(r.head + r.first)));
    gw.child.kill('SIGTERM');
    const answers = await Promise.all(requests.map((r) => r.done));
    expect(answers.filter((a) => /^HTTP\/1\.1 200 /.test(a))).toHaveLength(100);
    expect(await gw.exited).toBe(0);
    expect(gw.log().trim().split('\n').at(-1)).toMatch(
      /^stopped: \d+ requests? answered while draining, none cut off$/,
    );
  }, 60_000);

  it('a request still unanswered at the drain deadline is cut off: counted in the last line, exit 1', async () => {
    const gw = await serve(['--drain-seconds', '0.5']);
    const body = paymentBody();
    const stuck = rawRequest(gw.port, '/v1/authorise', body, 10);
    await stuck.connected;
    await stuck.send(stuck.head + stuck.first);
    await new Promise((r) => setTimeout(r, 300));
    gw.child.kill('SIGTERM');
    expect(await gw.exited).toBe(1);
    expect(await stuck.done).toBe('');
    expect(gw.log().trim().split('\n').at(-1)).toBe(
      'stopped: 0 requests answered while draining, 1 request cut off at the drain deadline (0.5 s)',
    );
  }, 30_000);

  it('a second signal ends the drain at once', async () => {
    const gw = await serve([]);
    const body = paymentBody();
    const stuck = rawRequest(gw.port, '/v1/authorise', body, 10);
    await stuck.connected;
    await stuck.send(stuck.head + stuck.first);
    await new Promise((r) => setTimeout(r, 300));
    gw.child.kill('SIGTERM');
    await gw.until(/draining/);
    gw.child.kill('SIGINT');
    expect(await gw.exited).toBe(1);
    expect(gw.log().trim().split('\n').at(-1)).toMatch(/1 request cut off by a second signal$/);
  }, 30_000);
});
