#!/usr/bin/env node
// Runs a TypeScript script of the kit (a benchmark; a path relative to the kit's root, or absolute) the way the CLI
// runs: see launch.js. Usage: node bin/run-ts.js FILE.ts
import { fileURLToPath } from 'node:url';
import { entryUrl, launch } from './launch.js';

const [entry, ...rest] = process.argv.slice(2);
if (!entry) {
  console.error('usage: node bin/run-ts.js FILE.ts [args…]');
  process.exit(2);
}
process.argv = [process.argv[0], fileURLToPath(entryUrl(entry)), ...rest];
await launch(entry, { suites: true });
