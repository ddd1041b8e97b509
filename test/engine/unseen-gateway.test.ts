/**
 * A gateway the kit's authors never saw: the reference gateway running a profile that differs from every shipped one
 * in the choices the document leaves open and the kit once judged as faults (items checked for a currency mismatch
 * before their form, every answer signed in sorted pairs, error bodies signed while checkout errors are HTML pages,
 * refunds of the whole remaining amount only). The profile declares them truthfully: a run is CONFORMANT with no
 * failed check of any severity.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../core/model.js';
import { runCli } from '../support/cli.js';
import { unseenProfile } from '../support/unseen-profile.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pagi-unseen-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('a well-behaved gateway the kit’s authors never saw', () => {
  it('is CONFORMANT with no failed check of any severity when its profile declares its choices', {
    timeout: 600_000,
  }, async () => {
    const run = await runCli(['--profile', unseenProfile(tmp), '--reporter', 'json', '--fail-on', 'profile']);
    const results: RunResult = run.results();
    const failed = results.checks
      .filter((c) => c.status === 'failed')
      .map((c) => `${c.operation}/${c.checkId}: ${c.findings[0]?.message}`);
    expect(failed).toEqual([]);
    expect(results.checks.filter((c) => c.status === 'skipped' && c.severity === 'must')).toEqual([]);
    // The choices were exercised, not skipped: signatures of the query and APM answers, the refusals of the
    // partial refund and of ill-formed items, the refund search after the refund in full.
    const passed = (op: string, id: string) =>
      results.checks.some((c) => c.operation === op && c.checkId === id && c.status === 'passed');
    expect(passed('retrievalTrans', 'responseSignatureVerifies')).toBe(true);
    expect(passed('authoriseApm', 'responseSignatureVerifies')).toBe(true);
    expect(passed('refund', 'partialRefundsSucceedTwice')).toBe(true);
    expect(passed('capture', 'wrongFormatRefused')).toBe(true);
    expect(passed('checkout', 'wrongFormatRefused')).toBe(true);
    expect(passed('cancel', 'itemFaultsResolvedInProfileOrder')).toBe(true);
    expect(passed('retrievalRefund', 'refundSearchShowsEveryRefund')).toBe(true);
    expect(results.verdict).toBe('CONFORMANT');
    expect(run.code).toBe(0);
  });
});
