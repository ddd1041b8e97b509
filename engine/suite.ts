/**
 * Runtime of the generated suite files: `suites/<family>.suite.ts` calls `defineFamilySuite(family)`, which
 * generates one vitest test per (operation, check) of the plan, grouped by operation. Each probe's observation
 * is made once per (probe, operation) in a worker and shared by every check reading it.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { describe, inject, test } from 'vitest';
import { htmlReader } from '../core/codecs/html-reader.js';
import { checkContext } from '../core/check-context.js';
import { maskText, maskValue } from '../core/mask.js';
import type {
  Check,
  CheckContext,
  CheckResult,
  ExchangeRecord,
  Family,
  Finding,
  Observation,
  OperationKey,
  RuleEffect,
  RuleReader,
} from '../core/model.js';
import { kitProfile } from '../core/profile/reads.js';
import { profileForSpec } from '../core/profile/operations.js';
import { kitSpec, loadSpec, type SpecModel } from '../core/spec/load.js';
import type { ChainStep } from './chain.js';
import { createProbeClient, type KitClient, type ReplayRequest } from './client.js';
import { answeredRetryLater } from './inconclusive.js';
import { sentExchanges, targetSilent, unansweredExchange } from './rules.js';
import { assertOwnRequirements, failsRun, toCheckResult, type CheckOutcome } from './outcome.js';
import { mostSevere } from '../core/run-result.js';
import { ProfilePointNotStated } from '../core/types/errors.js';
import { phase } from './phases.js';
import { planTests, unknownSelectors, type PlannedTest } from './plan.js';
import { remoteNotifications } from './receiver.js';
import { loadRegistry, registryProblems, type Registry } from './registry.js';
import { receiveSetup } from './handoff.js';
import type { EarlySetup, RunSetup, WorkerPlan } from './setup.js';
import { RegistryError } from '../core/types/errors.js';

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
  /** The observation's steps and what each waited for (with `replay`): see chain.ts. */
  chain?: ChainStep[];
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
  usage(): { exchanges: number; records: ExchangeRecord[]; replay: ReplayRequest[]; chain?: ChainStep[] };
  claimed: boolean;
  /** Selected tests of the plan that have yet to read it; at 0 the observation is released. */
  readers?: number;
}

/**
 * Response bytes the observations made ahead of their tests may hold before the background prefetch waits for
 * tests to read (and release) them. Tests still make the observations they need; only the read-ahead waits.
 */
const PREFETCH_BUDGET_BYTES = 32 * 1024 * 1024;

/** Response body bytes an observation holds. */
function bytesOf(observation: Observation): number {
  let total = 0;
  for (const x of [observation.main, ...Object.values(observation.steps)])
    total += x?.response?.bytes?.length ?? x?.response?.bodyText.length ?? 0;
  return total;
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
  /**
   * A test has read the entry's observation. After the last reader the worker lets it go (bodies and decoded values
   * included): the reports keep its exchanges' evidence, a masked excerpt with each body's length and sha-256.
   * Exchanges are not altered: a memoised scenario shares them with other observations.
   */
  read(entry: ObservationEntry): void;
  /**
   * Ids of the exchanges a server error (5xx) was reported for in this worker: each is reported once, by the first
   * check of the run that reads it (a memoised scenario's exchanges are shared by several observations).
   */
  serverErrorsReported: Set<string>;
}

let current: { runId: string; env: Promise<WorkerEnv> } | undefined;

/**
 * Why an observation could not count, read from the exchanges the kit sent (not the notifications it received):
 * rate limiting or unavailability (429, 503). An operation that does not answer at all is not such a reason: it
 * fails (see unansweredExchange).
 */
export function inconclusiveReason(observation: Observation): string | undefined {
  for (const x of sentExchanges(observation)) {
    const status = x.response?.status;
    if (answeredRetryLater(x))
      return `target answered HTTP ${status} (${status === 429 ? 'rate-limited' : 'unavailable'}) on ${x.id}`;
    if (x.error?.kind === 'off-target')
      return `a URL from the target was ${x.error.message} (list its host in allowedHosts to follow it)`;
  }
  // A request the kit could not send (no such source address, a proxy or TLS set-up failure) says nothing of the target.
  const unsent = sentExchanges(observation).find((x) => !x.response && x.error?.kind === 'network' && !targetSilent(x));
  return unsent ? `the kit could not send ${unsent.id}: ${unsent.error!.message}` : undefined;
}

