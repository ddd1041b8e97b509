/** From a check's outcome to its CheckResult: severity from the catalogue, waivers, and what fails a run. */
import type { Check, CheckResult, Finding, NotApplicable, OperationKey, Severity } from '../core/model.js';
import type { SpecModel } from '../core/spec/load.js';
import type { FailOn } from '../core/config/options.js';
import { countsAs, isFailing, mostSevere, severityOfLevel } from '../core/run-result.js';
import { waiverActive, waiverFor, type Waiver } from './waivers.js';
import { ForeignRequirementError } from '../core/types/errors.js';
import { catalogueRequirement } from '../core/check-context.js';

/**
 * The requirements a check traces to on one operation: those of its requirements the operation concerns (the
 * catalogue's `operations`), or all of them when none is specific to it.
 */
export function requirementsFor(
  spec: SpecModel,
  check: Pick<Check, 'requirements'>,
  operation: OperationKey,
): string[] {
  const own = spec.operations.get(operation)?.requirements ?? [];
  const mine = check.requirements.filter((id) => own.includes(id));
  return mine.length ? mine : [...check.requirements];
}

/** Severity of a check on an operation: `info` for information checks, else the strongest level of its requirements there. */
export function checkSeverity(
  spec: SpecModel,
  check: Pick<Check, 'requirements' | 'severity'>,
  operation: OperationKey,
): Severity {
  return check.severity === 'info' ? 'info' : severityOf(spec, requirementsFor(spec, check, operation));
}

/** The most serious level among requirement ids (`unspecified` counts as information). Throws on an unknown id. */
export function severityOf(spec: SpecModel, requirementIds: readonly string[]): Severity {
  const levels = requirementIds.map((id) => severityOfLevel(catalogueRequirement(spec, id).level));
  return mostSevere(levels) ?? 'info';
}

/** The one prose form of a finding from the words of its two sides (what a reporter shows as its message). */
export function findingProse(expected: string, received: string): string {
  return `expected ${expected} / received ${received}`;
}

export { ForeignRequirementError };

/** Throw `ForeignRequirementError` when a finding of `check` names a requirement the check does not list. */
export function assertOwnRequirements(
  check: Pick<Check, 'id' | 'requirements'>,
  requirementIds: readonly string[],
): void {
  const foreign = requirementIds.filter((id) => !check.requirements.includes(id));
  if (foreign.length) throw new ForeignRequirementError(check.id, foreign);
}

/** What happened when a check was run: its findings, not applicable, or could not run (with the reason). */
export type CheckOutcome = Finding[] | NotApplicable | { skipped: string };

/** Whether a result fails the run (`countsAs`): it fails the document verdict at `failOn`, or breaks an invariant. */
export function failsRun(spec: SpecModel, result: CheckResult, failOn: FailOn): boolean {
  return countsAs(spec.requirements, result, failOn).failsRun;
}

/** Build the result of one (operation, check). `today` (YYYY-MM-DD) decides whether a waiver still holds. */
export function toCheckResult(
  spec: SpecModel,
  check: Pick<Check, 'id' | 'family' | 'requirements' | 'severity'>,
  operation: OperationKey,
  outcome: CheckOutcome,
  waivers: readonly Waiver[],
  today: string,
  durationMs: number,
): CheckResult {
  const base = {
    checkId: check.id,
    operation,
    family: check.family,
    requirementIds: requirementsFor(spec, check, operation),
    severity: checkSeverity(spec, check, operation),
    durationMs: Math.round(durationMs * 10) / 10,
  };
  if ('skipped' in outcome) return { ...base, status: 'skipped', reason: outcome.skipped, findings: [] };
  if ('notApplicable' in outcome)
    return { ...base, status: 'not_applicable', reason: outcome.notApplicable, findings: [] };
  if (!outcome.some(isFailing)) return { ...base, status: 'passed', findings: outcome };
  const waiver = waiverFor(waivers, check.id, operation);
  if (waiver && waiverActive(waiver, today))
    return { ...base, status: 'waived', reason: `waived until ${waiver.expires}: ${waiver.reason}`, findings: outcome };
  return { ...base, status: 'failed', findings: outcome };
}
