/** What a variant's run produced, and the run of a variant that ended in an error before it had a verdict. */
import type { Family, OperationKey, Severity, Verdict } from '../core/model.js';
import type { PlannedVariant } from './plan.js';

/** A failed check of a variant's run. */
export interface FailedCheck {
  checkId: string;
  operation: OperationKey;
  family: Family;
  severity: Severity;
  /** Requirement ids of its failing (not information) findings. */
  findingRequirements: string[];
  /** Finding codes, once each. */
  codes: string[];
}

/** What a variant's run produced. */
export interface VariantRun {
  name: string;
  families: Family[];
  verdict: Verdict | 'ERROR';
  /** The integrity verdict and the invariants it names broken (runs that had a verdict). */
  integrity?: { verdict: string; broken: string[] };
  failed: FailedCheck[];
  /** Checks that ran (passed, failed or not applicable) and checks skipped (could not run), with why (once each). */
  ran: number;
  skipped: number;
  skipReasons: string[];
  /** Kit errors and warnings of the run; `error` when the run could not complete. */
  warnings: string[];
  error?: string;
  durationMs: number;
  /** Set on the second run of a variant whose first run could not complete. */
  retried?: boolean;
}

/** A variant's run that ended in an error before it had a verdict. */
export function errorRun(variant: PlannedVariant, error: string, durationMs: number): VariantRun {
  return {
    name: variant.name,
    families: variant.families,
    verdict: 'ERROR',
    failed: [],
    ran: 0,
    skipped: 0,
    skipReasons: [],
    warnings: [],
    error,
    durationMs,
  };
}
