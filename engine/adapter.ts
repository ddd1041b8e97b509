/**
 * The vitest reporter adapter, the one bridge from vitest's hooks to the kit reporters' hooks: reads each test's
 * check result and exchange records from `task.meta.pagi` (set by the generated suite files) and forwards them; the
 * runner collects the results from it. It works the same on a live run and on `mergeReports` replaying blobs.
 */
import type { Reporter, TestCase, TestModule, TestSuite } from 'vitest/node';
import type { CheckResult, ExchangeRecord, Family, OperationKey, RunResult } from '../core/model.js';
import type { ChainStep } from './chain.js';
import type { ReplayRequest } from './client.js';
import type {} from './suite.js'; // task.meta.pagi typing
import type { KitReporter, RunStart } from '../core/reporter.js';
import { familyOfSuiteFile } from '../core/spec/paths.js';

/** Forwards vitest events to kit reporters and keeps what the runner needs. */
export class VitestAdapter implements Reporter {
  readonly results: CheckResult[] = [];
  readonly replay: ReplayRequest[] = [];
  /** Each observation's steps (`probe@operation`), when the run keeps its replay (see chain.ts). */
  readonly chains: { observation: string; steps: ChainStep[] }[] = [];
  /** Printable records of the kit's exchanges, in the order the tests reported them. */
  readonly records: ExchangeRecord[] = [];
  /** Requests the suites sent (in a merge: every shard's, an observation two shards made counted twice). */
  sent = 0;
  /** Exchanges of each observation (`probe@operation`), counted once however many shards made it. */
  private readonly observations = new Map<string, number>();
  /** Suite files vitest ran (this shard's only, when sharded). */
  readonly modules: string[] = [];
  /** Errors outside tests: a suite file that failed to load, an unhandled error. One line each. */
  readonly errors: string[] = [];
  /** Set when the run was interrupted: results arriving after that are not taken. */
  private frozen = false;
  /** Resolves once the run goes ahead (at once unless the start is held, see `holdStart`). */
  private goAhead: Promise<void> = Promise.resolve();
  private release: () => void = () => {};
  private held = false;
  /** The reporters' `onRunStart`, once the run went ahead; every later hook waits for it. */
  private started: Promise<void> = Promise.resolve();

  constructor(
    private readonly reporters: readonly KitReporter[],
    private readonly start: RunStart,
  ) {}

  /**
   * Vitest starts before the run is known to go ahead (engine/vitest-run.ts): the reporters hear of the run only
   * once `begin` is called, and nothing if it never is.
   */
  holdStart(): void {
    this.held = true;
    this.goAhead = new Promise((resolve) => {
      this.release = resolve;
    });
  }

  /** The run goes ahead, against `target`: the reporters hear its start. */
  begin(target: string): void {
    this.start.target = target;
    this.release();
  }

  onTestRunStart(): Promise<void> | void {
    // Not awaited by vitest's start when held: the worker starts meanwhile.
    this.started = this.goAhead.then(async () => {
      for (const r of this.reporters) await r.onRunStart?.(this.start);
    });
    return this.held ? undefined : this.started;
  }

  onTestModuleQueued(testModule: TestModule): void {
    this.modules.push(testModule.moduleId);
  }

  /** Take no more results or errors (an interrupted run reports what had arrived). */
  freeze(): void {
    this.frozen = true;
  }

  async onTestCaseResult(testCase: TestCase): Promise<void> {
    await this.started;
    if (this.frozen) return;
    const meta = testCase.meta().pagi;
    if (!meta) {
      const error = testCase.result().errors?.[0]?.message;
      if (error) this.errors.push(`${testCase.fullName}: ${error.split('\n')[0]}`);
      return;
    }
    this.sent += meta.exchanges;
    if (meta.observation && !this.observations.has(meta.observation))
      this.observations.set(meta.observation, meta.exchanges);
    this.records.push(...meta.records);
    if (meta.replay) this.replay.push(...meta.replay);
    if (meta.chain && meta.observation) this.chains.push({ observation: meta.observation, steps: meta.chain });
    this.results.push(meta.result);
    for (const r of this.reporters) await r.onCheckResult?.(meta.result);
  }

  /**
   * Exchanges of the run: each observation's exchanges once. Equal to `sent` on a single run; on a merge, what the
   * unsharded run sends (families in different shards each make the observations they share).
   */
  get exchanges(): number {
    let total = 0;
    for (const n of this.observations.values()) total += n;
    return total;
  }

  /** A `describe(operation)` block of a family's suite file has finished. */
  async onTestSuiteResult(testSuite: TestSuite): Promise<void> {
    await this.started;
    if (this.frozen) return;
    const family = familyOfSuiteFile(testSuite.module.moduleId) as Family;
    for (const r of this.reporters) await r.onOperationEnd?.(family, testSuite.name as OperationKey);
  }

  onTestModuleEnd(testModule: TestModule): void {
    if (this.frozen) return;
    for (const e of testModule.errors())
      this.errors.push(`${testModule.moduleId}: ${(e.message ?? String(e)).split('\n')[0]}`);
  }

  onTestRunEnd(_modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<{ message?: string }>): void {
    if (this.frozen) return;
    for (const e of unhandledErrors) this.errors.push(`unhandled error: ${(e.message ?? String(e)).split('\n')[0]}`);
  }

  /**
   * Hand the finished run to the kit reporters, in their order, with the exchanges (the tests' records, then
   * `incoming`: the notifications the kit received); returns the files they wrote.
   */
  async runEnd(result: RunResult, incoming: readonly ExchangeRecord[] = []): Promise<string[]> {
    await this.started;
    const files: string[] = [];
    const exchanges = [...this.records, ...incoming];
    for (const r of this.reporters) {
      const written = await r.onRunEnd?.(result, { outDir: this.start.outDir, exchanges, files: [...files] });
      if (written) files.push(...written);
    }
    return files;
  }
}
