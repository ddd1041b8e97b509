/**
 * Benchmark of the reference gateway on loopback (`npm run bench:gateway`): requests per second and p50/p99
 * latency of a direct payment, a 50-item capture and a checkout page. The gateway runs in a child process (so
 * the load generator does not share its event loop), started in-process there with no request log. Writes
 * bench/results/gateway.json and prints a table.
 *
 * Goal on a 2-core machine: at least 5,000 direct payments per second with p99 at most 10 ms.
 *
 * Environment: BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (default 10), BENCH_ONLY (run only the scenarios
 * whose name starts with it, e.g. `direct`), BENCH_CHILD_ARGS (extra node flags for the gateway process, e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it under load).
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { loadProfile } from '../src/profile/load.js';
import { sign } from '../src/signing.js';
import { KIT_ROOT } from '../src/spec/paths.js';
import { kitSpec } from '../src/spec/load.js';
import type { OperationKey } from '../src/model.js';

/** The parts of autocannon's programmatic API used here (the package ships no type declarations). */
interface LoadResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
type Autocannon = (options: { url: string; method: string; headers: Record<string, string>; body: string; connections: number; duration: number }) => Promise<LoadResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const HERE = fileURLToPath(import.meta.url);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

/** Child mode: start the gateway, print its URL, stop when stdin closes. */
async function child(): Promise<void> {
  const { startGateway } = await import('../gateway/index.js');
  const gw = await startGateway({ port: 0 });
  process.stdout.write(`${JSON.stringify({ url: gw.url })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => void gw.close().then(() => process.exit(0)));
}

const { profile } = loadProfile('reference');
const config = parseYaml(fs.readFileSync(path.join(KIT_ROOT, 'gateway', 'config.default.yaml'), 'utf8'));
const merchant = config.merchants[0];
const account = merchant.accounts[0];
const spec = kitSpec();

function example(name: string): Record<string, any> {
  return parseYaml(fs.readFileSync(path.join(KIT_ROOT, 'spec', 'examples', `${name}.yaml`), 'utf8')).value;
}

function signed(op: OperationKey, body: Record<string, unknown>): string {
  const { encryption_data: _example, notify_url: _notify, ...rest } = body;
  return JSON.stringify({ ...rest, encryption_data: sign(profile.signature, 'request', op, rest, account.secret) });
}

function directBody(orderNo: string): string {
  const card = profile.fields.card;
  return signed('authoriseDirect', {
    ...example('authorise-direct-request'),
    order_no: orderNo,
    [card.number]: profile.payments.testCards.approve[0],
    [card.expiryMonth]: '12',
    [card.expiryYear]: String(new Date().getUTCFullYear() + 2),
    [card.securityCode]: '123',
  });
}

async function post(url: string, body: string): Promise<string> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return res.text();
}

interface Scenario {
  name: string;
  path: string;
  body: string;
}

/** CPU time (user + system, ms) a process used so far, from /proc (Linux); undefined elsewhere. */
function cpuMs(pid: number): number | undefined {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 1/100 s
  } catch {
    return undefined;
  }
}

interface Row {
  scenario: string;
  connections: number;
  durationS: number;
  requests: number;
  requestsPerSec: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyMaxMs: number;
  non2xx: number;
  errors: number;
  /** Gateway CPU time per request (µs): what one free core would need per request, whatever the machine's load. */
  gatewayCpuUsPerRequest?: number;
}

function run(url: string, s: Scenario, duration: number): Promise<LoadResult> {
  return autocannon({ url: url + s.path, method: 'POST', headers: { 'content-type': 'application/json' }, body: s.body, connections: CONNECTIONS, duration });
}

async function main(): Promise<void> {
  const proc = spawn(process.execPath, [...(process.env.BENCH_CHILD_ARGS ?? '').split(' ').filter(Boolean), '--import', 'tsx', HERE, '--child'], { cwd: KIT_ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    proc.stdout.once('data', (chunk: Buffer) => resolve(JSON.parse(chunk.toString()).url));
    proc.once('exit', (code) => reject(new Error(`gateway exited with ${code}`)));
  });
  const loadAverageAtStart = os.loadavg().map((l) => Number(l.toFixed(2)));
  try {
    // 50 authorised payments for the capture batch. The first capture request captures them; the following ones
    // run the same path (validation, signature, 50 look-ups and checks, 50 results, response signature) and
    // answer each item with the profile's alreadyCaptured failure.
    const items = [];
    for (let i = 0; i < spec.operations.get('capture')!.batch!.maxItems; i++) {
      const orderNo = `BENCH-CAP-${i}`;
      const xml = await post(`${url}/v1/authorise`, directBody(orderNo));
      const transactionId = /<transaction_id>([^<]+)</.exec(xml)![1];
      items.push({ transaction_id: transactionId, order_no: orderNo, currency: 'USD', amount: '111.89' });
    }
    const scenarios: Scenario[] = [
      { name: 'direct payment', path: '/v1/authorise', body: directBody('BENCH-DIRECT') },
      { name: 'capture (50 items)', path: '/v1/capture', body: signed('capture', { merchant_id: merchant.merchantId, account_id: account.accountId, capture_orders: items }) },
      { name: 'checkout page', path: '/v1/checkout', body: signed('checkout', { ...example('checkout-request'), order_no: 'BENCH-CHECKOUT' }) },
    ];
    const rows: Row[] = [];
    for (const s of scenarios.filter((x) => !process.env.BENCH_ONLY || x.name.startsWith(process.env.BENCH_ONLY))) {
      await run(url, s, 2); // warm-up
      const cpuBefore = cpuMs(proc.pid!);
      const r = await run(url, s, DURATION_S);
      const cpuAfter = cpuMs(proc.pid!);
      rows.push({
        scenario: s.name,
        connections: CONNECTIONS,
        durationS: DURATION_S,
        requests: r.requests.total,
        requestsPerSec: Math.round(r.requests.average),
        latencyP50Ms: r.latency.p50,
        latencyP99Ms: r.latency.p99,
        latencyMaxMs: r.latency.max,
        non2xx: r.non2xx,
        errors: r.errors + r.timeouts,
        gatewayCpuUsPerRequest: cpuBefore === undefined || cpuAfter === undefined ? undefined : Math.round(((cpuAfter - cpuBefore) * 1000) / r.requests.total),
      });
    }
    const out = {
      date: new Date().toISOString(),
      node: process.version,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      loadAverageAtStart,
      loadAverageAtEnd: os.loadavg().map((l) => Number(l.toFixed(2))),
      goal: { directPaymentsPerSec: 5000, directP99Ms: 10 },
      results: rows,
    };
    fs.mkdirSync(path.join(KIT_ROOT, 'bench', 'results'), { recursive: true });
    fs.writeFileSync(path.join(KIT_ROOT, 'bench', 'results', 'gateway.json'), `${JSON.stringify(out, null, 2)}\n`);
    console.table(
      rows.map((r) => ({
        scenario: r.scenario,
        'req/s': r.requestsPerSec,
        'p50 ms': r.latencyP50Ms,
        'p99 ms': r.latencyP99Ms,
        'max ms': r.latencyMaxMs,
        non2xx: r.non2xx,
        errors: r.errors,
        'gateway CPU µs/req': r.gatewayCpuUsPerRequest ?? '-',
      })),
    );
    console.log(`load average at start ${loadAverageAtStart.join(' ')}, at end ${out.loadAverageAtEnd.join(' ')} (${out.cpus} CPUs)`);
    const direct = rows[0]!;
    const met = direct.requestsPerSec >= out.goal.directPaymentsPerSec && direct.latencyP99Ms <= out.goal.directP99Ms;
    console.log(`direct payment goal (>= ${out.goal.directPaymentsPerSec}/s, p99 <= ${out.goal.directP99Ms} ms): ${met ? 'met' : 'NOT met'}`);
  } finally {
    proc.stdin.end();
  }
}

await (process.argv.includes('--child') ? child() : main());
