/**
 * Runtime of the generated suite files: `suites/<family>.suite.ts` calls `defineFamilySuite(family)`, which
 * generates one vitest test per (operation, check) of the plan, grouped by operation. Each probe's observation
 * is made once per (probe, operation) in a worker and shared by every check reading it.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { describe, inject, test } from 'vitest';
import { htmlReader } from '../codecs/html-reader.js';
import { maskText } from '../mask.js';
import type { Check, CheckContext, CheckResult, Exchange, ExchangeRecord, Family, Observation, OperationKey } from '../model.js';
import { kitProfile } from '../profile/reads.js';
import { kitSpec, loadSpec, type SpecModel } from '../spec/load.js';
import { createProbeClient, type KitClient, type ReplayRequest } from './client.js';
import { failsRun, toCheckResult, type CheckOutcome } from './outcome.js';
import { planTests, unknownSelectors, type PlannedTest } from './plan.js';
import { remoteNotifications } from './receiver.js';
import { loadRegistry, registryProblems, type Registry } from './registry.js';
import type { RunSetup, WorkerPlan } from './setup.js';

/** What a test leaves in `task.meta.pagi` for the reporter adapter. */
export interface TestMeta {
  result: CheckResult;
  /** Exchanges made while the test ran (its probe's, when it made the observation). */
  exchanges: number;
  /** The observation (`probe@operation`) whose exchanges this test reports, when it is the first to read it. */
  observation?: string;
  /** Their printable records (masked evidence), for the reports. */
  records: ExchangeRecord[];
  replay?: ReplayRequest[];
}

declare module 'vitest' {
  interface TaskMeta {
    pagi?: TestMeta;
  }
}

/** An observation being made or made, with the exchanges its probe made; the first test reading it reports them. */
export interface ObservationEntry {
  /** `probe@operation`. */
  key: string;
  observation: Promise<Observation>;
  usage(): { exchanges: number; records: ExchangeRecord[]; replay: ReplayRequest[] };
  claimed: boolean;
}

/** Per-worker state of one run. */
export interface WorkerEnv {
  setup: RunSetup;
  spec: SpecModel;
  registry: Registry;
  client: KitClient;
  ctx: CheckContext;
  plan: PlannedTest[];
  /** The observation of (probe, operation), made on first use and shared after. */
  observe(probeId: string, operation: OperationKey): ObservationEntry;
}

let current: { runId: string; env: Promise<WorkerEnv> } | undefined;

/**
 * Why an observation could not count, read from the exchanges the kit sent (not the notifications it received):
 * rate limiting, unavailability, no answer.
 */
export function inconclusiveReason(observation: Observation): string | undefined {
  const exchanges: Exchange[] = [observation.main, ...Object.values(observation.steps)].filter((x) => x && !x.incoming);
  for (const x of exchanges) {
    const status = x.response?.status;
    if (status === 429 || status === 503) return `target answered HTTP ${status} (${status === 429 ? 'rate-limited' : 'unavailable'}) on ${x.id}`;
    if (x.error && (x.error.kind === 'network' || x.error.kind === 'timeout')) return `no answer from the target on ${x.id}: ${x.error.message}`;
  }
  return undefined;
}

async function createEnv(setup: RunSetup): Promise<WorkerEnv> {
  htmlReader(); // jsdom loads on the reader thread while the first exchanges run
  const spec = setup.specRoot ? loadSpec(setup.specRoot) : kitSpec();
  const profile = kitProfile(setup.profile);
  const registry = await loadRegistry(setup.registry);
  const tag = `${process.env.VITEST_POOL_ID ?? '0'}${randomBytes(2).toString('hex')}`;
  const client = createProbeClient({
    spec,
    profile,
    config: setup.config,
    secret: setup.secret,
    cardSecurityCode: setup.cardSecurityCode,
    transport: setup.transport,
    notifications: setup.receiverControlUrl ? remoteNotifications(setup.receiverControlUrl) : undefined,
    tag,
    captureReplay: setup.captureReplay,
  });
  const ctx: CheckContext = {
    spec,
    profile,
    config: setup.config,
    verifySignature: (operation, direction, body) => client.verifySignature?.(operation, direction, body),
    requirement(id) {
      const requirement = spec.requirements.get(id);
      if (!requirement) throw new Error(`requirement ${id} is not in the catalogue`);
      return requirement;
    },
  };
  const probes = new Map(registry.PROBES.map((p) => [p.id, p]));
  const observations = new Map<string, ObservationEntry>();
  const observe = (probeId: string, operation: OperationKey): ObservationEntry => {
    const key = `${probeId}@${operation}`;
    let entry = observations.get(key);
    if (!entry) {
      const probe = probes.get(probeId);
      if (!probe) throw new Error(`no probe ${probeId} in the registry`);
      const scoped = client.scoped();
      const observation = probe.run(operation, scoped, ctx).then((obs) => {
        const reason = obs.inconclusive ?? inconclusiveReason(obs);
        return reason ? { ...obs, inconclusive: reason } : obs;
      });
      entry = { key, observation, usage: scoped.usage, claimed: false };
      observations.set(key, entry);
    }
    return entry;
  };
  const plan = planTests(spec, registry.CHECKS, setup.selection);
  const report: WorkerPlan = { plan, checkIds: registry.CHECKS.map((c) => c.id), problems: registryProblems(registry, spec), unknownSelectors: unknownSelectors(plan, setup.selection) };
  fs.writeFileSync(setup.planFile, JSON.stringify(report));
  if (report.problems.length || report.unknownSelectors.length) throw new Error('the run cannot be planned; the runner reports why');
  if (setup.prefetch) prefetch(plan, observe, setup.transport.concurrency * 2, new Set(registry.PROBES.filter((p) => p.waitsOnTarget).map((p) => p.id)));
  return { setup, spec, registry, client, ctx, plan, observe };
}

