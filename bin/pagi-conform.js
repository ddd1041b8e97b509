#!/usr/bin/env node
// Entry point of the `pagi-conform` command: runs the TypeScript CLI through tsx's loader (see launch.js).
import { launch } from './launch.js';

const argv = process.argv.slice(2);
const { main } = await launch('cli/main.ts', {
  suites: ['run', 'selftest', 'merge', 'reproduce'].includes(argv[0] ?? ''),
});
process.exitCode = await main(argv);
