import { describe, expect, it } from 'vitest';
import type { Check, Exchange, Observation, OperationKey } from '../../core/model.js';
import type { PlannedTest } from '../../engine/plan.js';
import { ENGINE_RULES } from '../../engine/rules.js';
import { prefetch, runPlannedTest, type ObservationEntry, type WorkerEnv } from '../../engine/suite.js';
import { kitSpec } from '../../core/spec/load.js';
import { loadProfile } from '../../core/profile/load.js';

function planned(probe: string, operation: OperationKey, selected = true): PlannedTest {
  return {
    key: `${operation}/${probe}`,
    checkId: probe,
    family: 'events',
    operation,
    probe,
    requirementIds: [],
    severity: 'must',
    title: probe,
    selected,
  };
}

/** An observe() recording the order probes start in; each observation settles when its `finish` is called. */
function recorder() {
  const started: string[] = [];
  const finish = new Map<string, () => void>();
  const observe = (probe: string, operation: OperationKey): ObservationEntry => {
    const key = `${probe}@${operation}`;
    started.push(key);
    const observation = new Promise<Observation>((resolve) => finish.set(key, () => resolve({} as Observation)));
    return { key, observation, usage: () => ({ exchanges: 0, records: [], replay: [] }), claimed: false };
  };
  return { started, finish, observe };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('prefetch', () => {
  it('starts the probes that wait on the target first, beside the lanes, then the others in plan order', async () => {
    const plan = [
      planned('shape', 'authoriseDirect'),
      planned('shape', 'capture'),
      planned('retry', 'authoriseDirect'),
      planned('limits', 'capture'),
      planned('skipped', 'refund', false),
    ];
    const r = recorder();
    prefetch(plan, r.observe, 1, new Set(['retry']));
    await tick();
    // The waiting probe never finishes here, and still the single lane goes on.
    expect(r.started).toEqual(['retry@authoriseDirect', 'shape@authoriseDirect']);
    r.finish.get('shape@authoriseDirect')!();
    await tick();
    r.finish.get('shape@capture')!();
    await tick();
    expect(r.started).toEqual(['retry@authoriseDirect', 'shape@authoriseDirect', 'shape@capture', 'limits@capture']);
  });

  it('starts each (probe, operation) once, and no unselected one', async () => {
    const plan = [
      planned('shape', 'authoriseDirect'),
      planned('shape', 'authoriseDirect'),
      planned('skipped', 'refund', false),
    ];
    const r = recorder();
    prefetch(plan, r.observe, 4);
    await tick();
    expect(r.started).toEqual(['shape@authoriseDirect']);
  });
});

describe('a check whose observation holds an unanswered request', () => {
  const spec = kitSpec();
  const url = 'http://127.0.0.1:1/v1/capture';
  const exchange = (response?: number): Exchange => ({
    id: 'capture#1',
    operation: 'capture',
    request: { method: 'POST', url, headers: {}, body: {}, bodyText: '{}', encoding: 'json' },
    ...(response
      ? { response: { status: response, headers: {}, bodyText: '', truncated: false, decoded: { kind: 'empty' } } }
      : { error: { kind: 'timeout', message: 'UND_ERR_HEADERS_TIMEOUT: Headers Timeout Error' } }),
    startedAt: new Date(0).toISOString(),
    durationMs: 1,
    evidence: { request: { method: 'POST', url, headers: {}, body: '{}' }, curl: '' },
  });
  const envOf = (main: Exchange, profile = loadProfile('reference').profile, reported = new Set<string>()): WorkerEnv =>
    ({
      spec,
      setup: { waivers: [], today: '2026-01-01' },
      client: { maskRules: {} },
      ctx: { profile, spec },
      registry: { CHECKS: [], PROBES: [], RULES: ENGINE_RULES },
      read: () => {},
      serverErrorsReported: reported,
      observe: (probe: string, operation: OperationKey): ObservationEntry => {
        const observation: Observation = { probeId: probe, operation, main, steps: {}, facts: {} };
        return {
          key: `${probe}@${operation}`,
          observation: Promise.resolve(observation),
          usage: () => ({ exchanges: 1, records: [], replay: [] }),
          claimed: false,
        };
      },
    }) as unknown as WorkerEnv;
  const check = (id: string, info = false): Check => ({
    id,
    family: 'conventions',
    probe: 'p',
    operations: ['capture'],
    requirements: ['PAGI-GEN-005'],
    description: 'passes whatever it reads',
    ...(info ? { severity: 'info' as const } : {}),
    run: () => [],
  });
  const plannedTest = (c: Check): PlannedTest => ({
    key: `capture/${c.id}`,
    checkId: c.id,
    family: c.family,
    operation: 'capture',
    probe: 'p',
    requirementIds: ['PAGI-GEN-005'],
    severity: 'expected',
    title: c.id,
    selected: true,
  });

  it('fails the availability invariant with NO_ANSWER, naming PAGI-INV-008, instead of running or skipping', async () => {
    const c = check('echoes');
    const { meta } = await runPlannedTest(envOf(exchange()), c, plannedTest(c));
    expect(meta.result).toMatchObject({
      status: 'failed',
      severity: 'invariant',
      requirementIds: ['PAGI-GEN-005', 'PAGI-INV-008'],
    });
    // The finding is the table's rule's (engine/rules.ts), on the result of the check that needed the answer.
    expect(meta.result.checkId).toBe('echoes');
    expect(meta.result.findings.map((f) => [f.checkId, f.code, f.severity, f.location.exchangeId])).toEqual([
      ['everyRequestAnswered', 'NO_ANSWER', 'invariant', 'capture#1'],
    ]);
  });

  it('fails the availability invariant once per request answered with a 5xx, by the first check reading it', async () => {
    const reported = new Set<string>();
    const c = check('echoes');
    const first = (await runPlannedTest(envOf(exchange(500), undefined, reported), c, plannedTest(c))).meta.result;
    expect(first).toMatchObject({
      status: 'failed',
      severity: 'invariant',
      requirementIds: ['PAGI-GEN-005', 'PAGI-INV-008'],
    });
    expect(first.findings.map((f) => [f.checkId, f.code, f.requirementIds, f.location.exchangeId])).toEqual([
      ['neverServerErrorAnswer', 'SERVER_ERROR', ['PAGI-INV-008'], 'capture#1'],
    ]);
    expect(first.findings[0]!.message).toBe(
      'expected an answer to POST /v1/capture (capture) that is not a server error: the interface lists 200, 400 and 404 / received HTTP 500',
    );
    // The same exchange read by a second check: reported already.
    const again = check('other');
    expect(
      (await runPlannedTest(envOf(exchange(500), undefined, reported), again, plannedTest(again))).meta.result,
    ).toMatchObject({ status: 'passed', findings: [] });
    // 503 asks to retry later (the observation is inconclusive, not failed); a 5xx the profile declares is its answer.
    expect((await runPlannedTest(envOf(exchange(503)), c, plannedTest(c))).meta.result.status).toBe('passed');
    const declaring = structuredClone(loadProfile('reference').profile);
    declaring.errors.kinds.methodNotAllowed.status = 501;
    expect((await runPlannedTest(envOf(exchange(501), declaring), c, plannedTest(c))).meta.result.status).toBe(
      'passed',
    );
    expect((await runPlannedTest(envOf(exchange(502)), c, plannedTest(c))).meta.result.status).toBe('failed');
  });

  it('leaves an information-only check not applicable (it never fails), and runs the check on an answered request', async () => {
    const info = check('extraFields', true);
    expect((await runPlannedTest(envOf(exchange()), info, plannedTest(info))).meta.result).toMatchObject({
      status: 'not_applicable',
      reason: 'capture#1 was not answered (NO_ANSWER)',
    });
    const c = check('echoes');
    expect((await runPlannedTest(envOf(exchange(200)), c, plannedTest(c))).meta.result).toMatchObject({
      status: 'passed',
      requirementIds: ['PAGI-GEN-005'],
    });
  });

  it('rejects a finding naming a requirement the check does not list: a kit error, never a finding against the target', async () => {
    const foreign: Check = {
      ...check('customCheck'),
      run: (o) => [
        {
          checkId: 'customCheck',
          requirementIds: ['PAGI-INV-010'],
          code: 'X',
          severity: 'must',
          title: 'x',
          message: 'expected a / received b',
          expected: 'a',
          received: 'b',
          location: { operation: o.operation, pointer: '' },
        },
      ],
    };
    const { meta, kitError } = await runPlannedTest(envOf(exchange(200)), foreign, plannedTest(foreign));
    expect(kitError).toMatchObject({ name: 'ForeignRequirementError', code: 'PAGI_E_FOREIGN_REQUIREMENT' });
    expect(kitError!.message).toBe(
      'check customCheck reported requirement PAGI-INV-010, which is not among its requirements',
    );
    expect(meta.result).toMatchObject({ status: 'skipped', findings: [], reason: `kit error: ${kitError!.message}` });
  });
});
