/**
 * The reference gateway in a process of its own, as a remote sandbox is: a run's process then holds the kit alone
 * (the gateway's store grows with every payment until its caps, which is the gateway's memory, measured by
 * `npm run bench:gateway`), and the gateway's work never waits for the kit's event loop. Optionally behind a loopback
 * proxy holding every request `rttMs` before passing it on (the latency benchmark). The child prints its URL and first
 * merchant account once it listens, and its own maximum RSS when its standard input closes.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Agent, request, type Dispatcher } from 'undici';
import { startGateway } from '../gateway/index.js';

/** What the gateway process prints once it listens. */
export interface ServedGateway {
  url: string;
  merchantId: string;
  accountId: string;
  secret: string;
}

/** A gateway process: its address and account, and `close()`, which resolves to the process's maximum RSS in MB. */
export interface GatewayProcess extends ServedGateway {
  close(): Promise<number>;
  /** The process's CPU time (user and system, every thread) in ms, known once `close()` has resolved. */
  cpuMs(): number;
}

const HERE = fileURLToPath(import.meta.url);

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

/**
 * Start the reference gateway in a child process, behind the delaying proxy when `rttMs` is given (even 0: the same
 * path without the delay); resolves once it listens.
 */
export async function startGatewayProcess(options: { rttMs?: number } = {}): Promise<GatewayProcess> {
  const child = spawn(
    process.execPath,
    [
      path.join(path.dirname(HERE), '..', 'bin', 'run-ts.js'),
      'bench/target-process.ts',
      'serve',
      ...(options.rttMs === undefined ? [] : [String(options.rttMs)]),
    ],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const first = await Promise.race([lines.next(), exited.then((code) => ({ done: true, value: `exit ${code}` }))]);
  if (first.done) throw new Error(`the gateway process ended before listening (${first.value})`);
  let cpuMs = Number.NaN;
  return {
    ...(JSON.parse(first.value as string) as ServedGateway),
    close: async () => {
      child.stdin!.end();
      const last = await lines.next();
      await exited;
      if (last.done) return Number.NaN;
      const usage = JSON.parse(last.value) as { maxRssMb: number; cpuMs: number };
      cpuMs = usage.cpuMs;
      return usage.maxRssMb;
    },
    cpuMs: () => cpuMs,
  };
}

async function serve(rttMs: number | undefined): Promise<void> {
  const proxy = rttMs === undefined ? undefined : await delayingProxy(rttMs);
  const gateway = await startGateway({ port: 0, host: '127.0.0.1', ...(proxy ? { baseUrl: proxy.url } : {}) });
  proxy?.upstream(gateway.url);
  const merchant = gateway.config.merchants[0]!;
  const account = merchant.accounts[0]!;
  const served: ServedGateway = {
    url: proxy?.url ?? gateway.url,
    merchantId: merchant.merchantId,
    accountId: account.accountId,
    secret: account.secret,
  };
  process.stdout.write(`${JSON.stringify(served)}\n`);
  process.stdin.resume();
  process.stdin.once(
    'close',
    () =>
      void Promise.all([proxy?.close(), gateway.close()]).then(() => {
        const cpu = process.cpuUsage();
        process.stdout.write(
          `${JSON.stringify({ maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024), cpuMs: Math.round((cpu.user + cpu.system) / 1000) })}\n`,
        );
        process.exit(0);
      }),
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === HERE && process.argv[2] === 'serve')
  await serve(process.argv[3] === undefined ? undefined : Number(process.argv[3]));
