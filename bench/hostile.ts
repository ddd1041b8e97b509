/**
 * `npm run bench:hostile`: the same full run (every check, every reporter, the matrix's short timeouts) against the
 * clean reference gateway and against every hostile mode of test/hostile/server.ts, one kit process at a time, each
 * measured for its peak resident set size (all threads, through test/hostile/rss.mjs) and wall time. Goals per mode:
 * peak RSS at most 1.25 times the clean run's, and wall time at most the clean run's plus 3 request timeouts per
 * operation. Prints a table and writes bench/results/hostile.json. `--only MODE,...` measures some modes only.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { kitSpec } from '../core/spec/load.js';
import { HOSTILE_ARGS, runKit } from '../test/hostile/run.js';
import { MODES, startHostile, type Mode } from '../test/hostile/server.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const RESULT_FILE = path.join(HERE, 'results', 'hostile.json');
const RSS_FACTOR = 1.25;
const TIMEOUTS_PER_OPERATION = 3;

const onlyArg = process.argv.indexOf('--only');
const wanted = onlyArg > 0 ? (process.argv[onlyArg + 1] ?? '').split(',') : [];
const modes = MODES.filter((m) => m !== 'clean' && (!wanted.length || wanted.includes(m)));
const timeoutMs = Number(HOSTILE_ARGS[HOSTILE_ARGS.indexOf('--timeout') + 1]);
const operations = kitSpec().operations.size;

interface Row {
  mode: Mode;
  exitCode: number;
  verdict: string;
  maxRssMb: number;
  wallMs: number;
  rssRatio?: number;
  wallBoundMs?: number;
  rssWithinGoal?: boolean;
  wallWithinGoal?: boolean;
}

async function measure(mode: Mode): Promise<Row> {
  const target = await startHostile(mode);
  try {
    const run = await runKit(target, HOSTILE_ARGS);
    let verdict = '(no results.json)';
    try {
      verdict = JSON.parse(fs.readFileSync(path.join(run.out, 'results.json'), 'utf8')).verdict;
    } catch {
      // reported as is
    }
    fs.rmSync(run.out, { recursive: true, force: true });
    return {
      mode,
      exitCode: run.code,
      verdict,
      maxRssMb: Math.round(run.rssKb / 1024),
      wallMs: Math.round(run.wallMs),
    };
  } finally {
    // A hostile server that will not close is left behind after 10 s (the timer keeps this process waiting for it).
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([target.close(), new Promise<void>((resolve) => (timer = setTimeout(resolve, 10_000)))]);
    clearTimeout(timer);
  }
}

const clean = await measure('clean');
const wallBoundMs = clean.wallMs + TIMEOUTS_PER_OPERATION * timeoutMs * operations;
const rows: Row[] = [];
for (const mode of modes) {
  const row = await measure(mode);
  row.rssRatio = Math.round((row.maxRssMb / clean.maxRssMb) * 100) / 100;
  row.wallBoundMs = wallBoundMs;
  row.rssWithinGoal = row.maxRssMb <= clean.maxRssMb * RSS_FACTOR;
  row.wallWithinGoal = row.wallMs <= wallBoundMs;
  rows.push(row);
  console.error(`${mode}: ${row.maxRssMb} MB, ${row.wallMs} ms, exit ${row.exitCode}`);
}

const report = {
  date: new Date().toISOString(),
  node: process.version,
  cpus: os.cpus().length,
  loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
  options: HOSTILE_ARGS.join(' '),
  goals: {
    rss: `max RSS <= ${RSS_FACTOR} x clean (${Math.round(clean.maxRssMb * RSS_FACTOR)} MB)`,
    wall: `wall <= clean + ${TIMEOUTS_PER_OPERATION} x ${timeoutMs} ms x ${operations} operations (${wallBoundMs} ms)`,
  },
  clean: { exitCode: clean.exitCode, verdict: clean.verdict, maxRssMb: clean.maxRssMb, wallMs: clean.wallMs },
  modes: rows,
  allWithinGoals: rows.every((r) => r.rssWithinGoal && r.wallWithinGoal),
};

const pad = (s: string | number, n: number) => String(s).padEnd(n);
const lines = [
  `${pad('mode', 26)}${pad('exit', 6)}${pad('verdict', 16)}${pad('max RSS MB', 12)}${pad('x clean', 9)}${pad('wall ms', 10)}goals`,
  `${pad('clean', 26)}${pad(clean.exitCode, 6)}${pad(clean.verdict, 16)}${pad(clean.maxRssMb, 12)}${pad('1.00', 9)}${pad(clean.wallMs, 10)}(reference)`,
  ...rows.map(
    (r) =>
      `${pad(r.mode, 26)}${pad(r.exitCode, 6)}${pad(r.verdict, 16)}${pad(r.maxRssMb, 12)}${pad(r.rssRatio!.toFixed(2), 9)}${pad(r.wallMs, 10)}${r.rssWithinGoal ? 'rss ok' : 'RSS OVER'}, ${r.wallWithinGoal ? 'wall ok' : 'WALL OVER'}`,
  ),
  '',
  `goals: ${report.goals.rss}; ${report.goals.wall}`,
  `all modes within the goals: ${report.allWithinGoals}`,
];
fs.mkdirSync(path.dirname(RESULT_FILE), { recursive: true });
fs.writeFileSync(RESULT_FILE, `${JSON.stringify(report, null, 2)}\n`);
console.log(lines.join('\n'));
console.log(`written to ${path.relative(process.cwd(), RESULT_FILE)}`);
