/**
 * The no-check floor of `npm run bench:run` (run by bench/run.ts, never by `npm test`): what a run of the issue's
 * design costs before a single check. One vitest test per check of the measured run, in the run's vitest settings
 * (`suiteVitestOptions`), sending the run's requests in their recorded order and reading each answer's body. Nothing
 * else: no decoding, no HTML parser (bench/run.ts times its load apart), no schema, no evidence, no finding.
 */
import { request, type Dispatcher } from 'undici';
import { afterAll, inject, test } from 'vitest';
import { dispatcherPool } from '../engine/dispatch.js';

/** What bench/run.ts provides: the target, and the requests of each test in order. */
export interface FloorSetup {
  baseUrl: string;
  tests: { method: string; path: string; headers: Record<string, string>; bodyText: string; localAddress?: string }[][];
}

declare module 'vitest' {
  export interface ProvidedContext {
    pagiFloor: FloorSetup;
  }
}

const { baseUrl, tests } = inject('pagiFloor');
const dispatchers = dispatcherPool({ timeoutMs: 10_000 });
afterAll(() => dispatchers.close());

tests.forEach((requests, i) => {
  test.concurrent(`floor ${i}`, async () => {
    for (const r of requests) {
      const res = await request(baseUrl + r.path, {
        method: r.method as Dispatcher.HttpMethod,
        headers: r.headers,
        body: r.bodyText,
        dispatcher: dispatchers.for(r.localAddress),
      });
      await res.body.text();
    }
  });
});
