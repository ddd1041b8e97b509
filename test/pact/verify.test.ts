/**
 * `pagi-conform pact verify` with Pact's own Verifier: the generated pact against the reference gateway (all
 * verified) and against a gateway with a self-test fault (a failed interaction naming the field).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../gateway/index.js';
import { KIT_ROOT } from '../../src/spec/paths.js';

function cli(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(KIT_ROOT, 'bin', 'pagi-conform.js'), ...args], { cwd: KIT_ROOT, env: { ...process.env, NO_COLOR: '1' } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => resolve({ code: code ?? -1, out }));
  });
}

// eslint-disable-next-line no-control-regex
const plain = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '');

describe('pact verify', { timeout: 120_000 }, () => {
  let reference: RunningGateway;
  let faulty: RunningGateway;
  beforeAll(async () => {
    reference = await startGateway({});
    faulty = await startGateway({ fault: 'direct-drops-account-id' });
  });
  afterAll(async () => {
    await reference?.close();
    await faulty?.close();
  });

  it('verifies every interaction of the generated pact against the reference gateway', async () => {
    const { code, out } = await cli(['pact', 'verify', '--target', reference.url, '--pact', 'pacts']);
    expect(plain(out)).toContain('pact verify: all interactions verified');
    expect(code).toBe(0);
  });

  it('fails the interaction whose response lacks a field, naming the field', async () => {
    const { code, out } = await cli(['pact', 'verify', '--target', faulty.url]);
    const text = plain(out);
    expect(code).toBe(1);
    expect(text).toContain('1 interaction(s) failed');
    expect(text).toMatch(/a direct card payment \(authoriseDirect, HTTP 200\): body \$\.respon: Expected child <account_id\/> but was missing/);
  });

  it('takes broker options up to the command line', async () => {
    const usage = await cli(['pact', 'verify', '--target', reference.url, '--broker-url', 'http://127.0.0.1:9', '--publish']);
    expect(usage.code).toBe(2);
    expect(usage.out).toContain('--publish needs --provider-version');
    const unreachable = await cli(['pact', 'verify', '--target', reference.url, '--broker-url', 'http://127.0.0.1:9', '--provider-version', '1.0.0']);
    expect(unreachable.code).toBe(2);
    expect(plain(unreachable.out)).toContain("could not load the pacts: No pacts found for provider 'pagi-gateway'");
    expect(plain(unreachable.out)).toContain('http://127.0.0.1:9');
  });
});
