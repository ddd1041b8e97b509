/**
 * The runner behind `pagi-conform run` and `run()`: loads the spec and the profile, starts the embedded reference
 * gateway when no target is given and the notification receiver, runs the generated suite files with vitest (the
 * suite worker loads the registry and writes the plan back), and turns the check results into a RunResult for
 * the reporters.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { request } from 'undici';
import { OPTIONS, UsageError, type OptionDef, type RunOptions } from '../core/config/options.js';
import { didYouMean } from '../core/config/suggest.js';
import { guardStandardStreams, maskOutgoing, maskOutgoingValue, protectOutput } from '../core/mask.js';
import type { Family, RunConfigView, RunResult } from '../core/model.js';
import { deprecationLine, loadProfile, type LoadedProfile } from '../core/profile/load.js';
import { profileForSpec } from '../core/profile/operations.js';
import { ifStated, kitProfile } from '../core/profile/reads.js';
import { kitSpec, loadSpec, type SpecModel } from '../core/spec/load.js';
import { familyOfSuiteFile } from '../core/spec/paths.js';
import { KIT_VERSION } from '../core/version.js';
import { VitestAdapter } from './adapter.js';
import type { KitReporter, RunStart } from '../core/reporter.js';
import type { ChainStep } from './chain.js';
import type { EngineParts } from './parts.js';
import type { ReplayRequest, TransportOptions } from './client.js';
import { createDispatcher } from './dispatch.js';
import { isLoopbackHost } from './egress.js';
import { exchangeRecord, maskRulesFor } from './evidence.js';
import { planTests, unknownSelectors, type PlannedTest } from './plan.js';
import { INTERRUPTS, type Interrupt } from './interrupts.js';
import { phase } from './phases.js';
import { preflight } from './preflight.js';
import { refusalSentence, startReceiver, type Receiver } from './receiver.js';
import { clearSpool } from './spool.js';
import { loadRegistry, registryProblems, type Registry } from './registry.js';
import { buildRunResult, completeResults } from './results.js';
import { requestExamples } from './sample.js';
import type { EarlySetup, RunSetup, WorkerPlan } from './setup.js';
import { startSuites, type StartedSuites } from './vitest-run.js';
export { suiteVitestOptions } from './vitest-run.js';
import { writeShardManifest } from './shards.js';
import { loadWaivers, waiverWarnings } from './waivers.js';
import { EXIT, RegistryError, SpecError } from '../core/types/errors.js';
import { UnreachableError } from '../core/types/errors.js';

/** Extra inputs of a run that are not options. */
export interface RunHooks {
  /** Reporters used instead of those `--reporter` names. */
  reporters?: KitReporter[];
  /** Command line recorded in the results. */
  commandLine?: string[];
  /**
   * Aborted, with the signal's name as reason, to interrupt the run: nothing more is sent, and the reports are
   * written for the checks that had run, with verdict INCONCLUSIVE (see `RunResult.interrupted`).
   */
  stop?: AbortSignal;
}

/** What a run produced. */
export interface RunOutcome {
  result: RunResult;
  /** Files the reporters wrote. */
  files: string[];
  replay: ReplayRequest[];
  /** With `captureReplay`: each observation's steps and what each waited for (see chain.ts). */
  chains: { observation: string; steps: ChainStep[] }[];
}

export { UnreachableError };

/** A value meaning "the unknown payment method" when the config gives none. */
export const UNKNOWN_PAYMENT_METHOD = 'PAGI_KIT_UNKNOWN';

/** Address the kit sends from for the refused-address check on a loopback target. */
const SECOND_LOOPBACK = '127.0.0.2';

function isLoopback(baseUrl: string): boolean {
  return isLoopbackHost(new URL(baseUrl).hostname);
}

/** What lets a run make payments, captures, refunds and payouts on its target (recorded in the results). */
export type MoneyGuard = NonNullable<RunResult['metadata']['target']['allowedBy']>;

/**
 * The live-target guard: a run moves money (payments, captures, refunds, payouts), so it runs only against a
 * loopback target, a target the config declares `environment: sandbox`, or with `--allow-live`. Checked before
 * anything is sent.
 */
