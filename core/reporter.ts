/**
 * Hooks every kit reporter implements (any subset). The vitest adapter (engine/adapter.ts) is the one bridge
 * from vitest's reporter hooks to these: run start, each check result, the end of an operation's checks in a
 * family, and the end of the run with the finished RunResult and every exchange.
 */
import type { CheckResult, ExchangeRecord, Family, OperationKey, RunResult } from './model.js';

/** What is known when a run starts. */
export interface RunStart {
  target: string;
  profile: string;
  outDir: string;
}

/** What a reporter gets besides the RunResult when the run ends. */
export interface RunEnd {
  /** Folder the reports are written to. */
  outDir: string;
  /** Every exchange of the run, masked: the kit's requests with their responses, then the notifications it received. */
  exchanges: readonly ExchangeRecord[];
  /** Files the reporters before this one wrote (the console reporter runs last and lists them). */
  files: readonly string[];
}

/** A kit reporter. `onRunEnd` returns the files it wrote, if any. */
export interface KitReporter {
  name: string;
  onRunStart?(start: RunStart): void | Promise<void>;
  onCheckResult?(result: CheckResult): void | Promise<void>;
  /** Every check of `operation` in `family`'s suite file has reported. */
  onOperationEnd?(family: Family, operation: OperationKey): void | Promise<void>;
  onRunEnd?(result: RunResult, end: RunEnd): void | string[] | Promise<void | string[]>;
}
