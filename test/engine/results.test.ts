import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../core/config/options.js';
import { failsRun, severityOf, toCheckResult } from '../../engine/outcome.js';
import { planTests, unknownSelectors } from '../../engine/plan.js';
import { completeResults, coverageOf, rollUp, totalsOf, verdictOf } from '../../engine/results.js';
import { NOT_SELECTED } from '../../core/run-result.js';
import { loadWaivers, waiverWarnings, type Waiver } from '../../engine/waivers.js';
import type { Check, CheckResult, Finding, Severity } from '../../core/model.js';
import { kitSpec } from '../../core/spec/load.js';
import { tempDir } from '../support/temp.js';

const spec = kitSpec();
const levelOf = (id: string) => spec.requirements.get(id)!.level;
const byLevel = (level: string) => [...spec.requirements.values()].find((r) => r.level === level)!.id;
const MUST = byLevel('must');
const EXPECTED = byLevel('expected');
const PROFILE = byLevel('profile');

const check = (id: string, requirements: string[], extra: Partial<Check> = {}): Check => ({
  id,
  family: 'conventions',
  probe: 'p',
  operations: ['capture', 'refund'],
  requirements,
  description: id,
  run: () => [],
  ...extra,
});
const finding = (severity: Severity): Finding => ({
  checkId: 'c',
  requirementIds: [],
  code: 'X',
  severity,
  title: 'x',
  message: 'expected a / received b',
  expected: 'a',
  received: 'b',
  location: { operation: 'capture', pointer: '/a' },
});
const TODAY = '2026-11-22';

describe('check results', () => {
  it('takes the strongest level of the requirements as severity', () => {
    expect(levelOf(MUST)).toBe('must');
    expect(severityOf(spec, [PROFILE, EXPECTED])).toBe('expected');
    expect(severityOf(spec, [PROFILE, MUST])).toBe('must');
    expect(() => severityOf(spec, ['PAGI-NOPE-999'])).toThrow(/not in the catalogue/);
  });

  it('passes with information findings only, fails otherwise, and fails the run at or above --fail-on', () => {
    const c = check('c', [MUST, EXPECTED]);
    expect(toCheckResult(spec, c, 'capture', [finding('info')], [], TODAY, 1).status).toBe('passed');
    const failedExpected = toCheckResult(spec, c, 'capture', [finding('expected'), finding('info')], [], TODAY, 1);
    expect(failedExpected).toMatchObject({ status: 'failed', severity: 'must', requirementIds: [MUST, EXPECTED] });
    expect(failsRun(spec, failedExpected, 'must')).toBe(false);
    expect(failsRun(spec, failedExpected, 'expected')).toBe(true);
    expect(failsRun(spec, failedExpected, 'profile')).toBe(true);
    expect(toCheckResult(spec, c, 'capture', { notApplicable: 'no items' }, [], TODAY, 1)).toMatchObject({
      status: 'not_applicable',
      reason: 'no items',
    });
    expect(toCheckResult(spec, c, 'capture', { skipped: 'HTTP 429' }, [], TODAY, 1)).toMatchObject({
      status: 'skipped',
      reason: 'HTTP 429',
    });
  });

  it('waives named failures until the waiver expires', () => {
    const c = check('c', [MUST]);
    const waivers: Waiver[] = [{ check: 'c', reason: 'vendor ticket 12', expires: TODAY, operation: 'capture' }];
    const waived = toCheckResult(spec, c, 'capture', [finding('must')], waivers, TODAY, 1);
    expect(waived).toMatchObject({ status: 'waived', reason: `waived until ${TODAY}: vendor ticket 12` });
    expect(failsRun(spec, waived, 'must')).toBe(false);
    expect(toCheckResult(spec, c, 'refund', [finding('must')], waivers, TODAY, 1).status).toBe('failed');
    expect(toCheckResult(spec, c, 'capture', [finding('must')], waivers, '2026-11-23', 1).status).toBe('failed');
    expect(waiverWarnings(waivers, '2026-11-23', new Set(['c']))).toEqual([
      `Waiver for 'c' expired on ${TODAY}; its failures stand.`,
    ]);
    expect(waiverWarnings(waivers, TODAY, new Set(['other']))[0]).toMatch(/names no check/);
  });

  it('reads waiver files and refuses bad ones with one sentence', () => {
    const dir = tempDir('waivers-');
    const file = (name: string, text: string) => {
      fs.writeFileSync(path.join(dir, name), text);
      return path.join(dir, name);
    };
    expect(
      loadWaivers(
        file(
          'ok.yaml',
          '- {check: c, reason: r, expires: 2027-01-31}\n- {check: d, reason: r, expires: "2027-02-01", operation: refund}\n',
        ),
      ),
    ).toEqual([
      { check: 'c', reason: 'r', expires: '2027-01-31' },
      { check: 'd', reason: 'r', expires: '2027-02-01', operation: 'refund' },
    ]);
    expect(() => loadWaivers(file('a.yaml', 'check: c'))).toThrow(UsageError);
    expect(() => loadWaivers(file('b.yaml', '- {check: c, expires: 2027-01-01}'))).toThrow(
      /needs a non-empty 'reason'/,
    );
    expect(() => loadWaivers(file('c.yaml', '- {check: c, reason: r, expires: soon}'))).toThrow(/YYYY-MM-DD/);
    expect(() => loadWaivers(path.join(dir, 'missing.yaml'))).toThrow(/Cannot read the waiver file/);
  });
});

