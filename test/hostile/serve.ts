/** Start a hostile target from the command line: `node bin/run-ts.js test/hostile/serve.ts MODE` prints its URL and credentials as one JSON line. */
import { MODES, startHostile, type Mode } from './server.js';

const mode = process.argv[2] as Mode;
if (!MODES.includes(mode)) {
  console.error(`usage: serve.ts MODE (one of ${MODES.join(', ')})`);
  process.exit(2);
}
const target = await startHostile(mode);
console.log(
  JSON.stringify({
    url: target.url,
    merchantId: target.merchantId,
    accountId: target.accountId,
    secret: target.secret,
    foreign: target.foreign.map((f) => f.url),
  }),
);
const stop = () => void target.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
