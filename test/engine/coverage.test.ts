/** Every testable requirement (must, expected, profile) has a check in the registry; `unspecified` ones are untestable. */
import { describe, expect, it } from 'vitest';
import { requirementsWithoutCheck, untestableRequirements } from '../../engine/list.js';
import { registryProblems } from '../../engine/registry.js';
import { kitSpec } from '../../core/spec/load.js';
import { CHECKS, PROBES, RULES } from '../../suites/registry.js';

describe('requirement coverage of the registry', () => {
  const spec = kitSpec();
  const registry = { CHECKS, PROBES, RULES };

  it('is consistent with the spec', () => {
    expect(registryProblems(registry, spec)).toEqual([]);
  });

  it('has a check for every must, expected and profile requirement', () => {
    const missing = requirementsWithoutCheck(spec, registry).map((r) => `${r.id} (${r.level}): ${r.statement}`);
    expect(missing).toEqual([]);
  });

  it('lists the unspecified requirements as untestable', () => {
    const untestable = untestableRequirements(spec);
    console.info(
      `untestable requirements (level unspecified):\n${untestable.map((r) => `  ${r.id}  ${r.statement}`).join('\n')}`,
    );
    expect(untestable.length).toBeGreaterThan(0);
    expect(untestable.filter((r) => r.level !== 'unspecified')).toEqual([]);
  });
});
