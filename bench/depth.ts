/**
 * One point of the depth curve of `npm run bench:run`, in a process of its own so its maximum RSS is its own:
 * `run --depth N` against the reference gateway in a process of its own (bench/target-process.ts; every family, the
 * deep family at depth N), then the same
 * requests replayed by a plain HTTP client against a fresh gateway at the same concurrency. The replayed payments
 * carry the kit's notify_url, so while the bare client replays them a bare merchant endpoint answers the gateway's
 * notifications at that address, as the kit's receiver answered them during the run: without it the gateway would
 * retry every notification against a closed port and spend its time on that (at depth 1000 the replay then took twice
 * as long). Prints one JSON line:
 * `{ depth, exchanges, kitMs, bareMs, ratio, maxRssMb, verdict }`. kitMs is the run's exchange phase (first request
 * sent to last answer received), the phase the replay repeats; runWallMs adds the start-up. kitCpuMs and bareCpuMs
 * are the CPU time of the whole process (every thread) in each phase, less sensitive than wall time to a busy machine.
 * The requests go to an encrypted replay file as they are answered (engine/replay-file.ts), and are replayed
 * from it in that order, so neither phase holds them all in memory.
 *
 * `node bin/run-ts.js bench/depth.ts N --record` also writes the point into bench/results/run.json (its `depth`
 * list, replacing a point of the same depth; the other figures of the file are kept).
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveOptions } from '../core/config/load.js';
import { newReplayFile, readReplayFile } from '../engine/replay-file.js';
import { replay } from './replay.js';
import { startGatewayProcess } from './target-process.js';
import { kitModule } from './startup.js';

const { runKitInstrumented } = await kitModule();

const depth = Number(process.argv[2] ?? '0');
const record = process.argv.includes('--record');
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'pagi-bench-depth-'));
const target = newReplayFile(path.join(out, 'replay.bin'));
// The gateway runs in a process of its own (as a vendor's sandbox would): maxRssMb is the kit's memory alone.
const served = await startGatewayProcess();
// The kit's receiver listens on a port chosen here, so the bare merchant can answer at the same notify_url.
const notifyPort = await new Promise<number>((resolve) => {
  const probe = http.createServer();
  probe.listen(0, '127.0.0.1', () => {
    const { port } = probe.address() as { port: number };
    probe.close(() => resolve(port));
  });
});
const options = resolveOptions(
  {
    notifyUrl: `http://127.0.0.1:${notifyPort}/notify`,
    notifyListen: `127.0.0.1:${notifyPort}`,
    out,
    reporter: [],
    depth,
    seed: 1,
    target: served.url,
    merchantId: served.merchantId,
    accountId: served.accountId,
    secret: served.secret,
  },
  {},
);
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const started = performance.now();
const cpuStarted = cpu();
const { result } = await runKitInstrumented(options, { reporters: [] }, { replayFile: target });
const runWallMs = performance.now() - started;
const runCpuMs = cpu() - cpuStarted;
const gatewayMaxRssMb = await served.close();

let exchanges = 0;
let firstSent = Infinity;
let lastAnswered = 0;
for (const r of readReplayFile(target)) {
  exchanges++;
  firstSent = Math.min(firstSent, r.sentAt);
  lastAnswered = Math.max(lastAnswered, r.sentAt + r.durationMs);
}
const kitMs = lastAnswered - firstSent;

// The bare merchant: reads each notification and answers 200, nothing more (its CPU counts in the bare client's).
let notificationsAnswered = 0;
const merchant = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    notificationsAnswered++;
    res.end();
  });
});
await new Promise<void>((resolve) => merchant.listen(notifyPort, '127.0.0.1', resolve));
const fresh = await startGatewayProcess();
let bareMs: number;
const cpuBare = cpu();
try {
  bareMs = await replay(readReplayFile(target), result.metadata.target.baseUrl, fresh.url, options.concurrency);
} finally {
  await fresh.close();
  await new Promise((resolve) => merchant.close(resolve));
}
const bareCpuMs = cpu() - cpuBare;
const perExchange = (ms: number) => Math.round((ms * 1000) / Math.max(1, exchanges));
fs.rmSync(out, { recursive: true, force: true });
const line = {
  depth,
  exchanges,
  kitMs: Math.round(kitMs),
  bareMs: Math.round(bareMs),
  ratio: Math.round((kitMs / bareMs) * 100) / 100,
  /** The kit's process (every thread); the gateway, in its own process, apart. */
  maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
  gatewayMaxRssMb,
  runWallMs: Math.round(runWallMs),
  /** CPU of the run (start-up included) and of the replay, every thread of the process. */
  kitCpuMs: Math.round(runCpuMs),
  bareCpuMs: Math.round(bareCpuMs),
  /** kit/bare in CPU time of this process (the gateway, in its own process, is in neither). */
  cpuRatio: Math.round((runCpuMs / bareCpuMs) * 100) / 100,
  /** The same per exchange, in µs (the kit's includes its start-up, which weighs less the deeper the run). */
  kitCpuUsPerExchange: perExchange(runCpuMs),
  bareCpuUsPerExchange: perExchange(bareCpuMs),
  /**
   * CPU of the gateway's process while it answered the kit and while it answered the bare client (start-up
   * included): on a machine whose cores the kit and the gateway share, the wall time follows kit + gateway CPU.
   */
  gatewayCpuMs: Math.round(served.cpuMs()),
  bareGatewayCpuMs: Math.round(fresh.cpuMs()),
  /** Notifications the bare merchant answered while the bare client replayed the run's requests. */
  bareNotificationsAnswered: notificationsAnswered,
  verdict: result.verdict,
  failed: result.checks.filter((c) => c.status === 'failed').map((c) => `${c.operation}/${c.checkId}`),
};
if (record) {
  const file = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results', 'run.json');
  const report = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    depth?: { depth: number }[];
    depthGoals?: Record<string, boolean>;
  };
  const points = [
    ...(report.depth ?? []).filter((p) => p.depth !== depth),
    { ...line, date: new Date().toISOString(), loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100) },
  ].sort((a, b) => a.depth - b.depth);
  report.depth = points;
  const deepest = points[points.length - 1] as { ratio?: number } | undefined;
  const { ratioAtDeepestUnder1_5: _, ...goals } = report.depthGoals ?? {};
  report.depthGoals = { ...goals, ratioAtDeepestUnder1_25: (deepest?.ratio ?? Infinity) <= 1.25 };
  fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
}
console.log(JSON.stringify(line));
