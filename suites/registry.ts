/**
 * The one table of checks and probes. Loading it validates it against the kit's spec: a duplicate id, a check naming
 * an unknown probe, an operation its probe does not cover, or an unknown (or `unspecified`) requirement throws.
 * Families and conformance levels are lists of check ids derived from the table.
 */
import type { Check, Family, OperationKey, Probe, Severity } from '../src/model.js';
import { kitSpec, type SpecModel } from '../src/spec/load.js';
import { checkSeverity as engineCheckSeverity, requirementsFor as engineRequirementsFor } from '../src/engine/outcome.js';
import { CONVENTIONS_CHECKS } from './checks/conventions.js';
import { DEEP_CHECKS } from './checks/deep.js';
import { EVENTS_CHECKS } from './checks/events.js';
import { LIFECYCLE_CHECKS } from './checks/lifecycle.js';
import { LIMITS_CHECKS } from './checks/limits.js';
import { MEDIA_CHECKS } from './checks/media.js';
import { SECURITY_CHECKS } from './checks/security.js';
import { SHAPE_CHECKS } from './checks/shape.js';
import { OUTSIDE_CHECKS, PROFILE_RULE_CHECKS } from './checks/profile-rules.js';
import { STATUS_CHECKS } from './checks/status.js';
import { fieldProblems } from './fields.js';
import {
  badSignature,
  declinedPayment,
  generatedNegative,
  happy,
  injection,
  malformedBody,
  noSignature,
  tokenPayment,
  unknownRecord,
  unknownTransaction,
  unregisteredAddress,
  wrongFormat,
} from './probes/basic.js';
import { deep } from './probes/deep.js';
import { notificationRetry, notified } from './probes/events.js';
import { apmCompletion, checkoutCompletion, payoutLifecycle, paymentLifecycle, reviewLifecycle } from './probes/lifecycle.js';
import { atLimit, emptyBatch, overLimit, selectionAtLimit, selectionOverLimit } from './probes/limits.js';
import { cardForms, itemFaults, outsideRequests, selectionCombined, selectionOrder, twoFaults } from './probes/profile-rules.js';

/** Every probe: request recipes and stateful scenarios. */
export const PROBES: readonly Probe[] = [
  happy,
  malformedBody,
  wrongFormat,
  badSignature,
  noSignature,
  unknownRecord,
  unknownTransaction,
  unregisteredAddress,
  injection,
  generatedNegative,
  atLimit,
  overLimit,
  emptyBatch,
  selectionAtLimit,
  selectionOverLimit,
  paymentLifecycle,
  reviewLifecycle,
  payoutLifecycle,
  declinedPayment,
  tokenPayment,
  apmCompletion,
  checkoutCompletion,
  notified,
  notificationRetry,
  twoFaults,
  itemFaults,
  selectionOrder,
  selectionCombined,
  outsideRequests,
  cardForms,
  deep,
];

/** Every check, family by family. */
export const CHECKS: readonly Check[] = [
  ...SHAPE_CHECKS,
  ...MEDIA_CHECKS,
  ...CONVENTIONS_CHECKS,
  ...LIMITS_CHECKS,
  ...STATUS_CHECKS,
  ...SECURITY_CHECKS,
  ...LIFECYCLE_CHECKS,
  ...EVENTS_CHECKS,
  ...PROFILE_RULE_CHECKS,
  ...OUTSIDE_CHECKS,
  ...DEEP_CHECKS,
];

/** The families in report order. */
export const FAMILY_ORDER: readonly Family[] = ['shape', 'media', 'conventions', 'limits', 'status', 'security', 'lifecycle', 'events', 'deep'];

