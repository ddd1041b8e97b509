/**
 * Operations come from the spec: an operation added to a copy of the spec (path, operationId, variant, schemas,
 * `x-pagi-*` entries, examples) is planned with every generic family's checks and run against the embedded reference
 * gateway, which answers it as a schema-driven mock, with no code edit.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { planTests } from '../../engine/plan.js';
import { kitSpec, loadSpec } from '../../core/spec/load.js';
import { batchTransition } from '../../core/spec/operations.js';
import type { OperationKey } from '../../core/spec/terms.js';
import { SCHEMA_BASE } from '../../core/spec/paths.js';
import { CHECKS } from '../../suites/registry.js';
import { specWithCancelSubscription, specWithCopiedOperation } from '../support/added-operation.js';
import { runCli } from '../support/cli.js';
import { specCopy } from '../support/temp.js';

/** The families whose checks apply to any operation (limits and batch checks only where its entries say so). */
const GENERIC = ['shape', 'media', 'conventions', 'status', 'security'];

describe('an operation added to a copy of the spec', () => {
  it('/v1/cancelSubscription: run --spec-root COPY --only cancelSubscription runs the generic checks and passes them', {
    timeout: 240_000,
  }, async () => {
    const root = specWithCancelSubscription();
    const spec = loadSpec(root);
    const planned = planTests(spec, CHECKS, { only: ['cancelSubscription'], skip: [] }).filter((t) => t.selected);
    expect(new Set(planned.map((t) => t.family))).toEqual(new Set([...GENERIC, 'deep']));
    // Its response is an envelope (return_status, return_message): the envelope check applies; it is no batch.
    expect(planned.map((t) => t.checkId)).toContain('envelopeReturnsOk');
    expect(planned.filter((t) => t.family === 'limits')).toEqual([]);

    const run = await runCli(['--spec-root', root, '--only', 'cancelSubscription', '--reporter', 'json']);
    expect(run.stderr).toBe('');
    const checks = run.results().checks.filter((c) => c.operation === 'cancelSubscription');
    expect(checks.length).toBe(planned.filter((t) => t.family !== 'deep').length);
    expect(checks.filter((c) => c.status === 'failed' || c.status === 'skipped')).toEqual([]);
    const passed = checks.filter((c) => c.status === 'passed');
    for (const family of GENERIC) expect(passed.map((c) => c.family)).toContain(family);
    // The mock validated, echoed and signed: these checks ran and passed, none was left not applicable.
    for (const id of [
      'responseMatchesSchema',
      'responseEchoesRequestFields',
      'envelopeReturnsOk',
      'responseSignatureVerifies',
      'badSignatureRefusedPerProfile',
      'missingSignatureRefused',
      'malformedBodyRefused',
      'successAnsweredWith200',
    ])
      expect(passed.map((c) => c.checkId)).toContain(id);
    expect(run.code).toBe(0);
    // The results name an operation of the run's spec and are valid against the kit's results schema.
    expect(kitSpec().validate(`${SCHEMA_BASE}results.schema.json`, run.results())).toEqual([]);
  });

  it("a copy of an existing operation's entry under a new path is listed with the generic checks and runs without a set-up or kit error", {
    timeout: 240_000,
  }, async () => {
    const root = specWithCopiedOperation('/v1/payout', '/v1/payoutCopy', 'payoutCopy');
    const spec = loadSpec(root);
    const planned = planTests(spec, CHECKS, { only: ['payoutCopy'], skip: [] }).filter((t) => t.selected);
    for (const family of GENERIC) expect(planned.map((t) => t.family)).toContain(family);
    const list = await runCli(['--spec-root', root, '--only', 'payoutCopy', '--list']);
    expect(list.code).toBe(0);
    for (const t of planned.filter((t) => t.family !== 'deep')) expect(list.stdout).toContain(t.checkId);
    const run = await runCli(['--spec-root', root, '--only', 'payoutCopy', '--reporter', 'json']);
    expect(run.stderr).toBe('');
    const checks = run.results().checks.filter((c) => c.operation === 'payoutCopy');
    expect(checks.length).toBe(planned.filter((t) => t.family !== 'deep').length);
    expect(checks.filter((c) => c.status === 'skipped')).toEqual([]);
    expect([0, 1]).toContain(run.code);
  });

  it("/v1/cancel's entry copied as /v1/cancelSubscription runs every listed check without a kit error, and the mock refuses an unknown transaction as the cancel batch does", {
    timeout: 240_000,
  }, async () => {
    const root = specWithCopiedOperation('/v1/cancel', '/v1/cancelSubscription', 'cancelSubscription');
    const spec = loadSpec(root);
    // The copy carries the cancel batch's transitions with its x-pagi-batch entry: the kit reads them from there.
    expect(batchTransition(spec, 'cancelSubscription' as OperationKey)).toBe('cancel');
    const planned = planTests(spec, CHECKS, { only: ['cancelSubscription'], skip: [] }).filter(
      (t) => t.selected && t.family !== 'deep',
    );
    const run = await runCli(['--spec-root', root, '--only', 'cancelSubscription', '--reporter', 'json']);
    expect(run.stderr).toBe('');
    const checks = run.results().checks.filter((c) => c.operation === 'cancelSubscription');
    expect(checks.map((c) => c.checkId).sort()).toEqual(planned.map((t) => t.checkId).sort());
    // No check ends in a kit error (the copy lacked the per-operation tables its transitions were looked up in).
    expect(checks.filter((c) => /kit error/.test(c.reason ?? '')).map((c) => `${c.checkId}: ${c.reason}`)).toEqual([]);
    expect(checks.filter((c) => c.status === 'skipped' || c.status === 'failed')).toEqual([]);
    // The schema-driven mock judges the items by what the gateway holds: an unknown transaction gets the profile's
    // per-item failure (it answered the example's success, breaking PAGI-INV-003).
    for (const id of ['unknownTransactionItemFails', 'batchItemsSucceedWithShownValues', 'batchResultsEchoRequestIds'])
      expect(checks.find((c) => c.checkId === id)?.status, id).toBe('passed');
    expect(run.results().verdicts?.integrity.verdict).toBe('PASSED');
    expect(run.code).toBe(0);
  });

  it('a copied batch whose entry names no transition acts on an approved payment, without a kit error', {
    timeout: 240_000,
  }, async () => {
    const root = specWithCopiedOperation('/v1/cancel', '/v1/cancelSubscription', 'cancelSubscription', (entry) => {
      delete entry.post['x-pagi-batch'].transition;
    });
    expect(batchTransition(loadSpec(root), 'cancelSubscription' as OperationKey)).toBeUndefined();
    const run = await runCli(['--spec-root', root, '--only', 'cancelSubscription', '--reporter', 'json']);
    expect(run.stderr).toBe('');
    const checks = run.results().checks.filter((c) => c.operation === 'cancelSubscription');
    expect(checks.filter((c) => c.status === 'skipped' || c.status === 'failed')).toEqual([]);
    expect(checks.find((c) => c.checkId === 'unknownTransactionItemFails')?.status).toBe('passed');
    expect(run.code).toBe(0);
  });

  it('a batch entry naming a transition the profile format does not have is refused when the spec loads', () => {
    const root = specCopy((dir) => {
      const file = path.join(dir, 'spec', 'openapi.yaml');
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('transition: cancel,', 'transition: settle,'));
    });
    expect(() => loadSpec(root)).toThrow(
      'spec: cancel x-pagi-batch.transition is "settle"; use one of the profile\'s batch transitions: capture, review, cancel, refund',
    );
  });
});
