/**
 * 25,000 idle sockets do not lock a new client out: past the connection cap, the connection idle the longest is
 * closed to make room. The idle sockets are held by two child processes (12,500 each, from the loopback
 * addresses 127.0.0.2 and 127.0.0.3, so that neither a process's open-file limit nor 127.0.0.1's ephemeral
 * ports run out); the gateway is `pagi-conform serve` in a child process of its own, whose cap is the smaller of
 * the configuration's `server.maxConnections` (10,000) and its open-file limit less 64. Each child raises its
 * open-file limit with `ulimit -n` (up to its hard limit) where the default is lower.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as h from './helpers.js';
import { serve } from '../../test/support/cli.js';
import { tempDir } from '../../test/support/temp.js';

/** Opens N sockets to a port from a source address, in batches, and holds them until its stdin closes. */
const HOLDER = `
const net = require('node:net');
const [port, localAddress, count] = process.argv.slice(1).map((v, i) => (i === 1 ? v : Number(v)));
const sockets = [];
let connected = 0, closed = 0, errors = 0;
async function main() {
  for (let i = 0; i < count; i += 500) {
    const batch = [];
    for (let j = i; j < Math.min(count, i + 500); j++) {
      const s = net.connect({ port, host: '127.0.0.1', localAddress });
      sockets.push(s);
      batch.push(new Promise((resolve) => {
        s.once('connect', () => { connected++; resolve(); });
        s.once('error', () => { errors++; resolve(); });
      }));
      s.on('close', () => closed++);
    }
    await Promise.all(batch);
  }
  process.stdout.write(JSON.stringify({ connected, closed, errors }) + '\\n');
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
}
main();
`;

/** Raise the open-file limit of a child (up to its hard limit) where the default is lower (`ulimit -n`). */
const RAISE_FD_LIMIT = 'ulimit -n 20000 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true';

function holder(port: number, localAddress: string, count: number) {
  const child = spawn(
    'bash',
    [
      '-c',
      `${RAISE_FD_LIMIT}; exec "$0" "$@"`,
      process.execPath,
      '-e',
      HOLDER,
      String(port),
      localAddress,
      String(count),
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const report = new Promise<{ connected: number; closed: number; errors: number }>((resolve, reject) => {
    child.stdout.once('data', (c: Buffer) => resolve(JSON.parse(c.toString())));
    child.once('exit', (code) => reject(new Error(`holder exited with ${code}`)));
  });
  return { report, stop: () => child.stdin.end() };
}

describe('connection cap', () => {
  it('25,000 idle sockets: a new client is still answered at once', async () => {
    // Idle sockets are closed by the idle time-out too; a long one leaves the cap alone to do the work.
    const config = path.join(tempDir('pagi-gw-'), 'idle.yaml');
    fs.writeFileSync(config, 'server:\n  idleTimeoutSeconds: 600\n');
    const gw = await serve(['--admin', '--config', config], { shell: RAISE_FD_LIMIT });
    const holders = [holder(gw.port, '127.0.0.2', 12_500), holder(gw.port, '127.0.0.3', 12_500)];
    try {
      const reports = await Promise.all(holders.map((x) => x.report));
      // Each holder needs 12,500 open files: errors here mean its open-file limit could not be raised that far.
      expect(
        reports.reduce((n, r) => n + r.connected, 0),
        JSON.stringify(reports),
      ).toBe(25_000);
      const started = Date.now();
      const health = await h.send(`${gw.url}/healthz`, { method: 'GET' });
      const payment = await h.call({ url: gw.url } as Parameters<typeof h.call>[0], 'authoriseDirect', h.directBody());
      const ms = Date.now() - started;
      expect(health.status).toBe(200);
      expect(payment.status).toBe(200);
      expect(ms, `answered after ${ms} ms`).toBeLessThan(10_000);
      const stats = JSON.parse((await h.send(`${gw.url}/_admin/stats`, { method: 'GET' })).text);
      // The cap is 10,000 unless the gateway's open-file limit (less 64) is lower.
      const cap = stats.server.connections.cap;
      expect(cap).toBeLessThanOrEqual(10_000);
      expect(stats.server.connections.open).toBeLessThanOrEqual(cap);
      // Nearly all of those past the cap were closed to make room (a few may have gone by themselves first).
      expect(stats.server.connections.closedForRoom).toBeGreaterThanOrEqual(25_000 - cap - 100);
    } finally {
      for (const x of holders) x.stop();
      gw.child.kill('SIGTERM');
      await gw.exited;
    }
  }, 180_000);
});