/**
 * Whether the runner's stop file exists, looked up at most every 50 ms (a deep run asks before each of its hundreds
 * of thousands of requests); once seen, it stays seen.
 */
function stopFileSeen(file: string): () => boolean {
  let seen = false;
  let checkedAt = Number.NEGATIVE_INFINITY;
  return () => {
    if (seen) return true;
    const now = performance.now();
    if (now - checkedAt < 50) return false;
    checkedAt = now;
    seen = fs.existsSync(file);
    return seen;
  };
}

/** The worker's probe client for the run's target, credentials and transport. */
function workerClient(setup: RunSetup, spec: SpecModel, profile: CheckContext['profile']): KitClient {
  const tag = `${process.env.VITEST_POOL_ID ?? '0'}${randomBytes(2).toString('hex')}`;
  return createProbeClient({
    spec,
    profile,
    config: setup.config,
    secret: setup.secret,
    cardSecurityCode: setup.cardSecurityCode,
    transport: setup.transport,
    notifications: setup.receiverControlUrl ? remoteNotifications(setup.receiverControlUrl) : undefined,
    tag,
    captureReplay: setup.captureReplay,
    ...(setup.replayFile ? { replayFile: setup.replayFile } : {}),
    ...(setup.stopFile ? { stopped: stopFileSeen(setup.stopFile) } : {}),
    ...(setup.spoolDir ? { spoolDir: setup.spoolDir } : {}),
  });
}

/** The context every check of the worker reads. */
function workerContext(
  spec: SpecModel,
  profile: CheckContext['profile'],
  setup: RunSetup,
  client: KitClient,
): CheckContext {
  return checkContext({
    spec,
    profile,
    config: setup.config,
    rules: client.maskRules,
    verifySignature: (operation, direction, body) => client.verifySignature?.(operation, direction, body),
  });
}

/** A worker's observations: made on first use, held until their last reader, within the read-ahead's byte budget. */
interface ObservationStore {
  probes: Map<string, Registry['PROBES'][number]>;
  client: KitClient;
  ctx: CheckContext;
  /** Readers of each observation: the selected tests of the run (not counted in a shard, whose other families never read). */
  readers: Map<string, number>;
  observations: Map<string, ObservationEntry>;
  /** Response bytes of each made observation that still has readers. */
  held: Map<ObservationEntry, number>;
  heldBytes: number;
  budgetWaiters: (() => void)[];
}

/** How many selected tests read each observation (`probe@operation`); empty when the run does not prefetch. */
function observationReaders(plan: readonly PlannedTest[], prefetching: boolean): Map<string, number> {
  const readers = new Map<string, number>();
  if (prefetching)
    for (const t of plan)
      if (t.selected) readers.set(`${t.probe}@${t.operation}`, (readers.get(`${t.probe}@${t.operation}`) ?? 0) + 1);
  return readers;
}

/** A made observation as the checks read it, its bytes held against the budget while it has readers. */
function settledObservation(store: ObservationStore, made: ObservationEntry, obs: Observation): Observation {
  const limited = inconclusiveReason(obs);
  let done = limited ? { ...obs, inconclusive: obs.inconclusive ?? limited } : obs;
  // No answer is an answer: a set-up step the target left unanswered fails the checks, not skips them.
  if (!limited && unansweredExchange(obs)) {
    const { inconclusive: _, ...answered } = obs;
    done = answered;
  }
  if (made.readers !== undefined && made.readers > 0) {
    const bytes = bytesOf(done);
    store.held.set(made, bytes);
    store.heldBytes += bytes;
  }
  return done;
}

/** The observation entry of (probe, operation): the one being made, or a new one whose probe starts now. */
function observeEntry(store: ObservationStore, probeId: string, operation: OperationKey): ObservationEntry {
  const key = `${probeId}@${operation}`;
  let entry = store.observations.get(key);
  if (!entry) {
    const probe = store.probes.get(probeId);
    if (!probe) throw new RegistryError(`no probe ${probeId} in the registry`);
    const scoped = store.client.scoped();
    // A probe reading the run's ledger starts once every other observation of the worker is made.
    const others = probe.readsLedger
      ? [...store.observations.values()].filter((e) => !store.probes.get(e.key.split('@')[0]!)?.readsLedger)
      : [];
    const made: ObservationEntry = {
      key,
      observation: undefined as never,
      usage: scoped.usage,
      claimed: false,
      ...(store.readers.has(key) ? { readers: store.readers.get(key)! } : {}),
    };
    const ready = others.length ? Promise.allSettled(others.map((e) => e.observation)) : Promise.resolve();
    made.observation = ready
      .then(() => {
        phase('firstProbe');
        return probe.run(operation, scoped, store.ctx);
      })
      .then((obs) => settledObservation(store, made, obs));
    entry = made;
    store.observations.set(key, entry);
  }
  return entry;
}

