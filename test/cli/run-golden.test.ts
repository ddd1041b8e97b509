/**
 * The default run's outcome, pinned: `pagi-conform run` on a fixed seed, against the embedded reference gateway and
 * against it behind a fault-injecting proxy applying the stateless faults of test/support/proxy-faults.ts at once (failures and
 * findings across families),
 * gives the same checks, statuses, reasons and findings as recorded in fixtures/default-run.outcome.json. A restructuring
 * (files moved, code shared, operations derived from the spec) must leave it unchanged; a change of a check that is
 * meant re-records it deliberately: `PAGI_RECORD_GOLDEN=1 npx vitest run test/cli/run-golden.test.ts`, and the diff
 * of the fixture is reviewed with the change.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../core/model.js';
import { runCli } from '../support/cli.js';
import { type ProxyFault, startFaultProxy } from '../support/fault-proxy.js';
import { PROXY_CASES } from '../support/proxy-faults.js';

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'default-run.outcome.json');
const SEED = '20261127';

/** What must stay the same: the verdicts and every check's status, severity, reason and findings. */
function outcome(results: RunResult): unknown {
  return {
    verdict: results.verdict,
    verdicts: results.verdicts,
    checks: results.checks
      .map((c) => ({
        check: `${c.operation}/${c.checkId}`,
        status: c.status,
        severity: c.severity,
        reason: c.reason ?? '',
        findings: c.findings.map((f) => `${f.code} ${f.severity} ${f.requirementIds.join(',')} ${f.title}`).sort(),
      }))
      .sort((a, b) => a.check.localeCompare(b.check)),
  };
}

/**
 * The stateless faults of the proxy cases at once, each rewriting what it rewrites (their operations hardly overlap).
 * Two are left out, their findings depending on the order of concurrent requests: the one keeping state across
 * exchanges (which payment is new), and the refund search answered 500 (one fault, one finding: the finding goes to
 * whichever of the checks reading that answer reports first).
 */
const ORDER_DEPENDENT = ['query-leaves-out-new-payment', 'refund-search-500'];
const FAULTS = PROXY_CASES.filter((c) => !ORDER_DEPENDENT.includes(c.fault.name));
const ALL_FAULTS: ProxyFault = {
  name: 'every-proxy-fault',
  description: 'every stateless fault of the proxy cases, each applied where it applies',
  request: (ctx) => {
    for (const c of FAULTS) {
      const body = c.fault.request?.(ctx);
      if (body) return body;
    }
    return undefined;
  },
  answer: (ctx, answer) => FAULTS.map((c) => c.fault.answer?.(ctx, answer) ?? false).some(Boolean),
};

/** Both runs: the embedded gateway, then the same gateway behind every proxy fault. */
async function outcomes(): Promise<Record<string, unknown>> {
  const plain = await runCli(['--reporter', 'json', '--seed', SEED]);
  const fault = ALL_FAULTS;
  const proxy = await startFaultProxy(fault);
  try {
    const faulty = await runCli(['--target', proxy.url, '--reporter', 'json', '--seed', SEED], {
      PAGI_MERCHANT_ID: proxy.merchantId,
      PAGI_ACCOUNT_ID: proxy.accountId,
      PAGI_SECRET: proxy.secret,
    });
    return { default: outcome(plain.results()), [fault.name]: outcome(faulty.results()) };
  } finally {
    await proxy.close();
  }
}

describe('the default run on a fixed seed', () => {
  it('gives the recorded checks, statuses and findings, with and without a fault', { timeout: 300_000 }, async () => {
    const got = await outcomes();
    if (process.env.PAGI_RECORD_GOLDEN === '1') fs.writeFileSync(FIXTURE, `${JSON.stringify(got, null, 1)}\n`);
    const want = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as Record<string, { checks: { findings: string[] }[] }>;
    // The fault's run is the one that pins findings: it must have some.
    expect(want['every-proxy-fault']!.checks.some((c) => c.findings.length > 0)).toBe(true);
    expect(got).toEqual(want);
  });
});
