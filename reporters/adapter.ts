/**
 * The vitest reporter adapter: reads each test's check result from `task.meta.pagi` (set by the generated suite
 * files) and forwards it to the kit reporters' hooks; the runner collects the results from it.
 */
import type { Reporter, TestCase, TestModule } from 'vitest/node';
import type { CheckResult, RunResult } from '../src/model.js';
import type { ReplayRequest } from '../src/engine/client.js';
import type {} from '../src/engine/suite.js'; // task.meta.pagi typing
import type { KitReporter, RunStart } from './types.js';

/** Forwards vitest events to kit reporters and keeps what the runner needs. */
export class VitestAdapter implements Reporter {
  readonly results: CheckResult[] = [];
  readonly replay: ReplayRequest[] = [];
  exchanges = 0;
  /** Suite files vitest ran (this shard's only, when sharded). */
  readonly modules: string[] = [];
  /** Errors outside tests: a suite file that failed to load, an unhandled error. One line each. */
  readonly errors: string[] = [];

  constructor(
    private readonly reporters: readonly KitReporter[],
    private readonly start: RunStart,
  ) {}

  async onTestRunStart(): Promise<void> {
    for (const r of this.reporters) await r.onRunStart?.(this.start);
  }

  onTestModuleQueued(testModule: TestModule): void {
    this.modules.push(testModule.moduleId);
  }

  async onTestCaseResult(testCase: TestCase): Promise<void> {
    const meta = testCase.meta().pagi;
    if (!meta) {
      const error = testCase.result().errors?.[0]?.message;
      if (error) this.errors.push(`${testCase.fullName}: ${error.split('\n')[0]}`);
      return;
    }
    this.exchanges += meta.exchanges;
    if (meta.replay) this.replay.push(...meta.replay);
    this.results.push(meta.result);
    for (const r of this.reporters) await r.onCheckResult?.(meta.result);
  }

  onTestModuleEnd(testModule: TestModule): void {
    for (const e of testModule.errors()) this.errors.push(`${testModule.moduleId}: ${(e.message ?? String(e)).split('\n')[0]}`);
  }

  onTestRunEnd(_modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<{ message?: string }>): void {
    for (const e of unhandledErrors) this.errors.push(`unhandled error: ${(e.message ?? String(e)).split('\n')[0]}`);
  }

  /** Hand the finished run to the kit reporters (once the runner has built it); returns the files they wrote. */
  async runEnd(result: RunResult): Promise<string[]> {
    const files: string[] = [];
    for (const r of this.reporters) {
      const written = await r.onRunEnd?.(result, this.start.outDir);
      if (written) files.push(...written);
    }
    return files;
  }
}
