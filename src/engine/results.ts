/** From the check results of a run to its RunResult: missing and unselected tests, verdict, roll-up, coverage, totals. */
import type { CheckResult, CheckStatus, RequirementResult, RunResult, RunTotals, Severity, Verdict } from '../model.js';
import type { SpecModel } from '../spec/load.js';
import type { FailOn } from '../config/options.js';
import { failsRun } from './outcome.js';
import type { PlannedTest } from './plan.js';
import { NOT_SELECTED, statusForRequirement } from '../run-result.js';
import { EXIT } from '../types/errors.js';
import type { ResultsPartialRun } from '../types/generated.js';

const ROLLUP_ORDER: readonly CheckStatus[] = ['failed', 'waived', 'skipped', 'passed', 'not_applicable'];

function placeholder(test: PlannedTest, reason: string): CheckResult {
  return {
    checkId: test.checkId,
    operation: test.operation,
    family: test.family,
    requirementIds: test.requirementIds,
    severity: test.severity,
    status: 'skipped',
    reason,
    findings: [],
    durationMs: 0,
  };
}

/**
 * Every result of the run in plan order: the results received, a skipped result for each selected test that
 * should have run (`ran(test)`) but reported nothing, and one for each test the selection left out.
 */
export function completeResults(
  plan: readonly PlannedTest[],
  received: readonly CheckResult[],
  ran: (test: PlannedTest) => boolean,
  notRunReason: string,
): CheckResult[] {
  const byKey = new Map(received.map((r) => [`${r.operation}/${r.checkId}`, r]));
  const out: CheckResult[] = [];
  for (const test of plan) {
    const result = byKey.get(test.key);
    if (result) out.push(result);
    else if (!test.selected) out.push(placeholder(test, NOT_SELECTED));
    else if (ran(test)) out.push(placeholder(test, notRunReason));
  }
  return out;
}

function list(results: readonly CheckResult[]): string {
  const names = results.slice(0, 5).map((r) => `${r.operation}/${r.checkId}`);
  return names.join(', ') + (results.length > 5 ? ` and ${results.length - 5} more` : '');
}

/** What a run's `--only`/`--skip` left out: the checks, and the `must` checks among them. */
export type PartialRun = ResultsPartialRun;

/** The tests a selection left out, or undefined when the run covers the whole plan. */
function partialOf(results: readonly CheckResult[]): PartialRun | undefined {
  const left = results.filter((r) => r.status === 'skipped' && r.reason === NOT_SELECTED);
  return left.length
    ? { notSelected: left.length, mustNotSelected: left.filter((r) => r.severity === 'must').length }
    : undefined;
}

/** The sentence every report shows for a partial run. */
function partialSentence(partial: PartialRun): string {
  const { mustNotSelected: must, notSelected: all } = partial;
  const what = must ? `${must} must check${must === 1 ? '' : 's'}` : `${all} check${all === 1 ? '' : 's'}`;
  return `partial run: ${what} not selected — not a certification.`;
}

/**
 * The verdict, its exit code and one sentence per reason. The verdict is about the checks the run selected: a
 * check `--only`/`--skip` left out neither fails nor makes the run inconclusive, but a partial run says so.
 */
export function verdictOf(
  results: readonly CheckResult[],
  failOn: FailOn,
): { verdict: Verdict; exitCode: 0 | 1 | 3; reasons: string[]; partial?: PartialRun } {
  const partial = partialOf(results);
  const tail = partial ? { reasons: [partialSentence(partial)], partial } : { reasons: [] };
  const failing = results.filter((r) => failsRun(r, failOn));
  if (failing.length) {
    return {
      verdict: 'NOT CONFORMANT',
      exitCode: EXIT.failed,
      ...tail,
      reasons: [`${failing.length} check(s) failed at or above ${failOn}: ${list(failing)}.`, ...tail.reasons],
    };
  }
  const couldNotRun = results.filter(
    (r) => r.severity === 'must' && r.status === 'skipped' && r.reason !== NOT_SELECTED,
  );
  if (couldNotRun.length)
    return {
      verdict: 'INCONCLUSIVE',
      exitCode: EXIT.inconclusive,
      ...tail,
      reasons: [`${couldNotRun.length} must check(s) could not run: ${list(couldNotRun)}.`, ...tail.reasons],
    };
  return { verdict: 'CONFORMANT', exitCode: EXIT.ok, ...tail };
}

/** Per-requirement roll-up over the catalogue: a requirement is failed only by a finding that names it. */
export function rollUp(
  spec: SpecModel,
  plan: readonly PlannedTest[],
  results: readonly CheckResult[],
): RequirementResult[] {
  return [...spec.requirements.values()].map((req) => {
    const mine = results.filter((r) => r.requirementIds.includes(req.id));
    const checks = mine.map((r) => `${r.operation}/${r.checkId}`);
    if (req.level === 'unspecified') return { id: req.id, level: req.level, status: 'untestable', checks };
    const status = ROLLUP_ORDER.find((s) => mine.some((r) => statusForRequirement(r, req.id) === s));
    if (status) return { id: req.id, level: req.level, status, checks };
    return {
      id: req.id,
      level: req.level,
      status: plan.some((t) => t.requirementIds.includes(req.id)) ? 'untested' : 'no_check',
      checks,
    };
  });
}

/** Coverage: testable requirements, and those with a check that ran. */
export function coverageOf(
  requirements: readonly RequirementResult[],
  results: readonly CheckResult[],
): RunResult['coverage'] {
  const ran = new Set(
    results
      .filter((r) => r.status === 'passed' || r.status === 'failed' || r.status === 'waived')
      .flatMap((r) => r.requirementIds),
  );
  const testable = requirements.filter((r) => r.status !== 'untestable');
  const unchecked = testable.filter((r) => !ran.has(r.id)).map((r) => r.id);
  return { testable: testable.length, checked: testable.length - unchecked.length, unchecked };
}

/** Totals of a run. */
export function totalsOf(results: readonly CheckResult[], exchanges: number): RunTotals {
  const byStatus: Record<CheckStatus, number> = { passed: 0, failed: 0, waived: 0, skipped: 0, not_applicable: 0 };
  const findings: Record<Severity, number> = { must: 0, expected: 0, profile: 0, info: 0 };
  for (const r of results) {
    byStatus[r.status]++;
    for (const f of r.findings) findings[f.severity]++;
  }
  return { checks: results.length, byStatus, findings, exchanges };
}

/** Assemble the RunResult. */
export function buildRunResult(
  spec: SpecModel,
  plan: readonly PlannedTest[],
  results: CheckResult[],
  parts: { metadata: RunResult['metadata']; exchanges: number; warnings: string[]; failOn: FailOn },
): RunResult {
  const verdict = verdictOf(results, parts.failOn);
  const requirements = rollUp(spec, plan, results);
  return {
    metadata: parts.metadata,
    verdict: verdict.verdict,
    exitCode: verdict.exitCode,
    verdictReasons: verdict.reasons,
    ...(verdict.partial ? { partial: verdict.partial } : {}),
    coverage: coverageOf(requirements, results),
    checks: results,
    requirements,
    totals: totalsOf(results, parts.exchanges),
    warnings: parts.warnings,
  };
}
