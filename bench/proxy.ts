/**
 * Benchmark of `pagi-conform proxy` on loopback (`npm run bench:proxy`): what the proxy adds to each exchange, and
 * what it holds over a long session. The reference gateway runs in a process of its own (bench/target-process.ts),
 * the proxy in another (this file with `serve-proxy`, printing its console lines to a pipe this process drains), the
 * merchant's requests come from this one: the merchant example's payment and its query, signed as the reference
 * profile says.
 *
 * 1. Latency: BENCH_PAIRS (default 1,000) pairs of the same request sent one at a time, directly to the gateway and
 *    through the proxy, alternating; the added latency is the median of the per-pair differences, per operation.
 *    Goal: at most 1 ms.
 * 2. Memory: BENCH_EXCHANGES (default 100,000) exchanges through the proxy, 8 at a time, half payments (each a new
 *    order number) and half queries; the proxy samples its RSS every 250 ms and reports the peak, the RSS at each
 *    tenth, then stops as on SIGTERM (the ledger judged, the reports written) and reports how long that took. The
 *    ledger holds at most engine/ledger.ts's LEDGER_MAX_ENTRIES exchanges (and LEDGER_MAX_BYTES of answers); the
 *    order numbers, findings per check and exchange records are bounded too (proxy/session.ts).
 *
 * Writes bench/results/proxy.json with the load average before and after.
 */
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { startGatewayProcess } from './target-process.js';

const HERE = fileURLToPath(import.meta.url);
const ROOT = path.resolve(path.dirname(HERE), '..');
const PAIRS = Number(process.env.BENCH_PAIRS ?? 1000);
const EXCHANGES = Number(process.env.BENCH_EXCHANGES ?? 100_000);
const CONCURRENCY = 8;

/** The proxy process: started with the upstream, prints its URL, samples its RSS, stops when stdin closes. */
async function serveProxy(upstream: string): Promise<void> {
  const { openProxy } = await import('../cli/proxy.js');
  const { defaults } = await import('../core/config/options.js');
  const { LEDGER_MAX_ENTRIES } = await import('../engine/ledger.js');
  const options = {
    ...defaults('proxy'),
    upstream,
    proxyPort: 0,
    reporter: ['json'],
    out: fs.mkdtempSync(path.join(os.tmpdir(), 'pagi-bench-proxy-')),
    merchantId: process.env.PAGI_MERCHANT_ID,
    accountId: process.env.PAGI_ACCOUNT_ID,
    secret: process.env.PAGI_SECRET,
  } as Parameters<typeof openProxy>[0];
  let exchanges = 0;
  let peak = 0;
  const at: Record<string, number> = {};
  const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
  const sample = () => {
    const rss = process.memoryUsage.rss();
    peak = Math.max(peak, rss);
  };
  const timer = setInterval(sample, 250);
  const run = await openProxy(
    options,
    (line) => process.stdout.write(`${line}\n`),
    ['pagi-conform', 'proxy'],
    () => {
      exchanges++;
      if (exchanges % (EXCHANGES / 10) === 0) at[String(exchanges)] = mb(process.memoryUsage.rss());
    },
  );
  process.stdout.write(`PROXY ${run.proxy.url}\n`);
  process.stdin.resume();
  process.stdin.once('end', async () => {
    clearInterval(timer);
    sample();
    const t0 = performance.now();
    const { result } = await run.stop();
    const stopMs = Math.round(performance.now() - t0);
    const summary = {
      exchanges,
      peakRssMB: mb(peak),
      rssMBAt: at,
      ledger: {
        held: run.session.ledger.entries.length,
        dropped: run.session.ledger.dropped,
        bound: LEDGER_MAX_ENTRIES,
      },
      stopMs,
      findings: result.totals.findings,
    };
    process.stdout.write(`SUMMARY ${JSON.stringify(summary)}\n`);
    process.exit(0);
  });
}

/** The merchant's two requests, signed as the reference profile says. */
function requests(account: { merchantId: string; accountId: string; secret: string }) {
  const sign = (values: string[]) =>
    createHash('sha256')
      .update(values.join('') + account.secret)
      .digest('hex');
  const ids = { merchant_id: account.merchantId, account_id: account.accountId };
  return {
    pay: () => {
      const order = `ORD-B-${randomUUID()}`;
      const body = {
        ...ids,
        encryption_data: sign([account.merchantId, account.accountId, order, 'USD', '25.00']),
        order_no: order,
        currency: 'USD',
        amount: '25.00',
        notify_url: 'http://127.0.0.1:9/notify',
        card_number: '4111111111111111',
        expiration_month: '12',
        expiration_year: '2030',
        security_code: '123',
      };
      return { path: '/v1/authorise', type: 'application/json', body: JSON.stringify(body), order };
    },
    query: (order: string) => ({
      path: '/v1/retrievalTrans',
      type: 'application/x-www-form-urlencoded',
      body: new URLSearchParams({
        ...ids,
        encryption_data: sign([account.merchantId, account.accountId]),
        order_no: order,
      }).toString(),
      order,
    }),
  };
}

