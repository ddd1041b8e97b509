/**
 * The latency part of `npm run bench:run` (also alone: `node bin/run-ts.js bench/latency.ts [concurrency…]`): the
 * default run against the embedded reference gateway behind a loopback proxy that holds every request RTT_MS before
 * passing it on, as a remote sandbox's round trip would. The proxy is transparent otherwise: the gateway is told its
 * public base URL is the proxy's (its pages and issuer_url point there, as a gateway behind a reverse proxy is
 * configured), and each request reaches the gateway from the address the kit sent it from (the query's
 * registered-address rule still sees the kit's unregistered address).
 *
 * The gateway and the proxy run in a process of their own (bench/target-process.ts), as a remote sandbox does not
 * share the kit's event loop: the proxy's delays and the gateway's work never wait for the kit's main thread.
 *
 * The latency floor of a run is what any scheduling of its requests needs at that concurrency:
 *   exchanges × RTT / concurrency   (every request waits one round trip, at most `concurrency` at once)
 * + the longest chain of dependent steps the run followed: its requests × RTT plus the waits for the target's
 *   notifications on it, measured from the run (each observation records which of its steps waited for which, see
 *   engine/chain.ts). The events family waits out the profile's notification retry schedule (and a grace for an
 *   attempt too many): that wait counts at most at its nominal length, so a wait a loaded machine stretches does not
 *   raise the floor.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveOptions } from '../core/config/load.js';
import { longestChain } from '../engine/chain.js';
import { loadProfile } from '../core/profile/load.js';
import { runKitInstrumented } from '../kit/kit.js';
import { GRACE_MS, retryDelays } from '../suites/probes/events.js';
import { startGatewayProcess } from './target-process.js';

/** The round trip the proxy adds to every request (ms). */
export const RTT_MS = 50;

/** One run behind the proxy, with its floor. */
export interface LatencyRun {
  concurrency: number;
  exchanges: number;
  wallMs: number;
  /** exchanges × RTT / concurrency + chainMs. */
  floorMs: number;
  ratio: number;
  /** The longest chain of dependent steps: its requests × RTT plus its waits for notifications (at most nominalWaitMs). */
  chainMs: number;
  /** The chain: its requests, its waits as measured, the observation (`probe@operation`) that followed it. */
  chain: { requests: number; waitMs: number; observation: string };
  /** The longest wait for notifications the profile schedules: its retry schedule plus the retry probe's grace. */
  nominalWaitMs: number;
  /** Run start to its first request (Node's share: vitest, its worker, spec, profile, pre-flight). */
  startUpMs: number;
  /** First request sent to last answer received. */
  exchangePhaseMs: number;
  /** CPU time of the kit's process during the run (all its threads; the target runs in another process). */
  kitCpuMs: number;
  verdict: string;
  failed: string[];
}

/** The default run behind a proxy adding `rttMs` per request, at `concurrency`. */
export async function behindProxy(concurrency: number, rttMs = RTT_MS): Promise<LatencyRun> {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'pagi-bench-latency-'));
  const target = await startGatewayProcess({ rttMs });
  try {
    const opts = resolveOptions(
      {
        out,
        reporter: [],
        concurrency,
        target: target.url,
        merchantId: target.merchantId,
        accountId: target.accountId,
        secret: target.secret,
        seed: 1,
      },
      {},
    );
    const startedAt = Date.now();
    const cpu = process.cpuUsage();
    const t = performance.now();
    const { result, replay, chains } = await runKitInstrumented(opts, { reporters: [] }, { captureReplay: true });
    const wallMs = Math.round(performance.now() - t);
    const { user, system } = process.cpuUsage(cpu);
    const firstSent = Math.min(...replay.map((r) => r.sentAt));
    const lastAnswer = Math.max(...replay.map((r) => r.sentAt + r.durationMs));
    const chain = longestChain(
      chains.map((c) => c.steps),
      rttMs,
    );
    const nominalWaitMs =
      retryDelays(loadProfile(opts.profile).profile.notifications.retry).reduce((a, b) => a + b, 0) + GRACE_MS;
    const chainMs = chain.requests * rttMs + Math.min(chain.waitMs, nominalWaitMs);
    const exchanges = result.totals.exchanges;
    const floorMs = Math.round((exchanges * rttMs) / concurrency + chainMs);
    return {
      concurrency,
      exchanges,
      wallMs,
      floorMs,
      ratio: Math.round((wallMs / floorMs) * 100) / 100,
      chainMs,
      chain: {
        requests: chain.requests,
        waitMs: chain.waitMs,
        observation: chains[chain.observation]?.observation ?? '',
      },
      nominalWaitMs,
      startUpMs: firstSent - startedAt,
      exchangePhaseMs: Math.round(lastAnswer - firstSent),
      kitCpuMs: Math.round((user + system) / 1000),
      verdict: result.verdict,
      failed: result.checks.filter((c) => c.status === 'failed').map((c) => `${c.operation}/${c.checkId}`),
    };
  } finally {
    await target.close();
    fs.rmSync(out, { recursive: true, force: true });
  }
}

/**
 * The latency scenario at each concurrency: `{ rttMs, runs }` as bench/results/run.json holds it, and the same run at
 * the highest concurrency through the proxy adding nothing (`zeroRtt`): what the run costs on this machine with no
 * latency to hide, the other bound of its wall time.
 */
export async function latencyScenario(concurrencies: readonly number[] = [4, 16]): Promise<{
  rttMs: number;
  runs: LatencyRun[];
  zeroRtt: Pick<LatencyRun, 'concurrency' | 'wallMs' | 'kitCpuMs' | 'verdict'>;
}> {
  const runs: LatencyRun[] = [];
  for (const concurrency of concurrencies) {
    const run = await behindProxy(concurrency);
    console.error(`latency ${RTT_MS} ms, concurrency ${concurrency}: ${JSON.stringify(run)}`);
    runs.push(run);
  }
  const { concurrency, wallMs, kitCpuMs, verdict } = await behindProxy(Math.max(...concurrencies), 0);
  console.error(`latency 0 ms, concurrency ${concurrency}: ${JSON.stringify({ wallMs, kitCpuMs, verdict })}`);
  return { rttMs: RTT_MS, runs, zeroRtt: { concurrency, wallMs, kitCpuMs, verdict } };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const given = process.argv
    .slice(2)
    .map(Number)
    .filter((n) => n > 0);
  const latency = await latencyScenario(given.length ? given : undefined);
  const met = latency.runs.every((r) => r.ratio <= 1.25);
  console.log(JSON.stringify({ latency, goal: 'ratio <= 1.25 at each concurrency', met }, null, 2));
  if (!given.length) {
    // Alone, with the default concurrencies: the latency part of bench/results/run.json is replaced, the rest kept.
    const file = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results', 'run.json');
    const report = JSON.parse(fs.readFileSync(file, 'utf8'));
    report.latency = {
      date: new Date().toISOString(),
      loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
      ...latency,
    };
    report.depthGoals = { ...report.depthGoals, latencyRatiosUnder1_25: met };
    fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`latency written to ${path.relative(process.cwd(), file)}`);
  }
}
