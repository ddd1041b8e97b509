/**
 * How a run's results read, for the engine that builds them and the reporters that show them: the one severity
 * order, the reason a check the selection left out carries, and a check's status for each requirement it traces to.
 */
import type { CheckResult, CheckStatus, Level, Requirement, Severity } from './model.js';

/** Reason recorded for tests --only/--skip left out. */
export const NOT_SELECTED = 'not selected (--only/--skip)';

/** The document's levels a run can be judged at (`--fail-on`, pact `--fail-on`), most serious first. */
export const DOCUMENT_LEVELS = ['must', 'expected', 'profile'] as const satisfies readonly Severity[];

/** A document level: what `--fail-on` names, the levels conformance is stated at. */
export type DocumentLevel = (typeof DOCUMENT_LEVELS)[number];

/**
 * Severities from the most serious down: a broken payment-integrity invariant, then the document's levels, then
 * information. The one order the verdicts, the checks' severities and every report's "most serious first" use.
 */
export const SEVERITY_ORDER: readonly Severity[] = ['invariant', ...DOCUMENT_LEVELS, 'info'];

/** Rank of a severity in SEVERITY_ORDER: 0 is the most serious. */
export function severityRank(severity: Severity): number {
  return SEVERITY_ORDER.indexOf(severity);
}

/** Whether `severity` is `floor` or more serious (`atLeast('invariant', 'must')` is true). */
export function atLeast(severity: Severity, floor: Severity): boolean {
  return severityRank(severity) <= severityRank(floor);
}

/** The most serious of some severities; undefined for none. */
export function mostSevere(severities: Iterable<Severity>): Severity | undefined {
  let best: Severity | undefined;
  for (const s of severities) if (best === undefined || severityRank(s) < severityRank(best)) best = s;
  return best;
}

/** The severity a finding tracing to a requirement of this catalogue level has: `unspecified` informs, never fails. */
export function severityOfLevel(level: Level): Severity {
  return level === 'unspecified' ? 'info' : level;
}

/** A count per severity, every severity of the order at 0. */
export function severityCounts(): Record<Severity, number> {
  return Object.fromEntries(SEVERITY_ORDER.map((s) => [s, 0])) as Record<Severity, number>;
}

/**
 * A check result's status for one of the requirements it traces to: a failed (or waived) check fails (or waives) only
 * the requirements its failing findings name; for the others it ran and found nothing, so it counts as passed. A
 * finding that names no requirement counts against all of them.
 */
export function statusForRequirement(result: CheckResult, requirementId: string): CheckStatus {
  if (result.status !== 'failed' && result.status !== 'waived') return result.status;
  const failing = result.findings.filter((f) => f.severity !== 'info');
  return failing.some((f) => f.requirementIds.length === 0 || f.requirementIds.includes(requirementId))
    ? result.status
    : 'passed';
}

/** What a result's failing findings break: the most serious document level they name, and the invariants they name. */
export interface Breach {
  /** The most serious of the must, expected and profile requirements the failing findings name. */
  document?: Severity;
  /** Ids of the invariants (payment integrity) the failing findings name, in the order first named. */
  invariants: string[];
}

/**
 * What a failed or waived result breaks, read from the catalogue levels of the requirements its failing findings
 * name (a finding may name a document requirement and an invariant at once: an echo that is both absent from the
 * document's rule and another merchant's value). A finding naming nothing the catalogue knows counts at its severity.
 */
export function breachOf(
  catalogue: ReadonlyMap<string, Pick<Requirement, 'level'>>,
  result: Pick<CheckResult, 'status' | 'findings'>,
): Breach {
  const out: Breach = { invariants: [] };
  if (result.status !== 'failed' && result.status !== 'waived') return out;
  const documentLevel = (level: Severity) => {
    if (level === 'invariant' || level === 'info') return;
    out.document = mostSevere(out.document ? [out.document, level] : [level]);
  };
  for (const f of result.findings) {
    if (f.severity === 'info') continue;
    const known = f.requirementIds.filter((id) => catalogue.has(id));
    if (!known.length) {
      documentLevel(f.severity);
      continue;
    }
    for (const id of known) {
      const level = catalogue.get(id)!.level;
      if (level === 'invariant') {
        if (!out.invariants.includes(id)) out.invariants.push(id);
      } else documentLevel(severityOfLevel(level));
    }
  }
  return out;
}

/**
 * The level a failed or waived result fails at, the one the verdicts judge it by (`breachOf`): `invariant` when its
 * failing findings name an invariant, else the most serious document level they name; undefined for a result that
 * did not fail (or whose failing findings name only information). Every report labels a failed check with it.
 */
export function failedAtLevel(
  catalogue: ReadonlyMap<string, Pick<Requirement, 'level'>>,
  result: Pick<CheckResult, 'status' | 'findings'>,
): Severity | undefined {
  const breach = breachOf(catalogue, result);
  return breach.invariants.length ? 'invariant' : breach.document;
}
