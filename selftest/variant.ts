/**
 * One self-test run: the reference gateway with one variant switched on (in-process, ephemeral loopback port), the
 * suites run against it as against any target (`run({ target, only })`), and what the evaluation needs kept from
 * the results: the failed checks with the requirement ids their failing findings carry.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startGateway, type RunningGateway } from '../gateway/index.js';
import { run } from '../kit/index.js';
import type { RunResult } from '../core/model.js';
import { errorRun, type FailedCheck, type VariantRun } from './run.js';
import type { PlannedVariant } from './plan.js';

/** Run settings shared by every variant of a self-test. */
export interface VariantSettings {
  /** Seed of the generated negative cases (fixed, so a self-test is reproducible). */
  seed: number;
  /** How long a probe waits for a notification, in milliseconds. */
  notifyWait: number;
  /** Tests and requests in flight at once within a run. */
  concurrency: number;
}

export type { FailedCheck, VariantRun } from './run.js';

/** What the self-test keeps of a run's results. */
function summary(variant: PlannedVariant, result: RunResult, durationMs: number): VariantRun {
  const failed: FailedCheck[] = result.checks
    .filter((c) => c.status === 'failed')
    .map((c) => {
      const failing = c.findings.filter((f) => f.severity !== 'info');
      return {
        checkId: c.checkId,
        operation: c.operation as FailedCheck['operation'],
        family: c.family,
        severity: c.severity,
        findingRequirements: [...new Set(failing.flatMap((f) => f.requirementIds))].sort(),
        codes: [...new Set(failing.map((f) => f.code))].sort(),
      };
    });
  const selected = result.checks.filter((c) => variant.families.includes(c.family));
  const skipped = selected.filter((c) => c.status === 'skipped');
  return {
    name: variant.name,
    families: variant.families,
    verdict: result.verdict,
    ...(result.verdicts
      ? {
          integrity: {
            verdict: result.verdicts.integrity.verdict,
            broken: result.verdicts.integrity.broken.map((b) => b.id),
          },
        }
      : {}),
    failed,
    ran: selected.length - skipped.length,
    skipped: skipped.length,
    skipReasons: [...new Set(skipped.map((c) => c.reason ?? ''))],
    warnings: result.warnings,
    durationMs,
  };
}

/** Run the suites of a variant's families against a gateway with the variant switched on. */
/** Generated requests per operation in a deep fault's run. */
const SELFTEST_DEPTH = 1000;

export async function runVariant(variant: PlannedVariant, settings: VariantSettings): Promise<VariantRun> {
  const started = Date.now();
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'pagi-selftest-'));
  let gateway: RunningGateway | undefined;
  try {
    gateway = await startGateway({ port: 0, host: '127.0.0.1', fault: variant.name });
    const merchant = gateway.config.merchants[0]!;
    const account = merchant.accounts[0]!;
    const result = await run({
      target: gateway.baseUrl,
      merchantId: merchant.merchantId,
      accountId: account.accountId,
      secret: account.secret,
      // A deep fault runs its one check on its one operation, at a depth that reaches it.
      only: variant.deepOperation ? [`${variant.deepOperation}/${variant.expectedCheck}`] : variant.families,
      ...(variant.deepOperation ? { depth: SELFTEST_DEPTH } : {}),
      failOn: 'profile',
      reporter: [],
      out,
      seed: settings.seed,
      notifyWait: settings.notifyWait,
      concurrency: settings.concurrency,
    });
    return summary(variant, result, Date.now() - started);
  } catch (e) {
    return errorRun(variant, (e as Error).message.split('\n')[0]!, Date.now() - started);
  } finally {
    await gateway?.close();
    fs.rmSync(out, { recursive: true, force: true });
  }
}
