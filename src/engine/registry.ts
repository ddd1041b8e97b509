/** Loading and checking the registry of checks and probes (the kit's, handed in by src/kit.ts, or a module given by --registry). */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Check, Family, Probe } from '../model.js';
import type { SpecModel } from '../spec/load.js';

/** What a registry module exports. */
export interface Registry {
  CHECKS: readonly Check[];
  PROBES: readonly Probe[];
}

/** Every check family, in report order. */
export const FAMILIES: readonly Family[] = ['shape', 'media', 'conventions', 'limits', 'status', 'security', 'lifecycle', 'events', 'deep'];

/** Import a registry module (lazily: the kit's registry is only loaded when a run or a listing needs it). */
export async function loadRegistry(file: string): Promise<Registry> {
  const mod = (await import(pathToFileURL(path.resolve(file)).href)) as Partial<Registry>;
  if (!Array.isArray(mod.CHECKS) || !Array.isArray(mod.PROBES)) throw new Error(`registry ${file} must export CHECKS and PROBES arrays`);
  return { CHECKS: mod.CHECKS, PROBES: mod.PROBES };
}

/** Problems of a registry against a spec: duplicate ids, unknown families, operations, probes or requirements. */
export function registryProblems(registry: Registry, spec: SpecModel): string[] {
  const problems: string[] = [];
  const probes = new Map(registry.PROBES.map((p) => [p.id, p]));
  if (probes.size !== registry.PROBES.length) problems.push('two probes share an id');
  const ids = new Set<string>();
  for (const check of registry.CHECKS) {
    if (ids.has(check.id)) problems.push(`check id ${check.id} is used twice`);
    ids.add(check.id);
    if (!FAMILIES.includes(check.family)) problems.push(`check ${check.id} has unknown family ${check.family}`);
    const probe = probes.get(check.probe);
    if (!probe) problems.push(`check ${check.id} reads unknown probe ${check.probe}`);
    for (const op of check.operations) {
      if (!spec.operations.has(op)) problems.push(`check ${check.id} names operation ${op}, not in the spec`);
      else if (probe && !probe.operations.includes(op)) problems.push(`check ${check.id} runs on ${op} but probe ${probe.id} does not`);
    }
    if (!check.requirements.length) problems.push(`check ${check.id} traces to no requirement`);
    for (const id of check.requirements) if (!spec.requirements.has(id)) problems.push(`check ${check.id} names requirement ${id}, not in the catalogue`);
  }
  return problems;
}
