/**
 * Judging the self-test's runs. A fault is caught only when a failed check (any severity) carries the requirement it
 * breaks: the check traces to that requirement on the operation it failed on (`requirementsFor`). `named` says
 * whether a failing finding names the requirement itself. A fault whose run failed only other checks is caught by
 * unrelated checks; one whose run failed nothing is missed. A fault breaking a payment-integrity invariant is caught
 * only when its run fails through the integrity verdict, naming that invariant. A neutral variant with any failed
 * check is a false alarm. Coverage: every `must`, `expected` and invariant requirement a check traces to should be
 * reached by some fault, that is, a check tracing to it failed (on an operation it concerns) in that fault's run.
 */
import { CHECKS, checkOf, requirementsFor } from '../suites/registry.js';
import type { Family, Level } from '../core/model.js';
import { atLeast, severityOfLevel } from '../core/run-result.js';
import { kitSpec } from '../core/spec/load.js';
import type { PlannedVariant } from './plan.js';
import type { FailedCheck, VariantRun } from './variant.js';

/** How a fault fared. */
export type FaultStatus = 'caught' | 'unrelated' | 'missed' | 'error';

/** The verdict on one fault. */
export interface FaultOutcome {
  name: string;
  family: Family;
  requirement: string;
  expectedCheck: string;
  status: FaultStatus;
  /** Ids of the failed checks carrying the requirement (empty unless caught). */
  caughtBy: string[];
  /** Whether the expected check is among them. */
  byExpectedCheck: boolean;
  /** Whether a failing finding names the requirement itself. */
  named: boolean;
  /** For a fault breaking an invariant: whether its run failed through the integrity verdict, naming it. */
  integrity?: boolean;
  /** `<operation>/<checkId>` of every failed check of the run. */
  failedChecks: string[];
  verdict: VariantRun['verdict'];
  error?: string;
}

/** The verdict on one neutral variant. */
export interface NeutralOutcome {
  name: string;
  falseAlarm: boolean;
  failedChecks: string[];
  verdict: VariantRun['verdict'];
  error?: string;
}

/** One requirement of the coverage, with the faults reaching it. */
export interface RequirementCoverage {
  id: string;
  level: Level;
  reachedBy: string[];
  /** Faults whose failing findings name it. */
  namedBy: string[];
}

/** Everything the self-test concludes. */
export interface SelftestScore {
  faults: FaultOutcome[];
  neutrals: NeutralOutcome[];
  detection: {
    caught: number;
    faults: number;
    named: number;
    byExpectedCheck: number;
    /** Faults breaking an invariant, and those of them whose run failed through the integrity verdict. */
    invariantFaults: number;
    throughIntegrity: number;
  };
  falseAlarms: { count: number; neutrals: number };
  coverage: { reached: number; requirements: number; unreached: string[]; named: number; table: RequirementCoverage[] };
  /** Runs that could not complete (kit or worker errors). */
  errors: string[];
  passed: boolean;
}

/** The requirements a failed check carries on the operation it failed on. */
function carried(f: FailedCheck): string[] {
  return requirementsFor(checkOf(f.checkId), f.operation);
}

const key = (f: FailedCheck) => `${f.operation}/${f.checkId}`;

/** The failed checks of a run carrying a requirement. */
function carrying(run: VariantRun, requirement: string): FailedCheck[] {
  return run.failed.filter((f) => carried(f).includes(requirement));
}

/**
 * Whether a run should be made again: it could not complete, or some of its checks could not run (skipped) or got no
 * answer from the local gateway (NO_ANSWER: a request timed out on a loaded machine), and it did not show what it
 * should (a fault caught; a neutral variant fully checked).
 */
export function incomplete(variant: PlannedVariant, run: VariantRun): boolean {
  if (run.error) return true;
  const unanswered = run.failed.some((f) => f.codes.includes('NO_ANSWER'));
  return (
    (run.skipped > 0 || unanswered) && (variant.kind === 'neutral' || carrying(run, variant.requirement!).length === 0)
  );
}

/** Whether a requirement is a payment-integrity invariant of the catalogue. */
function isInvariant(id: string): boolean {
  return kitSpec().requirements.get(id)?.level === 'invariant';
}