export function moneyGuard(options: Pick<RunOptions, 'target' | 'environment' | 'allowLive'>): MoneyGuard {
  if (!options.target || isLoopback(options.target)) return 'loopback';
  if (options.environment === 'sandbox') return 'sandbox';
  if (options.allowLive) return 'allow-live';
  throw new UsageError(
    `The target ${options.target} is not a loopback address and the config does not declare environment: sandbox, so the run was refused before sending anything (it makes payments, captures, refunds and payouts): declare environment: sandbox for a sandbox, or pass --allow-live to run against a live gateway on purpose.`,
  );
}

/** Whether this host can send from `address` (127.0.0.2 works on Linux, not on every system). */
export function canBind(address: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(0, address, () => server.close(() => resolve(true)));
  });
}

/** A GET of the base URL answers at all (any status); else an UnreachableError naming why. */
export async function assertReachable(
  baseUrl: string,
  transport: TransportOptions,
  ca: Buffer | undefined,
): Promise<void> {
  const dispatcher = createDispatcher(transport, ca);
  try {
    const res = await request(baseUrl, {
      method: 'GET',
      dispatcher,
      headersTimeout: transport.timeoutMs,
      signal: AbortSignal.timeout(transport.timeoutMs),
    });
    await res.body.dump();
  } catch (e) {
    const err = e as { code?: string; message?: string; cause?: { code?: string; message?: string } };
    const why = err.cause?.message ?? err.message ?? String(e);
    throw new UnreachableError(
      `The target ${baseUrl} is unreachable (${err.code ?? err.cause?.code ?? 'error'}: ${why}); check the URL and that the gateway is running.`,
    );
  } finally {
    await dispatcher.close();
  }
}

interface Target {
  baseUrl: string;
  embedded: boolean;
  close(): Promise<void>;
  credentials?: { merchantId: string; accountId: string; secret: string };
  paymentMethods?: string[];
}

/** The embedded target of the run, from the composing layer: its first merchant account is the run's. */
async function startEmbedded(parts: EngineParts, profile: string, specRoot: string | undefined): Promise<Target> {
  const target = await parts.startEmbedded({ profile, ...(specRoot ? { specRoot } : {}) });
  return { ...target, embedded: true };
}

/** The run's profile read against the run's spec: an operation it does not name takes its defaults. */
function profileOfSpec(loaded: LoadedProfile, spec: SpecModel): LoadedProfile {
  const profile = profileForSpec(loaded.profile, spec);
  return profile === loaded.profile ? loaded : { ...loaded, profile };
}

/** The run's profile; one deprecation line on stderr when it is of an earlier format (migrated in memory). */
function loadProfileForRun(nameOrFile: string): LoadedProfile {
  // Its errors are the user's, each one sentence saying where (ProfileError, YamlSyntaxError, UsageError, ProfileFormatError).
  const loaded = loadProfile(nameOrFile);
  if (loaded.migration) process.stderr.write(`${deprecationLine(nameOrFile, loaded.migration)}\n`);
  return loaded;
}

/** The run's spec: the kit's, or the copy under --spec-root (a SpecError says what in it cannot be used, and where). */
function loadSpecForRun(root: string | undefined): SpecModel {
  if (!root) return kitSpec();
  try {
    return loadSpec(path.resolve(root));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (e instanceof SpecError)
      throw new SpecError(
        `The spec under ${root} cannot be used: ${e.message
          .replace(/^spec: /, '')
          .replace(/\s*\n\s*/g, ' ')
          .replace(/\.$/, '')}; correct the copy, or leave --spec-root out to use the kit's.`,
      );
    if (code === 'ENOENT' || code === 'EACCES')
      throw new UsageError(
        `The spec under ${root} cannot be read (${(e as Error).message.split('\n')[0]}); --spec-root names a folder holding spec/ and schemas/.`,
      );
    throw e;
  }
}

/** sha256 of the options that decide what a run checks (secret masked; where and how it reports left out, so shards agree). */
function configDigest(options: RunOptions): string {
  const reportOnly = new Set(
    (OPTIONS as readonly OptionDef[]).filter((o) => o.affectsResults === false).map((o) => o.key as string),
  );
  const masked: Record<string, unknown> = { ...options, secret: options.secret ? '[SECRET]' : undefined };
  const keys = Object.keys(masked)
    .filter((k) => !reportOnly.has(k))
    .sort();
  return createHash('sha256').update(JSON.stringify(masked, keys)).digest('hex');
}

