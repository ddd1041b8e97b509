/**
 * `npm run bench:run`: a full run against the embedded reference gateway (checks, exchanges, wall time), then the
 * same requests replayed by a plain HTTP client with no checks against a fresh gateway, at the same concurrency.
 * The overhead ratio is run wall time / replay wall time; the exchange-phase ratio leaves out the run's start-up
 * (from its first request sent to its last answer received). Also written: the start-up (run start to first request)
 * and the profile's notification retry schedule, which the events family observes in full whatever the kit's speed.
 * Last, what any run of the design costs before its checks: the no-check floor (bench/floor.ts, in a fresh
 * process: the same requests sent from one vitest test per check, in the run's vitest settings, nothing decoded or
 * checked; its wall time over the replay's is the least overhead ratio such a run can have), and the load of the HTML parser,
 * which reading the checkout page requires, timed on a fresh thread. Written to bench/results/run.json.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { startGateway } from '../gateway/index.js';
import { resolveOptions } from '../core/config/load.js';
import { loadProfile } from '../core/profile/load.js';
import type { ReplayRequest } from '../engine/client.js';
import { latencyScenario } from './latency.js';
import { replay } from './replay.js';
import { runKitInstrumented } from '../kit/kit.js';
import type { FloorInput } from './floor.js';
import { retryDelays } from '../suites/probes/events.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const RESULT_FILE = path.join(HERE, 'results', 'run.json');

/** The no-check floor (bench/floor.ts) in a fresh process: `tests` tests sending `requests` in their recorded order. */
function floor(
  requests: readonly ReplayRequest[],
  from: string,
  tests: number,
  concurrency: number,
  dir: string,
): { ms: number; failed: number } {
  const ordered = [...requests].sort((a, b) => a.sentAt - b.sentAt);
  const input: FloorInput = {
    concurrency,
    tests: Array.from({ length: tests }, (_, i) =>
      ordered
        .slice(Math.floor((i * ordered.length) / tests), Math.floor(((i + 1) * ordered.length) / tests))
        .map((r) => ({
          method: r.method,
          path: r.url.slice(from.length),
          headers: r.headers,
          bodyText: r.bodyText,
          ...(r.localAddress ? { localAddress: r.localAddress } : {}),
        })),
    ),
  };
  const file = path.join(dir, 'floor-input.json');
  fs.writeFileSync(file, JSON.stringify(input));
  const printed = execFileSync(process.execPath, [path.join(HERE, '..', 'bin', 'run-ts.js'), 'bench/floor.ts', file], {
    encoding: 'utf8',
  });
  return JSON.parse(printed.trim().split('\n').pop()!);
}

/** Milliseconds to import the HTML parser's packages on a fresh thread, as the kit's HTML reader thread does first. */
function htmlParserLoad(): Promise<number> {
  const code = `const t = performance.now(); await Promise.all([import('parse5'), import('parse5-htmlparser2-tree-adapter'), import('css-select')]); (await import('node:worker_threads')).parentPort.postMessage(performance.now() - t);`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(code, { eval: true });
    worker.once('message', (ms: number) => void worker.terminate().then(() => resolve(ms)));
    worker.once('error', reject);
  });
}

const out = fs.mkdtempSync(path.join(os.tmpdir(), 'pagi-bench-'));
const options = resolveOptions({ out, reporter: [] }, {});
const startedAt = Date.now();
const started = performance.now();
const { result, replay: requests } = await runKitInstrumented(options, { reporters: [] }, { captureReplay: true });
const runMs = performance.now() - started;

const gateway = await startGateway({ port: 0, host: '127.0.0.1' });
let replayMs: number;
try {
  replayMs = await replay(requests, result.metadata.target.baseUrl, gateway.baseUrl, options.concurrency);
} finally {
  await gateway.close();
}