describe('plan', () => {
  const checks = [
    check('a', [MUST]),
    check('b', [EXPECTED], { family: 'limits' }),
    check('c', [PROFILE], { operations: ['payout'] }),
  ];

  it('generates one test per (operation, check) in spec order, with the limit a limits check probes', () => {
    const plan = planTests(spec, checks, { only: [], skip: [] });
    expect(plan.map((t) => t.key)).toEqual(['capture/a', 'capture/b', 'refund/a', 'refund/b', 'payout/c']);
    expect(plan.find((t) => t.key === 'capture/b')!.title).toBe(
      `b [limit ${spec.operations.get('capture')!.batch!.maxItems}]`,
    );
    expect(plan.filter((t) => !t.selected)).toEqual([]);
  });

  it('selects by family, check, operation, operation/check and requirement id', () => {
    const keys = (only: string[], skip: string[] = []) =>
      planTests(spec, checks, { only, skip })
        .filter((t) => t.selected)
        .map((t) => t.key);
    expect(keys(['limits'])).toEqual(['capture/b', 'refund/b']);
    expect(keys(['a'])).toEqual(['capture/a', 'refund/a']);
    expect(keys(['refund'])).toEqual(['refund/a', 'refund/b']);
    expect(keys([PROFILE])).toEqual(['payout/c']);
    expect(keys([], ['capture/a', 'payout'])).toEqual(['capture/b', 'refund/a', 'refund/b']);
    expect(
      unknownSelectors(planTests(spec, checks, { only: ['nope'], skip: [] }), { only: ['nope'], skip: ['a'] }),
    ).toEqual(['nope']);
  });
});