/** The credentials of the run: configured, or the embedded gateway's. */
function credentialsOf(options: RunOptions, target: Target): { merchantId: string; accountId: string; secret: string } {
  const fallback = target.embedded ? target.credentials : undefined;
  const merchantId = options.merchantId ?? fallback?.merchantId;
  const accountId = options.accountId ?? fallback?.accountId;
  const secret = options.secret ?? fallback?.secret;
  if (!merchantId || !accountId || !secret) {
    throw new UsageError(
      'No credentials for the target: set merchantId, accountId and secret in the config file, or PAGI_MERCHANT_ID, PAGI_ACCOUNT_ID and PAGI_SECRET.',
    );
  }
  return { merchantId, accountId, secret };
}

/** The APM example's payment method: the spec's valid value when neither the config nor the target says one. */
export function examplePaymentMethod(spec: SpecModel): string[] {
  for (const op of spec.operations.values()) {
    const field = op.when?.present;
    const value = field ? requestExamples(spec).get(op.key)?.[field] : undefined;
    if (typeof value === 'string') return [value];
  }
  return [];
}

/** An --only/--skip selector that matches nothing, with the closest family, check, operation or requirement id. */
function unknownSelectorMessage(selector: string, plan: readonly PlannedTest[]): string {
  const names = new Set(plan.flatMap((t) => [t.family, t.checkId, t.operation, ...t.requirementIds]));
  const hint = didYouMean(selector.split('/').pop()!, [...names]);
  return `'${selector}' names no family, check, operation or requirement of the plan${hint || ';'} 'pagi-conform run --list' shows them.`;
}

/** The registry and the plan of a run, checked: registry against the spec, selectors against the plan. */
export async function loadPlan(
  spec: SpecModel,
  options: Pick<RunOptions, 'registry' | 'only' | 'skip'>,
  parts: Pick<EngineParts, 'registry'>,
): Promise<{ registry: Registry; plan: PlannedTest[] }> {
  const registry: Registry = await loadRegistry(options.registry ?? parts.registry);
  const problems = registryProblems(registry, spec);
  if (problems.length)
    throw new RegistryError(
      `The check registry is not consistent with the spec: ${problems.join('; ')}; correct the registry module (--registry).`,
    );
  const selection = { only: options.only, skip: options.skip };
  const plan = planTests(spec, registry.CHECKS, selection);
  const unknown = unknownSelectors(plan, selection);
  if (unknown.length) throw new UsageError(unknownSelectorMessage(unknown[0]!, plan));
  return { registry, plan };
}

/** Spec, profile, registry and plan, checked (what `--list` needs). */
export async function prepareRun(
  options: RunOptions,
  parts: Pick<EngineParts, 'registry'>,
): Promise<{ spec: SpecModel; profile: LoadedProfile; registry: Registry; plan: PlannedTest[] }> {
  const spec = loadSpecForRun(options.specRoot);
  const profile = profileOfSpec(loadProfileForRun(options.profile), spec);
  return { spec, profile, ...(await loadPlan(spec, options, parts)) };
}

/**
 * Run the suites and build the results; reporters have written their files when it returns. The main thread never
 * loads the registry for a run: the suite worker does, and writes the plan back (see WorkerPlan).
 */
export async function runConformance(options: RunOptions, hooks: RunHooks, parts: EngineParts): Promise<RunOutcome> {
  const allowedBy = moneyGuard(options);
  // From here on nothing leaves the process unmasked: stdout, stderr, report files, error messages, the result.
  const releaseStreams = guardStandardStreams();
  const releaseSecret = protectOutput({
    secrets: options.secret ? [options.secret] : [],
    cards: Object.values(options.cards ?? {}),
  });
  try {
    return await runGuarded(options, hooks, parts, allowedBy);
  } catch (e) {
    if (e instanceof Error) e.message = maskOutgoing(e.message);
    throw e;
  } finally {
    releaseSecret();
    releaseStreams();
  }
}

/**
 * The run as a pipeline of named stages, inside the guard of `runConformance` (money guard, masked output): load the
 * inputs, start the target and the receiver under the run's masking rules, pre-flight, plan the suite worker's run,
 * run the suites, roll the results up, report.
 */
