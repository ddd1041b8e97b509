/**
 * A run with a profile that leaves points out (profile format 6): the document and the invariants are judged in full,
 * each check that needs a point not stated is not applicable naming it, counted in the console and every report;
 * never a failure against the format's default.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { SPEC_DIR } from '../../core/spec/paths.js';
import { EXIT } from '../../core/types/errors.js';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

/** The reference profile with points left out (by default a handful of them). */
function partialReference(
  leaveOut: (value: any) => void = (value) => {
    delete value.statusValues.payment_status.captured;
    delete value.batch.itemFailures;
    delete value.notifications;
    delete value.errors.kinds.badSignature.code;
    delete value.limits.maxFieldLength;
  },
): string {
  const value = parse(fs.readFileSync(path.join(SPEC_DIR, 'profiles', 'reference.yaml'), 'utf8'));
  leaveOut(value);
  const file = path.join(tempDir('unstated-run'), 'partial.yaml');
  fs.writeFileSync(file, stringify(value));
  return file;
}

describe('a run with a profile that does not state every point', () => {
  it('card field names not stated: the run completes, no card is sent, the checks needing a card are not judged', async () => {
    const run = await runCli([
      '--profile',
      partialReference((value) => {
        delete value.fields.card.number;
        delete value.fields.card.securityCode;
      }),
      '--reporter',
      'json',
    ]);
    expect(run.code, run.stderr).toBe(EXIT.ok);
    const results = run.results();
    expect(results.verdict).toBe('CONFORMANT');
    expect(results.totals.byStatus.failed).toBe(0);
    const points = new Set(results.checks.filter((c) => c.notStated).map((c) => c.notStated));
    expect([...points].some((p) => /^\/fields\/card\/(number|securityCode)$/.test(p!))).toBe(true);
  });

  it('is CONFORMANT with 0 failed checks; the checks needing a point not stated are not applicable, naming it', async () => {
    const run = await runCli([
      '--profile',
      partialReference(),
      '--reporter',
      'console,json,html,junit,markdown',
      '--seed',
      '20261201',
    ]);
    expect(run.code, run.stderr).toBe(EXIT.ok);
    const results = run.results();
    expect(results.verdict).toBe('CONFORMANT');
    expect(results.totals.byStatus.failed).toBe(0);
    expect(results.totals.byStatus.skipped).toBe(0);
    const notJudged = results.checks.filter((c) => c.notStated);
    expect(notJudged.length).toBeGreaterThan(10);
    for (const c of notJudged) {
      expect(c.status).toBe('not_applicable');
      expect(c.reason).toBe(`not judged: the profile does not state ${c.notStated}`);
      expect(c.notStated).toMatch(
        /^\/(statusValues\/payment_status\/captured|batch\/itemFailures\/|notifications\/|errors\/kinds\/badSignature\/code|limits\/maxFieldLength$)/,
      );
    }
    const points = new Set(notJudged.map((c) => c.notStated));
    expect(points).toContain('/statusValues/payment_status/captured');
    expect(points).toContain('/errors/kinds/badSignature/code');
    // Field lengths are judged only against a length the profile states, never against the gateway's default.
    expect(results.checks.find((c) => c.checkId === 'fieldLengthPerProfile')).toMatchObject({
      status: 'not_applicable',
      notStated: '/limits/maxFieldLength',
    });
    expect([...points].some((p) => p!.startsWith('/notifications/'))).toBe(true);
    expect([...points].some((p) => p!.startsWith('/batch/itemFailures/'))).toBe(true);
    expect(results.totals.notStated).toEqual({ checks: notJudged.length, points: points.size });
    expect((results as unknown as { schemaVersion: string }).schemaVersion).toBe('1.8');
    // The document is judged in full where it needs no profile point, the invariants too.
    expect(results.totals.byStatus.passed).toBeGreaterThan(250);
    expect(results.verdicts?.integrity.verdict).toBe('PASSED');
    expect(results.checks.filter((c) => c.family === 'integrity' && c.status === 'passed').length).toBeGreaterThan(15);
    const line = `${notJudged.length} checks not judged: ${points.size} profile points not stated`;
    expect(run.stdout).toContain(`${line} (each named in results.json: reason, notStated)`);
    for (const report of ['summary.md', 'report.html', 'junit.xml'])
      expect(fs.readFileSync(path.join(run.out, report), 'utf8'), report).toContain(line);
  });

  it('pays with no default card: without an approving test card the payment checks are not judged, none fails', async () => {
    const run = await runCli([
      '--profile',
      partialReference((value) => delete value.payments.testCards.approve),
      '--reporter',
      'json',
      '--only',
      'authoriseDirect',
      '--seed',
      '20261201',
    ]);
    expect(run.code, run.stderr).toBe(EXIT.ok);
    const results = run.results();
    expect(results.totals.byStatus.failed).toBe(0);
    expect(results.checks.filter((c) => c.reason?.startsWith('kit error'))).toEqual([]);
    expect(results.checks.filter((c) => c.notStated === '/payments/testCards/approve').length).toBeGreaterThan(5);
  });

  it('a review trigger not stated: the payment is held by the one stated (the amount), the review scenario judged', async () => {
    const run = await runCli([
      '--profile',
      partialReference((value) => delete value.review.triggers.shopperEmailDomains),
      '--reporter',
      'json',
      '--only',
      'review',
      '--seed',
      '20261201',
    ]);
    expect(run.code, run.stderr).toBe(EXIT.ok);
    const results = run.results();
    expect(results.totals.byStatus.failed).toBe(0);
    expect(results.checks.filter((c) => c.reason === 'the scenario made no request').map((c) => c.checkId)).toEqual([]);
    const settled = results.checks.find((c) => c.checkId === 'flaggedPaymentSettledByReview');
    expect(settled?.status, settled?.reason).toBe('passed');
  });

  it('no review trigger stated: the review scenario is not judged, naming the trigger (not skipped)', async () => {
    const run = await runCli([
      '--profile',
      partialReference((value) => {
        delete value.review.triggers.shopperEmailDomains;
        delete value.review.triggers.amountAtLeast;
      }),
      '--reporter',
      'json',
      '--only',
      'review',
      '--seed',
      '20261201',
    ]);
    expect(run.code, run.stderr).toBe(EXIT.ok);
    const settled = run.results().checks.find((c) => c.checkId === 'flaggedPaymentSettledByReview');
    expect(settled?.status, settled?.reason).toBe('not_applicable');
    expect(settled?.notStated).toMatch(/^\/review\/triggers\//);
  });

  it('a draft’s gaps: payout failure types and the media types not stated, the payouts still judged (sent as JSON)', async () => {
    const run = await runCli([
      '--profile',
      partialReference((value) => {
        delete value.payout.failureTypes;
        delete value.requestMedia.types; // the reference reads either media (requestMedia.acceptOther)
      }),
      '--reporter',
      'json',
      '--only',
      'payout',
      '--seed',
      '20261201',
    ]);
    expect(run.code, run.stderr).toBe(EXIT.ok);
    const results = run.results();
    expect(results.totals.byStatus.failed).toBe(0);
    const failure = results.checks.find((c) => c.checkId === 'payoutFailureReported');
    expect(failure?.status, failure?.reason).toBe('passed');
    const media = results.checks.filter((c) => c.notStated?.startsWith('/requestMedia/types/'));
    expect(results.totals.byStatus.passed).toBeGreaterThan(media.length * 3);
  });
});
