/** One loader and one validator for the kit's registry and a `--registry` module: the same rules for both. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPlan } from '../../engine/runner.js';
import { KIT_PARTS } from '../../kit/kit.js';
import { loadRegistry, registryProblems } from '../../engine/registry.js';
import { kitSpec } from '../../core/spec/load.js';
import { KIT_ROOT } from '../../core/spec/paths.js';

const spec = kitSpec();
const fixture = (name: string) => path.join(KIT_ROOT, 'test', 'engine', 'fixtures', name);

describe('a custom registry', () => {
  it('is held to the same rules as the kit registry: an unspecified requirement is a problem', async () => {
    const registry = await loadRegistry(fixture('unspecified-registry.ts'));
    expect(registryProblems(registry, spec)).toEqual([
      'check fakeUnspecified names PAGI-ST-003, an unspecified requirement (untestable)',
    ]);
  });

  it('is refused by the run when a rule fails', async () => {
    await expect(
      loadPlan(spec, { registry: fixture('unspecified-registry.ts'), only: [], skip: [] }, KIT_PARTS),
    ).rejects.toThrow(/PAGI-ST-003, an unspecified requirement/);
  });

  it('is accepted when sound', async () => {
    const registry = await loadRegistry(fixture('fake-registry.ts'));
    expect(registryProblems(registry, spec)).toEqual([]);
  });
});
