/** Judging self-test runs: caught, caught only by unrelated checks, missed; false alarms; coverage; reruns. */
import { describe, expect, it } from 'vitest';
import { selftestSection } from '../../scripts/readme-selftest.js';
import type { SelftestResult } from '../../selftest/index.js';
import type { PlannedVariant } from '../../selftest/plan.js';
import { failedSummary, selftestText } from '../../selftest/report.js';
import { checkedRequirements, incomplete, scoreSelftest } from '../../selftest/score.js';
import type { FailedCheck, VariantRun } from '../../selftest/variant.js';

const fault = (
  name: string,
  requirement: string,
  expectedCheck: string,
  family: PlannedVariant['families'][number],
): PlannedVariant => ({
  name,
  kind: 'fault',
  description: name,
  families: [family],
  requirement,
  expectedCheck,
});
const neutral = (name: string): PlannedVariant => ({ name, kind: 'neutral', description: name, families: ['shape'] });

function failed(checkId: string, operation: FailedCheck['operation'], findingRequirements: string[]): FailedCheck {
  return { checkId, operation, family: 'shape', severity: 'must', findingRequirements, codes: ['X'] };
}

function run(name: string, failures: FailedCheck[], extra: Partial<VariantRun> = {}): VariantRun {
  return {
    name,
    families: ['shape'],
    verdict: failures.length ? 'NOT CONFORMANT' : 'CONFORMANT',
    failed: failures,
    ran: 10,
    skipped: 0,
    skipReasons: [],
    warnings: [],
    durationMs: 1,
    ...extra,
  };
}

const variants = [
  fault('caught', 'PAGI-GEN-004', 'responseMatchesSchema', 'shape'),
  fault('other-op', 'PAGI-PAY-002', 'responseMatchesSchema', 'shape'),
  fault('unrelated', 'PAGI-GEN-007', 'successAnsweredWith200', 'status'),
  fault('missed', 'PAGI-MED-006', 'xmlRootIsRespon', 'media'),
  neutral('quiet'),
  neutral('noisy'),
];
const runs = [
  run('caught', [failed('responseMatchesSchema', 'capture', ['PAGI-GEN-004'])]),
  // PAGI-PAY-002 concerns the direct payment: a schema failure of a capture does not carry it.
  run('other-op', [failed('responseMatchesSchema', 'capture', ['PAGI-BAT-002'])]),
  run('unrelated', [failed('malformedBodyRefused', 'capture', ['PAGI-ERR-002'])]),
  run('missed', []),
  run('quiet', []),
  run('noisy', [failed('responseMatchesSchema', 'payout', ['PAGI-PO-002'])]),
];

