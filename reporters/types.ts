/** Hooks every kit reporter implements (any subset). The vitest adapter and the runner call them. */
import type { CheckResult, RunResult } from '../src/model.js';

/** What is known when a run starts. */
export interface RunStart {
  target: string;
  profile: string;
  outDir: string;
}

/** A kit reporter. `onRunEnd` returns the files it wrote, if any. */
export interface KitReporter {
  name: string;
  onRunStart?(start: RunStart): void | Promise<void>;
  onCheckResult?(result: CheckResult): void | Promise<void>;
  onRunEnd?(result: RunResult, outDir: string): void | string[] | Promise<void | string[]>;
}