describe('verdict and roll-up', () => {
  const result = (
    checkId: string,
    status: CheckResult['status'],
    severity: Severity,
    findings: Finding[] = [],
    reason?: string,
  ): CheckResult => ({
    checkId,
    operation: 'capture',
    family: 'conventions',
    requirementIds: [severity === 'must' ? MUST : severity === 'expected' ? EXPECTED : PROFILE],
    severity,
    status,
    findings,
    durationMs: 0,
    ...(reason ? { reason } : {}),
  });

  it('is CONFORMANT, NOT CONFORMANT or INCONCLUSIVE with its exit code', () => {
    expect(
      verdictOf(
        spec,
        [result('a', 'passed', 'must'), result('b', 'failed', 'expected', [finding('expected')])],
        'must',
      ),
    ).toMatchObject({
      verdict: 'CONFORMANT',
      exitCode: 0,
      reasons: ['1 warning (check failed below must): capture/b (expected).'],
    });
    const failing = verdictOf(spec, [result('b', 'failed', 'expected', [finding('expected')])], 'expected');
    expect(failing).toMatchObject({ verdict: 'NOT CONFORMANT', exitCode: 1 });
    expect(failing.reasons[0]).toMatch(/^1 check\(s\) failed at or above expected: capture\/b \(expected\)\.$/);
    expect(verdictOf(spec, [result('a', 'skipped', 'must', [], 'HTTP 429')], 'must')).toMatchObject({
      verdict: 'INCONCLUSIVE',
      exitCode: 3,
    });
    expect(
      verdictOf(
        spec,
        [result('a', 'skipped', 'must', [], 'x'), result('b', 'skipped', 'must', [], NOT_SELECTED)],
        'must',
      ),
    ).toMatchObject({
      verdict: 'INCONCLUSIVE',
      reasons: [
        '1 must check(s) could not run: capture/a.',
        'partial run: 1 must check not selected — not a certification.',
      ],
    });
    expect(verdictOf(spec, [result('a', 'skipped', 'expected', [], 'HTTP 503')], 'must').verdict).toBe('CONFORMANT');
    expect(
      verdictOf(
        spec,
        [result('a', 'skipped', 'must', [], 'x'), result('b', 'failed', 'must', [finding('must')])],
        'must',
      ).verdict,
    ).toBe('NOT CONFORMANT');
  });

  it('judges a selected run by its selection: exit 0 when every selected check passes, and says it is partial', () => {
    const left = [
      result('b', 'skipped', 'must', [], NOT_SELECTED),
      result('c', 'skipped', 'must', [], NOT_SELECTED),
      result('d', 'skipped', 'expected', [], NOT_SELECTED),
    ];
    expect(verdictOf(spec, [result('a', 'passed', 'must'), ...left], 'must')).toMatchObject({
      verdict: 'CONFORMANT',
      exitCode: 0,
      reasons: ['partial run: 2 must checks not selected — not a certification.'],
      partial: { notSelected: 3, mustNotSelected: 2 },
    });
    expect(verdictOf(spec, [result('a', 'passed', 'must'), left[2]!], 'must').reasons).toEqual([
      'partial run: 1 check not selected — not a certification.',
    ]);
    const failing = verdictOf(spec, [result('a', 'failed', 'must', [finding('must')]), ...left], 'must');
    expect(failing).toMatchObject({
      verdict: 'NOT CONFORMANT',
      exitCode: 1,
      partial: { notSelected: 3, mustNotSelected: 2 },
    });
    expect(failing.reasons[1]).toBe('partial run: 2 must checks not selected — not a certification.');
  });

  it('completes the results with skipped placeholders for unselected and unreported tests', () => {
    const plan = planTests(spec, [check('a', [MUST]), check('b', [EXPECTED])], { only: [], skip: ['b'] });
    const received = [result('a', 'passed', 'must')];
    const all = completeResults(plan, received, (t) => t.operation === 'refund', 'not run: boom');
    expect(all.map((r) => [r.operation, r.checkId, r.status, r.reason])).toEqual([
      ['capture', 'a', 'passed', undefined],
      ['capture', 'b', 'skipped', NOT_SELECTED],
      ['refund', 'a', 'skipped', 'not run: boom'],
      ['refund', 'b', 'skipped', NOT_SELECTED],
    ]);
  });

  it('rolls results up per requirement and counts coverage over the testable ones', () => {
    const plan = planTests(spec, [check('a', [MUST]), check('b', [EXPECTED])], { only: [], skip: [] });
    const results = [result('a', 'passed', 'must'), result('b', 'failed', 'expected', [finding('expected')])];
    const requirements = rollUp(spec, plan, results);
    const of = (id: string) => requirements.find((r) => r.id === id)!;
    expect(of(MUST)).toMatchObject({ status: 'passed', checks: ['capture/a'] });
    expect(of(EXPECTED).status).toBe('failed');
    expect(of(PROFILE).status).toBe('no_check');
    expect(requirements.filter((r) => r.status === 'untestable' && r.level !== 'unspecified')).toEqual([]);
    const coverage = coverageOf(requirements, results);
    expect(coverage.checked).toBe(2);
    expect(coverage.testable).toBe([...spec.requirements.values()].filter((r) => r.level !== 'unspecified').length);
    expect(totalsOf(results, 7)).toMatchObject({
      checks: 2,
      exchanges: 7,
      byStatus: { passed: 1, failed: 1 },
      findings: { expected: 1 },
    });
  });
});

describe('suite files', () => {
  it('are the generated ones, one per family', async () => {
    const { syncSuiteFiles } = await import('../../engine/generate.js');
    expect(syncSuiteFiles(false)).toEqual([]);
  });
});
