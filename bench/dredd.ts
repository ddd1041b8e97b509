/**
 * `npm run bench:dredd`: the kit's full run side by side with the quickest generic contract-testing tool installable
 * here, Dredd 14.1, doing its examples-only run, both against the same independent gateway process (the reference
 * gateway in a process of its own, bench/target-process.ts: not the kit's embedded one), measured alternately, RUNS
 * pairs (PAGI_BENCH_RUNS, default 5). Dredd reads a hand-written OpenAPI 3.0 copy of the operations
 * (bench/dredd/pagi-openapi-3.0.yaml: Dredd reads no OpenAPI 3.1) with hooks signing each request
 * (bench/dredd/hooks.cjs). The kit runs as a user starts it: `pagi-conform run --target URL` in a fresh process
 * (compiled when built, bin/launch.js). Each wall time is from spawn to exit.
 *
 * Dredd is not a dependency of the kit: it is installed on demand, once, into a cache folder outside the repository
 * (PAGI_BENCH_CACHE, default ~/.cache/pagi-bench: `npm install --prefix <cache>/dredd dredd@14.1.0`). Written to
 * bench/results/dredd.json with the load average. PAGI_BENCH_DEBUG=FILE keeps Dredd's last output there.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startGatewayProcess, type GatewayProcess } from './target-process.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..');
const RESULT_FILE = path.join(HERE, 'results', 'dredd.json');
const DREDD_VERSION = '14.1.0';
const CACHE = process.env.PAGI_BENCH_CACHE ?? path.join(os.homedir(), '.cache', 'pagi-bench');
const RUNS = Number(process.env.PAGI_BENCH_RUNS ?? 5);

/** Dredd's command, installed into the cache folder first when it is not there. */
function dreddBin(): string {
  const prefix = path.join(CACHE, 'dredd');
  const bin = path.join(prefix, 'node_modules', '.bin', 'dredd');
  if (!fs.existsSync(bin)) {
    console.error(`installing dredd@${DREDD_VERSION} into ${prefix} (once)`);
    execFileSync('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', `dredd@${DREDD_VERSION}`], {
      stdio: 'inherit',
    });
  }
  return bin;
}

/** One timed run of a command: wall time from spawn to exit, and what it printed. */
function timed(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): { ms: number; status: number | null; stdout: string; stderr: string } {
  const started = performance.now();
  const child = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', env, maxBuffer: 64 * 1024 * 1024 });
  return {
    ms: Math.round(performance.now() - started),
    status: child.status,
    stdout: child.stdout,
    stderr: child.stderr,
  };
}

/** The environment of a child: the gateway's account, no vitest variables of a parent test run. */
function childEnv(gateway: GatewayProcess): NodeJS.ProcessEnv {
  return {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST'))),
    PAGI_MERCHANT_ID: gateway.merchantId,
    PAGI_ACCOUNT_ID: gateway.accountId,
    PAGI_SECRET: gateway.secret,
  };
}

/** The kit's full run against the gateway: wall time, checks, exchanges, verdict. */
function kitRun(gateway: GatewayProcess) {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'pagi-bench-dredd-kit-'));
  try {
    const run = timed(
      process.execPath,
      [path.join(ROOT, 'bin', 'pagi-conform.js'), 'run', '--target', gateway.url, '--reporter', 'json', '--out', out],
      childEnv(gateway),
    );
    if (run.status === null || run.status > 1) throw new Error(`the kit's run failed (${run.status}): ${run.stderr}`);
    const results = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'));
    return {
      ms: run.ms,
      checks: results.totals.checks as number,
      exchanges: results.totals.exchanges as number,
      verdict: results.verdict as string,
    };
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

/** Dredd's examples-only run against the gateway: wall time, tests, passes and failures (its summary line). */
function dreddRun(bin: string, gateway: GatewayProcess) {
  const run = timed(
    bin,
    [
      path.join(HERE, 'dredd', 'pagi-openapi-3.0.yaml'),
      gateway.url,
      `--hookfiles=${path.join(HERE, 'dredd', 'hooks.cjs')}`,
      '--loglevel=warning',
      '--color=false',
    ],
    childEnv(gateway),
  );
  const text = `${run.stdout}\n${run.stderr}`;
  if (process.env.PAGI_BENCH_DEBUG) fs.writeFileSync(process.env.PAGI_BENCH_DEBUG, text);
  const summary = /complete: (\d+ passing.* total)/.exec(text)?.[1] ?? '';
  const count = (word: string) => Number(new RegExp(`(\\d+) ${word}`).exec(summary)?.[1] ?? 0);
  const tests = count('passing') + count('failing') + count('errors') + count('skipped');
  if (!tests) throw new Error(`Dredd ran no test (exit ${run.status}): ${text.slice(-2000)}`);
  return { ms: run.ms, tests, passing: count('passing'), failing: count('failing'), errors: count('errors'), summary };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const bin = dreddBin();
const loadBefore = os.loadavg();
const gateway = await startGatewayProcess();
const kit: ReturnType<typeof kitRun>[] = [];
const dredd: ReturnType<typeof dreddRun>[] = [];
try {
  // Alternately, the kit first in odd pairs and Dredd first in even ones: neither always runs on a warmer machine.
  for (let i = 0; i < RUNS; i++) {
    if (i % 2 === 0) {
      kit.push(kitRun(gateway));
      dredd.push(dreddRun(bin, gateway));
    } else {
      dredd.push(dreddRun(bin, gateway));
      kit.push(kitRun(gateway));
    }
    console.error(`pair ${i + 1}: kit ${kit.at(-1)!.ms} ms, dredd ${dredd.at(-1)!.ms} ms`);
  }
} finally {
  await gateway.close();
}
const round = (l: number) => Math.round(l * 100) / 100;
const kitMs = median(kit.map((r) => r.ms));
const dreddMs = median(dredd.map((r) => r.ms));
const report = {
  date: new Date().toISOString(),
  node: process.version,
  cpus: os.cpus().length,
  loadAverage: { before: loadBefore.map(round), after: os.loadavg().map(round) },
  pairs: RUNS,
  gateway: 'the reference gateway in a process of its own (bench/target-process.ts)',
  kit: {
    command: 'pagi-conform run --target URL --reporter json',
    medianWallMs: kitMs,
    wallMs: kit.map((r) => r.ms),
    checks: kit[0]!.checks,
    exchanges: kit[0]!.exchanges,
    verdict: kit[0]!.verdict,
  },
  dredd: {
    version: DREDD_VERSION,
    installedIn: path.join(CACHE, 'dredd'),
    description: 'examples-only run of bench/dredd/pagi-openapi-3.0.yaml, requests signed by bench/dredd/hooks.cjs',
    medianWallMs: dreddMs,
    wallMs: dredd.map((r) => r.ms),
    tests: dredd[0]!.tests,
    passing: dredd[0]!.passing,
    failing: dredd[0]!.failing,
    errors: dredd[0]!.errors,
  },
  kitToDreddRatio: round(kitMs / dreddMs),
  goals: { kitNoSlowerThanDredd: kitMs <= dreddMs },
};
fs.mkdirSync(path.dirname(RESULT_FILE), { recursive: true });
fs.writeFileSync(RESULT_FILE, `${JSON.stringify(report, null, 2)}\n`);
console.log(JSON.stringify(report, null, 2));
console.log(`written to ${path.relative(process.cwd(), RESULT_FILE)}`);
