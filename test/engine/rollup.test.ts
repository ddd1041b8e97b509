/**
 * One requirement per finding: a check that traces to several requirements and fails on one of them fails that one
 * in the roll-up (results.json) and in report.html's requirement matrix; the others count as checked (passed). An
 * end-to-end run against the reference gateway whose only fault is an unmasked card marks only the requirements its
 * findings name.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { startGateway } from '../../gateway/index.js';
import { reportPage } from '../../reporters/html.js';
import { failureMessage } from '../../reporters/junit.js';
import { markdownSummary } from '../../reporters/markdown.js';
import { planTests } from '../../engine/plan.js';
import { rollUp } from '../../engine/results.js';
import { statusForRequirement } from '../../core/run-result.js';
import { run } from '../../kit/index.js';
import type { Check, CheckResult, Finding, RunResult } from '../../core/model.js';
import { kitSpec } from '../../core/spec/load.js';
import { hostileResult } from '../reporters/fixtures/hostile.js';

const spec = kitSpec();
const IDS = ['PAGI-FMT-001', 'PAGI-FMT-004', 'PAGI-PAY-003'];

const check: Check = {
  id: 'many',
  family: 'conventions',
  probe: 'p',
  operations: ['authoriseDirect'],
  requirements: IDS,
  description: 'many',
  run: () => [],
};
const finding = (requirementIds: string[], severity: Finding['severity'] = 'must'): Finding => ({
  checkId: 'many',
  requirementIds,
  code: 'FIELD_FORMAT',
  severity,
  title: 'Field value has the wrong form',
  message: 'expected a / received b',
  expected: 'a',
  received: 'b',
  location: { operation: 'authoriseDirect', pointer: '/card' },
});
const failedOnOne: CheckResult = {
  checkId: 'many',
  operation: 'authoriseDirect',
  family: 'conventions',
  requirementIds: IDS,
  severity: 'must',
  status: 'failed',
  findings: [finding(['PAGI-PAY-003']), finding(['PAGI-FMT-001'], 'info')],
  durationMs: 1,
};

describe('one requirement per finding', () => {
  it('fails only the requirement a failing finding names; the others of the check count as checked', () => {
    expect(statusForRequirement(failedOnOne, 'PAGI-PAY-003')).toBe('failed');
    expect(statusForRequirement(failedOnOne, 'PAGI-FMT-001')).toBe('passed');
    expect(statusForRequirement({ ...failedOnOne, status: 'waived' }, 'PAGI-FMT-004')).toBe('passed');
    expect(statusForRequirement({ ...failedOnOne, status: 'waived' }, 'PAGI-PAY-003')).toBe('waived');
    const plan = planTests(spec, [check], { only: [], skip: [] });
    const of = (id: string) => rollUp(spec, plan, [failedOnOne]).find((r) => r.id === id)!;
    expect(of('PAGI-PAY-003').status).toBe('failed');
    expect(of('PAGI-FMT-001').status).toBe('passed');
    expect(of('PAGI-FMT-004')).toMatchObject({ status: 'passed', checks: ['authoriseDirect/many'] });
  });

  it("shows the check under each requirement with that requirement's status in report.html", () => {
    const result: RunResult = {
      ...hostileResult(),
      checks: [failedOnOne],
      requirements: rollUp(spec, planTests(spec, [check], { only: [], skip: [] }), [failedOnOne]).filter((r) =>
        IDS.includes(r.id),
      ),
    };
    const doc = new JSDOM(reportPage(result)).window.document;
    const rowStatus = (id: string) => {
      const group = [...doc.querySelectorAll('tbody.req')].find((g) => g.querySelector('.rid')?.textContent === id)!;
      return [group.getAttribute('data-status'), group.querySelector('tr.check')!.getAttribute('data-status')];
    };
    expect(rowStatus('PAGI-PAY-003')).toEqual(['failed', 'failed']);
    expect(rowStatus('PAGI-FMT-004')).toEqual(['passed', 'passed']);
    expect(rowStatus('PAGI-FMT-001')).toEqual(['passed', 'passed']);
  });

  it('names only the failed requirement in the JUnit message and the Markdown summary', () => {
    expect(failureMessage(failedOnOne)).toMatch(/^many failed on authoriseDirect \(PAGI-PAY-003\): /);
    const result: RunResult = { ...hostileResult(), checks: [failedOnOne] };
    const row = markdownSummary(result)
      .split('\n')
      .find((l) => l.includes('authoriseDirect/many'))!;
    expect(row).toContain('PAGI-PAY-003');
    expect(row).not.toContain('PAGI-FMT-004');
  });

  it('a gateway whose only fault is an unmasked card fails only the requirements its findings name', {
    timeout: 240_000,
  }, async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'pagi-rollup-'));
    const gateway = await startGateway({ port: 0, host: '127.0.0.1', fault: 'card-unmasked' });
    try {
      const merchant = gateway.config.merchants[0]!;
      const account = merchant.accounts[0]!;
      await run({
        target: gateway.baseUrl,
        merchantId: merchant.merchantId,
        accountId: account.accountId,
        secret: account.secret,
        notifyWait: 300,
        failOn: 'profile',
        reporter: ['json', 'html'],
        out,
        seed: 1,
      });
      const results = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8')) as RunResult;
      const named = new Set(
        results.checks
          .filter((c) => c.status === 'failed')
          .flatMap((c) => c.findings.filter((f) => f.severity !== 'info').flatMap((f) => f.requirementIds)),
      );
      const failed = results.requirements.filter((r) => r.status === 'failed').map((r) => r.id);
      expect(failed).toContain('PAGI-INV-010');
      expect(failed.sort()).toEqual([...named].sort());
      expect(failed).not.toContain('PAGI-FMT-004');
      const doc = new JSDOM(fs.readFileSync(path.join(out, 'report.html'), 'utf8')).window.document;
      const failedInHtml = [...doc.querySelectorAll('tbody.req[data-status="failed"] .rid')].map((e) => e.textContent);
      expect(failedInHtml.sort()).toEqual(failed.sort());
      const failedChecks = results.checks
        .filter((c) => c.status === 'failed')
        .map((c) => `${c.operation}/${c.checkId}`);
      console.log(
        `card-unmasked: ${results.verdict}; failed checks ${failedChecks.join(', ')}; requirements failed ${failed.join(', ')}`,
      );
    } finally {
      await gateway.close();
      fs.rmSync(out, { recursive: true, force: true });
    }
  });
});
