/**
 * `pagi-conform selftest`: run the suites against every fault and neutral variant of the reference gateway, print
 * the table (variant → verdict → failed checks), the detection score, the false alarms and the coverage by faults,
 * and write them as JSON. Exit 0 when every fault is caught and no neutral variant fails, 1 otherwise, 2 on a usage
 * error.
 */
import path from 'node:path';
import { flagHelp, parseFlags, type FlagTable } from '../core/config/flags.js';
import { integer, list, text } from '../core/config/options.js';
import { EXIT } from '../core/types/errors.js';
import { SELFTEST_DEFAULTS, runSelftest } from '../selftest/index.js';
import { selftestText, writeSelftestJson } from '../selftest/report.js';

/** What the command takes besides the run options of the self-test. */
interface SelftestFlags {
  jobs: number;
  only: string[];
  out: string;
  seed: number;
  notifyWait: number;
  concurrency: number;
}

/** The command's options: one row each (a missing row is a compile error). */
export const SELFTEST_FLAGS = {
  jobs: {
    flag: 'jobs',
    type: integer('N', 1),
    description: 'variants run at once, each in its own process (default 2; 1 on a one-core machine)',
  },
  only: {
    flag: 'only',
    type: list,
    default: [],
    description: 'run only these variants, comma-separated (coverage is then partial)',
  },
  out: { flag: 'out', type: text('DIR'), default: 'reports', description: 'folder of the JSON report selftest.json' },
  seed: {
    flag: 'seed',
    type: integer('N', 0),
    default: SELFTEST_DEFAULTS.seed,
    description: 'seed of the generated negative cases',
  },
  notifyWait: {
    flag: 'notify-wait',
    type: integer('MS', 0),
    default: SELFTEST_DEFAULTS.notifyWait,
    description: 'how long a probe waits for a notification',
  },
  concurrency: {
    flag: 'concurrency',
    type: integer('N', 1),
    default: SELFTEST_DEFAULTS.concurrency,
    description: 'tests and requests in flight within one run',
  },
} satisfies FlagTable<SelftestFlags>;

const USAGE = `usage: pagi-conform selftest [--jobs N] [--only NAMES] [--out DIR] [--seed N] [--notify-wait MS] [--concurrency N]

Run the conformance suites against every variant of the reference gateway (gateway/faults.ts): each fault must be
caught by a failed check carrying the requirement it breaks, each neutral variant must pass.

options:
${flagHelp(SELFTEST_FLAGS)}`;

/** Run the command with its arguments; returns the exit code. */
export async function selftestMain(argv: string[]): Promise<number> {
  const { values, help } = parseFlags(SELFTEST_FLAGS, argv, 'selftest');
  if (help) {
    console.log(USAGE);
    return EXIT.ok;
  }
  const flags = values as SelftestFlags;
  const out = path.resolve(flags.out);
  const options: Parameters<typeof runSelftest>[0] = {
    jobs: flags.jobs ?? SELFTEST_DEFAULTS.jobs,
    only: flags.only,
    seed: flags.seed,
    notifyWait: flags.notifyWait,
    concurrency: flags.concurrency,
    onRun: (run, done, total) =>
      console.error(
        `[${done}/${total}] ${run.name}: ${run.verdict} (${run.failed.length} failed checks, ${(run.durationMs / 1000).toFixed(1)} s)`,
      ),
  };
  const result = await runSelftest(options);
  console.log(selftestText(result));
  console.log(`report: ${path.relative(process.cwd(), writeSelftestJson(result, out)) || out}`);
  return result.score.passed ? EXIT.ok : EXIT.failed;
}
