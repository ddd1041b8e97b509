/**
 * The embedded reference gateway in a process of its own, for benchmarks that measure the kit's memory: a run's
 * process then holds the kit alone (the gateway's store grows with every payment until its caps, which is the
 * gateway's memory, measured by `npm run bench:gateway`). The child prints its URL and first merchant account once
 * it listens, and its own maximum RSS when its standard input closes.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
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
}

const HERE = fileURLToPath(import.meta.url);

/** Start the reference gateway in a child process; resolves once it listens. */
export async function startGatewayProcess(): Promise<GatewayProcess> {
  const child = spawn(
    process.execPath,
    [path.join(path.dirname(HERE), '..', 'bin', 'run-ts.js'), 'bench/target-process.ts', 'serve'],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const first = await Promise.race([lines.next(), exited.then((code) => ({ done: true, value: `exit ${code}` }))]);
  if (first.done) throw new Error(`the gateway process ended before listening (${first.value})`);
  return {
    ...(JSON.parse(first.value as string) as ServedGateway),
    close: async () => {
      child.stdin!.end();
      const last = await lines.next();
      await exited;
      return last.done ? Number.NaN : (JSON.parse(last.value) as { maxRssMb: number }).maxRssMb;
    },
  };
}

async function serve(): Promise<void> {
  const gateway = await startGateway({ port: 0, host: '127.0.0.1' });
  const merchant = gateway.config.merchants[0]!;
  const account = merchant.accounts[0]!;
  const served: ServedGateway = {
    url: gateway.url,
    merchantId: merchant.merchantId,
    accountId: account.accountId,
    secret: account.secret,
  };
  process.stdout.write(`${JSON.stringify(served)}\n`);
  process.stdin.resume();
  process.stdin.once(
    'close',
    () =>
      void gateway.close().then(() => {
        process.stdout.write(`${JSON.stringify({ maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024) })}\n`);
        process.exit(0);
      }),
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === HERE && process.argv[2] === 'serve') await serve();
