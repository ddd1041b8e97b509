/**
 * Benchmark of the reference gateway on loopback (`npm run bench:gateway`): requests per second and p50/p99
 * latency of a direct payment (at 10, 100 and 1000 connections), a 50-item capture, a checkout page, the refusal
 * of a form of 100,000 fields (refused before it is parsed), and memory over a long full-load run (direct payments
 * and checkout pages, so that both the payment and the session caps are reached; the gateway's heap and RSS after
 * a forced GC, sampled), and a restart of `--data` with 10,000 notifications pending (when the first payment is
 * answered after listening). The gateway runs in a child process (so the load generator does not share its event
 * loop), started in-process there with no request log. Writes bench/results/gateway.json (rows of the scenarios
 * run replace the same rows of the file; others are kept) and prints a table.
 *
 * Goals on a 2-core machine: at least 5,000 direct payments per second with p99 at most 10 ms at 10
 * connections; the 100,000-field form refused in under 20 ms; memory flat once the caps are reached; after a restart
 * with 10,000 notifications pending, the first payment answered within 1 s of listening.
 *
 * Environment: BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (default 10), BENCH_SCALE_CONNECTIONS (default
 * `100,1000`: the direct payment again at these), BENCH_MEMORY_S (length of the memory run, s, default 600),
 * BENCH_MEMORY_SAMPLE_S (default 30), BENCH_ONLY (run only the scenarios whose name starts with it, e.g. `direct`,
 * `memory`, `form`, `restart`), BENCH_CHILD_ARGS (extra node flags for the gateway process, e.g. `--cpu-prof
 * --cpu-prof-dir=/tmp/prof` to profile it under load).
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { loadProfile } from '../core/profile/load.js';
import { sign } from '../core/signing.js';
import { KIT_ROOT } from '../core/spec/paths.js';
import { kitSpec } from '../core/spec/load.js';
import type { OperationKey } from '../core/model.js';

/** The parts of autocannon's programmatic API used here (the package ships no type declarations). */
interface LoadResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodeStats?: Record<string, { count: number }>;
}
interface LoadRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}
type Autocannon = (options: {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  requests?: LoadRequest[];
  connections: number;
  duration: number;
}) => Promise<LoadResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const HERE = fileURLToPath(import.meta.url);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const SCALE_CONNECTIONS = (process.env.BENCH_SCALE_CONNECTIONS ?? '100,1000').split(',').filter(Boolean).map(Number);
const MEMORY_S = Number(process.env.BENCH_MEMORY_S ?? 600);
const MEMORY_SAMPLE_S = Number(process.env.BENCH_MEMORY_SAMPLE_S ?? 30);

/**
 * Child mode: start the gateway (notifications off: the examples' notify_url is not on loopback), print its URL;
 * on each stdin line `sample`, force a GC and print the memory and the state's counts; stop when stdin closes.
 */
async function child(): Promise<void> {
  const { startGateway } = await import('../gateway/index.js');
  const data = process.argv.indexOf('--data');
  const database = process.argv.indexOf('--database');
  const gw = await startGateway({
    database: database > 0 ? process.argv[database + 1] : undefined,
    port: 0,
    config: {
      notifications: { enabled: process.argv.includes('--notify') },
      ...(process.argv.includes('--sync') ? { store: { syncWrites: true } } : {}),
    },
    dataDir: data > 0 ? process.argv[data + 1] : undefined,
  });
  process.stdout.write(`${JSON.stringify({ url: gw.url })}\n`);
  const gc = (globalThis as { gc?: () => void }).gc;
  let buffered = '';
  process.stdin.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
      buffered = buffered.slice(nl + 1);
      gc?.();
      const m = process.memoryUsage();
      process.stdout.write(
        `${JSON.stringify({ rssMb: mb(m.rss), heapUsedMb: mb(m.heapUsed), counts: gw.counts(), evicted: gw.evictions() })}\n`,
      );
    }
  });
  process.stdin.on('end', () => void gw.close().then(() => process.exit(0)));
}

function mb(bytes: number): number {
  return Math.round((bytes / 1048576) * 10) / 10;
}

const { profile } = loadProfile('reference');
const config = parseYaml(fs.readFileSync(path.join(KIT_ROOT, 'gateway', 'config.default.yaml'), 'utf8'));
const merchant = config.merchants[0];
const account = merchant.accounts[0];
const spec = kitSpec();

