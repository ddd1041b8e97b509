/** From the check results of a run to its RunResult: missing and unselected tests, verdict, roll-up, coverage, totals. */
import type { CheckResult, CheckStatus, RequirementResult, RunResult, RunTotals, Verdict } from '../core/model.js';
import type { SpecModel } from '../core/spec/load.js';
import type { FailOn } from '../core/config/options.js';
import type { PlannedTest } from './plan.js';
import {
  type CountsAs,
  type DocumentLevel,
  NOT_SELECTED,
  countsAs,
  severityCounts,
  severityRank,
  statusForRequirement,
} from '../core/run-result.js';
import { EXIT } from '../core/types/errors.js';
import type { ResultsPartialRun, ResultsVerdicts } from '../core/types/generated.js';

/** A level of the document (what --fail-on governs). */

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

/** The two verdicts of a run (results.schema.json `verdicts`). */
export type Verdicts = ResultsVerdicts;

/** A result with what it counts as for the verdicts (`countsAs`). */
interface Counted {
  result: CheckResult;
  counts: CountsAs;
}

/** The results the document verdict counts `as` failed (or as warnings), most serious first (plan order among equals). */
function bySeverity(counted: readonly Counted[], as: 'failed' | 'warning'): { check: string; level: DocumentLevel }[] {
  return counted
    .flatMap(({ result: r, counts: { document: d } }, i) =>
      d?.as === as ? [{ check: `${r.operation}/${r.checkId}`, level: d.level, i }] : [],
    )
    .sort((a, b) => severityRank(a.level) - severityRank(b.level) || a.i - b.i)
    .map(({ check, level }) => ({ check, level }));
}

/** Names of failed checks with their levels, the first five, for a sentence. */
function named(list: readonly { check: string; level: DocumentLevel }[]): string {
  const names = list.slice(0, 5).map((x) => `${x.check} (${x.level})`);
  return names.join(', ') + (list.length > 5 ? ` and ${list.length - 5} more` : '');
}

/** The document verdict: from the must, expected and profile requirements failing findings name, at `failOn`. */
function documentVerdict(counted: readonly Counted[], failOn: FailOn): Verdicts['document'] {
  const failed = bySeverity(counted, 'failed');
  const warnings = bySeverity(counted, 'warning');
  const warned = warnings.length
    ? [
        `${warnings.length} warning${warnings.length === 1 ? '' : 's'} (check${warnings.length === 1 ? '' : 's'} failed below ${failOn}): ${named(warnings)}.`,
      ]
    : [];
  if (failed.length)
    return {
      verdict: 'NOT CONFORMANT',
      failOn,
      failed,
      warnings,
      reasons: [`${failed.length} check(s) failed at or above ${failOn}: ${named(failed)}.`, ...warned],
    };
  const notRun = counted.filter((c) => c.counts.document?.as === 'could not run').map((c) => c.result);
  if (notRun.length)
    return {
      verdict: 'INCONCLUSIVE',
      failOn,
      failed,
      warnings,
      reasons: [`${notRun.length} must check(s) could not run: ${list(notRun)}.`, ...warned],
    };
  return { verdict: 'CONFORMANT', failOn, failed, warnings, reasons: warned };
}

/** The integrity verdict: from the invariants failing findings name, whatever `failOn` says. */
function integrityVerdict(spec: SpecModel, counted: readonly Counted[]): Verdicts['integrity'] {
  const checks = new Map<string, string[]>();
  const waived: CheckResult[] = [];
  for (const { result: r, counts } of counted) {
    if (counts.integrity.waived.length) waived.push(r);
    for (const id of counts.integrity.broken)
      checks.set(id, [...(checks.get(id) ?? []), `${r.operation}/${r.checkId}`]);
  }
  const broken = [...spec.requirements.values()]
    .filter((req) => checks.has(req.id))
    .map((req) => ({
      id: req.id,
      family: req.family ?? 'money',
      breach: req.breach ?? req.statement,
      checks: checks.get(req.id)!,
    }));
  const waivedSentence = waived.length
    ? [`${waived.length} check(s) breaking an invariant are waived: ${list(waived)}.`]
    : [];
  if (broken.length)
    return {
      verdict: 'FAILED',
      broken,
      reasons: [
        ...broken.map(
          (b) =>
            `${b.breach} (${b.id}, ${b.family}): ${b.checks.slice(0, 3).join(', ')}${b.checks.length > 3 ? ` and ${b.checks.length - 3} more` : ''}.`,
        ),
        ...waivedSentence,
      ],
    };
  const selected = counted.filter((c) => c.counts.integrity.coverage !== undefined);
  const notRun = selected.filter((c) => c.counts.integrity.coverage === 'could not run').map((c) => c.result);
  if (notRun.length)
    return {
      verdict: 'INCONCLUSIVE',
      broken,
      reasons: [`${notRun.length} invariant check(s) could not run: ${list(notRun)}.`, ...waivedSentence],
    };
  if (!selected.length)
    return { verdict: 'NOT CHECKED', broken, reasons: ['no selected check traces to a payment-integrity invariant.'] };
  return { verdict: 'PASSED', broken, reasons: waivedSentence };
}

