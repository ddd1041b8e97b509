// The thread's side of core/thread-client.ts: each message `{ id, input }` answered with `{ id, output }` or
// `{ id, error }` (the error's message only). Plain JavaScript: the threads import it before any TypeScript loader.
import { parentPort } from 'node:worker_threads';

/** Answer the calling thread's messages with `fn(input)`. */
export function serveOnThread(fn) {
  parentPort.on('message', ({ id, input }) => {
    try {
      parentPort.postMessage({ id, output: fn(input) });
    } catch (e) {
      parentPort.postMessage({ id, error: e instanceof Error ? e.message : String(e) });
    }
  });
}
