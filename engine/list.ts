/** `--list`: every check with its family, operations and requirement ids, then the requirements no check can test. */
import type { Requirement } from '../core/model.js';
import type { SpecModel } from '../core/spec/load.js';
import { operationsIn } from '../core/spec/operations.js';
import { checkSeverity } from './outcome.js';
import type { Severity } from '../core/model.js';
import { FAMILIES } from '../core/model.js';
import type { Registry } from './registry.js';
import type { PlannedTest } from './plan.js';

/** One check of `--list --format json`: its selected operations with their severities. */
export interface ListedCheck {
  id: string;
  family: string;
  description: string;
  operations: { operation: string; severity: Severity }[];
  requirements: { id: string; level: string }[];
}

/** The checks of the registry with their selected operations (every operation when no plan is given). */
function selectedChecks(spec: SpecModel, registry: Registry, plan?: readonly PlannedTest[]): ListedCheck[] {
  const chosen = plan ? new Set(plan.filter((t) => t.selected).map((t) => `${t.operation}/${t.checkId}`)) : undefined;
  return registry.CHECKS.map((check) => ({
    id: check.id,
    family: check.family,
    description: check.description,
    operations: operationsIn(spec, check.operations)
      .filter((op) => !chosen || chosen.has(`${op}/${check.id}`))
      .map((op) => ({ operation: op, severity: checkSeverity(spec, check, op) })),
    requirements: check.requirements.map((id) => ({ id, level: spec.requirements.get(id)?.level ?? '?' })),
  })).filter((c) => c.operations.length > 0);
}

/**
 * `--list --format json`: one JSON object per selected check, one per line (JSON Lines: `jq`, `grep` and a line
 * reader take it as it comes), in the registry's order.
 */
export function listChecksJson(spec: SpecModel, registry: Registry, plan?: readonly PlannedTest[]): string {
  return selectedChecks(spec, registry, plan)
    .map((check) => JSON.stringify(check))
    .join('\n');
}

/** Testable requirements (must, expected, profile) no check of the registry traces to. */
export function requirementsWithoutCheck(spec: SpecModel, registry: Registry): Requirement[] {
  const traced = new Set(registry.CHECKS.flatMap((c) => c.requirements));
  return [...spec.requirements.values()].filter((r) => r.level !== 'unspecified' && !traced.has(r.id));
}

/** Requirements whose level is `unspecified`: untestable by design. */
export function untestableRequirements(spec: SpecModel): Requirement[] {
  return [...spec.requirements.values()].filter((r) => r.level === 'unspecified');
}

/** The listing printed by `pagi-conform run --list`: the selected checks (all with no plan), then the requirement notes. */
export function listChecks(spec: SpecModel, registry: Registry, plan?: readonly PlannedTest[]): string {
  const all = selectedChecks(spec, registry, plan);
  const partial =
    all.length < registry.CHECKS.length ||
    all.some(
      (c) => c.operations.length < operationsIn(spec, registry.CHECKS.find((k) => k.id === c.id)!.operations).length,
    );
  const lines: string[] = [
    partial ? `${all.length} of ${registry.CHECKS.length} checks selected` : `${registry.CHECKS.length} checks`,
  ];
  for (const family of FAMILIES) {
    const checks = all.filter((c) => c.family === family);
    if (!checks.length) continue;
    lines.push('', `${family} (${checks.length})`);
    for (const check of checks) {
      const severities = [...new Set<Severity>(check.operations.map((o) => o.severity))];
      lines.push(`  ${check.id} [${severities.join('/')}]  ${check.description}`);
      lines.push(`    operations:   ${check.operations.map((o) => o.operation).join(', ')}`);
      lines.push(`    requirements: ${check.requirements.map((r) => `${r.id} (${r.level})`).join(', ')}`);
    }
  }
  if (partial) return lines.join('\n');
  const missing = requirementsWithoutCheck(spec, registry);
  if (missing.length) {
    lines.push('', `requirements with no check (${missing.length}):`);
    for (const r of missing) lines.push(`  ${r.id} (${r.level})  ${r.statement}`);
  }
  lines.push('', `untestable requirements (level unspecified, ${untestableRequirements(spec).length}):`);
  for (const r of untestableRequirements(spec)) lines.push(`  ${r.id}  ${r.statement}`);
  return lines.join('\n');
}