type Req = ReturnType<ReturnType<typeof requests>['pay']>;

async function send(agent: Agent, base: string, r: Req): Promise<number> {
  const t0 = performance.now();
  const res = await request(`${base}${r.path}`, {
    method: 'POST',
    headers: { 'content-type': r.type },
    body: r.body,
    dispatcher: agent,
  });
  await res.body.arrayBuffer();
  if (res.statusCode !== 200) throw new Error(`${r.path} answered ${res.statusCode}`);
  return performance.now() - t0;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : Number.NaN;
};
const round = (n: number, d = 3) => Math.round(n * 10 ** d) / 10 ** d;

async function main(): Promise<void> {
  const loadBefore = os.loadavg();
  const gateway = await startGatewayProcess();
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'run-ts.js'), HERE, 'serve-proxy', gateway.url], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: {
      ...process.env,
      PAGI_MERCHANT_ID: gateway.merchantId,
      PAGI_ACCOUNT_ID: gateway.accountId,
      PAGI_SECRET: gateway.secret,
    },
  });
  const lines = createInterface({ input: child.stdout! });
  let summaryLine: (value: string) => void = () => {};
  const summary = new Promise<string>((resolve) => (summaryLine = resolve));
  const url = await new Promise<string>((resolve) =>
    lines.on('line', (line) => {
      if (line.startsWith('PROXY ')) resolve(line.slice(6));
      if (line.startsWith('SUMMARY ')) summaryLine(line.slice(8));
    }),
  );
  const agent = new Agent({ keepAliveTimeout: 30_000, connections: CONCURRENCY });
  const r = requests(gateway);

  // 1. Latency, one request at a time, alternating direct and proxied (a warm-up of 200 pairs first).
  const added: Record<string, number[]> = { authoriseDirect: [], retrievalTrans: [] };
  const direct: Record<string, number[]> = { authoriseDirect: [], retrievalTrans: [] };
  for (let i = 0; i < PAIRS + 200; i++) {
    const pay = r.pay();
    const d1 = await send(agent, gateway.url, pay);
    const p1 = await send(agent, url, r.pay());
    const q = r.query(pay.order);
    const d2 = await send(agent, gateway.url, q);
    const p2 = await send(agent, url, q);
    if (i < 200) continue;
    added.authoriseDirect!.push(p1 - d1);
    added.retrievalTrans!.push(p2 - d2);
    direct.authoriseDirect!.push(d1);
    direct.retrievalTrans!.push(d2);
  }
  const latency = Object.fromEntries(
    Object.keys(added).map((op) => [
      op,
      { directMedianMs: round(median(direct[op]!)), addedMedianMs: round(median(added[op]!)), pairs: PAIRS },
    ]),
  );
  console.log('latency', latency);

  // 2. A long session: EXCHANGES exchanges, CONCURRENCY at a time.
  const t0 = performance.now();
  let sent = 2 * (PAIRS + 200);
  const target = sent + EXCHANGES;
  const worker = async () => {
    while (sent < target) {
      sent += 2;
      const pay = r.pay();
      await send(agent, url, pay);
      await send(agent, url, r.query(pay.order));
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const sessionS = round((performance.now() - t0) / 1000, 1);
  child.stdin!.end();
  const memory = JSON.parse(await summary);
  await agent.close();
  await gateway.close();
  const loadAfter = os.loadavg();
  const out = {
    measuredAt: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      loadAverageBefore: loadBefore.map((l) => round(l, 2)),
      loadAverageAfter: loadAfter.map((l) => round(l, 2)),
    },
    goal: { addedMedianMs: 1 },
    latency,
    session: { exchangesSent: EXCHANGES, concurrency: CONCURRENCY, seconds: sessionS, ...memory },
  };
  fs.writeFileSync(path.join(ROOT, 'bench', 'results', 'proxy.json'), `${JSON.stringify(out, null, 2)}\n`);
  console.log(JSON.stringify(out, null, 2));
}

if (process.argv[2] === 'serve-proxy') await serveProxy(process.argv[3]!);
else await main();