async function runGuarded(
  options: RunOptions,
  hooks: RunHooks,
  parts: EngineParts,
  allowedBy: MoneyGuard,
): Promise<RunOutcome> {
  phase('run');
  checkSelected(options); // a usage error starts nothing
  const reporters = hooks.reporters ?? parts.createReporters(options);
  // Vitest and its worker start first, beside the inputs, the target, the receiver and the pre-flight (engine/vitest-run.ts).
  const early = earlySetup(options, parts);
  const start: RunStart = { target: options.target ?? '', profile: '', outDir: options.out };
  const adapter = new VitestAdapter(reporters, start);
  const suites = startSuites(early, adapter, options, hooks.stop);
  try {
    const inputs = loadInputs(options, reporters);
    phase('inputs');
    start.profile = inputs.profile.profile.name;
    return await runStarted(options, hooks, parts, allowedBy, inputs, early, { adapter, suites });
  } finally {
    await suites.abandon(); // when the run did not go ahead; nothing once it has
  }
}

/** The run once its inputs are loaded and its suites started: target, receiver, pre-flight, suites, results, reports. */
async function runStarted(
  options: RunOptions,
  hooks: RunHooks,
  parts: EngineParts,
  allowedBy: MoneyGuard,
  inputs: RunInputs,
  early: EarlySetup,
  started: { adapter: VitestAdapter; suites: StartedSuites },
): Promise<RunOutcome> {
  if (options.target) await assertReachable(options.target, inputs.transport, inputs.ca);
  const target: Target = options.target
    ? { baseUrl: options.target, embedded: false, close: async () => {} }
    : await startEmbedded(parts, inputs.profile.file, options.specRoot ? inputs.spec.root : undefined);
  const held: Held = {
    target,
    releaseRules: () => {},
    spoolDir: path.join(os.tmpdir(), `pagi-bodies-${process.pid}-${randomBytes(6).toString('hex')}`),
  };
  phase('target');
  try {
    const run = await openRun(options, inputs, held);
    phase('receiver');
    // A few requests before the suites: a refused signature or a target that is no gateway stops here (exit 2, no report).
    await preflight({
      spec: inputs.spec,
      profile: inputs.profile.profile,
      config: run.config,
      secret: run.secret,
      cardSecurityCode: options.cardSecurityCode,
      transport: inputs.transport,
      options,
      embedded: target.embedded,
    });
    phase('preflight');
    const setup = planRun(options, hooks, parts, inputs, run, held, early);
    const suites = await runSuiteStage(options, parts, inputs, setup, started);
    phase('suitesDone');
    const rolled = await rollUp(options, hooks, inputs, run, held, suites, allowedBy);
    const outcome = await report(options, rolled, suites);
    phase('reported');
    return outcome;
  } catch (e) {
    if (e instanceof Error) e.message = maskOutgoing(e.message); // while the run's rules still apply
    throw e;
  } finally {
    clearSpool(held.spoolDir);
    await held.receiver?.close();
    await target.close();
    held.releaseRules();
  }
}

/** What the suite worker is handed as vitest starts (the run's id, spec folder, registry, the hand-off channel). */
function earlySetup(options: RunOptions, parts: EngineParts): EarlySetup {
  const runId = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  return {
    runId,
    ...(options.specRoot ? { specRoot: path.resolve(options.specRoot) } : {}),
    registry: path.resolve(options.registry ?? parts.registry),
    channel: `pagi-run-${process.pid}-${runId}`,
  };
}

/** What a run reads before it contacts anything: spec, profile, waivers, selection, transport settings, reporters. */
interface RunInputs {
  started: Date;
  today: string;
  reporters: KitReporter[];
  spec: SpecModel;
  profile: LoadedProfile;
  waivers: ReturnType<typeof loadWaivers>;
  selection: RunSetup['selection'];
  transport: TransportOptions;
  ca: Buffer | undefined;
}

/** What a run holds open and releases at its end whatever happens. */
interface Held {
  target: Target;
  receiver?: Receiver;
  releaseRules: () => void;
  spoolDir: string;
}

/** The run's target opened: its credentials, the run configuration checks read, the profile as the kit reads it. */
interface OpenRun {
  config: RunConfigView;
  secret: string;
  read: LoadedProfile['profile'];
}

/** What is checked before anything starts: a missing registry module, `--only deep` without a depth (exit 2). */
function checkSelected(options: RunOptions): void {
  if (options.registry && !fs.existsSync(options.registry))
    throw new UsageError(`The registry module ${options.registry} does not exist.`);
  if (!options.depth && options.only.length > 0 && options.only.every((s) => s === 'deep'))
    throw new UsageError("'--only deep' selects the deep family, which runs with --depth N (N of at least 1).");
}

