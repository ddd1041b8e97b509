/** The self-test as text (the table: variant → verdict → failed checks, then the score) and as JSON. */
import fs from 'node:fs';
import path from 'node:path';
import type { SelftestResult } from './index.js';
import type { FaultOutcome, NeutralOutcome } from './score.js';

/** File name of the JSON report in the output folder. */
export const SELFTEST_JSON = 'selftest.json';

/** Failed checks grouped by check id: `checkId [op, op]`. */
export function failedSummary(failedChecks: readonly string[]): string {
  if (!failedChecks.length) return '—';
  const byCheck = new Map<string, string[]>();
  for (const k of failedChecks) {
    const [operation, checkId] = k.split('/') as [string, string];
    byCheck.set(checkId, [...(byCheck.get(checkId) ?? []), operation]);
  }
  return [...byCheck]
    .map(([id, ops]) => (ops.length > 3 ? `${id} [${ops.length} operations]` : `${id} [${ops.join(', ')}]`))
    .join('; ');
}

function faultResult(f: FaultOutcome): string {
  if (f.status === 'caught')
    return `caught ${f.requirement}${f.byExpectedCheck ? '' : ` (not by ${f.expectedCheck})`}${f.integrity ? ', integrity FAILED' : ''}`;
  if (f.status === 'unrelated')
    return f.integrity === false
      ? 'NOT CAUGHT: the integrity verdict did not fail on it'
      : `NOT CAUGHT: only unrelated checks failed`;
  if (f.status === 'missed') return 'MISSED';
  return `ERROR: ${f.error ?? ''}`;
}

function neutralResult(n: NeutralOutcome): string {
  if (n.error) return `ERROR: ${n.error}`;
  return n.falseAlarm ? 'FALSE ALARM' : 'passed';
}

function pad(text: string, width: number): string {
  return text.length >= width ? `${text} ` : text.padEnd(width);
}

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

/** The self-test's table and conclusions as printed by `pagi-conform selftest`. */
export function selftestText(result: SelftestResult): string {
  const { score } = result;
  const retried = new Set(result.variants.filter((v) => v.run.retried).map((v) => v.name));
  const again = (name: string) => (retried.has(name) ? ' (2nd run)' : '');
  const rows: string[][] = [['variant', 'family', 'verdict', 'result', 'failed checks']];
  for (const f of score.faults)
    rows.push([f.name, f.family, f.verdict, faultResult(f) + again(f.name), failedSummary(f.failedChecks)]);
  for (const n of score.neutrals)
    rows.push([n.name, 'neutral', n.verdict, neutralResult(n) + again(n.name), failedSummary(n.failedChecks)]);
  const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i]!.length)) + 2);
  const table = rows.map((r) =>
    r
      .map((cell, i) => (i < 4 ? pad(cell, widths[i]!) : cell))
      .join('')
      .trimEnd(),
  );
  const d = score.detection;
  const c = score.coverage;
  const lines = [
    `Self-test: ${result.variants.length} variants of the reference gateway (seed ${result.settings.seed}, ${result.settings.jobs} at a time) in ${duration(result.durationMs)}`,
    '',
    ...table,
    '',
    `Detection score: ${d.caught}/${d.faults} faults caught (${d.byExpectedCheck} by their expected check, ${d.named} named by a finding; ${d.throughIntegrity}/${d.invariantFaults} breaking an invariant fail the run through the integrity verdict)`,
    `False alarms: ${score.falseAlarms.count}/${score.falseAlarms.neutrals} neutral variants`,
    `Coverage by faults: ${c.reached}/${c.requirements} must, expected and invariant requirements the suites check are reached by a fault (${c.named} named by a finding)${result.complete ? '' : ' [partial: --only]'}`,
    `Requirements no fault reaches: ${c.unreached.length ? c.unreached.join(', ') : 'none'}`,
  ];
  if (score.errors.length) lines.push('Errors:', ...score.errors.map((e) => `  ${e}`));
  lines.push(score.passed ? 'SELF-TEST PASSED' : 'SELF-TEST FAILED');
  return lines.join('\n');
}

/** Write the result as JSON into `outDir`; returns the file. */
export function writeSelftestJson(result: SelftestResult, outDir: string): string {
  fs.mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, SELFTEST_JSON);
  fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  return file;
}