function example(name: string): Record<string, any> {
  return parseYaml(fs.readFileSync(path.join(KIT_ROOT, 'spec', 'examples', `${name}.yaml`), 'utf8')).value;
}

/** The example signed anew; its notify_url stays (a payment carries one), and the gateway here sends no notification. */
function signed(op: OperationKey, body: Record<string, unknown>): string {
  const { encryption_data: _example, ...rest } = body;
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
  connections?: number;
  contentType?: string;
  /** Refusals expected (the scenario measures a refusal). */
  refused?: boolean;
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
  date?: string;
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
  return autocannon({
    url: url + s.path,
    method: 'POST',
    headers: { 'content-type': s.contentType ?? 'application/json' },
    body: s.body,
    connections: s.connections ?? CONNECTIONS,
    duration,
  });
}

/** One memory sample of the gateway child (after a forced GC). */
interface MemorySample {
  atS: number;
  rssMb: number;
  heapUsedMb: number;
  counts: { transactions: number; sessions: number };
  evicted: { transactions: number; sessions: number };
}

const selected = (name: string) =>
  !process.env.BENCH_ONLY || process.env.BENCH_ONLY.split(',').some((prefix) => name.startsWith(prefix));

/** The gateway in a child process (its state in `dataDir` when given); its URL once it listens. */
async function startChild(dataDir?: string, sync = false, notify = false, database?: string) {
  const proc = spawn(
    process.execPath,
    [
      '--expose-gc',
      ...(process.env.BENCH_CHILD_ARGS ?? '').split(' ').filter(Boolean),
      '--import',
      'tsx',
      HERE,
      '--child',
      ...(dataDir ? ['--data', dataDir] : []),
      ...(sync ? ['--sync'] : []),
      ...(notify ? ['--notify'] : []),
      ...(database ? ['--database', database] : []),
    ],
    {
      cwd: KIT_ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const lines: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  let pending = '';
  proc.stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    for (let nl = pending.indexOf('\n'); nl !== -1; nl = pending.indexOf('\n')) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      const w = waiting.shift();
      if (w) w(line);
      else lines.push(line);
    }
  });
  const nextLine = () =>
    new Promise<string>((resolve) => (lines.length ? resolve(lines.shift()!) : waiting.push(resolve)));
  const url = await Promise.race([
    nextLine().then((line) => JSON.parse(line).url as string),
    new Promise<never>((_, reject) => proc.once('exit', (code) => reject(new Error(`gateway exited with ${code}`)))),
  ]);
  const stopped = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const stop = () => {
    proc.stdin.end();
    return stopped;
  };
  return { proc, url, nextLine, stop };
}

/** One scenario's row: a warm-up, then the measured run, with the gateway process's CPU per request. */
async function measure(url: string, pid: number, s: Scenario): Promise<Row> {
  await run(url, s, 2); // warm-up
  const cpuBefore = cpuMs(pid);
  const r = await run(url, s, DURATION_S);
  const cpuAfter = cpuMs(pid);
  if (s.refused && r.non2xx !== r.requests.total)
    throw new Error(`${s.name}: ${r.requests.total - r.non2xx} requests were not refused`);
  return {
    scenario: s.name,
    date: new Date().toISOString(),
    connections: s.connections ?? CONNECTIONS,
    durationS: DURATION_S,
    requests: r.requests.total,
    requestsPerSec: Math.round(r.requests.average),
    latencyP50Ms: r.latency.p50,
    latencyP99Ms: r.latency.p99,
    latencyMaxMs: r.latency.max,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    gatewayCpuUsPerRequest:
      cpuBefore === undefined || cpuAfter === undefined
        ? undefined
        : Math.round(((cpuAfter - cpuBefore) * 1000) / r.requests.total),
  };
}

/** Notifications pending at the restart of the `restart` scenario. */
const RESTART_PENDING = 10_000;

/**
 * Restart with RESTART_PENDING notifications pending (to a receiver here that acknowledges each): how long the start
 * took, when the first payment was answered after the gateway listened, and the latency of 200 payments after it
 * while the notifications are sent again (goal: first payment answered within 1 s of listening).
 */
