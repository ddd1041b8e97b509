/**
 * `pagi-conform selftest`: run the suites against every fault and neutral variant of the reference gateway, print
 * the table (variant → verdict → failed checks), the detection score, the false alarms and the coverage by faults,
 * and write them as JSON. Exit 0 when every fault is caught and no neutral variant fails, 1 otherwise, 2 on a usage
 * error.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SELFTEST_DEFAULTS, runSelftest } from '../../selftest/index.js';
import { selftestText, writeSelftestJson } from '../../selftest/report.js';

const USAGE = `usage: pagi-conform selftest [--jobs N] [--only NAMES] [--out DIR] [--seed N] [--notify-wait MS] [--concurrency N]

Run the conformance suites against every variant of the reference gateway (gateway/faults.ts): each fault must be
caught by a failed check carrying the requirement it breaks, each neutral variant must pass.

options:
  --jobs N          variants run at once, each in its own process (default ${SELFTEST_DEFAULTS.jobs})
  --only NAMES      run only these variants, comma-separated (coverage is then partial)
  --out DIR         folder of the JSON report selftest.json (default reports)
  --seed N          seed of the generated negative cases (default ${SELFTEST_DEFAULTS.seed})
  --notify-wait MS  how long a probe waits for a notification (default ${SELFTEST_DEFAULTS.notifyWait})
  --concurrency N   tests and requests in flight within one run (default ${SELFTEST_DEFAULTS.concurrency})
  --help            show this text`;

const OPTIONS = {
  jobs: { type: 'string' },
  only: { type: 'string' },
  out: { type: 'string' },
  seed: { type: 'string' },
  'notify-wait': { type: 'string' },
  concurrency: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** A non-negative integer option, or a usage error naming it. */
function integer(name: string, raw: string | undefined, fallback: number, min: number): number {
  if (raw === undefined) return fallback;
  const n = /^[0-9]+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < min) throw new Error(`--${name} must be an integer of at least ${min}, not '${raw}'`);
  return n;
}

/** Run the command with its arguments; returns the exit code. */
export async function selftestMain(argv: string[]): Promise<number> {
  let options: Parameters<typeof runSelftest>[0];
  let out: string;
  try {
    const { values } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false });
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    out = path.resolve(values.out ?? 'reports');
    options = {
      jobs: integer('jobs', values.jobs, SELFTEST_DEFAULTS.jobs, 1),
      only: (values.only ?? '').split(',').map((s) => s.trim()).filter(Boolean),
      seed: integer('seed', values.seed, SELFTEST_DEFAULTS.seed, 0),
      notifyWait: integer('notify-wait', values['notify-wait'], SELFTEST_DEFAULTS.notifyWait, 0),
      concurrency: integer('concurrency', values.concurrency, SELFTEST_DEFAULTS.concurrency, 1),
      onRun: (run, done, total) => console.error(`[${done}/${total}] ${run.name}: ${run.verdict} (${run.failed.length} failed checks, ${(run.durationMs / 1000).toFixed(1)} s)`),
    };
  } catch (error) {
    console.error(`pagi-conform selftest: ${(error as Error).message.split('\n')[0]}; run 'pagi-conform selftest --help' for the options.`);
    return 2;
  }
  try {
    const result = await runSelftest(options);
    console.log(selftestText(result));
    console.log(`report: ${path.relative(process.cwd(), writeSelftestJson(result, out)) || out}`);
    return result.score.passed ? 0 : 1;
  } catch (error) {
    console.error(`pagi-conform selftest: ${(error as Error).message}`);
    return 2;
  }
}
