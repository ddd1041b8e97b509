/**
 * Programmatic API of the kit: `run(options)` does what `pagi-conform run` does and returns the results object
 * (the content of results.json) instead of exiting. Options are the keys of the options table
 * (core/config/options.ts); unset keys take the config file's, the environment's and the table's values.
 */
import { checkOptions, resolveOptions } from '../core/config/load.js';
import { UsageError, type RunOptions } from '../core/config/options.js';
import { didYouMean } from '../core/config/suggest.js';
import type { RunHooks } from '../engine/runner.js';
import { runKit } from './kit.js';
import type { RunResult } from '../core/model.js';

/**
 * Run the conformance suites; throws a `KitError` subclass for the exit-2 cases of the CLI, each one sentence: a
 * `UsageError` (bad option, with the closest name), `YamlSyntaxError` and `ProfileError` (file:line:column),
 * `ProfileFormatError`, `SpecError` (--spec-root), `RegistryError` (--registry), `UnreachableError`, and
 * `SetupError` when the pre-flight finds the credentials refused or no PAGI gateway at the target.
 */
export async function run(
  options: Partial<RunOptions> = {},
  hooks: Omit<RunHooks, 'commandLine'> = {},
): Promise<RunResult> {
  checkHooks(hooks);
  const resolved = resolveOptions(checkOptions(options));
  const { result } = await runKit(resolved, {
    ...hooks,
    commandLine: ['run()', JSON.stringify({ ...options, secret: options.secret ? '[SECRET]' : undefined })],
  });
  return result;
}

/** The keys `run()`'s hooks take. */
const HOOKS = ['reporters', 'stop'] as const satisfies readonly (keyof Omit<RunHooks, 'commandLine'>)[];

/** Refuse a hook key `run()` does not take, with the closest one (UsageError). */
function checkHooks(hooks: object): void {
  for (const key of Object.keys(hooks))
    if (!(HOOKS as readonly string[]).includes(key))
      throw new UsageError(
        `Unknown hook '${key}' of run()${didYouMean(key, HOOKS) || '.'} The hooks are ${HOOKS.join(' and ')}.`,
      );
}

export { UsageError, OPTIONS } from '../core/config/options.js';
export type { RunOptions, FailOn, PaymentMethodsConfig } from '../core/config/options.js';
export { UnreachableError, type RunHooks } from '../engine/runner.js';
export { SetupError } from '../engine/preflight.js';
/** The error classes `run()` throws, each with its stable `code` and the `exitCode` the CLI ends with. */
export {
  KitError,
  ProfileError,
  ProfileFormatError,
  RegistryError,
  SpecError,
  YamlSyntaxError,
} from '../core/types/errors.js';
export type { KitReporter, RunEnd, RunStart } from '../core/reporter.js';
export type {
  Check,
  CheckContext,
  CheckResult,
  CheckStatus,
  Exchange,
  Family,
  Finding,
  Level,
  Observation,
  OperationKey,
  Probe,
  ProbeClient,
  Requirement,
  RequirementResult,
  RunResult,
  RunTotals,
  Severity,
  Verdict,
} from '../core/model.js';
