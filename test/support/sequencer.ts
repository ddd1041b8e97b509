/**
 * The order the test files start in (vitest.config.ts): the longest first, so that the workers end together. vitest's
 * own order is by the durations it cached from the last run, and without a cache (a fresh clone: CI) by file size,
 * which starts the long end-to-end files, short as text, last: the run then ends on one of them alone. The files
 * named in LONGEST_FIRST start first, in its order; the others follow in vitest's order.
 */
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The longest test files, longest first: seconds of each in a whole `npx vitest run` with two workers and its JSON
 * report (endTime − startTime), on the kit's 2-core machine shared with other work (load 12 to 27: about five times
 * a quiet machine's). Only their order matters; a file missing here starts after them.
 */
export const LONGEST_FIRST: readonly (readonly [file: string, seconds: number])[] = [
  ['test/selftest/selftest.test.ts', 923],
  ['test/hostile/matrix.test.ts', 434],
  ['test/discover/proof.test.ts', 241],
  ['test/discover/neighbourhood.test.ts', 225],
  ['test/engine/integrity.test.ts', 214],
  ['test/cli/run.test.ts', 175],
  ['test/suites/integrity.test.ts', 161],
  ['test/package/pack.test.ts', 146],
  ['test/discover/neighbours.test.ts', 101],
  ['gateway/test/never-5xx.test.ts', 100],
  ['test/engine/mutations.test.ts', 94],
  ['test/profile/migrate-run.test.ts', 90],
  ['test/engine/personalities.test.ts', 87],
  ['gateway/test/persist-memory.test.ts', 83],
  ['test/cli/unstated-run.test.ts', 77],
  ['test/reporters/reports.test.ts', 68],
  ['test/cli/run-golden.test.ts', 60],
  ['test/suites/deep.test.ts', 54],
  ['test/engine/added-operation.test.ts', 53],
  ['test/discover/from.test.ts', 51],
];

/** Starts the files of LONGEST_FIRST first, in its order; the rest after them, as vitest orders them. */
export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const rank = new Map(LONGEST_FIRST.map(([file], i) => [file, i]));
    const of = (spec: TestSpecification) =>
      rank.get(path.relative(this.ctx.config.root, spec.moduleId).split(path.sep).join('/')) ?? LONGEST_FIRST.length;
    return ordered
      .map((spec, i) => ({ spec, i }))
      .sort((a, b) => of(a.spec) - of(b.spec) || a.i - b.i)
      .map(({ spec }) => spec);
  }
}