/** A test has read the entry: after its last reader the observation is let go and the read-ahead may go on. */
function readEntry(store: ObservationStore, entry: ObservationEntry): void {
  if (entry.readers === undefined || --entry.readers > 0) return;
  store.observations.delete(entry.key);
  store.heldBytes -= store.held.get(entry) ?? 0;
  store.held.delete(entry);
  while (store.heldBytes <= PREFETCH_BUDGET_BYTES && store.budgetWaiters.length) store.budgetWaiters.shift()!();
}

/** Resolves once the observations made ahead of their tests fit the budget; nothing to wait for while they do. */
function withinBudget(store: ObservationStore): Promise<void> | void {
  return store.heldBytes > PREFETCH_BUDGET_BYTES
    ? new Promise<void>((resolve) => store.budgetWaiters.push(resolve))
    : undefined;
}

/** Write the worker's plan for the runner; throws when the registry or the selection cannot be planned. */
function writeWorkerPlan(setup: RunSetup, registry: Registry, spec: SpecModel, plan: PlannedTest[]): void {
  const report: WorkerPlan = {
    plan,
    checkIds: registry.CHECKS.map((c) => c.id),
    problems: registryProblems(registry, spec),
    unknownSelectors: unknownSelectors(plan, setup.selection),
  };
  fs.writeFileSync(setup.planFile, JSON.stringify(report));
  if (report.problems.length || report.unknownSelectors.length)
    throw new Error('the run cannot be planned; the runner reports why');
}

/**
 * A worker's state for a run, made once per worker: spec, profile, registry, client, plan and its observations. The
 * spec and the registry load while the runner starts the target and runs the pre-flight; the rest once it hands
 * the run over (engine/handoff.ts).
 */
async function createEnv(early: EarlySetup): Promise<WorkerEnv> {
  phase('worker');
  htmlReader(); // the reader thread starts while the first exchanges run
  const loading = loadRegistry(early.registry);
  loading.catch(() => undefined); // awaited below, once the run goes ahead
  const spec = early.specRoot ? loadSpec(early.specRoot) : kitSpec();
  phase('workerSpec');
  const setup = await receiveSetup(early);
  phase('workerSetup');
  const registry = await loading;
  phase('workerRegistry');
  const profile = kitProfile(profileForSpec(setup.profile, spec), setup.unstated);
  const client = workerClient(setup, spec, profile);
  const ctx = workerContext(spec, profile, setup, client);
  const plan = planTests(spec, registry.CHECKS, setup.selection);
  const store: ObservationStore = {
    probes: new Map(registry.PROBES.map((p) => [p.id, p])),
    client,
    ctx,
    readers: observationReaders(plan, Boolean(setup.prefetch)),
    observations: new Map(),
    held: new Map(),
    heldBytes: 0,
    budgetWaiters: [],
  };
  const observe = (probeId: string, operation: OperationKey) => observeEntry(store, probeId, operation);
  const read = (entry: ObservationEntry) => readEntry(store, entry);
  writeWorkerPlan(setup, registry, spec, plan);
  phase('workerPlan');
  if (setup.prefetch)
    prefetch(
      plan,
      observe,
      setup.transport.concurrency * 2,
      new Set(registry.PROBES.filter((p) => p.waitsOnTarget).map((p) => p.id)),
      () => withinBudget(store),
      new Set(registry.PROBES.filter((p) => p.readsLedger).map((p) => p.id)),
    );
  return { setup, spec, registry, client, ctx, plan, observe, read, serverErrorsReported: new Set() };
}

/**
 * Start every selected observation in the background, `lanes` probes at a time, so a probe waiting (for a
 * notification, a retry schedule) overlaps with the others whatever family file runs. Probes that wait on the
 * target's clock (`waiting`) start first, each beside the lanes; the others in plan order. Tests join them;
 * failures surface in the tests that read them.
 */