const floorRun = floor(requests, result.metadata.target.baseUrl, result.totals.checks, options.concurrency, out);
if (floorRun.failed) throw new Error(`the no-check floor run had ${floorRun.failed} failed tests`);
const htmlParserLoadMs = await htmlParserLoad();

const firstSent = Math.min(...requests.map((r) => r.sentAt));
const exchangePhaseMs = Math.max(...requests.map((r) => r.sentAt + r.durationMs)) - firstSent;
// What the run must wait for whatever its speed: the notification retries the profile schedules (the events family
// observes every attempt of an unacknowledged notification).
const retryScheduleMs = retryDelays(loadProfile(options.profile).profile.notifications.retry).reduce(
  (a, b) => a + b,
  0,
);
const report: Record<string, unknown> = {
  date: new Date().toISOString(),
  node: process.version,
  cpus: os.cpus().length,
  loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
  verdict: result.verdict,
  checks: result.totals.checks,
  exchanges: result.totals.exchanges,
  concurrency: options.concurrency,
  runWallMs: Math.round(runMs),
  /** From the run's start to its first request: Node, vitest and its worker, spec, profile and gateway. */
  startUpMs: firstSent - startedAt,
  exchangePhaseMs: Math.round(exchangePhaseMs),
  retryScheduleMs,
  replayWallMs: Math.round(replayMs),
  overheadRatio: Math.round((runMs / replayMs) * 100) / 100,
  exchangePhaseRatio: Math.round((exchangePhaseMs / replayMs) * 100) / 100,
  /** Gateway start plus the same requests from one vitest test per check, nothing decoded or checked. */
  floorWallMs: Math.round(floorRun.ms),
  floorRatio: Math.round((floorRun.ms / replayMs) * 100) / 100,
  /** Importing the checkout page's parser on an idle thread: CPU a run spends beside the floor. */
  htmlParserLoadMs: Math.round(htmlParserLoadMs),
  goals: {
    runUnder10s: runMs < 10_000,
    overheadRatioUnder3: runMs / replayMs < 3,
    floorRatioUnder3: floorRun.ms / replayMs < 3,
  },
};

// ------------------------------------------------------------------ depth curve: --depth N, each in its own process
/** Depths of the curve (PAGI_BENCH_DEPTHS=0,100 for a shorter bench). */
const DEPTHS = (process.env.PAGI_BENCH_DEPTHS ?? '0,100,1000,10000').split(',').map(Number);
const depth: {
  depth: number;
  exchanges: number;
  kitMs: number;
  bareMs: number;
  ratio: number;
  maxRssMb: number;
  runWallMs: number;
  verdict: string;
}[] = [];
for (const d of DEPTHS) {
  const printed = execFileSync(
    process.execPath,
    [path.join(HERE, '..', 'bin', 'run-ts.js'), 'bench/depth.ts', String(d)],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const point = JSON.parse(printed.trim().split('\n').pop()!);
  depth.push(point);
  console.error(`depth ${d}: ${JSON.stringify(point)}`);
}

// ------------------------------------------------------------------ latency: the default run behind a 50 ms proxy
// bench/latency.ts: a transparent proxy adding RTT_MS per request; floor = exchanges × RTT / concurrency + the longest
// chain of dependent steps the run followed (its requests × RTT plus its waits for notifications).
const latency = await latencyScenario([4, 16]);
const latencyRuns = latency.runs;
Object.assign(report, {
  depth,
  latency,
  depthGoals: {
    ratioAtDeepestUnder1_25: (depth[depth.length - 1]?.ratio ?? Infinity) <= 1.25,
    latencyRatiosUnder1_25: latencyRuns.every((r) => r.ratio <= 1.25),
  },
});

fs.mkdirSync(path.dirname(RESULT_FILE), { recursive: true });
fs.writeFileSync(RESULT_FILE, `${JSON.stringify(report, null, 2)}\n`);
console.log(JSON.stringify(report, null, 2));
console.log(`written to ${path.relative(process.cwd(), RESULT_FILE)}`);
