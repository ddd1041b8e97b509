/**
 * What the self-test runs: every variant of the reference gateway's registry (gateway/faults.ts) with the check
 * families that can see it. A fault runs through the family of the check declared to catch it (the verdict needs
 * nothing more: the self-test fails a run on any failed check); a neutral variant runs through every family, since
 * a false alarm may come from any of them. The registry is checked against the checks on the way.
 */
import { FAULTS, type FaultDefinition } from '../gateway/faults.js';
import { CHECKS, checkOf } from '../suites/registry.js';
import { FAMILIES, type Family, type OperationKey } from '../core/model.js';
import { kitSpec } from '../core/spec/load.js';
import { UsageError } from '../core/types/errors.js';
import { didYouMean } from '../core/config/suggest.js';

/** One variant as the self-test runs it. */
export interface PlannedVariant {
  name: string;
  kind: 'fault' | 'neutral';
  description: string;
  /** Families of checks the run selects (`only`). */
  families: Family[];
  /** Faults: the requirement broken and the check expected to catch it. */
  requirement?: string;
  expectedCheck?: string;
  /** A deep fault: the one operation whose deep check the run selects, at the self-test's depth. */
  deepOperation?: OperationKey;
}

/** Why a fault's declaration does not fit the checks (unknown check, a requirement the check does not trace to). */
export function declarationProblems(variants: readonly FaultDefinition[] = FAULTS): string[] {
  const problems: string[] = [];
  const spec = kitSpec();
  const names = new Set<string>();
  for (const v of variants) {
    if (names.has(v.name)) problems.push(`variant ${v.name} is declared twice`);
    names.add(v.name);
    if (v.kind === 'neutral') continue;
    const check = CHECKS.find((c) => c.id === v.expectedCheck);
    const level = spec.requirements.get(v.requirement)?.level;
    if (!level) problems.push(`fault ${v.name} names requirement ${v.requirement}, not in the catalogue`);
    else if (level === 'unspecified')
      problems.push(`fault ${v.name} names ${v.requirement}, an unspecified (untestable) requirement`);
    if (!check) {
      problems.push(`fault ${v.name} expects check ${v.expectedCheck}, not in suites/registry.ts`);
      continue;
    }
    if (!check.requirements.includes(v.requirement))
      problems.push(`fault ${v.name}: check ${check.id} does not trace to ${v.requirement}`);
  }
  return problems;
}

/** The variants to run (all, or those named in `only`), checked; throws on a broken declaration or an unknown name. */
export function planVariants(only: readonly string[] = []): PlannedVariant[] {
  const problems = declarationProblems();
  if (problems.length) throw new Error(`the fault registry does not fit the checks:\n- ${problems.join('\n- ')}`);
  const unknown = only.filter((name) => !FAULTS.some((f) => f.name === name));
  if (unknown.length)
    throw new UsageError(
      `--only names an unknown variant '${unknown[0]}'${
        didYouMean(
          unknown[0]!,
          FAULTS.map((f) => f.name),
        ) || '.'
      } The variants are ${FAULTS.map((f) => f.name).join(', ')}.`,
    );
  return FAULTS.filter((f) => !only.length || only.includes(f.name)).map((f) =>
    f.kind === 'fault'
      ? {
          name: f.name,
          kind: f.kind,
          description: f.description,
          // The integrity family judges what the other families did: it runs with them all (the deep family aside).
          families:
            checkOf(f.expectedCheck).family === 'integrity'
              ? FAMILIES.filter((family) => family !== 'deep')
              : [checkOf(f.expectedCheck).family],
          requirement: f.requirement,
          expectedCheck: f.expectedCheck,
          ...(f.deepOperation ? { deepOperation: f.deepOperation } : {}),
        }
      : // The deep family runs only with a depth: a neutral variant's run is the default one.
        {
          name: f.name,
          kind: f.kind,
          description: f.description,
          families: FAMILIES.filter((family) => family !== 'deep'),
        },
  );
}
