/**
 * `pagi-conform run` end to end, in child processes, with a small fake registry (test/engine/fixtures) against
 * the embedded reference gateway or a local stand-in: exit codes, results.json, reporters, waivers, selection.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KIT_ROOT } from '../../core/spec/paths.js';
import { startGateway, type RunningGateway } from '../../gateway/index.js';
import { runCli } from '../support/cli.js';
import { tempFile as file } from '../support/temp.js';

const REGISTRY = path.join(KIT_ROOT, 'test', 'engine', 'fixtures', 'fake-registry.ts');
const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => runCli(['--registry', REGISTRY, ...args], env);

let busy: http.Server;
let busyUrl: string;
/** A plain web server: HTML 404 pages for GET, 501 for POST. */
let plain: http.Server;
let plainUrl: string;
/** Answers every operation with HTTP 200 but resets the capture request and never answers checkout. */
let partlyDown: http.Server;
let partlyDownUrl: string;
let gateway: RunningGateway;

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  busy = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(req.method === 'GET' ? 200 : 503, { 'retry-after': '1' }).end('busy'));
  });
  busyUrl = await listen(busy);
  plain = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const [status, title] = req.method === 'POST' ? [501, 'Not Implemented'] : [404, 'Not Found'];
      res
        .writeHead(status, { 'content-type': 'text/html' })
        .end(`<!doctype html><title>${status} ${title}</title><h1>${title}</h1>`);
    });
  });
  plainUrl = await listen(plain);
  partlyDown = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/v1/capture') req.socket.destroy();
      else if (req.url !== '/v1/checkout') res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  partlyDownUrl = await listen(partlyDown);
  gateway = await startGateway({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  busy.close();
  plain.close();
  partlyDown.closeAllConnections();
  partlyDown.close();
  await gateway.close();
});

/** The reference gateway's first account, as a user would give it. */
function account(secret?: string): NodeJS.ProcessEnv {
  const merchant = gateway.config.merchants[0]!;
  const acc = merchant.accounts[0]!;
  return { PAGI_MERCHANT_ID: merchant.merchantId, PAGI_ACCOUNT_ID: acc.accountId, PAGI_SECRET: secret ?? acc.secret };
}