/** Stage "load": the run's inputs (spec, profile, waivers: their errors are the user's, exit 2). */
function loadInputs(options: RunOptions, reporters: KitReporter[]): RunInputs {
  const started = new Date();
  const today = started.toISOString().slice(0, 10);
  const spec = loadSpecForRun(options.specRoot);
  const profile = profileOfSpec(loadProfileForRun(options.profile), spec);
  const waivers = options.waivers ? loadWaivers(options.waivers) : [];
  const selection = { only: options.only, skip: options.skip, depth: options.depth };
  const transport: TransportOptions = {
    timeoutMs: options.timeout,
    maxResponseBytes: options.maxResponseBytes,
    caFile: options.caFile,
    proxy: options.proxy,
    concurrency: options.concurrency,
    rate: options.rate,
    allowedHosts: options.allowedHosts,
  };
  const ca = options.caFile ? fs.readFileSync(options.caFile) : undefined;
  return { started, today, reporters, spec, profile, waivers, selection, transport, ca };
}

/**
 * Stage "guard": the run's credentials and test cards, masked from here on wherever text leaves the process, the
 * notification receiver, and the run configuration checks and probes read.
 */
async function openRun(options: RunOptions, inputs: RunInputs, held: Held): Promise<OpenRun> {
  const { target } = held;
  const credentials = credentialsOf(options, target);
  const loopback = isLoopback(target.baseUrl);
  const read = kitProfile(inputs.profile.profile);
  // A test card the profile does not state is none: the checks that need one are not judged (never a default card).
  const testCards = kitProfile(inputs.profile.profile, inputs.profile.unstated).payments.testCards;
  const cards =
    options.cards ??
    Object.fromEntries(
      Object.keys(testCards).flatMap((outcome) => {
        const list = ifStated(() => testCards[outcome as keyof typeof testCards]);
        return list?.[0] ? [[outcome, list[0]]] : [];
      }),
    );
  const rules = maskRulesFor(read, credentials.secret, Object.values(cards));
  held.releaseRules = protectOutput(rules);
  const { statusMin, statusMax } = read.notifications.acknowledgement;
  const acknowledgement = { statusMin, statusMax };
  if (options.notifyUrl)
    held.receiver = await startReceiver({
      listenOn: options.notifyListen,
      publicUrl: options.notifyUrl,
      rules,
      acknowledgement,
    });
  else if (loopback) held.receiver = await startReceiver({ listenOn: '127.0.0.1:0', rules, acknowledgement });
  const unregisteredAddress =
    options.unregisteredAddress ?? (loopback && (await canBind(SECOND_LOOPBACK)) ? SECOND_LOOPBACK : undefined);
  const config: RunConfigView = {
    baseUrl: target.baseUrl,
    merchantId: credentials.merchantId,
    accountId: credentials.accountId,
    orderPrefix: `${options.orderPrefix}-${randomBytes(3).toString('hex')}`,
    seed: options.seed ?? randomInt(0, 2 ** 31 - 1),
    ...(options.depth ? { depth: options.depth } : {}),
    cards,
    paymentMethods: options.paymentMethods ?? {
      valid: target.paymentMethods ?? examplePaymentMethod(inputs.spec),
      unknown: UNKNOWN_PAYMENT_METHOD,
    },
    notifyWaitMs: options.notifyWait,
    ...(unregisteredAddress ? { unregisteredAddress } : {}),
    ...(held.receiver ? { notifyUrl: held.receiver.notifyUrl } : {}),
  };
  return { config, secret: credentials.secret, read };
}

