/**
 * One point of the depth curve of `npm run bench:run`, in a process of its own so its maximum RSS is its own:
 * `run --depth N` against the embedded reference gateway (every family; the deep family at depth N), then the same
 * requests replayed by a plain HTTP client against a fresh gateway at the same concurrency. Prints one JSON line:
 * `{ depth, exchanges, kitMs, bareMs, ratio, maxRssMb, verdict }`. kitMs is the run's exchange phase (first request
 * sent to last answer received), the phase the replay repeats; runWallMs adds the start-up.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startGateway } from '../gateway/index.js';
import { resolveOptions } from '../src/config/load.js';
import type { ReplayRequest } from '../src/engine/client.js';
import { replay } from './replay.js';
import { runKit as runConformance } from '../src/kit.js';


const depth = Number(process.argv[2] ?? '0');
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'pagi-bench-depth-'));
const options = resolveOptions({ out, reporter: [], depth, seed: 1 }, {});
const started = performance.now();
const { result, replay: requests } = await runConformance(options, { captureReplay: true, reporters: [] });
const runWallMs = performance.now() - started;
const ordered = [...requests].sort((a, b) => a.sentAt - b.sentAt);
const firstSent = ordered[0]?.sentAt ?? 0;
const kitMs = Math.max(...ordered.map((r) => r.sentAt + r.durationMs)) - firstSent;

const gateway = await startGateway({ port: 0, host: '127.0.0.1' });
let bareMs: number;
try {
  bareMs = await replay(ordered, result.metadata.target.baseUrl, gateway.baseUrl, options.concurrency);
} finally {
  await gateway.close();
}
fs.rmSync(out, { recursive: true, force: true });
const line = {
  depth,
  exchanges: requests.length,
  kitMs: Math.round(kitMs),
  bareMs: Math.round(bareMs),
  ratio: Math.round((kitMs / bareMs) * 100) / 100,
  maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
  runWallMs: Math.round(runWallMs),
  verdict: result.verdict,
  failed: result.checks.filter((c) => c.status === 'failed').map((c) => `${c.operation}/${c.checkId}`),
};
console.log(JSON.stringify(line));
