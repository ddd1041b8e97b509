/** The shape of a check case: a synthetic observation and what the check must say about it. */
import type { CheckContext, Observation, OperationKey } from '../../../core/model.js';
import type { FindingCode } from '../../../core/types/finding-codes.js';

/** One case of one check, named by the requirement it is about. */
export interface Case {
  check: string;
  /** Requirement id the case exercises (a failing case's findings trace to it). */
  requirement: string;
  name: string;
  op: OperationKey;
  observation: () => Observation;
  ctx?: () => CheckContext;
  /** `pass`: no failing finding; `notApplicable`: the check does not apply; codes: these findings (at least). */
  expect: 'pass' | 'notApplicable' | { codes: FindingCode[]; info?: true };
}

/** A passing case. */
export function pass(
  check: string,
  requirement: string,
  name: string,
  op: OperationKey,
  observation: () => Observation,
  ctx?: () => CheckContext,
): Case {
  return { check, requirement, name, op, observation, expect: 'pass', ...(ctx ? { ctx } : {}) };
}

/** A failing case expecting findings with `codes`. */
export function fail(
  check: string,
  requirement: string,
  name: string,
  op: OperationKey,
  observation: () => Observation,
  codes: FindingCode[],
  ctx?: () => CheckContext,
): Case {
  return { check, requirement, name, op, observation, expect: { codes }, ...(ctx ? { ctx } : {}) };
}
