/**
 * The no-check floor of `npm run bench:run`, in a fresh process as the measured run had: `node bin/run-ts.js
 * bench/floor.ts FILE`, FILE holding a FloorInput (written by bench/run.ts). Starts a gateway and runs
 * bench/floor.suite.ts in the run's vitest settings; prints `{"ms": …, "failed": …}`, timed from before the gateway
 * starts to vitest's close, as the run is timed from its start to its end.
 */
import fs from 'node:fs';
import { startVitest } from 'vitest/node';
import { startGateway } from '../gateway/index.js';
import { suiteVitestOptions } from '../engine/runner.js';
import type { FloorSetup } from './floor.suite.js';

/** What bench/run.ts hands over: the requests of each test, with paths relative to the target. */
export interface FloorInput {
  tests: FloorSetup['tests'];
  concurrency: number;
}

const file = process.argv[2];
if (!file) throw new Error('usage: node bin/run-ts.js bench/floor.ts FILE');
const input: FloorInput = JSON.parse(fs.readFileSync(file, 'utf8'));
const exitCode = process.exitCode;
const started = performance.now();
const gateway = await startGateway({ port: 0, host: '127.0.0.1' });
let failed: number;
try {
  const vitest = await startVitest('test', ['bench/floor.suite.ts'], {
    ...suiteVitestOptions(input.concurrency, 60_000),
    include: ['bench/floor.suite.ts'],
    reporters: [{}],
    provide: { pagiFloor: { baseUrl: gateway.baseUrl, tests: input.tests } },
  });
  await vitest.close();
  failed = vitest.state.getCountOfFailedTests();
} finally {
  await gateway.close();
}
const ms = performance.now() - started;
process.exitCode = exitCode;
console.log(JSON.stringify({ ms, failed }));
