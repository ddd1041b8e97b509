// The HTML reader thread (see html-reader.ts). The parser's packages are imported before tsx's loader is registered,
// so they load at native speed; then the kit's reader (TypeScript) is imported through tsx.
import { parentPort } from 'node:worker_threads';

await Promise.all([import('parse5'), import('parse5-htmlparser2-tree-adapter'), import('css-select')]);
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