/**
 * Start every selected observation in the background, `lanes` probes at a time, so a probe waiting (for a
 * notification, a retry schedule) overlaps with the others whatever family file runs. Probes that wait on the
 * target's clock (`waiting`) start first, each beside the lanes; the others in plan order. Tests join them;
 * failures surface in the tests that read them.
 */
export function prefetch(plan: readonly PlannedTest[], observe: Pick<WorkerEnv, 'observe'>['observe'], lanes: number, waiting: ReadonlySet<string> = new Set()): void {
  const all = [...new Map(plan.filter((t) => t.selected).map((t) => [`${t.probe}@${t.operation}`, t])).values()];
  for (const t of all.filter((x) => waiting.has(x.probe))) void Promise.resolve().then(() => observe(t.probe, t.operation).observation).catch(() => undefined);
  const pairs = all.filter((x) => !waiting.has(x.probe));
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < pairs.length) {
      const t = pairs[next++]!;
      await Promise.resolve()
        .then(() => observe(t.probe, t.operation).observation)
        .catch(() => undefined);
    }
  };
  for (let i = 0; i < lanes; i++) void lane();
}

/** The worker's state for a run (made once per worker and run). */
export function workerEnv(setup: RunSetup): Promise<WorkerEnv> {
  if (current?.runId !== setup.runId) current = { runId: setup.runId, env: createEnv(setup) };
  return current.env;
}

/** Run one planned test's check (never throws: a kit error becomes a skipped result, returned beside it). */
export async function runPlannedTest(env: WorkerEnv, check: Check, planned: PlannedTest): Promise<{ meta: TestMeta; kitError?: Error }> {
  const started = performance.now();
  let outcome: CheckOutcome;
  let kitError: Error | undefined;
  let usage = { exchanges: 0, records: [] as ExchangeRecord[], replay: [] as ReplayRequest[] };
  let claimed: string | undefined;
  try {
    const entry = env.observe(planned.probe, planned.operation);
    const observation = await entry.observation.finally(() => {
      if (!entry.claimed) {
        usage = entry.usage();
        claimed = entry.key;
      }
      entry.claimed = true;
    });
    outcome = observation.inconclusive ? { skipped: observation.inconclusive } : check.run(observation, env.ctx);
  } catch (e) {
    kitError = e instanceof Error ? e : new Error(String(e));
    kitError.message = maskText(kitError.message, env.client.maskRules);
    outcome = { skipped: `kit error: ${kitError.message}` };
  }
  const result = toCheckResult(env.spec, check, planned.operation, outcome, env.setup.waivers, env.setup.today, performance.now() - started);
  const meta: TestMeta = { result, exchanges: usage.exchanges, ...(claimed ? { observation: claimed } : {}), records: usage.records, ...(env.setup.captureReplay ? { replay: usage.replay } : {}) };
  return kitError ? { meta, kitError } : { meta };
}

/** A short, masked failure message for vitest from a failed result's findings. */
function failureMessage(env: WorkerEnv, result: CheckResult): string {
  const lines = result.findings
    .filter((f) => f.severity !== 'info')
    .slice(0, 5)
    .map((f) => `[${f.severity}] ${f.code} ${f.location.pointer || '/'}: ${f.message}`);
  const more = result.findings.length > 5 ? `\n… ${result.findings.length - 5} more` : '';
  return maskText(`${result.checkId} failed on ${result.operation} (${result.requirementIds.join(', ')})\n${lines.join('\n')}${more}`, env.client.maskRules);
}

/** Generate the tests of one family from the plan. */
export async function defineFamilySuite(family: Family): Promise<void> {
  const env = await workerEnv(inject('pagiRun'));
  const checks = new Map(env.registry.CHECKS.map((c) => [c.id, c]));
  const planned = env.plan.filter((t) => t.family === family && t.selected);
  if (!planned.length) test.skip(`no ${family} check selected`);
  const operations = [...new Set(planned.map((t) => t.operation))];
  for (const operation of operations) {
    describe(operation, () => {
      for (const item of planned.filter((t) => t.operation === operation)) {
        test(item.title, async (context) => {
          // One annotation per test (one RPC) carrying every requirement id; JUnit writes it as a property.
          const annotated = context.annotate(item.requirementIds.join(' '), 'requirements');
          const { meta, kitError } = await runPlannedTest(env, checks.get(item.checkId)!, item);
          await annotated;
          const { result } = meta;
          context.task.meta.pagi = meta;
          if (kitError) throw kitError;
          if (failsRun(result, env.setup.failOn)) throw new Error(failureMessage(env, result));
          if (result.status === 'skipped' || result.status === 'not_applicable') context.skip(`${result.status}: ${result.reason}`);
        });
      }
    });
  }
}
