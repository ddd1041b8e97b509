/**
 * Checkout pages read on a thread of their own: pages are parsed beside the checks instead of between them (a deep
 * run reads tens of thousands), and a hostile page's tree lives in a heap of its own with a bound. The thread runs
 * `readCheckoutForm` (html.ts) unchanged; when it cannot start, or stops, pages are read in the calling thread.
 */
import { Worker } from 'node:worker_threads';
import type { CheckoutFormModel } from '../model.js';

type Reply = { id: number; form: CheckoutFormModel } | { id: number; error: string };

/** A reader of checkout pages. */
export interface HtmlReader {
  read(html: string): Promise<CheckoutFormModel>;
  close(): Promise<void>;
}

/**
 * Old-generation heap of the reader thread, in MB. The parser and a page's tree live in well under 100 MB; without a bound V8
 * lets the thread's heap grow by hundreds of MB of collectable pages before it collects, which a deep run's
 * thousands of pages would show as memory growing with depth. Past the bound the thread stops and pages are read in
 * the calling thread.
 */
const READER_HEAP_MB = 256;

async function inThread(html: string): Promise<CheckoutFormModel> {
  const { readCheckoutForm } = await import('./html.js');
  return readCheckoutForm(html);
}

/** Start a reader thread (the parser starts loading at once). */
export function createHtmlReader(): HtmlReader {
  let worker: Worker | undefined;
  let failed = false;
  let next = 0;
  const pending = new Map<number, { resolve(form: CheckoutFormModel): void; reject(e: Error): void }>();
  try {
    worker = new Worker(new URL('./html-thread.mjs', import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: READER_HEAP_MB },
    });
    worker.on('message', (reply: Reply) => {
      const waiting = pending.get(reply.id);
      pending.delete(reply.id);
      if ('form' in reply) waiting?.resolve(reply.form);
      else waiting?.reject(new Error(reply.error));
    });
    const fail = () => {
      failed = true;
      worker = undefined;
      // Pages sent to a thread that died are read here instead.
      for (const [, waiting] of pending) waiting.reject(new Error('the HTML reader thread stopped'));
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
    async read(html) {
      if (failed || !worker) return inThread(html);
      const id = ++next;
      try {
        return await new Promise<CheckoutFormModel>((resolve, reject) => {
          pending.set(id, { resolve, reject });
          worker!.postMessage({ id, html });
        });
      } catch (e) {
        if (failed) return inThread(html);
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

let shared: HtmlReader | undefined;

/** The reader of this thread, started on first use (call early to have the thread ready before the first page). */
export function htmlReader(): HtmlReader {
  shared ??= createHtmlReader();
  return shared;
}
