/**
 * The kit composed: the engine given its parts (the reference gateway as the embedded target, the kit's registry of
 * checks and probes, the reporters `--reporter` names), as the CLI, the programmatic API and the self-test use it.
 * This is the one place that knows all of them; the engine imports none.
 */
import type { RunOptions } from '../core/config/options.js';
import type { RunResult } from '../core/model.js';
import type { EmbeddedTarget, EngineParts, RunInstruments } from '../engine/parts.js';
import { prepareRun, runConformance, type RunHooks, type RunOutcome } from '../engine/runner.js';
import { mergeShards } from '../engine/shards.js';
import { KIT_REGISTRY } from '../core/spec/paths.js';
import { createReporters } from '../reporters/index.js';

/** The reference gateway as a run's embedded target, `fault` switched on when given; its first merchant account the run's. */
async function startReferenceGateway(settings: {
  profile: string;
  specRoot?: string;
  fault?: string;
}): Promise<EmbeddedTarget> {
  const { startGateway } = await import('../gateway/index.js'); // loaded only when a run has no --target
  const { profile, specRoot, fault } = settings;
  const gateway = await startGateway({
    port: 0,
    host: '127.0.0.1',
    profile,
    ...(fault ? { fault } : {}),
    ...(specRoot ? { specRoot } : {}),
  });
  const merchant = gateway.config.merchants[0];
  const account = merchant?.accounts[0];
  return {
    baseUrl: gateway.baseUrl,
    close: () => gateway.close(),
    credentials:
      merchant && account
        ? { merchantId: merchant.merchantId, accountId: account.accountId, secret: account.secret }
        : undefined,
    paymentMethods: gateway.config.apm.paymentMethods,
  };
}

/** The kit's own parts. */
export const KIT_PARTS: EngineParts = {
  startEmbedded: startReferenceGateway,
  registry: KIT_REGISTRY,
  createReporters,
};

/** Run the suites with the kit's parts (see runConformance). */
export function runKit(options: RunOptions, hooks: RunHooks = {}): Promise<RunOutcome> {
  return runConformance(options, hooks, KIT_PARTS);
}

/** What only the kit's own measurements and tests set: the benchmarks' replay, a fault of the embedded gateway. */
export interface KitInstruments extends RunInstruments {
  /** Fault switched on in the embedded reference gateway (tests and demonstrations of a failing run). */
  gatewayFault?: string;
}

/**
 * Run the suites with the kit's parts and instruments only the kit's own measurements use: not part of the
 * programmatic API. The fault is the composition's (the engine is handed a gateway that has it switched on).
 */
export function runKitInstrumented(
  options: RunOptions,
  hooks: RunHooks,
  instruments: KitInstruments,
): Promise<RunOutcome> {
  const { gatewayFault, ...measured } = instruments;
  const startEmbedded: EngineParts['startEmbedded'] = gatewayFault
    ? (settings) => startReferenceGateway({ ...settings, fault: gatewayFault })
    : startReferenceGateway;
  return runConformance(options, hooks, { ...KIT_PARTS, startEmbedded, instruments: measured });
}

/** Spec, profile, the kit's registry and the plan, checked (what `--list` needs). */
export function prepareKitRun(options: RunOptions): ReturnType<typeof prepareRun> {
  return prepareRun(options, KIT_PARTS);
}

/** Merge shard runs, written with the kit's reporters (see mergeShards). */
export function mergeKitShards(
  dirs: readonly string[],
  options: Pick<RunOptions, 'out' | 'reporter' | 'signKey'>,
  commandLine: string[],
): Promise<{ result: RunResult; files: string[] }> {
  return mergeShards(dirs, options, commandLine, KIT_PARTS);
}
