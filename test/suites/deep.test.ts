/**
 * The deep family finds what fixed probes miss: each deep-only fault of the reference gateway passes the default run
 * of its operation (every family, no depth) and fails its deep check at depth 1000, with a shrunk request, its seed and
 * fast-check path. Also: at depth 0 the plan holds no deep test, and the generated requests are reproducible from
 * the seed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAULTS, type DeviationDefinition } from '../../gateway/faults.js';
import { startGateway } from '../../gateway/index.js';
import { run } from '../../kit/index.js';
import { planTests } from '../../engine/plan.js';
import { kitSpec } from '../../core/spec/load.js';
import { CHECKS } from '../../suites/registry.js';

const DEEP_FAULTS = FAULTS.filter(
  (f): f is DeviationDefinition & { deepOperation: NonNullable<DeviationDefinition['deepOperation']> } =>
    f.kind === 'fault' && f.deepOperation !== undefined,
);

async function runAgainst(fault: string, options: Parameters<typeof run>[0]) {
  const gateway = await startGateway({ port: 0, host: '127.0.0.1', fault });
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'pagi-deep-test-'));
  try {
    const merchant = gateway.config.merchants[0]!;
    const account = merchant.accounts[0]!;
    return await run({
      target: gateway.baseUrl,
      merchantId: merchant.merchantId,
      accountId: account.accountId,
      secret: account.secret,
      failOn: 'profile',
      reporter: [],
      out,
      seed: 11,
      ...options,
    });
  } finally {
    await gateway.close();
    fs.rmSync(out, { recursive: true, force: true });
  }
}

describe('the deep family', () => {
  it('is left out of the plan at depth 0 and planned per operation above it', () => {
    const spec = kitSpec();
    expect(planTests(spec, CHECKS, { only: [], skip: [], depth: 0 }).filter((t) => t.family === 'deep')).toEqual([]);
    const deep = planTests(spec, CHECKS, { only: ['deep'], skip: [], depth: 10 }).filter((t) => t.selected);
    expect(new Set(deep.map((t) => t.operation)).size).toBe(spec.operations.size);
    expect(deep.filter((t) => t.family !== 'deep')).toEqual([]);
  });

  it('declares three deep-only faults, one per kind', () => {
    expect(DEEP_FAULTS.map((f) => f.expectedCheck).sort()).toEqual([
      'deepAnswersConform',
      'deepInvalidRequestRefused',
      'deepNeverServerError',
    ]);
  });

  for (const fault of DEEP_FAULTS) {
    it(`${fault.name}: missed by the default run of ${fault.deepOperation}, caught at depth 1000 with a shrunk request`, {
      timeout: 300_000,
    }, async () => {
      const plain = await runAgainst(fault.name, { only: [fault.deepOperation] });
      expect(plain.checks.filter((c) => c.status === 'failed').map((c) => c.checkId)).toEqual([]);

      const deep = await runAgainst(fault.name, {
        only: [`${fault.deepOperation}/${fault.expectedCheck}`],
        depth: 1000,
      });
      const failed = deep.checks.filter((c) => c.status === 'failed');
      expect(failed.map((c) => c.checkId)).toEqual([fault.expectedCheck]);
      const finding = failed[0]!.findings.find(
        (f) => f.requirementIds.includes(fault.requirement) || f.severity !== 'info',
      )!;
      expect(finding.message).toMatch(/the smallest of [0-9]+ failing generated case\(s\): seed [0-9]+, path [0-9:]+/);
      expect(finding.evidence?.curl).toMatch(/(^|; )curl /);
      // Shrunk: the valid cases name at most one generated field, the invalid one field broken.
      expect(finding.message).not.toMatch(/valid request with \{[^}]*,[^}]*\}/);
    });
  }
});