export function prefetch(
  plan: readonly PlannedTest[],
  observe: Pick<WorkerEnv, 'observe'>['observe'],
  lanes: number,
  waiting: ReadonlySet<string> = new Set(),
  /** Awaited before each observation a lane starts: the read-ahead waits while made observations hold too much. */
  gate: () => Promise<void> | void = () => undefined,
  /** Probes never made ahead of their tests (they read the run's ledger). */
  last: ReadonlySet<string> = new Set(),
): void {
  const all = [
    ...new Map(
      plan.filter((t) => t.selected && !last.has(t.probe)).map((t) => [`${t.probe}@${t.operation}`, t]),
    ).values(),
  ];
  for (const t of all.filter((x) => waiting.has(x.probe)))
    void Promise.resolve()
      .then(() => observe(t.probe, t.operation).observation)
      .catch(() => undefined);
  const pairs = all.filter((x) => !waiting.has(x.probe));
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < pairs.length) {
      await gate();
      const t = pairs[next++]!;
      if (!t) return;
      await Promise.resolve()
        .then(() => observe(t.probe, t.operation).observation)
        .catch(() => undefined);
    }
  };
  for (let i = 0; i < lanes; i++) void lane();
}

/** The worker's state for a run (made once per worker and run). */
function workerEnv(early: EarlySetup): Promise<WorkerEnv> {
  if (current?.runId !== early.runId) current = { runId: early.runId, env: createEnv(early) };
  return current.env;
}

/** A check's outcome, once every finding is known to name only the check's own requirements (else a kit error). */
function ownFindings(check: Check, outcome: ReturnType<Check['run']>): ReturnType<Check['run']> {
  if (Array.isArray(outcome)) for (const f of outcome) assertOwnRequirements(check, f.requirementIds);
  return outcome;
}

/** The point a check or its probe needed that the profile does not state (the error or one of its causes). */
export function notStatedPoint(e: unknown): string | undefined {
  for (let at = e, depth = 0; at && depth < 8; at = (at as { cause?: unknown }).cause, depth++)
    if (at instanceof ProfilePointNotStated) return at.pointer;
  return undefined;
}

/** The reason of a check not judged because the profile does not state a point it needs. */
export function notJudgedReason(pointer: string): string {
  return `not judged: the profile does not state ${pointer}`;
}

/** The findings of the registry's observation rules of one effect on an observation, read by `reader`. */
function ruleFindings(env: WorkerEnv, effect: RuleEffect, observation: Observation, reader: RuleReader): Finding[] {
  return env.registry.RULES.filter((r) => r.effect === effect).flatMap((r) => r.run(observation, env.ctx, reader));
}

/** Run one planned test's check (never throws: a kit error becomes a skipped result, returned beside it). */
export async function runPlannedTest(
  env: WorkerEnv,
  check: Check,
  planned: PlannedTest,
): Promise<{ meta: TestMeta; kitError?: Error }> {
  const started = performance.now();
  let outcome: CheckOutcome;
  let kitError: Error | undefined;
  let usage: ReturnType<ObservationEntry['usage']> = { exchanges: 0, records: [], replay: [] };
  let claimed: string | undefined;
  let observed: Observation | undefined;
  let unanswered: Finding[] = [];
  let serverErrors: Finding[] = [];
  let notStated: string | undefined;
  const reader: RuleReader = {
    checkId: check.id,
    operation: planned.operation,
    requirementIds: planned.requirementIds,
  };
  try {
    const entry = env.observe(planned.probe, planned.operation);
    const observation = await entry.observation.finally(() => {
      if (!entry.claimed) {
        usage = entry.usage();
        claimed = entry.key;
      }
      entry.claimed = true;
    });
    observed = observation;
    serverErrors = ruleFindings(env, 'joins', observation, reader);
    unanswered = ruleFindings(env, 'replaces', observation, reader).slice(0, 1);
    try {
      // An information-only check never fails: the checks beside it on the observation report the missing answer.
      outcome = observation.inconclusive
        ? { skipped: observation.inconclusive }
        : unanswered.length
          ? check.severity !== 'info'
            ? unanswered
            : { notApplicable: `${unanswered[0]!.location.exchangeId} was not answered (${unanswered[0]!.code})` }
          : ownFindings(check, check.run(observation, env.ctx));
    } finally {
      env.read(entry);
    }
  } catch (e) {
    notStated = notStatedPoint(e);
    if (notStated) outcome = { notApplicable: notJudgedReason(notStated) };
    else {
      kitError = e instanceof Error ? e : new Error(String(e));
      kitError.message = maskText(kitError.message, env.client.maskRules);
      outcome = { skipped: `kit error: ${kitError.message}` };
    }
  }
  const replaced = unanswered.length > 0 && check.severity !== 'info';
  let result = toCheckResult(
    env.spec,
    check,
    planned.operation,
    outcome,
    env.setup.waivers,
    env.setup.today,
    performance.now() - started,
  );
  if (result.status === 'skipped' && observed) {
    const noted = ruleFindings(env, 'whenSkipped', observed, { ...reader, requirementIds: result.requirementIds });
    if (noted.length) result.findings = noted;
  }
  if (!replaced && check.severity !== 'info' && result.status !== 'skipped')
    result = withServerErrors(env, result, serverErrors);
  if (replaced) {
    // The check failed a requirement it does not carry: the result names it, at its level.
    result = withNamed(result, unanswered);
  }
  if (notStated) result.notStated = notStated;
  // Nothing the target sent leaves the worker unmasked: messages, JSON pointers and keys included.
  result = maskValue(result, env.client.maskRules);
  const meta: TestMeta = {
    result,
    exchanges: usage.exchanges,
    ...(claimed ? { observation: claimed } : {}),
    records: usage.records,
    ...(env.setup.captureReplay && !env.setup.replayFile ? { replay: usage.replay } : {}),
    ...(env.setup.captureReplay && usage.chain ? { chain: usage.chain } : {}),
  };
  if (env.setup.replayFile) env.client.flushReplay();
  return kitError ? { meta, kitError } : { meta };
}