function judgeFault(variant: PlannedVariant, run: VariantRun): FaultOutcome {
  const requirement = variant.requirement!;
  const found = carrying(run, requirement);
  const caughtBy = [...new Set(found.map((f) => f.checkId))];
  // An invariant fault fails the run through the integrity verdict, or it is not caught as what it is.
  const integrity = isInvariant(requirement)
    ? run.integrity?.verdict === 'FAILED' && run.integrity.broken.includes(requirement)
    : undefined;
  const status: FaultStatus = run.error
    ? 'error'
    : caughtBy.length && integrity !== false
      ? 'caught'
      : run.failed.length
        ? 'unrelated'
        : 'missed';
  return {
    name: variant.name,
    family: checkOf(variant.expectedCheck!).family,
    requirement,
    expectedCheck: variant.expectedCheck!,
    status,
    caughtBy,
    byExpectedCheck: caughtBy.includes(variant.expectedCheck!),
    named: found.some((f) => f.findingRequirements.includes(requirement)),
    ...(integrity !== undefined ? { integrity } : {}),
    failedChecks: run.failed.map(key),
    verdict: run.verdict,
    ...(run.error ? { error: run.error } : {}),
  };
}

/** The `must`, `expected` and invariant requirements the checks trace to, in catalogue order. */
export function checkedRequirements(): { id: string; level: Level }[] {
  const traced = new Set(CHECKS.flatMap((c) => c.requirements));
  return [...kitSpec().requirements.values()]
    .filter((r) => atLeast(severityOfLevel(r.level), 'expected') && traced.has(r.id))
    .map((r) => ({ id: r.id, level: r.level }));
}

function coverageOf(faults: readonly { name: string; run: VariantRun }[]): SelftestScore['coverage'] {
  const table = checkedRequirements().map(({ id, level }) => {
    const reaching = (match: (f: FailedCheck) => boolean) =>
      faults.filter(({ run }) => run.failed.some(match)).map(({ name }) => name);
    return {
      id,
      level,
      reachedBy: reaching((f) => carried(f).includes(id)),
      namedBy: reaching((f) => f.findingRequirements.includes(id)),
    };
  });
  return {
    reached: table.filter((r) => r.reachedBy.length).length,
    requirements: table.length,
    unreached: table.filter((r) => !r.reachedBy.length).map((r) => r.id),
    named: table.filter((r) => r.namedBy.length).length,
    table,
  };
}

/** Judge the runs of a self-test (`runs` in the order of `variants`). */
export function scoreSelftest(variants: readonly PlannedVariant[], runs: readonly VariantRun[]): SelftestScore {
  const byName = new Map(runs.map((r) => [r.name, r]));
  const pairs = variants.map((variant) => ({ variant, run: byName.get(variant.name)! }));
  const faults = pairs.filter((p) => p.variant.kind === 'fault').map((p) => judgeFault(p.variant, p.run));
  const neutrals: NeutralOutcome[] = pairs
    .filter((p) => p.variant.kind === 'neutral')
    .map(({ variant, run }) => {
      // A neutral variant passes only when every check could run: a skipped check proves nothing.
      const error =
        run.error ?? (run.skipped ? `${run.skipped} checks could not run: ${run.skipReasons.join('; ')}` : undefined);
      return {
        name: variant.name,
        falseAlarm: run.failed.length > 0,
        failedChecks: run.failed.map(key),
        verdict: run.verdict,
        ...(error ? { error } : {}),
      };
    });
  const errors = [
    ...runs.flatMap((r) => [
      ...(r.error ? [`${r.name}: ${r.error}`] : []),
      ...r.warnings.filter((w) => w.startsWith('kit error')).map((w) => `${r.name}: ${w}`),
    ]),
    ...neutrals.filter((n) => n.error && !byName.get(n.name)!.error).map((n) => `${n.name}: ${n.error}`),
  ];
  const caught = faults.filter((f) => f.status === 'caught').length;
  const falseAlarms = neutrals.filter((n) => n.falseAlarm).length;
  return {
    faults,
    neutrals,
    detection: {
      caught,
      faults: faults.length,
      named: faults.filter((f) => f.named).length,
      byExpectedCheck: faults.filter((f) => f.byExpectedCheck).length,
      invariantFaults: faults.filter((f) => f.integrity !== undefined).length,
      throughIntegrity: faults.filter((f) => f.integrity === true).length,
    },
    falseAlarms: { count: falseAlarms, neutrals: neutrals.length },
    coverage: coverageOf(
      pairs.filter((p) => p.variant.kind === 'fault').map((p) => ({ name: p.variant.name, run: p.run })),
    ),
    errors,
    passed: caught === faults.length && falseAlarms === 0 && errors.length === 0,
  };
}
