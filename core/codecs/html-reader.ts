/**
 * Checkout pages read on a thread of their own: pages are parsed beside the checks instead of between them (a deep
 * run reads tens of thousands), and a hostile page's tree lives in a heap of its own with a bound. The thread runs
 * `readCheckoutForm` (html.ts) unchanged; when it cannot start, or stops, pages are read in the calling thread.
 */
import { threadClient } from '../thread-client.js';
import type { CheckoutFormModel } from '../model.js';

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
  const thread = threadClient<string, CheckoutFormModel>(new URL('./html-thread.mjs', import.meta.url), inThread, {
    maxOldGenerationSizeMb: READER_HEAP_MB,
  });
  return { read: (html) => thread.call(html), close: () => thread.close() };
}

let shared: HtmlReader | undefined;

/** The reader of this thread, started on first use (call early to have the thread ready before the first page). */
export function htmlReader(): HtmlReader {
  shared ??= createHtmlReader();
  return shared;
}