async function restartScenario(): Promise<Record<string, unknown>> {
  let received = 0;
  const rx = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => rx.listen(0, '127.0.0.1', resolve));
  const notifyUrl = `http://127.0.0.1:${(rx.address() as AddressInfo).port}/notify`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pagi-bench-restart-'));
  try {
    await (await startChild(dir)).stop();
    const { checksum, DATABASE_FILE } = await import('../gateway/database.js');
    const Database = createRequire(import.meta.url)('better-sqlite3') as typeof import('better-sqlite3');
    const db = new Database(path.join(dir, DATABASE_FILE));
    const insert = db.prepare('INSERT INTO notifications (n, id, body, crc) VALUES (?, ?, ?, ?)');
    db.transaction(() => {
      for (let n = 1; n <= RESTART_PENDING; n++) {
        const body = JSON.stringify({
          kind: 'payment',
          key: `BENCH-NOTIFY-${n}`,
          url: notifyUrl,
          body: { merchant_id: merchant.merchantId, account_id: account.accountId, order_no: `BENCH-NOTIFY-${n}` },
          merchantId: merchant.merchantId,
          accountId: account.accountId,
        });
        insert.run(n, String(n), body, checksum(body));
      }
    })();
    db.close();
    const started = performance.now();
    const gw = await startChild(dir, false, true);
    const listening = performance.now();
    await post(`${gw.url}/v1/authorise`, directBody('BENCH-RESTART-0'));
    const first = performance.now() - listening;
    const latencies: number[] = [];
    for (let i = 1; i <= 200; i++) {
      const t = performance.now();
      await post(`${gw.url}/v1/authorise`, directBody(`BENCH-RESTART-${i}`));
      latencies.push(performance.now() - t);
    }
    latencies.sort((a, b) => a - b);
    const meanwhile = received;
    await gw.stop();
    const ms = (x: number) => Math.round(x * 10) / 10;
    return {
      date: new Date().toISOString(),
      pending: RESTART_PENDING,
      startMs: Math.round(listening - started),
      firstPaymentMsAfterListening: ms(first),
      next200P50Ms: ms(latencies[99]!),
      next200P99Ms: ms(latencies[197]!),
      notificationsReceivedMeanwhile: meanwhile,
    };
  } finally {
    rx.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Name of the direct payment scenario against a gateway keeping its state in a folder. */
const DATA_SCENARIO = 'direct payment (--data)';
const DATA_SYNC_SCENARIO = 'direct payment (--data, syncWrites: true)';
/** The same against a shared sandbox on PostgreSQL (BENCH_POSTGRES, else PAGI_TEST_POSTGRES; skipped without). */
const DATABASE_SCENARIO = 'direct payment (--database)';
const POSTGRES = process.env.BENCH_POSTGRES ?? process.env.PAGI_TEST_POSTGRES;

/** Direct payments against a gateway on PostgreSQL, its tables emptied first. */
async function databaseRow(direct: string): Promise<Row | undefined> {
  if (!POSTGRES) {
    console.log(`${DATABASE_SCENARIO}: skipped (no BENCH_POSTGRES or PAGI_TEST_POSTGRES)`);
    return undefined;
  }
  const pg = createRequire(import.meta.url)('pg') as typeof import('pg');
  const client = new pg.Client({ connectionString: POSTGRES });
  await client.connect();
  await client.query('DROP TABLE IF EXISTS pagi_rows, pagi_meta; DROP SEQUENCE IF EXISTS pagi_version');
  await client.end();
  const gw = await startChild(undefined, false, false, POSTGRES);
  try {
    return await measure(gw.url, gw.proc.pid!, { name: DATABASE_SCENARIO, path: '/v1/authorise', body: direct });
  } finally {
    await gw.stop();
  }
}

async function main(): Promise<void> {
  const { proc, url, nextLine } = await startChild();
  const sample = async (atS: number): Promise<MemorySample> => {
    proc.stdin.write('sample\n');
    return { atS, ...JSON.parse(await nextLine()) };
  };
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
    const direct = directBody('BENCH-DIRECT');
    const checkout = signed('checkout', { ...example('checkout-request'), order_no: 'BENCH-CHECKOUT' });
    // 100,000 distinct fields, under the body size cap: refused by counting its '&', never decoded.
    const bigForm = Array.from({ length: 100_000 }, (_, i) => `${i.toString(36)}=1`).join('&');
    const scenarios: Scenario[] = [
      { name: 'direct payment', path: '/v1/authorise', body: direct },
      {
        name: 'capture (50 items)',
        path: '/v1/capture',
        body: signed('capture', {
          merchant_id: merchant.merchantId,
          account_id: account.accountId,
          capture_orders: items,
        }),
      },
      { name: 'checkout page', path: '/v1/checkout', body: checkout },
      ...SCALE_CONNECTIONS.map((connections) => ({
        name: 'direct payment',
        path: '/v1/authorise',
        body: direct,
        connections,
      })),
      {
        name: 'form of 100,000 fields (refused)',
        path: '/v1/retrievalTrans',
        body: bigForm,
        connections: 1,
        contentType: 'application/x-www-form-urlencoded',
        refused: true,
      },
    ];
    const rows: Row[] = [];
    for (const s of scenarios.filter((x) => selected(x.name))) rows.push(await measure(url, proc.pid!, s));
    // The same direct payments against a gateway keeping its state in a folder: every change written before its
    // answer and synced once a second (the default), or synced to disk before its answer (syncWrites: true).
    for (const [name, sync] of [
      [DATA_SCENARIO, false],
      [DATA_SYNC_SCENARIO, true],
    ] as const) {
      if (!selected(name)) continue;
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pagi-bench-data-'));
      const data = await startChild(dir, sync);
      try {
        rows.push(await measure(data.url, data.proc.pid!, { name, path: '/v1/authorise', body: direct }));
      } finally {
        await data.stop();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
    if (selected(DATABASE_SCENARIO)) {
      const row = await databaseRow(direct);
      if (row) rows.push(row);
    }
    const restart = selected('restart') ? await restartScenario() : undefined;
    let memory: Record<string, unknown> | undefined;
    if (selected('memory')) {
      // Full load for MEMORY_S seconds: direct payments and checkout pages alternating on every connection.
      const headers = { 'content-type': 'application/json' };
      const samples: MemorySample[] = [await sample(0)];
      const started = Date.now();
      const load = autocannon({
        url,
        requests: [
          { method: 'POST', path: '/v1/authorise', headers, body: direct },
          { method: 'POST', path: '/v1/checkout', headers, body: checkout },
        ],
        connections: CONNECTIONS,
        duration: MEMORY_S,
      });
      let done = false;
      void load.then(() => (done = true));
      while (!done) {
        await Promise.race([load, new Promise((r) => setTimeout(r, MEMORY_SAMPLE_S * 1000))]);
        if (!done) samples.push(await sample(Math.round((Date.now() - started) / 1000)));
      }
      const r = await load;
      samples.push(await sample(Math.round((Date.now() - started) / 1000)));
      // Once both caps are reached (first sample with evictions of both kinds), the heap should stay flat.
      const capped = samples.filter((x) => x.evicted.transactions > 0 && x.evicted.sessions > 0);
      const first = capped[0];
      const last = capped.at(-1);
      const minutes = first && last && last.atS > first.atS ? (last.atS - first.atS) / 60 : undefined;
      memory = {
        date: new Date().toISOString(),
        durationS: MEMORY_S,
        connections: CONNECTIONS,
        requests: r.requests.total,
        requestsPerSec: Math.round(r.requests.average),
        non2xx: r.non2xx,
        errors: r.errors + r.timeouts,
        capsReachedAtS: first?.atS,
        heapUsedMbAtCaps: first?.heapUsedMb,
        heapUsedMbAtEnd: last?.heapUsedMb,
        heapUsedMbMaxAfterCaps: capped.length ? Math.max(...capped.map((x) => x.heapUsedMb)) : undefined,
        rssMbAtCaps: first?.rssMb,
        rssMbAtEnd: last?.rssMb,
        rssMbMaxAfterCaps: capped.length ? Math.max(...capped.map((x) => x.rssMb)) : undefined,
        heapSlopeMbPerMinuteAfterCaps: minutes
          ? Math.round(((last!.heapUsedMb - first!.heapUsedMb) / minutes) * 100) / 100
          : undefined,
        samples,
      };
    }
    const file = path.join(KIT_ROOT, 'bench', 'results', 'gateway.json');
    const previous = fs.existsSync(file)
      ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { results?: Row[]; memory?: Record<string, unknown> })
      : {};
    const key = (r: Row) => `${r.scenario}@${r.connections}`;
    const ran = new Set(rows.map(key));
    const kept = (previous.results ?? []).filter((r) => !ran.has(key(r)));
    const out = {
      date: new Date().toISOString(),
      node: process.version,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      loadAverageAtStart,
      loadAverageAtEnd: os.loadavg().map((l) => Number(l.toFixed(2))),
      goal: {
        directPaymentsPerSec: 5000,
        directP99Ms: 10,
        bigFormRefusedMs: 20,
        memory: 'flat once the caps are reached',
        dataDirectPaymentsOfInMemory: 0.8,
      },
      results: [...kept, ...rows],
      memory: memory ?? previous.memory,
      restart: restart ?? (previous as { restart?: unknown }).restart,
    };
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
    console.table(
      rows.map((r) => ({
        scenario: r.scenario,
        conns: r.connections,
        'req/s': r.requestsPerSec,
        'p50 ms': r.latencyP50Ms,
        'p99 ms': r.latencyP99Ms,
        'max ms': r.latencyMaxMs,
        non2xx: r.non2xx,
        errors: r.errors,
        'gateway CPU µs/req': r.gatewayCpuUsPerRequest ?? '-',
      })),
    );
    console.log(
      `load average at start ${loadAverageAtStart.join(' ')}, at end ${out.loadAverageAtEnd.join(' ')} (${out.cpus} CPUs)`,
    );
    const directRow = rows.find((r) => r.scenario === 'direct payment' && r.connections === CONNECTIONS);
    if (directRow) {
      const met =
        directRow.requestsPerSec >= out.goal.directPaymentsPerSec && directRow.latencyP99Ms <= out.goal.directP99Ms;
      console.log(
        `direct payment goal (>= ${out.goal.directPaymentsPerSec}/s, p99 <= ${out.goal.directP99Ms} ms): ${met ? 'met' : 'NOT met'}`,
      );
    }
    const all = [...kept, ...rows];
    const memoryRow = all.find((r) => r.scenario === 'direct payment' && r.connections === CONNECTIONS);
    for (const name of [DATA_SCENARIO, DATA_SYNC_SCENARIO, DATABASE_SCENARIO]) {
      const dataRow = all.find((r) => r.scenario === name && r.connections === CONNECTIONS);
      if (!memoryRow || !dataRow) continue;
      const ratio = dataRow.requestsPerSec / memoryRow.requestsPerSec;
      console.log(
        `${name}: ${dataRow.requestsPerSec}/s against ${memoryRow.requestsPerSec} in memory (${Math.round(ratio * 100)} %; goal >= ${out.goal.dataDirectPaymentsOfInMemory * 100} %): ${ratio >= out.goal.dataDirectPaymentsOfInMemory ? 'met' : 'NOT met'}`,
      );
    }
    const big = rows.find((r) => r.scenario.startsWith('form of'));
    if (big)
      console.log(
        `100,000-field form refused: p50 ${big.latencyP50Ms} ms, p99 ${big.latencyP99Ms} ms, gateway CPU ${big.gatewayCpuUsPerRequest ?? '-'} µs per request (goal < ${out.goal.bigFormRefusedMs} ms)`,
      );
    if (restart)
      console.log(
        `restart with ${String(restart.pending)} pending notifications: listening after ${String(restart.startMs)} ms; first payment answered ${String(restart.firstPaymentMsAfterListening)} ms after listening (goal <= 1000 ms); the next 200 p50 ${String(restart.next200P50Ms)} ms, p99 ${String(restart.next200P99Ms)} ms; ${String(restart.notificationsReceivedMeanwhile)} notifications received meanwhile`,
      );
    if (memory) {
      const samples = memory.samples as MemorySample[];
      console.table(
        samples.map((x) => ({
          s: x.atS,
          'heap MB': x.heapUsedMb,
          'RSS MB': x.rssMb,
          payments: x.counts.transactions,
          sessions: x.counts.sessions,
          'evicted payments': x.evicted.transactions,
          'evicted sessions': x.evicted.sessions,
        })),
      );
      console.log(
        `memory: caps reached at ${String(memory.capsReachedAtS)} s; heap ${String(memory.heapUsedMbAtCaps)} MB then, ${String(memory.heapUsedMbAtEnd)} MB at the end (max ${String(memory.heapUsedMbMaxAfterCaps)}); slope ${String(memory.heapSlopeMbPerMinuteAfterCaps)} MB/min`,
      );
    }
  } finally {
    proc.stdin.end();
  }
}

await (process.argv.includes('--child') ? child() : main());
