/**
 * The kit against a gateway that breaks payment integrity: the reference gateway behind a fault-injecting proxy
 * (test/support/fault-proxy.ts), one fault per case (test/support/proxy-faults.ts: data named by the requirement it
 * breaks). Each fault of the list fails the run (exit 1) through the integrity verdict with its findings and
 * no kit error; each cascade one wrong field used to set off yields its own findings, no kit error, no INCONCLUSIVE
 * and at most a handful of skipped checks; the identity pass-through (a proxy that changes nothing) is CONFORMANT.
 * Runs select the families that show their fault; the one-cent payment answer and the cascades are full default runs.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../core/model.js';
import { NOT_SELECTED } from '../../core/run-result.js';
import { type CliOutcome, runCli } from '../support/cli.js';
import { type FaultProxy, startFaultProxy } from '../support/fault-proxy.js';
import { PROXY_CASES, type ProxyCase } from '../support/proxy-faults.js';

/** Skipped checks a cascade may still leave (a handful: none today). */
const HANDFUL = 5;

const proxies: FaultProxy[] = [];
afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()));
});

/** A run of the kit against the proxy, with the gateway's credentials; the proxy's rewrites counted. */
async function runThrough(
  c: Pick<ProxyCase, 'fault' | 'only'> | undefined,
): Promise<{ run: CliOutcome; rewrites: number }> {
  const proxy = await startFaultProxy(c?.fault);
  proxies.push(proxy);
  const run = await runCli(
    ['--target', proxy.url, '--reporter', 'console,json', ...(c?.only ? ['--only', c.only] : [])],
    { PAGI_MERCHANT_ID: proxy.merchantId, PAGI_ACCOUNT_ID: proxy.accountId, PAGI_SECRET: proxy.secret, NO_COLOR: '1' },
  );
  const rewrites = proxy.rewrites();
  await proxy.close();
  return { run, rewrites };
}

/** Kit errors of a run: its warnings and the results it could not run for one. */
function kitErrors(results: RunResult): string[] {
  return [
    ...results.warnings.filter((w) => w.startsWith('kit error')),
    ...results.checks
      .filter((c) => c.reason?.startsWith('kit error'))
      .map((c) => `${c.operation}/${c.checkId}: ${c.reason}`),
  ];
}

/**
 * The failing results naming `requirement`, and the checks and observation rules whose findings name it (a rule's
 * finding sits in the result of whichever check read the observation first: `operation/ruleId` names it wherever).
 */
function failingOn(results: RunResult, requirement: string): string[] {
  const out = new Set<string>();
  for (const c of results.checks.filter((r) => r.status === 'failed'))
    for (const f of c.findings.filter((x) => x.requirementIds.includes(requirement))) {
      out.add(`${c.operation}/${c.checkId}`);
      out.add(`${c.operation}/${f.checkId}`);
    }
  return [...out];
}

// The cases are independent (a proxy and a gateway each) and wait on their kit process: they run at once, as many kit
// processes at a time as test/support/cli.ts allows.
describe.concurrent('through a fault-injecting proxy in front of the reference gateway', () => {
  it('the identity pass-through changes nothing: CONFORMANT, exit 0, no failed check', {
    timeout: 300_000,
  }, async () => {
    const { run, rewrites } = await runThrough(undefined);
    const results = run.results();
    expect(rewrites).toBe(0);
    expect(results.checks.filter((c) => c.status === 'failed').map((c) => `${c.operation}/${c.checkId}`)).toEqual([]);
    expect(kitErrors(results)).toEqual([]);
    expect(results.verdicts).toMatchObject({ document: { verdict: 'CONFORMANT' }, integrity: { verdict: 'PASSED' } });
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe('verdict: CONFORMANT');
    expect(run.code).toBe(0);
  });

  for (const c of PROXY_CASES) {
    const title = c.cascade
      ? `${c.requirement} ${c.fault.name} (a cascade): its own findings, no kit error, no INCONCLUSIVE, at most ${HANDFUL} skipped`
      : `${c.requirement} ${c.fault.name}: exit 1 through the integrity verdict, with its findings and no kit error`;
    it(title, { timeout: 300_000 }, async () => {
      const { run, rewrites } = await runThrough(c);
      const results = run.results();
      const context = `${c.fault.name}: exit ${run.code}; ${results.verdictReasons.join(' ')}`;
      expect(rewrites, `${c.fault.name} never applied`).toBeGreaterThan(0);
      expect(kitErrors(results), context).toEqual([]);
      expect(failingOn(results, c.requirement), context).toEqual(expect.arrayContaining(c.failing));
      const skipped = results.checks.filter((r) => r.status === 'skipped' && r.reason !== NOT_SELECTED);
      if (c.cascade) {
        expect(results.verdict, context).not.toBe('INCONCLUSIVE');
        const list = skipped.map((r) => `${r.operation}/${r.checkId}: ${r.reason}`).join('\n');
        expect(skipped.length, list).toBeLessThanOrEqual(HANDFUL);
      }
      if (c.requirement.startsWith('PAGI-INV-')) {
        expect(run.code, context).toBe(1);
        expect(results.verdict).toBe('NOT CONFORMANT');
        expect(results.verdicts!.integrity.verdict).toBe('FAILED');
        expect(results.verdicts!.integrity.broken.map((b) => b.id)).toEqual(
          expect.arrayContaining([c.requirement, ...(c.alsoBroken ?? [])]),
        );
        const last = run.stdout.trimEnd().split('\n');
        expect(last.at(-2)).toMatch(/^payment integrity: FAILED — /);
        expect(last.at(-1)).toMatch(
          new RegExp(`^verdict: NOT CONFORMANT \\(Payment integrity FAILED: .*${c.requirement}`),
        );
      } else {
        // Not an integrity failure: the document's level (an absent listed field is expected), a pass with warnings.
        expect(results.verdicts!.integrity.verdict).toBe('PASSED');
        expect(run.code, context).toBe(0);
        expect(run.stdout.trimEnd().split('\n').at(-1)).toMatch(/^verdict: CONFORMANT with \d+ warnings: /);
      }
    });
  }
});
