/**
 * Start the fault-injecting proxy from the command line: `node bin/run-ts.js test/support/serve-fault-proxy.ts NAME`
 * (a key of PROXY_FAULTS, or `none` for the identity pass-through) prints its URL and credentials as one JSON line;
 * on SIGINT or SIGTERM it prints how many requests and answers it rewrote and stops.
 */
import { startFaultProxy } from './fault-proxy.js';
import { PROXY_FAULTS } from './proxy-faults.js';

const name = process.argv[2] ?? 'none';
const faults: Record<string, (typeof PROXY_FAULTS)[keyof typeof PROXY_FAULTS]> = PROXY_FAULTS;
if (name !== 'none' && !faults[name]) {
  console.error(`usage: serve-fault-proxy.ts NAME (none, ${Object.keys(PROXY_FAULTS).join(', ')})`);
  process.exit(2);
}
const proxy = await startFaultProxy(name === 'none' ? undefined : faults[name]);
console.log(
  JSON.stringify({ url: proxy.url, merchantId: proxy.merchantId, accountId: proxy.accountId, secret: proxy.secret }),
);
const stop = () => {
  console.error(`rewrites: ${proxy.rewrites()}`);
  void proxy.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
