/**
 * The integrity family against the faults only the run's ledger shows (gateway/faults-ledger.ts) and the gateway that
 * carries out requests it could not authenticate: each run fails (exit 1) through the integrity verdict with findings
 * of the fault's invariant, each resting on the exchanges whose values contradict; the reference gateway's run has
 * none. Data: one case per fault, named by the requirement it breaks.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../core/model.js';
import { type RunningGateway, startGateway } from '../../gateway/index.js';
import { runCli } from '../support/cli.js';

const CASES = [
  { requirement: 'PAGI-INV-001', fault: 'refund-exceeds-capture', check: 'refundsStayWithinCapture' },
  { requirement: 'PAGI-INV-002', fault: 'over-capture-allowed', check: 'capturesStayWithinAuthorisation' },
  { requirement: 'PAGI-INV-011', fault: 'payout-transaction-id-reused', check: 'identifiersNameOneThing' },
  { requirement: 'PAGI-INV-012', fault: 'refund-search-phantom-refund', check: 'moneyAgreesWithLedger' },
  { requirement: 'PAGI-INV-013', fault: 'signature-checked-after-operation', check: 'unauthenticatedNeverCarriedOut' },
  { requirement: 'PAGI-INV-014', fault: 'query-hides-cancel', check: 'queryShowsAcknowledgedState' },
  { requirement: 'PAGI-INV-015', fault: 'notification-amount-differs', check: 'notificationsAgreeWithLedger' },
  { requirement: 'PAGI-INV-015', fault: 'notification-posted-elsewhere', check: 'notificationsAgreeWithLedger' },
  { requirement: 'PAGI-INV-016', fault: 'query-shopper-email-other', check: 'recordsAgreeWithLedger' },
  // The request and its answer contradict each other: the one exchange is the evidence (no list of several).
  { requirement: 'PAGI-INV-016', fault: 'query-lists-unselected-order', check: 'recordsAgreeWithLedger', exchanges: 1 },
] as const;

const gateways: RunningGateway[] = [];
afterAll(async () => {
  await Promise.all(gateways.map((g) => g.close()));
});

/** A default run against the reference gateway with `fault` switched on. */
async function runAgainst(fault?: string): Promise<{ code: number | null; results: RunResult }> {
  const gw = await startGateway({ port: 0, ...(fault ? { fault } : {}), log: () => undefined });
  gateways.push(gw);
  const run = await runCli(['--target', gw.url, '--reporter', 'json'], {
    PAGI_MERCHANT_ID: 'M10001',
    PAGI_ACCOUNT_ID: 'A20001',
    PAGI_SECRET: 'reference-secret-0001',
  });
  return { code: run.code, results: run.results() };
}

/** The failed integrity-family results of a run. */
const failedIntegrity = (r: RunResult) => r.checks.filter((c) => c.family === 'integrity' && c.status === 'failed');

describe('the integrity family judges the whole run', () => {
  it('the reference gateway: every integrity check passes or does not apply, none is skipped', {
    timeout: 300_000,
  }, async () => {
    const { code, results } = await runAgainst();
    expect(code).toBe(0);
    const integrity = results.checks.filter((c) => c.family === 'integrity');
    expect(integrity.length).toBeGreaterThan(10);
    expect(integrity.filter((c) => c.status !== 'passed' && c.status !== 'not_applicable')).toEqual([]);
  });

  it.each(CASES)(
    '$requirement: $fault fails the run through the integrity verdict ($check)',
    {
      timeout: 300_000,
    },
    async (c) => {
      const { requirement, fault, check } = c;
      const { code, results } = await runAgainst(fault);
      expect(code).toBe(1);
      expect(results.verdicts?.integrity.verdict).toBe('FAILED');
      const failed = failedIntegrity(results).filter((c) => c.checkId === check);
      expect(failed.length).toBeGreaterThan(0);
      const findings = failed.flatMap((c) => c.findings).filter((f) => f.requirementIds.includes(requirement));
      expect(findings.length).toBeGreaterThan(0);
      // The contradiction rests on at least two exchanges (the answer and what it contradicts), each with evidence.
      for (const f of findings) {
        expect(f.evidence).toBeDefined();
        if ('exchanges' in c) expect(f.exchanges).toBeUndefined();
        else expect(f.exchanges?.length ?? 0).toBeGreaterThanOrEqual(2);
      }
    },
  );
});
