/**
 * The one table of checks and probes. Loading it validates it against the kit's spec: a duplicate id, a check naming
 * an unknown probe, an operation its probe does not cover, or an unknown (or `unspecified`) requirement throws.
 * Families and conformance levels are lists of check ids derived from the table.
 */
import {
  FAMILIES,
  type Check,
  type Family,
  type ObservationRule,
  type OperationKey,
  type Probe,
  type Severity,
} from '../core/model.js';
import { kitSpec, type SpecModel } from '../core/spec/load.js';
import { operationsIn } from '../core/spec/operations.js';
import { DOCUMENT_LEVELS, type DocumentLevel, atLeast, mostSevere } from '../core/run-result.js';
import { checkSeverity as engineCheckSeverity, requirementsFor as engineRequirementsFor } from '../engine/outcome.js';
import { registryProblems } from '../engine/registry.js';
import { ENGINE_RULES } from '../engine/rules.js';
import { fieldProblems } from './fields.js';
import * as choiceChecks from './checks/choices.js';
import * as conventionCardChecks from './checks/conventions-cards.js';
import * as conventionChecks from './checks/conventions.js';
import * as deepChecks from './checks/deep.js';
import * as eventChecks from './checks/events.js';
import * as integrityMoneyChecks from './checks/integrity-money.js';
import * as integrityChecks from './checks/integrity.js';
import * as integrityRecordChecks from './checks/integrity-records.js';
import * as outcomeChecks from './checks/lifecycle-outcomes.js';
import * as payoutChecks from './checks/lifecycle-payout.js';
import * as reviewChecks from './checks/lifecycle-review.js';
import * as transitionChecks from './checks/lifecycle-transitions.js';
import * as limitChecks from './checks/limits.js';
import * as mediaChecks from './checks/media.js';
import * as profileRuleChecks from './checks/profile-rules.js';
import * as securityChecks from './checks/security.js';
import * as shapeChecks from './checks/shape.js';
import * as statusChecks from './checks/status.js';
import * as basicProbes from './probes/basic.js';
import * as choiceProbes from './probes/choices.js';
import * as deepProbes from './probes/deep.js';
import * as eventProbes from './probes/events.js';
import * as integrityProbes from './probes/integrity.js';
import * as lifecycleProbes from './probes/lifecycle.js';
import * as limitProbes from './probes/limits.js';
import * as profileRuleProbes from './probes/profile-rules.js';

/**
 * A module's exports by export name, explicitly: an ES module namespace lists its exports sorted, but a module runner
 * (vitest's, which runs the suites) may list them in source order, and the table must be the same in both.
 */
function exportsByName(m: object): unknown[] {
  return Object.entries(m)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, v]) => v);
}

/** Whether a module's export is a probe (an id, the operations it observes and its run). */
function isProbe(value: unknown): value is Probe {
  const v = value as Partial<Probe> | null;
  return (
    typeof v === 'object' && v !== null && typeof v.id === 'string' && typeof v.run === 'function' && 'operations' in v
  );
}

/**
 * Every probe: request recipes and stateful scenarios, derived from the exports of the probe modules (a probe is
 * registered by being exported; a module's other exports are not probes).
 */
export const PROBES: readonly Probe[] = [
  basicProbes,
  limitProbes,
  lifecycleProbes,
  eventProbes,
  profileRuleProbes,
  choiceProbes,
  deepProbes,
  integrityProbes,
].flatMap((m) => exportsByName(m).filter(isProbe));

/** Whether a module's export is a check (an id, its family, the probe it reads and its run). */
function isCheck(value: unknown): value is Check {
  const v = value as Partial<Check> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.id === 'string' &&
    typeof v.family === 'string' &&
    typeof v.probe === 'string' &&
    typeof v.run === 'function'
  );
}

/**
 * Every check, derived from the exports of the check modules (a check is registered by being exported), family by
 * family in the one family order, then module by module as listed here, then by export name.
 */
export const CHECKS: readonly Check[] = (() => {
  const modules = [
    shapeChecks,
    mediaChecks,
    conventionChecks,
    conventionCardChecks,
    limitChecks,
    statusChecks,
    securityChecks,
    transitionChecks,
    reviewChecks,
    payoutChecks,
    outcomeChecks,
    eventChecks,
    profileRuleChecks,
    choiceChecks,
    deepChecks,
    integrityChecks,
    integrityMoneyChecks,
    integrityRecordChecks,
  ];
  const all = modules.flatMap((m) => exportsByName(m).filter(isCheck));
  return FAMILIES.flatMap((f) => all.filter((c) => c.family === f));
})();

/**
 * The observation rules of the table: what the engine judges on every observation a check reads (no answer, a server
 * error, a URL off the target), with their ids beside the checks' (engine/rules.ts).
 */
export const RULES: readonly ObservationRule[] = ENGINE_RULES;

/** Throw with every problem of a table and of the field names (a broken kit, not a gateway's misbehaviour). */
export function validateRegistry(
  checks: readonly Check[],
  probes: readonly Probe[],
  spec: SpecModel,
  rules: readonly ObservationRule[] = RULES,
): void {
  const problems = [
    ...registryProblems({ CHECKS: checks, PROBES: probes, RULES: rules }, spec),
    ...fieldProblems(spec),
  ];
  if (problems.length) throw new Error(`suites registry is not valid:\n- ${problems.join('\n- ')}`);
}

validateRegistry(CHECKS, PROBES, kitSpec(), RULES);

/** A check by id. */
export function checkOf(id: string): Check {
  const c = CHECKS.find((x) => x.id === id);
  if (!c) throw new Error(`no check ${id}`);
  return c;
}

/** Check ids per family (data), derived from the one family list. */
export const CHECKS_BY_FAMILY: Readonly<Record<Family, readonly string[]>> = Object.fromEntries(
  FAMILIES.map((f) => [f, CHECKS.filter((c) => c.family === f).map((c) => c.id)]),
) as Record<Family, string[]>;

/**
 * The requirements a check traces to for one operation: its requirements the catalogue ties to that operation, or
 * all of them when none is (requirements tied to no operation, like profile headers).
 */
export function requirementsFor(check: Check, operation: OperationKey, spec: SpecModel = kitSpec()): string[] {
  return engineRequirementsFor(spec, check, operation);
}

/** Severity of a check for an operation: the strongest level among its requirements there (`info` for information checks). */
export function checkSeverity(check: Check, operation: OperationKey, spec: SpecModel = kitSpec()): Severity {
  return engineCheckSeverity(spec, check, operation);
}

/**
 * Conformance levels as lists of check ids: `must` holds the checks that can fail at `must` for some operation;
 * `expected` adds those at `expected`; `profile` adds those at `profile` (every failing check).
 */
export const CONFORMANCE_LEVELS: Readonly<Record<DocumentLevel, readonly string[]>> = (() => {
  const strongest = (c: Check) =>
    mostSevere(operationsIn(kitSpec(), c.operations).map((op) => checkSeverity(c, op))) ?? 'info';
  const upTo = (level: Severity) => CHECKS.filter((c) => atLeast(strongest(c), level)).map((c) => c.id);
  return Object.fromEntries(DOCUMENT_LEVELS.map((level) => [level, upTo(level)])) as Record<DocumentLevel, string[]>;
})();
