/**
 * The kit's self-test, whole: every fault of the reference gateway caught by a failed check carrying the requirement
 * it breaks, no neutral variant failing, every `must` and `expected` requirement the suites check reached by a fault,
 * and the generated section of docs/development.md current. Runs the variants in child processes (a few minutes).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { FAULTS } from '../../gateway/faults.js';
import { readmeIsCurrent, selftestSection } from '../../scripts/readme-selftest.js';
import { declarationProblems, planVariants, runSelftest, type SelftestResult } from '../../selftest/index.js';
import { failedSummary } from '../../selftest/report.js';
import { FAMILIES } from '../../core/model.js';
import { checkOf } from '../../suites/registry.js';

describe('fault registry against the checks', () => {
  it('declares every fault with a check that traces to the requirement it breaks', () => {
    expect(declarationProblems()).toEqual([]);
  });

  it('runs a fault through its check’s family (an integrity fault with every family a default run has: the ledger judges what they did) and a neutral variant through every family a default run has', () => {
    const plan = planVariants();
    expect(plan).toHaveLength(FAULTS.length);
    const defaultFamilies = FAMILIES.filter((family) => family !== 'deep');
    for (const v of plan) {
      const everyFamily =
        v.kind === 'neutral' || (v.kind === 'fault' && checkOf(v.expectedCheck!).family === 'integrity');
      expect(v.families, v.name).toEqual(everyFamily ? defaultFamilies : [checkOf(v.expectedCheck!).family]);
    }
    expect(() => planVariants(['no-such-variant'])).toThrow(
      /--only names an unknown variant 'no-such-variant'\. The variants are /,
    );
  });

  it('finds a declaration that does not fit', () => {
    const broken = [
      {
        kind: 'fault',
        name: 'x',
        description: 'a check that does not exist',
        requirement: 'PAGI-GEN-007',
        expectedCheck: 'noSuchCheck',
      },
      {
        kind: 'fault',
        name: 'z',
        description: 'a requirement the check does not trace to',
        requirement: 'PAGI-GEN-001',
        expectedCheck: 'successAnsweredWith200',
      },
    ] as const;
    expect(declarationProblems(broken)).toEqual([
      'fault x expects check noSuchCheck, not in suites/registry.ts',
      'fault z: check successAnsweredWith200 does not trace to PAGI-GEN-001',
    ]);
  });
});

describe('the whole self-test', () => {
  let result: SelftestResult;
  beforeAll(async () => {
    result = await runSelftest();
  }, 20 * 60_000);

  it('catches every fault by a failed check carrying the requirement it breaks', () => {
    const notCaught = result.score.faults
      .filter((f) => f.status !== 'caught')
      .map((f) => `${f.name} (${f.requirement}): ${f.status}; failed: ${failedSummary(f.failedChecks)}`);
    expect(notCaught).toEqual([]);
  });

  it('raises no false alarm on a neutral variant', () => {
    expect(
      result.score.neutrals.filter((n) => n.falseAlarm).map((n) => `${n.name}: ${failedSummary(n.failedChecks)}`),
    ).toEqual([]);
  });

  it('runs every variant without a kit or worker error', () => {
    expect(result.score.errors).toEqual([]);
  });

  it('reaches every must and expected requirement the suites check with a fault', () => {
    expect(result.score.coverage.unreached).toEqual([]);
  });

  it('passes as a whole (the exit code of pagi-conform selftest)', () => {
    expect(result.score.passed).toBe(true);
  });

  it('matches the self-test section of docs/development.md (npx tsx scripts/readme-selftest.ts regenerates it)', () => {
    expect(readmeIsCurrent(result), selftestSection(result)).toBe(true);
  });
});
