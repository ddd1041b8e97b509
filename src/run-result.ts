/**
 * How a run's results read, for the engine that builds them and the reporters that show them: the reason a check
 * the selection left out carries, and a check's status for each requirement it traces to.
 */
import type { CheckResult, CheckStatus } from './model.js';

/** Reason recorded for tests --only/--skip left out. */
export const NOT_SELECTED = 'not selected (--only/--skip)';

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