/** Every problem of a table of checks and probes against a spec (empty when sound). */
export function registryProblems(checks: readonly Check[], probes: readonly Probe[], spec: SpecModel): string[] {
  const problems: string[] = [];
  const probeById = new Map<string, Probe>();
  for (const p of probes) {
    if (probeById.has(p.id)) problems.push(`duplicate probe id ${p.id}`);
    probeById.set(p.id, p);
  }
  const seen = new Set<string>();
  for (const c of checks) {
    if (seen.has(c.id)) problems.push(`duplicate check id ${c.id}`);
    seen.add(c.id);
    if (!/^[a-z][A-Za-z0-9]*$/.test(c.id)) problems.push(`check id ${c.id} is not camelCase`);
    if (!FAMILY_ORDER.includes(c.family)) problems.push(`check ${c.id} has unknown family ${c.family}`);
    const probe = probeById.get(c.probe);
    if (!probe) problems.push(`check ${c.id} names unknown probe ${c.probe}`);
    for (const op of c.operations) {
      if (!spec.operations.has(op)) problems.push(`check ${c.id} names unknown operation ${op}`);
      else if (probe && !probe.operations.includes(op)) problems.push(`check ${c.id} covers ${op}, which probe ${c.probe} does not`);
    }
    if (c.operations.length === 0) problems.push(`check ${c.id} covers no operation`);
    if (c.requirements.length === 0) problems.push(`check ${c.id} traces to no requirement`);
    for (const id of c.requirements) {
      const r = spec.requirements.get(id);
      if (!r) problems.push(`check ${c.id} names unknown requirement ${id}`);
      else if (r.level === 'unspecified') problems.push(`check ${c.id} names ${id}, an unspecified requirement (untestable)`);
    }
  }
  return [...problems, ...fieldProblems(spec)];
}

/** Throw with every problem of a table (a broken kit, not a gateway's misbehaviour). */
export function validateRegistry(checks: readonly Check[], probes: readonly Probe[], spec: SpecModel): void {
  const problems = registryProblems(checks, probes, spec);
  if (problems.length) throw new Error(`suites registry is not valid:\n- ${problems.join('\n- ')}`);
}

validateRegistry(CHECKS, PROBES, kitSpec());

/** A check by id. */
export function checkOf(id: string): Check {
  const c = CHECKS.find((x) => x.id === id);
  if (!c) throw new Error(`no check ${id}`);
  return c;
}

/** Check ids per family (data). */
export const FAMILIES: Readonly<Record<Family, readonly string[]>> = Object.fromEntries(
  FAMILY_ORDER.map((f) => [f, CHECKS.filter((c) => c.family === f).map((c) => c.id)]),
) as Record<Family, string[]>;

/**
 * The requirements a check traces to for one operation: its requirements the catalogue ties to that operation, or
 * all of them when none is (requirements tied to no operation, like profile headers).
 */
export function requirementsFor(check: Check, operation: OperationKey, spec: SpecModel = kitSpec()): string[] {
  return engineRequirementsFor(spec, check, operation);
}

const ORDER: readonly Severity[] = ['must', 'expected', 'profile', 'info'];

/** Severity of a check for an operation: the strongest level among its requirements there (`info` for information checks). */
export function checkSeverity(check: Check, operation: OperationKey, spec: SpecModel = kitSpec()): Severity {
  return engineCheckSeverity(spec, check, operation);
}

/**
 * Conformance levels as lists of check ids: `must` holds the checks that can fail at `must` for some operation;
 * `expected` adds those at `expected`; `profile` adds those at `profile` (every failing check).
 */
export const CONFORMANCE_LEVELS: Readonly<Record<'must' | 'expected' | 'profile', readonly string[]>> = (() => {
  const strongest = (c: Check) => c.operations.map((op) => checkSeverity(c, op)).sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b))[0] ?? 'info';
  const upTo = (level: Severity) => CHECKS.filter((c) => ORDER.indexOf(strongest(c)) <= ORDER.indexOf(level)).map((c) => c.id);
  return { must: upTo('must'), expected: upTo('expected'), profile: upTo('profile') };
})();
