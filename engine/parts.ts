/**
 * The engine's parts that the layer above hands in (kit/kit.ts composes the kit's own): the engine imports no
 * target, registry or reporter, it is given them.
 */
import type { RunOptions } from '../core/config/options.js';
import type { KitReporter } from '../core/reporter.js';
import type { ReplayFile } from './replay-file.js';

/** A target the kit starts itself for a run without `--target` (the reference gateway, embedded). */
export interface EmbeddedTarget {
  baseUrl: string;
  close(): Promise<void>;
  /** The run's credentials when the config gives none. */
  credentials?: { merchantId: string; accountId: string; secret: string };
  paymentMethods?: string[];
}

/**
 * What the engine is handed by the layer that composes the kit (kit/kit.ts): the embedded target, the registry
 * module and the reporters. The engine imports none of them.
 */
export interface EngineParts {
  /**
   * Start the embedded target, running `profile` (a file), serving the spec under `specRoot` when given (a run's
   * `--spec-root`; default the kit's own). A target with a fault switched on is the composing layer's choice.
   */
  startEmbedded(settings: { profile: string; specRoot?: string }): Promise<EmbeddedTarget>;
  /** The registry module of checks and probes when `--registry` names none. */
  registry: string;
  /** The reporters `--reporter` names, when the hooks give none. */
  createReporters(options: Pick<RunOptions, 'reporter' | 'signKey'>): KitReporter[];
  /**
   * What only the benchmarks' measurements use (the replay of every request, made in the suites' workers): set by
   * their composition (kit/kit.ts `runKitInstrumented`), never by the CLI or the programmatic API.
   */
  instruments?: RunInstruments;
}

/** Instruments of a run for the kit's own measurements (see `EngineParts.instruments`). */
export interface RunInstruments {
  /** Keep every request as sent, for the benchmark's replay (memory only). */
  captureReplay?: boolean;
  /** Write every request as sent to this file instead, encrypted (a deep run's memory stays flat); see replay-file.ts. */
  replayFile?: ReplayFile;
}