/**
 * The verdicts, the overall verdict, its exit code and one sentence per reason. The verdict is about the checks the
 * run selected: a check `--only`/`--skip` left out neither fails nor makes the run inconclusive, but a partial run
 * says so. A failure (a check failing at or above `failOn`, or a broken invariant) is never hidden by what could not
 * run: the run is NOT CONFORMANT.
 */
export function verdictOf(
  spec: SpecModel,
  results: readonly CheckResult[],
  failOn: FailOn,
): { verdict: Verdict; exitCode: 0 | 1 | 3; reasons: string[]; partial?: PartialRun; verdicts: Verdicts } {
  const partial = partialOf(results);
  const tail = partial ? [partialSentence(partial)] : [];
  const counted = results.map((result) => ({ result, counts: countsAs(spec.requirements, result, failOn) }));
  const document = documentVerdict(counted, failOn);
  const integrity = integrityVerdict(spec, counted);
  const verdicts = { document, integrity };
  const base = { verdicts, ...(partial ? { partial } : {}) };
  const integrityReasons = integrity.reasons.map((r) => `Payment integrity ${integrity.verdict}: ${r}`);
  if (document.verdict === 'NOT CONFORMANT' || integrity.verdict === 'FAILED')
    return {
      ...base,
      verdict: 'NOT CONFORMANT',
      exitCode: EXIT.failed,
      reasons: [
        ...(integrity.verdict === 'FAILED' ? integrityReasons : []),
        ...(document.verdict === 'NOT CONFORMANT' ? document.reasons.slice(0, 1) : []),
        ...tail,
      ],
    };
  if (document.verdict === 'INCONCLUSIVE' || integrity.verdict === 'INCONCLUSIVE')
    return {
      ...base,
      verdict: 'INCONCLUSIVE',
      exitCode: EXIT.inconclusive,
      reasons: [
        ...(integrity.verdict === 'INCONCLUSIVE' ? integrityReasons : []),
        ...(document.verdict === 'INCONCLUSIVE' ? document.reasons.slice(0, 1) : []),
        ...tail,
      ],
    };
  return { ...base, verdict: 'CONFORMANT', exitCode: EXIT.ok, reasons: [...document.reasons, ...tail] };
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
  const findings = severityCounts();
  for (const r of results) {
    byStatus[r.status]++;
    for (const f of r.findings) findings[f.severity]++;
  }
  const notJudged = results.filter((r) => r.notStated);
  const notStated = notJudged.length
    ? { notStated: { checks: notJudged.length, points: new Set(notJudged.map((r) => r.notStated)).size } }
    : {};
  return { checks: results.length, byStatus, findings, exchanges, ...notStated };
}

/** Assemble the RunResult. */
export function buildRunResult(
  spec: SpecModel,
  plan: readonly PlannedTest[],
  results: CheckResult[],
  parts: { metadata: RunResult['metadata']; exchanges: number; warnings: string[]; failOn: FailOn },
): RunResult {
  const verdict = verdictOf(spec, results, parts.failOn);
  const requirements = rollUp(spec, plan, results);
  return {
    metadata: parts.metadata,
    verdict: verdict.verdict,
    exitCode: verdict.exitCode,
    verdictReasons: verdict.reasons,
    verdicts: verdict.verdicts,
    ...(verdict.partial ? { partial: verdict.partial } : {}),
    coverage: coverageOf(requirements, results),
    checks: results,
    requirements,
    totals: totalsOf(results, parts.exchanges),
    warnings: parts.warnings,
  };
}