/** Stage "plan": what the suite worker is handed (it loads the registry and writes the plan back, see WorkerPlan). */
function planRun(
  options: RunOptions,
  hooks: RunHooks,
  parts: EngineParts,
  inputs: RunInputs,
  run: OpenRun,
  held: Held,
  early: EarlySetup,
): RunSetup {
  return {
    runId: early.runId,
    specRoot: early.specRoot,
    profile: inputs.profile.profile,
    ...(inputs.profile.unstated.length ? { unstated: inputs.profile.unstated } : {}),
    registry: early.registry,
    config: run.config,
    secret: run.secret,
    cardSecurityCode: options.cardSecurityCode,
    transport: inputs.transport,
    receiverControlUrl: held.receiver?.controlUrl,
    failOn: options.failOn,
    selection: inputs.selection,
    waivers: inputs.waivers,
    today: inputs.today,
    captureReplay: parts.instruments?.captureReplay ?? false,
    ...(parts.instruments?.replayFile ? { replayFile: parts.instruments.replayFile } : {}),
    prefetch: !options.shard,
    planFile: path.join(os.tmpdir(), `pagi-plan-${process.pid}-${randomBytes(6).toString('hex')}.json`),
    ...(hooks.stop
      ? { stopFile: path.join(os.tmpdir(), `pagi-stop-${process.pid}-${randomBytes(6).toString('hex')}`) }
      : {}),
    spoolDir: held.spoolDir,
  };
}

/** What the suites gave: the adapter's records, the plan, and whether the run was interrupted. */
interface SuitesRun {
  adapter: VitestAdapter;
  plan: PlannedTest[];
  checkIds: readonly string[];
  interrupted: Interrupt | undefined;
  ranFiles: Set<string>;
}

/** Stage "run suites": the suite worker runs the plan; the plan comes back from it (or is made here when interrupted). */
async function runSuiteStage(
  options: RunOptions,
  parts: EngineParts,
  inputs: RunInputs,
  setup: RunSetup,
  started: { adapter: VitestAdapter; suites: StartedSuites },
): Promise<SuitesRun> {
  const { adapter } = started;
  const interrupted = await started.suites.go(setup);
  const { plan, checkIds } = interrupted
    ? await interruptedPlan(setup.planFile, inputs.spec, options, parts)
    : readWorkerPlan(setup.planFile, adapter);
  const ranFiles = new Set(adapter.modules.map((m) => path.resolve(m)));
  return { adapter, plan, checkIds, interrupted, ranFiles };
}

/** The results rolled up, with what the report stage needs besides them. */
interface RolledUp {
  result: RunResult;
  runWarnings: string[];
  incoming: ReturnType<typeof exchangeRecord>[];
}

/**
 * Stage "roll up": every planned check's result (not run ones said so), the warnings, the results object and its
 * verdict (INCONCLUSIVE where notifications were refused or the run was interrupted without a failure).
 */
async function rollUp(
  options: RunOptions,
  hooks: RunHooks,
  inputs: RunInputs,
  run: OpenRun,
  held: Held,
  suites: SuitesRun,
  allowedBy: MoneyGuard,
): Promise<RolledUp> {
  const { adapter, plan, interrupted } = suites;
  const ranFamilies = new Set([...suites.ranFiles].map(familyOfSuiteFile));
  const ran = (t: PlannedTest) => interrupted !== undefined || ranFamilies.has(t.family);
  const notRun = interrupted
    ? `not run: the run was interrupted (${interrupted})`
    : `not run: ${adapter.errors[0] ?? 'the suite reported no result'}`;
  const checksRun = adapter.results.length;
  const results = completeResults(plan, adapter.results, ran, notRun);
  const warnings = waiverWarnings(inputs.waivers, inputs.today, new Set(suites.checkIds));
  warnings.push(...adapter.errors.map((e) => `kit error: ${e}`));
  const refused = held.receiver?.refusals ? refusalSentence(await held.receiver.refusals()) : undefined;
  const refusedSentence = refused
    ? `${refused[0]!.toUpperCase()}${refused.slice(1)}: the notifications the target sent could not all be observed.`
    : undefined;
  if (refusedSentence) warnings.push(refusedSentence);
  const runWarnings = [...warnings];
  if (options.shard)
    warnings.push(`Shard ${options.shard}: only this shard's suite files ran; the verdict covers them alone.`);
  const ended = new Date();
  const incoming = (held.receiver?.received() ?? []).map(exchangeRecord);
  const result = buildRunResult(inputs.spec, plan, results, {
    metadata: runMetadata(options, hooks, inputs, run, held.target, allowedBy, ended),
    exchanges: adapter.exchanges,
    warnings,
    failOn: options.failOn,
  });
  if (refusedSentence && result.verdict !== 'NOT CONFORMANT') {
    // What the receiver refused may have held the notifications the checks looked for: the run cannot say CONFORMANT.
    result.verdict = 'INCONCLUSIVE';
    result.exitCode = EXIT.inconclusive;
    result.verdictReasons.push(refusedSentence);
  }
  if (interrupted) {
    const checksSelected = plan.filter((t) => t.selected).length;
    result.interrupted = { signal: interrupted, checksRun, checksSelected };
    // What could not run never hides a failure: an interrupted run that already failed stays NOT CONFORMANT.
    if (result.verdict !== 'NOT CONFORMANT') {
      result.verdict = 'INCONCLUSIVE';
      result.exitCode = EXIT.inconclusive;
    }
    result.verdictReasons.unshift(`Interrupted (${interrupted}) after ${checksRun} of ${checksSelected} checks.`);
    // An interrupted run exits 128 + the signal's number, whatever its verdict; results.json records that code.
    result.exitCode = INTERRUPTS[interrupted];
  }
  return { result, runWarnings, incoming };
}

