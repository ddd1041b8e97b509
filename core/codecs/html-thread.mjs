// The HTML reader thread (see html-reader.ts). In the compiled kit (dist/, scripts/build-js.mjs) the reader is
// JavaScript beside this file and is imported as is. From the sources, the parser's packages are imported before
// tsx's loader is registered, so they load at native speed; then the kit's reader (TypeScript) is imported through tsx.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serveOnThread } from '../thread-serve.mjs';

const compiled = fs.existsSync(fileURLToPath(new URL('./html.js', import.meta.url)));
await Promise.all([import('parse5'), import('parse5-htmlparser2-tree-adapter'), import('css-select')]);
if (!compiled) (await import('tsx/esm/api')).register();
const { readCheckoutForm } = await import(compiled ? './html.js' : './html.ts');

serveOnThread(readCheckoutForm);
