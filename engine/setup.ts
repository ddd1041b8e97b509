/** What the runner hands the suite workers (vitest `provide`/`inject`): JSON only. */
import type { FailOn } from '../core/config/options.js';
import type { RunConfigView } from '../core/model.js';
import type { Profile } from '../core/profile/load.js';
import type { TransportOptions } from './client.js';
import type { PlannedTest, Selection } from './plan.js';
import type { ReplayFile } from './replay-file.js';
import type { Waiver } from './waivers.js';

/** The run as the suite files see it. Holds the secret: never print it. */
export interface RunSetup {
  runId: string;
  /** Folder holding spec/ and schemas/; absent: the kit's own. */
  specRoot?: string;
  /** The run's profile, already loaded and validated by the runner. */
  profile: Profile;
  /** JSON pointers of the points the profile does not state (format 6): a check needing one is not applicable. */
  unstated?: string[];
  /** Registry module: the --registry module, or the one the composing layer hands the engine. */
  registry: string;
  config: RunConfigView;
  secret: string;
  cardSecurityCode: string;
  /** Transport of each worker (concurrency and rate already divided among the workers). */
  transport: TransportOptions;
  /** Control URL of the runner's notification receiver. */
  receiverControlUrl?: string;
  failOn: FailOn;
  selection: Selection;
  waivers: Waiver[];
  /** Run date (YYYY-MM-DD, UTC) waivers are compared with. */
  today: string;
  captureReplay: boolean;
  /** The replay copies go to this file instead of the tests' results (see RunHooks.replayFile). */
  replayFile?: ReplayFile;
  /** Make every selected observation early in the background (off when sharded: other shards' probes must not run). */
  prefetch: boolean;
  /** Where the worker writes the WorkerPlan for the runner. */
  planFile: string;
  /** A file the runner creates when the run is interrupted: from then on the worker sends nothing. */
  stopFile?: string;
  /** Folder the worker spools large response bodies to; the runner removes it when the run ends. */
  spoolDir?: string;
}

/**
 * What the suite worker is handed as vitest starts, before the run is known to go ahead (engine/handoff.ts): enough
 * to load the spec and the registry while the runner starts the target and runs the pre-flight. The RunSetup
 * follows on `channel`.
 */
export interface EarlySetup {
  runId: string;
  /** Folder holding spec/ and schemas/; absent: the kit's own. */
  specRoot?: string;
  /** Registry module (absolute). */
  registry: string;
  /** Name of the BroadcastChannel the RunSetup comes on. */
  channel: string;
}

/** What the suite worker tells the runner (through `planFile`): the plan, or why there is none. */
export interface WorkerPlan {
  plan: PlannedTest[];
  checkIds: string[];
  /** Registry problems against the spec; the run stops when there is one. */
  problems: string[];
  /** --only/--skip selectors matching nothing; the run stops with a usage error. */
  unknownSelectors: string[];
}

declare module 'vitest' {
  export interface ProvidedContext {
    pagiRun: EarlySetup;
  }
}
