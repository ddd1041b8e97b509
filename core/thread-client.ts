/**
 * A function run on a thread of its own, called by message: `{ id, input }` in, `{ id, output }` or `{ id, error }`
 * back (the thread's side: `serveOnThread` of thread-serve.mjs). When the thread cannot start, or stops, calls are
 * made in the calling thread with `local`: the result is the same, only where it is computed differs. The thread is
 * held only while a call is awaited, so an idle one keeps no finished process alive.
 */
import { Worker, type ResourceLimits } from 'node:worker_threads';

type Reply<O> = { id: number; output: O } | { id: number; error: string };

/** Calls of one function on its thread. */
export interface ThreadClient<I, O> {
  call(input: I): Promise<O>;
  /** Whether calls run on the thread (false once it failed to start, stopped or was closed). */
  readonly onThread: boolean;
  close(): Promise<void>;
}

/**
 * Start the thread of `script` (a module calling `serveOnThread`); `local` computes the same in the calling thread.
 * An error the thread's function throws is thrown to the caller; only a thread gone makes the call local.
 */
export function threadClient<I, O>(
  script: URL,
  local: (input: I) => O | Promise<O>,
  resourceLimits?: ResourceLimits,
): ThreadClient<I, O> {
  let worker: Worker | undefined;
  let failed = false;
  let next = 0;
  const pending = new Map<number, { resolve(output: O): void; reject(e: Error): void }>();
  try {
    worker = new Worker(script, resourceLimits ? { resourceLimits } : {});
    worker.on('message', (reply: Reply<O>) => {
      const waiting = pending.get(reply.id);
      pending.delete(reply.id);
      if (!pending.size) worker?.unref();
      if ('output' in reply) waiting?.resolve(reply.output);
      else waiting?.reject(new Error(reply.error));
    });
    const fail = () => {
      failed = true;
      worker = undefined;
      // Calls sent to a thread that died are made here instead.
      for (const [, waiting] of pending) waiting.reject(new Error('the thread stopped'));
      pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', fail);
    // After the listeners: adding a 'message' listener refs the worker's port again, which kept a finished
    // process (`profile discover`) alive.
    worker.unref();
  } catch {
    failed = true;
  }
  return {
    get onThread() {
      return !failed && !!worker;
    },
    async call(input) {
      if (failed || !worker) return local(input);
      const id = ++next;
      try {
        return await new Promise<O>((resolve, reject) => {
          pending.set(id, { resolve, reject });
          worker!.ref();
          worker!.postMessage({ id, input });
        });
      } catch (e) {
        if (failed) return local(input);
        throw e;
      }
    },
    async close() {
      const w = worker;
      worker = undefined;
      failed = true;
      await w?.terminate();
    },
  };
}