/** A result naming the requirements of rule findings it carries, at their strongest level. */
function withNamed(result: CheckResult, findings: readonly Finding[]): CheckResult {
  const requirementIds = [...result.requirementIds];
  for (const f of findings)
    for (const id of f.requirementIds) if (!requirementIds.includes(id)) requirementIds.push(id);
  const severity = mostSevere(findings.map((f) => f.severity));
  return { ...result, requirementIds, ...(severity ? { severity } : {}) };
}

/**
 * A result with the server errors (5xx) of its observation that no check reported yet in this worker: each a failing
 * finding of the rule, which the result then traces to (an exchange the check's own findings already name the rule's
 * requirement for is not reported again).
 */
function withServerErrors(env: WorkerEnv, result: CheckResult, found: readonly Finding[]): CheckResult {
  const named = new Set(found.flatMap((f) => f.requirementIds));
  const own = new Set(
    result.findings
      .filter((f) => [...named].some((id) => f.requirementIds.includes(id)))
      .flatMap((f) => [f.location.exchangeId, ...(f.exchanges ?? []).map((x) => x.exchangeId)]),
  );
  for (const id of own) if (id) env.serverErrorsReported.add(id);
  const fresh = found.filter((f) => !env.serverErrorsReported.has(f.location.exchangeId ?? ''));
  if (!fresh.length) return result;
  for (const f of fresh) env.serverErrorsReported.add(f.location.exchangeId ?? '');
  const { reason: _, ...rest } = withNamed(result, fresh);
  return {
    ...rest,
    severity: mostSevere([...fresh.map((f) => f.severity), result.severity])!,
    findings: [...result.findings, ...fresh],
    status: result.status === 'waived' ? 'waived' : 'failed',
    ...(result.status === 'waived' ? { reason: result.reason } : {}),
  };
}

/** A short, masked failure message for vitest from a failed result's findings. */
function failureMessage(env: WorkerEnv, result: CheckResult): string {
  const lines = result.findings
    .filter((f) => f.severity !== 'info')
    .slice(0, 5)
    .map((f) => `[${f.severity}] ${f.code} ${f.location.pointer || '/'}: ${f.message}`);
  const more = result.findings.length > 5 ? `\n… ${result.findings.length - 5} more` : '';
  return maskText(
    `${result.checkId} failed on ${result.operation} (${result.requirementIds.join(', ')})\n${lines.join('\n')}${more}`,
    env.client.maskRules,
  );
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
          if (failsRun(env.spec, result, env.setup.failOn)) throw new Error(failureMessage(env, result));
          if (result.status === 'skipped' || result.status === 'not_applicable')
            context.skip(`${result.status}: ${result.reason}`);
        });
      }
    });
  }
}
