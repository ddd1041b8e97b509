/**
 * The bare client of the benchmarks: replays a run's requests, in their recorded order, against another gateway.
 */
import { request, type Dispatcher } from 'undici';
import type { ReplayRequest } from '../engine/client.js';
import { dispatcherPool } from '../engine/dispatch.js';

/**
 * Send every request in its recorded order, at most `concurrency` at once, to `baseUrl` instead of the recorded
 * origin. `requests` may be read as it goes (a replay file is never held whole).
 */
export async function replay(
  requests: Iterable<ReplayRequest>,
  from: string,
  baseUrl: string,
  concurrency: number,
): Promise<number> {
  const dispatchers = dispatcherPool({ timeoutMs: 10_000 });
  const next = requests[Symbol.iterator]();
  const lane = async () => {
    for (let step = next.next(); !step.done; step = next.next()) {
      const r = step.value;
      const res = await request(baseUrl + r.url.slice(from.length), {
        method: r.method as Dispatcher.HttpMethod,
        headers: r.headers,
        body: r.bodyText,
        dispatcher: dispatchers.for(r.localAddress),
      });
      await res.body.dump();
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, lane));
  const ms = performance.now() - started;
  await dispatchers.close();
  return ms;
}