describe('scoreSelftest', () => {
  const score = scoreSelftest(variants, runs);

  it('counts a fault as caught only by a failed check carrying its requirement on that operation', () => {
    expect(score.faults.map((f) => [f.name, f.status, f.named])).toEqual([
      ['caught', 'caught', true],
      ['other-op', 'unrelated', false],
      ['unrelated', 'unrelated', false],
      ['missed', 'missed', false],
    ]);
    expect(score.faults[0]!.caughtBy).toEqual(['responseMatchesSchema']);
    expect(score.faults[0]!.byExpectedCheck).toBe(true);
    expect(score.detection).toEqual({
      caught: 1,
      faults: 4,
      named: 1,
      byExpectedCheck: 1,
      invariantFaults: 0,
      throughIntegrity: 0,
    });
  });

  it('counts a fault breaking an invariant as caught only when its run fails through the integrity verdict, naming it', () => {
    const over = fault('over-refund', 'PAGI-INV-001', 'overRefundRefused', 'lifecycle');
    const finding = failed('overRefundRefused', 'refund', ['PAGI-INV-001']);
    const through = scoreSelftest(
      [over],
      [run('over-refund', [finding], { integrity: { verdict: 'FAILED', broken: ['PAGI-INV-001'] } })],
    );
    expect(through.faults[0]).toMatchObject({ status: 'caught', integrity: true });
    expect(through.detection).toMatchObject({ invariantFaults: 1, throughIntegrity: 1 });
    const notThrough = scoreSelftest(
      [over],
      [run('over-refund', [finding], { integrity: { verdict: 'PASSED', broken: [] } })],
    );
    expect(notThrough.faults[0]).toMatchObject({ status: 'unrelated', integrity: false });
  });

  it('counts a neutral variant with any failed check as a false alarm', () => {
    expect(score.neutrals.map((n) => [n.name, n.falseAlarm])).toEqual([
      ['quiet', false],
      ['noisy', true],
    ]);
    expect(score.falseAlarms).toEqual({ count: 1, neutrals: 2 });
    expect(score.passed).toBe(false);
  });

  it('reaches a requirement when a check tracing to it failed on an operation it concerns, and lists the others', () => {
    const row = (id: string) => score.coverage.table.find((r) => r.id === id)!;
    expect(row('PAGI-GEN-004').reachedBy).toContain('caught');
    expect(row('PAGI-GEN-004').namedBy).toEqual(['caught']);
    expect(row('PAGI-PAY-002').reachedBy).toEqual([]);
    expect(score.coverage.unreached).toContain('PAGI-PAY-002');
    expect(score.coverage.requirements).toBe(checkedRequirements().length);
    expect(checkedRequirements().filter((r) => !['must', 'expected', 'invariant'].includes(r.level))).toEqual([]);
  });

  it('treats a run whose checks could not all run as incomplete unless it already shows what it should', () => {
    expect(incomplete(variants[3]!, run('missed', [], { skipped: 3 }))).toBe(true);
    expect(incomplete(variants[0]!, { ...runs[0]!, skipped: 3 })).toBe(false);
    expect(incomplete(variants[4]!, run('quiet', [], { skipped: 1 }))).toBe(true);
    expect(incomplete(variants[4]!, run('quiet', [], { error: 'worker exited' }))).toBe(true);
    // A request the local gateway left unanswered (a timeout on a loaded machine) is no verdict on the variant either.
    const unanswered = { ...failed('successAnsweredWith200', 'capture', ['PAGI-INV-008']), codes: ['NO_ANSWER'] };
    expect(incomplete(variants[4]!, run('quiet', [unanswered]))).toBe(true);
    expect(incomplete(variants[4]!, run('quiet', [failed('responseMatchesSchema', 'payout', ['PAGI-PO-002'])]))).toBe(
      false,
    );
    const skippedNeutral = scoreSelftest(
      [variants[4]!],
      [run('quiet', [], { skipped: 2, skipReasons: ['no answer'] })],
    );
    expect(skippedNeutral.errors).toEqual(['quiet: 2 checks could not run: no answer']);
  });
});

describe('reports', () => {
  const result: SelftestResult = {
    settings: { jobs: 2, only: [], seed: 1, notifyWait: 1, concurrency: 1 },
    complete: true,
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 61_000,
    variants: variants.map((v, i) => ({ ...v, run: runs[i]! })),
    score: scoreSelftest(variants, runs),
  };

  it('prints variant, verdict, result and failed checks, then the score', () => {
    const text = selftestText(result);
    expect(text).toMatch(/^caught +shape +NOT CONFORMANT +caught PAGI-GEN-004 +responseMatchesSchema \[capture\]$/m);
    expect(text).toMatch(
      /^unrelated +status .*NOT CAUGHT: only unrelated checks failed +malformedBodyRefused \[capture\]$/m,
    );
    expect(text).toMatch(/^noisy +neutral +NOT CONFORMANT +FALSE ALARM/m);
    expect(text).toContain('Detection score: 1/4 faults caught');
    expect(text).toContain('False alarms: 1/2 neutral variants');
    expect(text).toMatch(/SELF-TEST FAILED$/);
    expect(failedSummary(['a/x', 'b/x', 'c/x', 'd/x', 'a/y'])).toBe('x [4 operations]; y [a]');
  });

  it('describes only a complete self-test in docs/development.md', () => {
    expect(selftestSection(result)).toContain('**Detection score: 1/4 faults caught**');
    expect(() => selftestSection({ ...result, complete: false })).toThrow(/--only/);
  });
});