/** The results' metadata: kit, spec, profile, target, selection and times of the run. */
function runMetadata(
  options: RunOptions,
  hooks: RunHooks,
  inputs: RunInputs,
  run: OpenRun,
  target: Target,
  allowedBy: MoneyGuard,
  ended: Date,
): RunResult['metadata'] {
  const { read, config } = run;
  const { profile, spec, started } = inputs;
  return {
    kitVersion: KIT_VERSION,
    nodeVersion: process.version,
    commandLine: hooks.commandLine ?? ['run()'],
    spec: { root: spec.root, digest: spec.digest },
    profile: {
      name: read.name,
      version: read.version,
      format: profile.migration?.from ?? read.format,
      ...(read.description ? { description: read.description } : {}),
      file: profile.file,
      digest: profile.digest,
    },
    configDigest: configDigest(options),
    target: {
      baseUrl: target.baseUrl,
      embedded: target.embedded,
      allowedBy,
      allowedHosts: [...options.allowedHosts],
    },
    seed: config.seed,
    failOn: options.failOn,
    selection: {
      only: [...options.only],
      skip: [...options.skip],
      ...(options.shard ? { shard: options.shard } : {}),
    },
    startedAt: started.toISOString(),
    endedAt: ended.toISOString(),
    durationMs: ended.getTime() - started.getTime(),
  };
}

/** Stage "report": a shard's manifest, then the masked results handed to the reporters. */
async function report(options: RunOptions, rolled: RolledUp, suites: SuitesRun): Promise<RunOutcome> {
  const { result, runWarnings, incoming } = rolled;
  const { adapter } = suites;
  if (options.shard)
    writeShardManifest(options.out, options.shard, {
      plan: suites.plan,
      families: [...suites.ranFiles].map((f) => familyOfSuiteFile(f) as Family),
      metadata: result.metadata,
      warnings: runWarnings,
      incoming,
      exchangesSent: adapter.sent,
    });
  // The result leaves the process (reporters, a caller of run()): masked whole, keys included.
  const masked = maskOutgoingValue(result);
  const written = await adapter.runEnd(masked, incoming);
  return { result: masked, files: written, replay: adapter.replay, chains: adapter.chains };
}

/** The plan of an interrupted run: the worker's, or, when it had not written one yet, the plan made here. */
async function interruptedPlan(
  file: string,
  spec: SpecModel,
  options: RunOptions,
  parts: EngineParts,
): Promise<WorkerPlan> {
  try {
    const plan = JSON.parse(fs.readFileSync(file, 'utf8')) as WorkerPlan;
    fs.rmSync(file, { force: true });
    return plan;
  } catch {
    const { registry, plan } = await loadPlan(spec, options, parts);
    return { plan, checkIds: registry.CHECKS.map((c) => c.id), problems: [], unknownSelectors: [] };
  }
}

/** Read the plan the suite worker wrote; refuse the run as the worker found it (unknown selector, bad registry). */
function readWorkerPlan(file: string, adapter: VitestAdapter): WorkerPlan {
  let plan: WorkerPlan;
  try {
    plan = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    throw new Error(`the suites did not run: ${adapter.errors[0] ?? 'no plan was written'}`);
  } finally {
    fs.rmSync(file, { force: true });
  }
  if (plan.problems.length)
    throw new RegistryError(
      `The check registry is not consistent with the spec: ${plan.problems.join('; ')}; correct the registry module (--registry).`,
    );
  if (plan.unknownSelectors.length) throw new UsageError(unknownSelectorMessage(plan.unknownSelectors[0]!, plan.plan));
  return plan;
}