describe.concurrent('pagi-conform run', { timeout: 240_000 }, () => {
  it('is CONFORMANT against the embedded gateway and writes results.json without secrets or card numbers', async () => {
    const run = await cli(['--seed', '7']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/verdict: CONFORMANT/);
    expect(run.stdout).toMatch(/reports: .*results\.json/);
    const results = run.results();
    expect(results).toMatchObject({
      verdict: 'CONFORMANT',
      exitCode: 0,
      metadata: { seed: 7, failOn: 'must', target: { embedded: true }, profile: { name: 'reference' } },
    });
    expect(results.metadata.spec.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(results.metadata.profile.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(results.metadata.configDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(results.metadata.commandLine.slice(0, 2)).toEqual(['pagi-conform', 'run']);
    expect(results.checks.map((c) => `${c.operation}/${c.checkId}:${c.status}`)).toEqual([
      'authoriseDirect/fakeAnswers200:passed',
      'checkout/fakeAnswers200:passed',
      'retrievalTrans/fakeAnswers200:passed',
      'retrievalTrans/fakeNotApplicable:not_applicable',
      'capture/fakeAnswers200:passed',
      'capture/fakeExpectedFails:failed',
    ]);
    expect(results.totals.exchanges).toBe(4);
    expect(results.coverage.checked).toBe(2);
    const text = fs.readFileSync(path.join(run.out, 'results.json'), 'utf8');
    expect(text).not.toContain('reference-secret-0001');
    expect(text).not.toContain('4111111111111111');
    expect(results.checks.find((c) => c.status === 'failed')!.findings[0]!.evidence!.curl).toMatch(
      /^(PAGI_SIGNATURE=\$\(printf [^\n]*\); )?curl -sS -X POST /,
    );
  });

  it('is NOT CONFORMANT (exit 1) when a check fails at or above --fail-on', async () => {
    const run = await cli(['--fail-on', 'expected', '--reporter', 'json,junit']);
    expect(run.code).toBe(1);
    expect(run.results().verdictReasons).toEqual([
      '1 check(s) failed at or above expected: capture/fakeExpectedFails (expected).',
    ]);
    const junit = fs.readFileSync(path.join(run.out, 'junit.xml'), 'utf8');
    expect(junit).toMatch(/<system-out>requirements: PAGI-GEN-005\n/);
    expect(junit).toMatch(/<failure message="fakeExpectedFails failed at expected on capture/);
  });

  it('turns a named failure into a waived one until its waiver expires', async () => {
    const active = file(
      'active.yaml',
      '- {check: fakeExpectedFails, reason: known vendor issue, expires: 2999-12-31}\n',
    );
    const expired = file('expired.yaml', '- {check: fakeExpectedFails, reason: old, expires: 2001-01-01}\n');
    const [ok, stale] = await Promise.all([
      cli(['--fail-on', 'expected', '--waivers', active]),
      cli(['--fail-on', 'expected', '--waivers', expired]),
    ]);
    expect(ok.code).toBe(0);
    expect(ok.results().checks.find((c) => c.checkId === 'fakeExpectedFails')).toMatchObject({
      status: 'waived',
      reason: 'waived until 2999-12-31: known vendor issue',
    });
    expect(stale.code).toBe(1);
    expect(stale.stdout).toMatch(/warning: Waiver for 'fakeExpectedFails' expired on 2001-01-01; its failures stand\./);
  });

  it('judges an --only run on its selection: exit 0, and every report says it is a partial run', async () => {
    const narrowed = await cli(['--only', 'conventions,status', '--reporter', 'console,json,html,markdown']);
    expect(narrowed.code).toBe(0);
    const partial = 'partial run: 1 must check not selected — not a certification.';
    // A failure below --fail-on is a warning: the verdict line names it, never a bare CONFORMANT.
    const warned = '1 warning (check failed below must): capture/fakeExpectedFails (expected).';
    expect(narrowed.stdout).toContain(
      `verdict: CONFORMANT with 1 warning: capture/fakeExpectedFails (expected) (${partial})`,
    );
    expect(narrowed.stdout).not.toMatch(/must checks that could not run/);
    const results = narrowed.results();
    expect(results).toMatchObject({
      verdict: 'CONFORMANT',
      exitCode: 0,
      verdictReasons: [warned, partial],
      partial: { notSelected: 1, mustNotSelected: 1 },
    });
    expect(results.checks.find((c) => c.checkId === 'fakeNotApplicable')).toMatchObject({
      status: 'skipped',
      reason: 'not selected (--only/--skip)',
    });
    const html = fs.readFileSync(path.join(narrowed.out, 'report.html'), 'utf8');
    expect(html).toContain(`<p class="reasons">${partial}</p>`);
    expect(html).toMatch(/<title>PAGI conformance report: CONFORMANT with 1 warning \(partial run\)/);
    expect(fs.readFileSync(path.join(narrowed.out, 'summary.md'), 'utf8')).toContain(`> ${partial}`);
  });

  it('is INCONCLUSIVE (exit 3) when the target answers 503', async () => {
    const busyRun = await cli(['--target', busyUrl], {
      PAGI_MERCHANT_ID: 'M1',
      PAGI_ACCOUNT_ID: 'A1',
      PAGI_SECRET: 'not-used-0001',
    });
    expect(busyRun.code).toBe(3);
    const skipped = busyRun.results().checks.filter((c) => c.status === 'skipped');
    expect(skipped.length).toBe(6);
    expect(skipped[0]!.reason).toMatch(/target answered HTTP 503 \(unavailable\)/);
    expect(busyRun.results().totals.byStatus.failed).toBe(0);
    expect(busyRun.results().partial).toBeUndefined();
  });

  it('fails an operation the target does not answer (reset, timed out) with NO_ANSWER (the availability invariant), instead of skipping it', async () => {
    const run = await cli(['--target', partlyDownUrl, '--timeout', '1500'], {
      PAGI_MERCHANT_ID: 'M1',
      PAGI_ACCOUNT_ID: 'A1',
      PAGI_SECRET: 'not-used-0001',
    });
    expect(run.code).toBe(1);
    const results = run.results();
    expect(results.verdict).toBe('NOT CONFORMANT');
    const byKey = new Map(results.checks.map((c) => [`${c.operation}/${c.checkId}`, c]));
    for (const key of ['capture/fakeAnswers200', 'capture/fakeExpectedFails', 'checkout/fakeAnswers200']) {
      const c = byKey.get(key)!;
      expect(c, key).toMatchObject({ status: 'failed', severity: 'invariant' });
      expect(c.requirementIds, key).toContain('PAGI-INV-008');
      expect(
        c.findings.map((f) => [f.code, f.severity, f.requirementIds]),
        key,
      ).toEqual([['NO_ANSWER', 'invariant', ['PAGI-INV-008']]]);
    }
    expect(byKey.get('capture/fakeAnswers200')!.findings[0]!.message).toMatch(
      /^expected an HTTP response to POST \/v1\/capture \(capture\) \/ received none: /,
    );
    expect(byKey.get('authoriseDirect/fakeAnswers200')!.status).toBe('passed');
    expect(results.checks.filter((c) => c.status === 'skipped')).toEqual([]);
    expect(results.requirements.find((r) => r.id === 'PAGI-INV-008')!.status).toBe('failed');
    expect(results.verdicts!.integrity).toMatchObject({ verdict: 'FAILED', broken: [{ id: 'PAGI-INV-008' }] });
  });

  it('exits 2 with one sentence and writes no report when the target refuses the credentials or is no PAGI gateway', async () => {
    const [wrongSecret, webServer, v1Base] = await Promise.all([
      cli(['--target', gateway.baseUrl], account('wrong')),
      cli(['--target', plainUrl], account()),
      cli(['--target', `${gateway.baseUrl}/v1`], account()),
    ]);
    for (const run of [wrongSecret, webServer, v1Base]) {
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(fs.existsSync(path.join(run.out, 'results.json'))).toBe(false);
      expect(run.stderr).not.toMatch(/NOT CONFORMANT/);
    }
    expect(wrongSecret.stderr.trim()).toMatch(
      /^pagi-conform: The target http:\/\/127\.0\.0\.1:\d+ refused the kit's credentials before any check ran: POST \/v1\/retrievalRefund and POST \/v1\/capture were each answered HTTP 401 "1001:Invalid signature" \(the profile's badSignature\); credentials used: merchant id, account id and secret from the environment \(PAGI_MERCHANT_ID, PAGI_ACCOUNT_ID, PAGI_SECRET\); check them, and that the profile reference describes the gateway's signature\.$/,
    );
    expect(wrongSecret.stderr).not.toContain('wrong');
    expect(webServer.stderr.trim()).toMatch(
      /^pagi-conform: The target http:\/\/127\.0\.0\.1:\d+ is not a PAGI gateway: POST \/v1\/retrievalRefund and POST \/v1\/capture were each answered HTTP 501 \(text\/html\), not by an operation of the interface, so no check ran; check --target/,
    );
    expect(v1Base.stderr.trim()).toBe(
      `pagi-conform: The target ${gateway.baseUrl}/v1 is not a PAGI gateway: POST /v1/v1/retrievalRefund and POST /v1/v1/capture were each answered HTTP 404 "1008:Unknown path", not by an operation of the interface, so no check ran; the base URL already ends in /v1 and the kit adds /v1/<operation> to it: use --target ${gateway.baseUrl}.`,
    );
  });

  it('exits 2 with one sentence for an unreachable target, a bad flag, missing credentials or an unknown selector', async () => {
    const [down, bad, noCreds, selector] = await Promise.all([
      cli(['--target', 'http://127.0.0.1:9'], { PAGI_MERCHANT_ID: 'M', PAGI_ACCOUNT_ID: 'A', PAGI_SECRET: 'S' }),
      cli(['--fail-on', 'sometimes']),
      cli(['--target', busyUrl], { PAGI_MERCHANT_ID: '', PAGI_ACCOUNT_ID: '', PAGI_SECRET: '' }),
      cli(['--only', 'nothingLikeThis']),
    ]);
    expect(down.code).toBe(2);
    expect(down.stderr.trim()).toMatch(
      /^pagi-conform: The target http:\/\/127\.0\.0\.1:9 is unreachable \(ECONNREFUSED: .*\); check the URL and that the gateway is running\.$/,
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe(
      "pagi-conform: --fail-on must be one of must, expected, profile (received 'sometimes').",
    );
    expect(noCreds.code).toBe(2);
    expect(noCreds.stderr).toMatch(/No credentials for the target/);
    expect(selector.code).toBe(2);
    expect(selector.stderr).toMatch(/'nothingLikeThis' names no family, check, operation or requirement/);
  });

  it('lists every check with its operations, family and requirement ids, and prints --help', async () => {
    const [list, help] = await Promise.all([cli(['--list']), cli(['--help'])]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^3 checks/);
    expect(list.stdout).toMatch(
      /status \(1\)\n {2}fakeAnswers200 \[must\] {2}The sample request is answered with HTTP 200\.\n {4}operations: {3}authoriseDirect, capture, retrievalTrans, checkout\n {4}requirements: PAGI-GEN-007 \(must\)/,
    );
    expect(list.stdout).toMatch(/untestable requirements \(level unspecified, [0-9]+\):\n {2}PAGI-GEN-008/);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--max-response-bytes BYTES/);
  });

  it('runs one shard of the suite files', async () => {
    const run = await cli(['--shard', '1/3']);
    const results = run.results();
    expect(results.metadata.selection.shard).toBe('1/3');
    expect(results.checks.length).toBeGreaterThan(0);
    expect(results.checks.length).toBeLessThan(6);
    expect(results.warnings).toContain("Shard 1/3: only this shard's suite files ran; the verdict covers them alone.");
  });

  it('offers the same run as a function: run() returns the results object and does not exit', async () => {
    const script = `import { run } from './kit/index.ts';
const result = await run({ registry: ${JSON.stringify(REGISTRY)}, reporter: [], out: ${JSON.stringify(path.join(os.tmpdir(), 'pagi-api-out'))}, failOn: 'expected' });
console.log(JSON.stringify({ verdict: result.verdict, exitCode: result.exitCode, checks: result.totals.checks, exitCodeOfProcess: process.exitCode ?? 0 }));`;
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script],
        { cwd: KIT_ROOT },
        (error, out) => (error ? reject(error) : resolve(out)),
      ),
    );
    expect(JSON.parse(stdout.trim().split('\n').pop()!)).toEqual({
      verdict: 'NOT CONFORMANT',
      exitCode: 1,
      checks: 6,
      exitCodeOfProcess: 0,
    });
  });

  it('catches a broken embedded gateway: a fault switched on makes the run NOT CONFORMANT', async () => {
    const script = `import { checkOptions, resolveOptions } from './core/config/load.ts';
import { runKitInstrumented } from './kit/kit.ts';
const options = resolveOptions(checkOptions({ only: ['media'], reporter: [], out: ${JSON.stringify(path.join(os.tmpdir(), 'pagi-fault-out'))} }));
const { result } = await runKitInstrumented(options, {}, { gatewayFault: 'xml-root-wrong' });
console.log(JSON.stringify({ verdict: result.verdict, failed: result.checks.filter((c) => c.status === 'failed').map((c) => c.operation + '/' + c.checkId) }));`;
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script],
        { cwd: KIT_ROOT, timeout: 120_000 },
        (error, out) => (error ? reject(error) : resolve(out)),
      ),
    );
    const outcome = JSON.parse(stdout.trim().split('\n').pop()!) as { verdict: string; failed: string[] };
    expect(outcome.verdict).toBe('NOT CONFORMANT');
    expect(outcome.failed).toContainEqual(expect.stringMatching(/^authoriseDirect\//));
  });
});
