/**
 * The neighbourhood proof, a fast sample (issue #34, point 7; the whole neighbourhood: `npm run bench:neighbourhood`,
 * figures in bench/results/neighbourhood.json). The generator (test/support/neighbourhood.ts) derives one-choice
 * neighbours of each personality from the profile format's schema; the sample takes one neighbour of each kind the
 * issue names, the kinds in turn from the personalities. Each is served by the reference gateway and discovered in
 * this process: every value the draft states equals the neighbour's truth, and a run with the draft has 0 failed
 * checks. The generator itself: deterministic given a seed, ≥ 150 neighbours over ≥ 40 points, every one a valid
 * profile one leaf away from its personality, the named kinds in every personality's neighbourhood.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { profileLeafValues, leafEquals } from '../../core/profile/agreement.js';
import { profileProblems } from '../../core/profile/load.js';
import {
  kindOf,
  NAMED_KINDS,
  type Neighbour,
  neighbourhood,
  neighbourhoodSample,
  personality,
  personalityNames,
} from '../support/neighbourhood.js';
import { type NeighbourProof, pool, proveNeighbour } from '../support/neighbourhood-proof.js';
import { tempDir } from '../support/temp.js';

const all = neighbourhood();
const sample = neighbourhoodSample(all);
const dir = tempDir('pagi-neighbourhood-');
let running: Promise<NeighbourProof[]> | undefined;
/** The sample's proofs, two at a time, started by the first test that reads one. */
const proofOf = async (nb: Neighbour) => {
  running ??= pool(sample, 2, (x) => proveNeighbour(x, dir, false));
  return (await running)[sample.indexOf(nb)]!;
};
afterAll(async () => {
  await running?.catch(() => {});
});

/** The leaves where two profiles differ. */
function differing(a: unknown, b: unknown): string[] {
  const x = profileLeafValues(a);
  const y = profileLeafValues(b);
  return [...new Set([...x.keys(), ...y.keys()])].filter((k) => !leafEquals(k, x.get(k), y.get(k)));
}

describe('the neighbour generator', () => {
  it('is deterministic given a seed, and another seed picks otherwise', () => {
    const ids = (n: Neighbour[]) => n.map((x) => `${x.id} ${x.change}`);
    expect(ids(neighbourhood())).toEqual(ids(all));
    expect(ids(neighbourhood(35))).not.toEqual(ids(all));
  });

  it('makes ≥ 150 neighbours over ≥ 40 points, each a valid profile differing from its personality in its point only', () => {
    expect(all.length).toBeGreaterThanOrEqual(150);
    expect(new Set(all.map((n) => n.point)).size).toBeGreaterThanOrEqual(40);
    for (const nb of all) {
      expect(profileProblems(nb.profile), nb.id).toEqual([]);
      const changed = differing(personality(nb.personality), nb.profile).filter((k) => k !== 'name');
      expect(changed, nb.id).toEqual([nb.point]);
    }
  });

  it('gives every personality a neighbour of each kind the issue names (one code shared by two kinds of error, …)', () => {
    for (const name of personalityNames())
      for (const k of NAMED_KINDS)
        expect(
          all.some((n) => n.personality === name && kindOf(n) === k.kind),
          `${name}: ${k.kind}`,
        ).toBe(true);
    const shared = all.filter((n) => n.rule === 'sharedCode' && n.point.startsWith('errors.kinds.'));
    for (const nb of shared) {
      const kinds = Object.values((nb.profile.errors as { kinds: Record<string, { code: string }> }).kinds);
      const code = JSON.parse(nb.change.split(' → ')[1]!);
      expect(kinds.filter((k) => k.code === code).length, nb.id).toBeGreaterThanOrEqual(2);
    }
  });

  it('samples one neighbour of each named kind, spread over the personalities', () => {
    expect(sample.map(kindOf)).toEqual(NAMED_KINDS.slice(0, 6).map((k) => k.kind));
    expect(new Set(sample.map((n) => n.personality)).size).toBe(Math.min(6, personalityNames().length));
  });
});

/**
 * Sample neighbours discovery gets wrong today (bench/results/neighbourhood.json has every wrong value of the whole
 * neighbourhood), each with what it states wrongly: marked `it.fails` until discovery states only what it saw there.
 * The day one passes, its marker fails the test: take it out.
 */
const FAILING_TODAY: Record<string, string> = {};

describe('a sample of the neighbourhood: served, discovered, every stated value the truth, a run with 0 failed', () => {
  for (const nb of sample)
    (nb.id in FAILING_TODAY ? it.fails : it)(
      `${nb.id} (${nb.change}): 0 wrong stated values, a run with the draft with 0 failed checks${nb.id in FAILING_TODAY ? ` (fails today: ${FAILING_TODAY[nb.id]})` : ''}`,
      { timeout: 600_000 },
      async () => {
        const proof = await proofOf(nb);
        expect(proof.error).toBeUndefined();
        expect(proof.discovery.problems).toEqual([]);
        const wrong = proof.discovery.wrong.map(
          (w) => `${w.leaf}: stated ${JSON.stringify(w.stated)}, truth ${JSON.stringify(w.truth)}`,
        );
        expect(wrong).toEqual([]);
        expect(proof.runError).toBeUndefined();
        expect(proof.failed).toEqual([]);
        expect(proof.discovery.stated / proof.discovery.leaves).toBeGreaterThan(0.5);
      },
    );
});
