/**
 * The one rule of what a check result counts as for each verdict (`countsAs`, core/run-result.ts), and the places
 * that derive from it: the verdicts, a report's label (`failedAtLevel`) and a failing test (`failsRun`).
 */
import { describe, expect, it } from 'vitest';
import type { CheckResult, Finding, Severity } from '../../core/model.js';
import { DOCUMENT_LEVELS, NOT_SELECTED, countsAs, failedAtLevel } from '../../core/run-result.js';
import { kitSpec } from '../../core/spec/load.js';
import { failsRun } from '../../engine/outcome.js';
import { verdictOf } from '../../engine/results.js';

const spec = kitSpec();
const byLevel = (level: string) => [...spec.requirements.values()].find((r) => r.level === level)!.id;
const MUST = byLevel('must');
const EXPECTED = byLevel('expected');
const PROFILE = byLevel('profile');
const INVARIANT = byLevel('invariant');
const UNSPECIFIED = byLevel('unspecified');

const finding = (severity: Severity, requirementIds: string[]): Finding => ({
  checkId: 'c',
  requirementIds,
  code: 'X',
  severity,
  title: 'x',
  message: 'expected a / received b',
  expected: 'a',
  received: 'b',
  location: { operation: 'capture', pointer: '/a' },
});
const result = (over: Partial<CheckResult>): CheckResult => ({
  checkId: 'c',
  operation: 'capture',
  family: 'conventions',
  requirementIds: [MUST, EXPECTED, INVARIANT],
  severity: 'invariant',
  status: 'passed',
  findings: [],
  durationMs: 1,
  ...over,
});
const failed = (...findings: Finding[]) => result({ status: 'failed', findings });

describe('what a check result counts as', () => {
  it('a failed result: failed at or above --fail-on, a warning below it, at the most serious document level named', () => {
    const r = failed(finding('profile', [PROFILE]), finding('expected', [EXPECTED]), finding('info', [MUST]));
    expect(countsAs(spec.requirements, r, 'must')).toEqual({
      failedAt: 'expected',
      document: { as: 'warning', level: 'expected' },
      integrity: { broken: [], waived: [], coverage: 'checked' },
      failsRun: false,
    });
    expect(countsAs(spec.requirements, r, 'expected').document).toEqual({ as: 'failed', level: 'expected' });
    expect(countsAs(spec.requirements, r, 'expected').failsRun).toBe(true);
  });

  it('a broken invariant fails the run whatever --fail-on says, and labels the check invariant', () => {
    const r = failed(finding('invariant', [INVARIANT, PROFILE]));
    for (const failOn of DOCUMENT_LEVELS) {
      const counts = countsAs(spec.requirements, r, failOn);
      expect(counts.failedAt).toBe('invariant');
      expect(counts.integrity.broken).toEqual([INVARIANT]);
      expect(counts.failsRun).toBe(true);
    }
    expect(countsAs(spec.requirements, r, 'must').document).toEqual({ as: 'warning', level: 'profile' });
  });

  it('a waived result fails no verdict, keeps its label, and names the invariants it would break', () => {
    const r = result({ status: 'waived', findings: [finding('must', [MUST, INVARIANT])] });
    expect(countsAs(spec.requirements, r, 'profile')).toEqual({
      failedAt: 'invariant',
      document: undefined,
      integrity: { broken: [], waived: [INVARIANT], coverage: 'checked' },
      failsRun: false,
    });
  });

  it('a finding naming nothing the catalogue knows counts at its severity; information and unspecified fail nothing', () => {
    expect(countsAs(spec.requirements, failed(finding('expected', [])), 'expected').document).toEqual({
      as: 'failed',
      level: 'expected',
    });
    const informs = countsAs(
      spec.requirements,
      failed(finding('info', [MUST]), finding('must', [UNSPECIFIED])),
      'profile',
    );
    expect(informs).toMatchObject({ failedAt: undefined, document: undefined, failsRun: false });
  });

  it('could not run: in the selection only, for the document verdict only when it traces to a must requirement', () => {
    const skipped = (reason: string, requirementIds: string[]) =>
      countsAs(spec.requirements, result({ status: 'skipped', reason, requirementIds }), 'must');
    expect(skipped('HTTP 429', [MUST, INVARIANT])).toMatchObject({
      document: { as: 'could not run' },
      integrity: { coverage: 'could not run' },
      failsRun: false,
    });
    expect(skipped('HTTP 429', [EXPECTED])).toMatchObject({ document: undefined, integrity: { coverage: undefined } });
    expect(skipped(NOT_SELECTED, [MUST, INVARIANT])).toMatchObject({
      document: undefined,
      integrity: { coverage: undefined },
    });
    expect(countsAs(spec.requirements, result({ status: 'not_applicable', reason: 'x' }), 'must')).toMatchObject({
      document: undefined,
      integrity: { coverage: 'checked' },
    });
  });

  it('is what the verdicts, the label and a failing test read', () => {
    const results = [
      failed(finding('expected', [EXPECTED])),
      failed(finding('invariant', [INVARIANT])),
      result({ status: 'waived', findings: [finding('must', [MUST])] }),
      result({ checkId: 'd', status: 'skipped', reason: 'HTTP 503' }),
    ];
    for (const failOn of DOCUMENT_LEVELS) {
      const { verdicts } = verdictOf(spec, results, failOn);
      const counts = results.map((r) => countsAs(spec.requirements, r, failOn));
      expect(verdicts.document.failed.length).toBe(counts.filter((c) => c.document?.as === 'failed').length);
      expect(verdicts.document.warnings.length).toBe(counts.filter((c) => c.document?.as === 'warning').length);
      expect(verdicts.integrity.broken.map((b) => b.id)).toEqual([INVARIANT]);
      results.forEach((r, i) => {
        expect(failsRun(spec, r, failOn)).toBe(counts[i]!.failsRun);
        expect(failedAtLevel(spec.requirements, r)).toBe(counts[i]!.failedAt);
      });
    }
  });
});
