/** Loading and checking the registry of checks and probes (the kit's, handed in by kit/kit.ts, or a module given by --registry). */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { FAMILIES, type Check, type ObservationRule, type Probe } from '../core/model.js';
import type { SpecModel } from '../core/spec/load.js';
import { covers, operationsIn, scopeRequirement, unknownOperations } from '../core/spec/operations.js';
import { RegistryError } from '../core/types/errors.js';
import { ENGINE_RULES } from './rules.js';

/** What a registry module exports. */
export interface Registry {
  CHECKS: readonly Check[];
  PROBES: readonly Probe[];
  /** The observation rules (engine/rules.ts); a module that exports none gets the engine's. */
  RULES: readonly ObservationRule[];
}

/**
 * Import a module by URL; a TypeScript module where nothing transforms TypeScript (the kit run compiled, see
 * bin/launch.js) through tsx's loader, for that import alone.
 */
async function importModule(url: string): Promise<unknown> {
  try {
    return await import(url);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw e;
    const { tsImport } = await import('tsx/esm/api');
    return tsImport(url, import.meta.url);
  }
}

/** Import a registry module (lazily: the kit's registry is only loaded when a run or a listing needs it). */
export async function loadRegistry(file: string): Promise<Registry> {
  let mod: Partial<Registry>;
  try {
    mod = (await importModule(pathToFileURL(path.resolve(file)).href)) as Partial<Registry>;
  } catch (e) {
    throw new RegistryError(
      `The registry module ${file} cannot be loaded (${((e as Error).message ?? String(e)).split('\n')[0]}); fix the module or leave --registry out.`,
    );
  }
  if (!Array.isArray(mod.CHECKS) || !Array.isArray(mod.PROBES))
    throw new RegistryError(`The registry module ${file} must export CHECKS and PROBES arrays; export both from it.`);
  if (mod.RULES !== undefined && !Array.isArray(mod.RULES))
    throw new RegistryError(
      `The registry module ${file} exports RULES that is not an array; export an array or leave it out.`,
    );
  return { CHECKS: mod.CHECKS, PROBES: mod.PROBES, RULES: mod.RULES ?? ENGINE_RULES };
}

/**
 * Every problem of a registry against a spec (empty when sound), the same rules for the kit's registry and a
 * `--registry` module: duplicate ids, a check id that is not camelCase, an unknown family, probe, operation or
 * requirement, an operation its probe does not cover, no operation, no requirement, an `unspecified` requirement.
 */
export function registryProblems(
  registry: Pick<Registry, 'CHECKS' | 'PROBES'> & Partial<Pick<Registry, 'RULES'>>,
  spec: SpecModel,
): string[] {
  const problems: string[] = [];
  const ruleIds = new Set<string>();
  for (const r of registry.RULES ?? []) {
    if (ruleIds.has(r.id)) problems.push(`duplicate rule id ${r.id}`);
    ruleIds.add(r.id);
    if (!/^[a-z][A-Za-z0-9]*$/.test(r.id)) problems.push(`rule id ${r.id} is not camelCase`);
  }
  const probeById = new Map<string, Probe>();
  for (const p of registry.PROBES) {
    if (probeById.has(p.id)) problems.push(`duplicate probe id ${p.id}`);
    probeById.set(p.id, p);
  }
  const seen = new Set<string>();
  for (const c of registry.CHECKS) {
    if (seen.has(c.id)) problems.push(`duplicate check id ${c.id}`);
    if (ruleIds.has(c.id)) problems.push(`check id ${c.id} is also a rule's id`);
    seen.add(c.id);
    if (!/^[a-z][A-Za-z0-9]*$/.test(c.id)) problems.push(`check id ${c.id} is not camelCase`);
    if (!FAMILIES.includes(c.family)) problems.push(`check ${c.id} has unknown family ${c.family}`);
    const probe = probeById.get(c.probe);
    if (!probe) problems.push(`check ${c.id} names unknown probe ${c.probe}`);
    for (const op of unknownOperations(spec, c.operations))
      problems.push(`check ${c.id} names unknown operation ${op}`);
    const scoped = scopeRequirement(c.operations);
    if (scoped && !spec.requirements.has(scoped)) {
      problems.push(`check ${c.id} takes its operations from unknown requirement ${scoped}`);
      continue;
    }
    if (scoped && !c.requirements.includes(scoped))
      problems.push(`check ${c.id} takes its operations from ${scoped}, a requirement it does not trace to`);
    const covered = operationsIn(spec, c.operations);
    for (const op of covered)
      if (probe && !covers(spec, probe.operations, op))
        problems.push(`check ${c.id} covers ${op}, which probe ${c.probe} does not`);
    // A set the spec leaves empty is no problem (a spec without batches has no batch check to run).
    if (Array.isArray(c.operations) && c.operations.length === 0) problems.push(`check ${c.id} covers no operation`);
    if (c.requirements.length === 0) problems.push(`check ${c.id} traces to no requirement`);
    for (const id of c.requirements) {
      const r = spec.requirements.get(id);
      if (!r) problems.push(`check ${c.id} names unknown requirement ${id}`);
      else if (r.level === 'unspecified')
        problems.push(`check ${c.id} names ${id}, an unspecified requirement (untestable)`);
    }
  }
  return problems;
}
