// The HTML reader thread (see html-reader.ts). jsdom is imported before tsx's loader is registered, so its many
// files load at native speed; then the kit's reader (TypeScript) is imported through tsx.
import { parentPort } from 'node:worker_threads';

await import('jsdom');
const { register } = await import('tsx/esm/api');
register();
const { readCheckoutForm } = await import('./html.ts');

parentPort.on('message', ({ id, html }) => {
  try {
    parentPort.postMessage({ id, form: readCheckoutForm(html) });
  } catch (e) {
    parentPort.postMessage({ id, error: e instanceof Error ? e.message : String(e) });
  }
});
