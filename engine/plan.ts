/**
 * The generated test plan: one test per (operation, check), from the spec's operations and the registry, with
 * the selection (--only / --skip) applied. Suite files and the runner compute the same plan.
 */
import type { Check, Family, OperationKey, Severity } from '../core/model.js';
import type { OperationModel, SpecModel } from '../core/spec/load.js';
import { covers } from '../core/spec/operations.js';
import { severityOf } from './outcome.js';

/** Which checks a run selects. */
export interface Selection {
  only: readonly string[];
  skip: readonly string[];
  /** Generated requests per operation of the deep family: 0 leaves its tests out of the plan (a run as without it). */
  depth?: number;
}

/** One generated test. */
export interface PlannedTest {
  /** `<operation>/<checkId>`, unique in a plan. */
  key: string;
  checkId: string;
  family: Family;
  operation: OperationKey;
  probe: string;
  requirementIds: string[];
  severity: Severity;
  /** Test name: the check id, with the spec facts it is generated from (e.g. the limit a limits check probes). */
  title: string;
  selected: boolean;
}

/** The spec facts a check's test is generated from, shown in its name. */
function specFacts(check: Check, op: OperationModel): string {
  if (check.family !== 'limits') return '';
  const limit = op.batch?.maxItems ?? op.selectionLimit?.maxOrders;
  return limit === undefined ? '' : ` [limit ${limit}]`;
}

function matches(test: Omit<PlannedTest, 'selected'>, selector: string): boolean {
  return (
    selector === test.family ||
    selector === test.checkId ||
    selector === test.operation ||
    selector === test.key ||
    test.requirementIds.includes(selector)
  );
}

/** The plan: operations in spec order, checks in registry order. */
export function planTests(spec: SpecModel, checks: readonly Check[], selection: Selection): PlannedTest[] {
  const plan: PlannedTest[] = [];
  for (const op of spec.operations.values()) {
    for (const check of checks) {
      if (!covers(spec, check.operations, op.key)) continue;
      if (check.family === 'deep' && selection.depth === 0) continue;
      const test = {
        key: `${op.key}/${check.id}`,
        checkId: check.id,
        family: check.family,
        operation: op.key,
        probe: check.probe,
        requirementIds: [...check.requirements],
        severity: severityOf(spec, check.requirements),
        title: check.id + specFacts(check, op),
      };
      const selected =
        (!selection.only.length || selection.only.some((s) => matches(test, s))) &&
        !selection.skip.some((s) => matches(test, s));
      plan.push({ ...test, selected });
    }
  }
  return plan;
}

/** Selectors of --only / --skip that match no test of the plan. */
export function unknownSelectors(plan: readonly PlannedTest[], selection: Selection): string[] {
  return [...selection.only, ...selection.skip].filter((s) => !plan.some((t) => matches(t, s)));
}
