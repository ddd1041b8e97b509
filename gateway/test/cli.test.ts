/** `pagi-conform serve`: listening line, one masked log line per request, clean stop, usage errors. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { serve } from '../../test/support/cli.js';
import { tempDir } from '../../test/support/temp.js';
import { main } from '../../cli/main.js';
import * as h from './helpers.js';

afterEach(() => vi.restoreAllMocks());

/** Run `pagi-conform serve` in-process for an argument list that ends before listening; returns exit code and stderr. */
async function usage(args: string[]) {
  const errors: string[] = [];
  vi.spyOn(console, 'error').mockImplementation((line: unknown) => void errors.push(String(line)));
  vi.spyOn(console, 'log').mockImplementation(() => undefined);
  return { code: await main(['serve', ...args]), errors };
}

describe('usage errors', () => {
  it('an unknown option or fault, a bad port or configuration: one clear sentence, exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [['--bogus'], /Unknown option '--bogus'\. Run 'pagi-conform serve --help'/],
      [['--prot', '1'], /Unknown option '--prot'; did you mean '--port'\?/],
      [['--port'], /Option '--port' needs a value/],
      [['--port', 'eighty'], /--port must be an integer/],
      [['--fault', 'no-such-fault'], /Unknown fault 'no-such-fault'\. The faults are [a-z0-9-]+, .*xml-root-wrong, /],
      [['--config', '/nonexistent/gateway.yaml'], /cannot read configuration file/],
      [['extra'], /Unexpected argument 'extra'/],
      [['--fault', 'xml-root-wrng'], /Unknown fault 'xml-root-wrng'; did you mean 'xml-root-wrong'\?/],
    ];
    for (const [args, message] of cases) {
      const { code, errors } = await usage(args);
      expect(code, args.join(' ')).toBe(2);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(message);
      expect(errors[0]!.split('\n')).toHaveLength(1);
    }
  });

  it('refuses a header time-out longer than the request time-out', async () => {
    const file = path.join(tempDir('pagi-gw-'), 'timeouts.yaml');
    fs.writeFileSync(file, 'server:\n  headersTimeoutSeconds: 60\n');
    const { code, errors } = await usage(['--config', file]);
    expect(code).toBe(2);
    expect(errors[0]).toMatch(/headersTimeoutSeconds \(60\) is longer than server\.requestTimeoutSeconds \(30\)/);
  });

  it('refuses a configuration that does not follow the configuration schema', async () => {
    const file = path.join(tempDir('pagi-gw-'), 'bad.yaml');
    fs.writeFileSync(file, 'merchants: []\nunknownKey: 1\n');
    const { code, errors } = await usage(['--config', file]);
    expect(code).toBe(2);
    expect(errors[0]).toMatch(/is not valid/);
  });
});

describe('serving', () => {
  it('prints the listening address, logs one masked line per request, stops cleanly on SIGTERM', async () => {
    const file = path.join(tempDir('pagi-gw-'), 'config.yaml');
    fs.writeFileSync(file, 'connector: CLI-TEST\n');
    const { url, child, exited, until, log } = await serve(['--config', file]);
    const gw = { url } as Parameters<typeof h.call>[0];
    const res = await h.call(gw, 'authoriseDirect', h.directBody());
    expect(h.xmlBody(res).connector).toBe('CLI-TEST');
    await h.send(`${url}/v1/capture`, { method: 'GET' });
    await until(/GET \/v1\/capture/);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const out = log();
    const lines = out.trim().split('\n');
    expect(lines[0]).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
    // The banner: base URL, merchant and account, where the secret comes from (never the secret), the profile.
    expect(lines[1]).toBe(`base URL ${url} (operations under ${url}/v1)`);
    expect(lines[2]).toBe(
      `merchant ${h.MERCHANT}, account ${h.ACCOUNT}; secret source: defaults, gateway/config.default.yaml`,
    );
    expect(lines[3]).toMatch(/^profile reference \S+ \(.*spec\/profiles\/reference\.yaml\)$/);
    expect(lines[4]).toMatch(/^limits: \d+ connections, /);
    expect(lines[4]).toContain(", 8192 characters a field (the profile's limits.maxFieldLength);");
    expect(lines[5]).toBe('health GET /healthz (admin endpoints off: --admin)');
    expect(lines.filter((l) => / POST \/v1\/authorise /.test(l))).toHaveLength(1);
    expect(lines.filter((l) => / GET \/v1\/capture /.test(l))).toHaveLength(1);
    expect(lines.at(-1)).toBe('stopped: 0 requests answered while draining, none cut off');
    expect(out).not.toContain(h.APPROVE_CARD);
    expect(out).not.toContain(h.SECRET);
  });

  it('stops cleanly on SIGINT (Ctrl-C) too', async () => {
    const { child, exited, log } = await serve([]);
    expect(log()).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+\n/);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(log()).toContain('SIGINT: draining');
    expect(log().trim().split('\n').at(-1)).toBe('stopped: 0 requests answered while draining, none cut off');
  });

  it('names a --config file as the secret source when it lists the merchants, and never prints a secret', async () => {
    const file = path.join(tempDir('pagi-gw-'), 'merchants.yaml');
    const secret = 'a-secret-of-the-test-file';
    fs.writeFileSync(
      file,
      `merchants:\n  - merchantId: M7\n    registeredAddresses: ["127.0.0.1"]\n    accounts:\n      - accountId: A7\n        secret: ${secret}\n      - accountId: A8\n        secret: ${secret}-2\n`,
    );
    const { until, log, stop, exited } = await serve(['--config', file, '--admin']);
    await until(/health GET/);
    expect(log()).toContain(`merchant M7, accounts A7, A8; secret source: --config ${file}`);
    expect(log()).toContain('health GET /healthz; admin POST /_admin/reset, GET /_admin/stats');
    expect(log()).not.toContain(secret);
    await stop();
    expect(await exited).toBe(0);
  });
});

describe('profiles the reference gateway cannot follow', () => {
  it('refuses at start a profile asking for batch items processed out of order (no such setting: items run in request order)', async () => {
    const { stringify } = await import('yaml');
    const file = path.join(tempDir('pagi-gw-'), 'unordered.yaml');
    fs.writeFileSync(
      file,
      stringify({ ...h.profile, name: 'unordered', batch: { ...h.profile.batch, sequential: false } }),
    );
    await expect(h.gateway({ profile: file })).rejects.toThrow(
      /unordered\.yaml:[0-9]+:3: batch must NOT have additional properties \(sequential\)/,
    );
  });
});
