/**
 * `pagi-conform profile discover` refusals, in this process (the dispatcher): usage, credentials and the live-target
 * guard stop it with exit 2 before anything is sent. Discoveries themselves run in test/discover/proof.test.ts.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../cli/main.js';
import { EXIT } from '../../core/types/errors.js';
import { tempFile } from '../support/temp.js';

async function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string }> {
  let out = '';
  const keep = (...a: unknown[]) => void (out += `${a.join(' ')}\n`);
  vi.spyOn(console, 'log').mockImplementation(keep);
  vi.spyOn(console, 'error').mockImplementation(keep);
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    return { code: await main(args), out };
  } finally {
    for (const k of Object.keys(env)) if (saved[k] === undefined) delete process.env[k];
    vi.restoreAllMocks();
  }
}

/** A server counting what reaches it, and when. */
let hits = 0;
const arrivals: number[] = [];
const server = http.createServer((_req, res) => {
  hits++;
  arrivals.push(performance.now());
  res.end('{}');
});
let url = '';
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
afterEach(() => vi.restoreAllMocks());

const CREDENTIALS = 'merchantId: M1\naccountId: A1\nsecret: discover-cli-secret\n';

describe('pagi-conform profile discover', () => {
  it('--help lists the command, its exit codes and its rows of the options table', async () => {
    const { code, out } = await cli(['profile', 'discover', '--help']);
    expect(code).toBe(EXIT.ok);
    expect(out).toMatch(/usage: pagi-conform profile discover --target URL/);
    for (const flag of ['--target', '--config', '--rate', '--environment', '--allow-live', '--out', '--notify-url'])
      expect(out).toContain(flag);
    expect(out).toMatch(/exit codes: 0 the draft is a valid profile/);
    expect(out).not.toContain('--depth'); // a run's own flag
  });

  it('needs a target, and refuses an unknown flag with a hint', async () => {
    expect((await cli(['profile', 'discover'])).out).toMatch(/Name the sandbox to discover with --target URL/);
    const typo = await cli(['profile', 'discover', '--targt', url]);
    expect(typo.code).toBe(EXIT.usage);
    expect(typo.out).toMatch(/did you mean '--target'/);
  });

  it('needs credentials (config file or environment) and sends nothing without them', async () => {
    const before = hits;
    const r = await cli(['profile', 'discover', '--target', url]);
    expect(r.code).toBe(EXIT.usage);
    expect(r.out).toMatch(/No credentials for the target/);
    expect(hits).toBe(before);
  });

  it('refuses a non-loopback target not declared a sandbox before sending anything, the secret never printed', async () => {
    const config = tempFile('pagi.yaml', CREDENTIALS);
    const r = await cli(['profile', 'discover', '--target', 'https://gateway.invalid', '--config', config]);
    expect(r.code).toBe(EXIT.usage);
    expect(r.out).toMatch(/not a loopback address .* environment: sandbox/);
    expect(r.out).not.toContain('discover-cli-secret');
  });

  it('stops with exit 2 when the target is no gateway (no scheme of the catalogue is accepted)', async () => {
    const config = tempFile('pagi.yaml', CREDENTIALS);
    const r = await cli(['profile', 'discover', '--target', url, '--config', config, '--out', `${config}.out.yaml`]);
    expect(r.out).not.toContain('discover-cli-secret');
    expect(r.code).toBe(EXIT.usage);
    expect(r.out).toMatch(/No signature scheme could be found, so nothing was drafted/);
  }, 120_000);

  it('respects --rate: requests reach the target no faster than the rate allows', async () => {
    const config = tempFile('pagi.yaml', CREDENTIALS);
    arrivals.length = 0;
    const r = await cli([
      'profile',
      'discover',
      '--target',
      url,
      '--config',
      config,
      '--rate',
      '200',
      '--out',
      `${config}.out.yaml`,
    ]);
    expect(r.code).toBe(EXIT.usage);
    // The catalogue of schemes sends hundreds of requests (about 800 a second unthrottled); at 200 per second, any
    // 201 consecutive ones span at least a second (a little slack for the timer).
    expect(arrivals.length).toBeGreaterThan(201);
    const spans = arrivals.slice(200).map((t, i) => t - arrivals[i]!);
    expect(Math.min(...spans)).toBeGreaterThanOrEqual(950);
  }, 120_000);
});
