import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DeepCase } from '../../suites/facts.js';
import { sampler } from '../../suites/probes/deep.js';

describe('deep case sampler', () => {
  it('gives, block by block, the cases fast-check samples at once (the paths shrinking replays)', () => {
    const arb: fc.Arbitrary<DeepCase> = fc.record({
      kind: fc.constant('valid' as const),
      fields: fc.record({ a: fc.string(), b: fc.integer() }, { requiredKeys: [], noNullPrototype: true }),
    });
    const all = fc.sample(arb, { seed: 7, numRuns: 2_500 });
    const cases = sampler(arb, 7, 2_500);
    expect(Array.from({ length: 2_500 }, (_, i) => cases(i))).toEqual(all);
  });
});
