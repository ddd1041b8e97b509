/** Console summary: per-family counts, the failed and skipped must checks with their first findings, the verdict. */
import type { Writable } from 'node:stream';
import type { CheckResult, CheckStatus, Family, RunResult } from '../src/model.js';
import { FAMILIES } from '../src/engine/registry.js';
import type { KitReporter } from './types.js';

const STATUSES: readonly CheckStatus[] = ['passed', 'failed', 'waived', 'skipped', 'not_applicable'];

function familyLine(family: Family, results: readonly CheckResult[]): string {
  const counts = STATUSES.map((s) => [s, results.filter((r) => r.status === s).length] as const).filter(([, n]) => n > 0);
  return `  ${family.padEnd(12)} ${counts.map(([s, n]) => `${n} ${s.replace('_', ' ')}`).join(', ')}`;
}

function resultLines(result: CheckResult): string[] {
  const ids = result.requirementIds.length > 6 ? [...result.requirementIds.slice(0, 6), `… ${result.requirementIds.length - 6} more`] : result.requirementIds;
  const head = `  ✗ ${result.operation}/${result.checkId} [${result.severity}] ${ids.join(' ')}`;
  const findings = result.findings.filter((f) => f.severity !== 'info');
  const lines = findings.slice(0, 3).map((f) => `      ${f.code} ${f.location.pointer || '/'}: ${f.message}`);
  if (findings.length > 3) lines.push(`      … ${findings.length - 3} more finding(s)`);
  return [head, ...lines];
}

/** The console reporter, writing to `out` (stdout by default). */
export function consoleReporter(out: Writable = process.stdout): KitReporter {
  const write = (line = '') => out.write(`${line}\n`);
  return {
    name: 'console',
    onRunStart(start) {
      write(`pagi-conform: checking ${start.target} (profile ${start.profile})`);
    },
    onRunEnd(result: RunResult) {
      write();
      for (const family of FAMILIES) {
        const results = result.checks.filter((r) => r.family === family);
        if (results.length) write(familyLine(family, results));
      }
      const failed = result.checks.filter((r) => r.status === 'failed');
      if (failed.length) {
        write();
        write('failed checks:');
        for (const r of failed) for (const line of resultLines(r)) write(line);
      }
      const skippedMust = result.checks.filter((r) => r.status === 'skipped' && r.severity === 'must');
      if (skippedMust.length) {
        write();
        write('must checks that could not run:');
        for (const r of skippedMust.slice(0, 20)) write(`  - ${r.operation}/${r.checkId}: ${r.reason}`);
        if (skippedMust.length > 20) write(`  … ${skippedMust.length - 20} more`);
      }
      for (const w of result.warnings) write(`warning: ${w}`);
      const { checked, testable } = result.coverage;
      write();
      write(`checks: ${result.totals.checks}; requirements checked: ${checked}/${testable}; exchanges: ${result.totals.exchanges}; ${(result.metadata.durationMs / 1000).toFixed(1)} s`);
      write(`verdict: ${result.verdict}${result.verdictReasons.length ? ` (${result.verdictReasons.join(' ')})` : ''}`);
    },
  };
}
