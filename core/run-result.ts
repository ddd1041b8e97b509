/**
 * How a run's results read, for the engine that builds them and the reporters that show them: the one severity
 * order, the reason a check the selection left out carries, a check's status for each requirement it traces to, and
 * the one rule of what a check result counts as for each verdict (`countsAs`).
 */
import type { CheckResult, CheckStatus, Finding, Level, Requirement, Severity } from './model.js';

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
  const failing = result.findings.filter(isFailing);
  return failing.some((f) => f.requirementIds.length === 0 || f.requirementIds.includes(requirementId))
    ? result.status
    : 'passed';
}

/** Whose part of an exchange a finding of `pagi-conform proxy` is about (results format 1.8, `side`). */
export type FindingSide = NonNullable<Finding['side']>;

/** The words a finding's side goes by in the console and the reports. */
export const SIDE_WORDS: Readonly<Record<FindingSide, string>> = {
  request: 'your request',
  answer: "the gateway's answer",
};

/** A finding's side as the words that lead its line (`your request: `), or nothing for a run's finding. */
export function sidePrefix(f: Pick<Finding, 'side'>): string {
  return f.side ? `${SIDE_WORDS[f.side]}: ` : '';
}

/** Whether a finding fails its check: every finding but information. */
export function isFailing(finding: Pick<Finding, 'severity'>): boolean {
  return finding.severity !== 'info';
}

/** What a result's failing findings break: the most serious document level they name, and the invariants they name. */
interface Breach {
  /** The most serious of the must, expected and profile requirements the failing findings name. */
  document?: DocumentLevel;
  /** Ids of the invariants (payment integrity) the failing findings name, in the order first named. */
  invariants: string[];
}

/**
 * What a failed or waived result breaks, read from the catalogue levels of the requirements its failing findings
 * name (a finding may name a document requirement and an invariant at once: an echo that is both absent from the
 * document's rule and another merchant's value). A finding naming nothing the catalogue knows counts at its severity.
 */
function breachOf(catalogue: Catalogue, result: Pick<CheckResult, 'status' | 'findings'>): Breach {
  const out: Breach = { invariants: [] };
  if (result.status !== 'failed' && result.status !== 'waived') return out;
  const documentLevel = (level: Severity) => {
    if (level === 'invariant' || level === 'info') return;
    if (out.document === undefined || severityRank(level) < severityRank(out.document)) out.document = level;
  };
  for (const f of result.findings) {
    if (!isFailing(f)) continue;
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

/** The catalogue levels a result is read against: the spec's requirements, or the levels a results file records. */
export type Catalogue = ReadonlyMap<string, Pick<Requirement, 'level'>>;

/**
 * What one check result counts as for each verdict (`countsAs`). Every verdict, every report's label of a check, the
 * failing vitest test and so the exit code derive from it.
 */
export interface CountsAs {
  /**
   * The level a failed or waived result fails at, every report's label of it: `invariant` when its failing findings
   * name an invariant, else the most serious document level they name; undefined for a result that did not fail (or
   * whose failing findings name only information).
   */
  failedAt: Severity | undefined;
  /**
   * For the document verdict at `failOn`: `failed` (not waived) naming a document requirement at or above `failOn`,
   * a `warning` below it, each at the most serious document level named; `could not run` for a check tracing to a
   * `must` requirement that ran in the selection but could not run (a 429/503, a kit error, an interruption);
   * undefined: nothing.
   */
  document: { as: 'failed' | 'warning'; level: DocumentLevel } | { as: 'could not run' } | undefined;
  /** For the integrity verdict, whatever `failOn` says. */
  integrity: {
    /** The invariants a failed result breaks, in the order first named. */
    broken: string[];
    /** The invariants a waived result would break. */
    waived: string[];
    /**
     * For a check the selection holds that traces to an invariant: `could not run`, or `checked` (it ran, even when
     * not applicable); undefined for any other (the integrity verdict is NOT CHECKED when no check is either).
     */
    coverage: 'checked' | 'could not run' | undefined;
  };
  /** Whether it fails the run: it fails the document verdict at `failOn`, or breaks an invariant. */
  failsRun: boolean;
}

/** Whether a result traces to a requirement at `level` in the catalogue. */
function tracesTo(catalogue: Catalogue, result: Pick<CheckResult, 'requirementIds'>, level: Level): boolean {
  return result.requirementIds.some((id) => catalogue.get(id)?.level === level);
}

/**
 * The one rule of what a check result counts as, for the document verdict at `failOn`, the integrity verdict, a
 * report's label and the run's failure (see `CountsAs`). A waived result fails neither verdict; a result that could
 * not run never fails one, only leaves it inconclusive.
 */
export function countsAs(
  catalogue: Catalogue,
  result: Pick<CheckResult, 'status' | 'findings' | 'requirementIds' | 'reason'>,
  failOn: DocumentLevel,
): CountsAs {
  const breach = breachOf(catalogue, result);
  const failed = result.status === 'failed';
  const selected = result.reason !== NOT_SELECTED;
  const couldNotRun = result.status === 'skipped' && selected;
  let document: CountsAs['document'];
  if (failed && breach.document !== undefined)
    document = { as: atLeast(breach.document, failOn) ? 'failed' : 'warning', level: breach.document };
  else if (couldNotRun && tracesTo(catalogue, result, 'must')) document = { as: 'could not run' };
  const integrity: CountsAs['integrity'] = {
    broken: failed ? breach.invariants : [],
    waived: result.status === 'waived' ? breach.invariants : [],
    coverage:
      selected && tracesTo(catalogue, result, 'invariant') ? (couldNotRun ? 'could not run' : 'checked') : undefined,
  };
  return {
    failedAt: breach.invariants.length ? 'invariant' : breach.document,
    document,
    integrity,
    failsRun: document?.as === 'failed' || integrity.broken.length > 0,
  };
}

/**
 * The level a failed or waived result fails at, the one the verdicts judge it by (`countsAs`): `invariant` when its
 * failing findings name an invariant, else the most serious document level they name; undefined for a result that
 * did not fail (or whose failing findings name only information). Every report labels a failed check with it.
 */
export function failedAtLevel(
  catalogue: Catalogue,
  result: Pick<CheckResult, 'status' | 'findings' | 'requirementIds' | 'reason'>,
): Severity | undefined {
  // The label does not depend on --fail-on: every level reads the same `failedAt`.
  return countsAs(catalogue, result, 'must').failedAt;
}
