/**
 * The latency part of `npm run bench:run` (also alone: `node bin/run-ts.js bench/latency.ts [concurrency…]`): the
 * default run against the embedded reference gateway behind a loopback proxy that holds every request RTT_MS before
 * passing it on, as a remote sandbox's round trip would. The proxy is transparent otherwise: the gateway is told its
 * public base URL is the proxy's (its pages and issuer_url point there, as a gateway behind a reverse proxy is
 * configured), and each request reaches the gateway from the address the kit sent it from (the query's
 * registered-address rule still sees the kit's unregistered address).
 *
 * The gateway and the proxy run in a process of their own (`bench/latency.ts serve RTT`), as a remote sandbox does not
 * share the kit's event loop: the proxy's delays and the gateway's work never wait for the kit's main thread.
 *
 * The latency floor of a run is what any scheduling of its requests needs at that concurrency:
 *   exchanges × RTT / concurrency   (every request waits one round trip, at most `concurrency` at once)
 * + the longest chain of dependent steps the run followed: its requests × RTT plus the waits for the target's
 *   notifications on it, measured from the run (each observation records which of its steps waited for which, see
 *   src/engine/chain.ts). The events family waits out the profile's notification retry schedule (and a grace for an
 *   attempt too many): that wait counts at most at its nominal length, so a wait a loaded machine stretches does not
 *   raise the floor.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Agent, request, type Dispatcher } from 'undici';
import { startGateway } from '../gateway/index.js';
import { resolveOptions } from '../src/config/load.js';
import { longestChain } from '../src/engine/chain.js';
import { loadProfile } from '../src/profile/load.js';
import { runKit } from '../src/kit.js';
import { GRACE_MS, retryDelays } from '../suites/probes/events.js';

/** The round trip the proxy adds to every request (ms). */
export const RTT_MS = 50;

/** A loopback reverse proxy answering each request `rttMs` after it arrived whole, plus the gateway's own time. */
async function delayingProxy(
  rttMs: number,
): Promise<{ url: string; upstream(url: string): void; close(): Promise<void> }> {
  let upstream = '';
  // One connection pool per source address: the gateway sees the address the kit sent from.
  const agents = new Map<string, Agent>();
  const agentFor = (address: string): Agent => {
    let agent = agents.get(address);
    if (!agent) agents.set(address, (agent = new Agent({ localAddress: address })));
    return agent;
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      setTimeout(() => {
        const headers = Object.fromEntries(
          Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'connection' && k !== 'content-length'),
        );
        const from = (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
        request(upstream + req.url, {
          method: req.method as Dispatcher.HttpMethod,
          headers,
          body: chunks.length ? Buffer.concat(chunks) : undefined,
          dispatcher: agentFor(from),
        })
          .then(async (r) => {
            const body = Buffer.from(await r.body.arrayBuffer());
            const out = Object.fromEntries(
              Object.entries(r.headers).filter(
                ([k]) => k !== 'connection' && k !== 'transfer-encoding' && k !== 'content-length',
              ),
            );
            res.writeHead(r.statusCode, { ...out, 'content-length': body.length });
            res.end(body);
          })
          .catch(() => {
            res.writeHead(502);
            res.end();
          });
      }, rttMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    upstream: (url) => void (upstream = url),
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([...agents.values()].map((a) => a.close()));
    },
  };
}

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

/** What the target process prints once it listens: the proxy's URL and the gateway's first merchant account. */
interface Served {
  url: string;
  merchantId: string;
  accountId: string;
  secret: string;
}

/** The target process: the reference gateway behind the delaying proxy, until its standard input closes. */
async function serve(rttMs: number): Promise<void> {
  const proxy = await delayingProxy(rttMs);
  const gateway = await startGateway({ port: 0, host: '127.0.0.1', baseUrl: proxy.url });
  proxy.upstream(gateway.url);
  const merchant = gateway.config.merchants[0]!;
  const account = merchant.accounts[0]!;
  const served: Served = {
    url: proxy.url,
    merchantId: merchant.merchantId,
    accountId: account.accountId,
    secret: account.secret,
  };
  process.stdout.write(`${JSON.stringify(served)}\n`);
  process.stdin.resume();
  process.stdin.once('close', () => void Promise.all([proxy.close(), gateway.close()]).then(() => process.exit(0)));
}

/** Start the target process; resolves once it listens. */
async function startTarget(rttMs: number): Promise<Served & { close(): Promise<void> }> {
  const child = spawn(
    process.execPath,
    [
      path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'run-ts.js'),
      'bench/latency.ts',
      'serve',
      String(rttMs),
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the latency target exited (${code}) before listening`)));
  });
  return {
    ...(JSON.parse(line) as Served),
    close: async () => {
      child.stdin!.end();
      await exited;
    },
  };
}

/** The default run behind a proxy adding `rttMs` per request, at `concurrency`. */
export async function behindProxy(concurrency: number, rttMs = RTT_MS): Promise<LatencyRun> {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'pagi-bench-latency-'));
  const target = await startTarget(rttMs);
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
    const { result, replay, chains } = await runKit(opts, { reporters: [], captureReplay: true });
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

if (
  process.argv[1] &&
  path.resolve(process.argv[1]) === fileURLToPath(import.meta.url) &&
  process.argv[2] === 'serve'
) {
  await serve(Number(process.argv[3]));
} else if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
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
