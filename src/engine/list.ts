/** `--list`: every check with its family, operations and requirement ids, then the requirements no check can test. */
import type { Requirement } from '../model.js';
import type { SpecModel } from '../spec/load.js';
import { checkSeverity } from './outcome.js';
import type { Severity } from '../model.js';
import { FAMILIES, type Registry } from './registry.js';

/** Testable requirements (must, expected, profile) no check of the registry traces to. */
export function requirementsWithoutCheck(spec: SpecModel, registry: Registry): Requirement[] {
  const traced = new Set(registry.CHECKS.flatMap((c) => c.requirements));
  return [...spec.requirements.values()].filter((r) => r.level !== 'unspecified' && !traced.has(r.id));
}

/** Requirements whose level is `unspecified`: untestable by design. */
export function untestableRequirements(spec: SpecModel): Requirement[] {
  return [...spec.requirements.values()].filter((r) => r.level === 'unspecified');
}

/** The listing printed by `pagi-conform run --list`. */
export function listChecks(spec: SpecModel, registry: Registry): string {
  const lines: string[] = [`${registry.CHECKS.length} checks`];
  for (const family of FAMILIES) {
    const checks = registry.CHECKS.filter((c) => c.family === family);
    if (!checks.length) continue;
    lines.push('', `${family} (${checks.length})`);
    for (const check of checks) {
      const severities = [...new Set<Severity>(check.operations.map((op) => checkSeverity(spec, check, op)))];
      lines.push(`  ${check.id} [${severities.join('/')}]  ${check.description}`);
      lines.push(`    operations:   ${check.operations.join(', ')}`);
      lines.push(`    requirements: ${check.requirements.map((id) => `${id} (${spec.requirements.get(id)?.level ?? '?'})`).join(', ')}`);
    }
  }
  const missing = requirementsWithoutCheck(spec, registry);
  if (missing.length) {
    lines.push('', `requirements with no check (${missing.length}):`);
    for (const r of missing) lines.push(`  ${r.id} (${r.level})  ${r.statement}`);
  }
  lines.push('', `untestable requirements (level unspecified, ${untestableRequirements(spec).length}):`);
  for (const r of untestableRequirements(spec)) lines.push(`  ${r.id}  ${r.statement}`);
  return lines.join('\n');
}
