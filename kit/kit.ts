/**
 * The kit composed: the engine given its parts (the reference gateway as the embedded target, the kit's registry of
 * checks and probes, the reporters `--reporter` names), as the CLI, the programmatic API and the self-test use it.
 * This is the one place that knows all of them; the engine imports none.
 */
import path from 'node:path';
import type { RunOptions } from '../core/config/options.js';
import type { RunResult } from '../core/model.js';
import type { EngineParts, RunInstruments } from '../engine/parts.js';
import { prepareRun, runConformance, type RunHooks, type RunOutcome } from '../engine/runner.js';
import { mergeShards } from '../engine/shards.js';
import { KIT_ROOT } from '../core/spec/paths.js';
import { createReporters } from '../reporters/index.js';

/** The kit's own parts. */
export const KIT_PARTS: EngineParts = {
  async startEmbedded({ profile, fault, specRoot }) {
    const { startGateway } = await import('../gateway/index.js'); // loaded only when a run has no --target
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
  },
  registry: path.join(KIT_ROOT, 'suites', 'registry.ts'),
  createReporters,
};

/** Run the suites with the kit's parts (see runConformance). */
export function runKit(options: RunOptions, hooks: RunHooks = {}): Promise<RunOutcome> {
  return runConformance(options, hooks, KIT_PARTS);
}

/**
 * Run the suites with the kit's parts and instruments only the kit's own measurements use (the benchmarks' replay, a
 * fault of the embedded gateway): not part of the programmatic API.
 */
export function runKitInstrumented(
  options: RunOptions,
  hooks: RunHooks,
  instruments: RunInstruments,
): Promise<RunOutcome> {
  return runConformance(options, hooks, { ...KIT_PARTS, instruments });
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
