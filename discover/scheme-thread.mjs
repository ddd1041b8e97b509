// The scheme-ranking thread (see scheme-ranker.ts). In the compiled kit (dist/, scripts/build-js.mjs) scheme.js is
// JavaScript beside this file and is imported as is; from the sources, scheme.ts is imported through tsx. One memo for
// the thread's life: a ranking made early over the samples then seen leaves a later one only the samples it lacked.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serveOnThread } from '../core/thread-serve.mjs';

const compiled = fs.existsSync(fileURLToPath(new URL('./scheme.js', import.meta.url)));
if (!compiled) (await import('tsx/esm/api')).register();
const { rankResponseSchemes } = await import(compiled ? './scheme.js' : './scheme.ts');
const memo = new Map();

serveOnThread(({ samples, secret }) => rankResponseSchemes(samples, secret, memo));
