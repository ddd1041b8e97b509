#!/usr/bin/env node
// Entry point of the `pagi-conform` command: runs the TypeScript CLI through tsx's loader.
import { register } from 'tsx/esm/api';
register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
