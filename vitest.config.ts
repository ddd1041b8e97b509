import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/support/sequencer.js';

export default defineConfig({
  // The kit's own example imports the package by name; in this checkout that is the sources (dist/ is built on pack).
  resolve: { alias: { 'pagi-conformance/pact': fileURLToPath(new URL('./pact/index.ts', import.meta.url)) } },
  test: {
    include: ['test/**/*.test.ts', 'gateway/**/*.test.ts', 'examples/**/*.test.ts'],
    // One temporary folder per run for the fixtures, removed when the run ends.
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'threads',
    // Test files share one module graph per worker: the compiled spec and profile are built once, not per file.
    isolate: false,
    // Two test files at once at least: vitest's default is one worker fewer than the cores, one on the kit's 2-core
    // machine, and most long files wait on their child processes, gateways and timers rather than compute.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    // The longest files first (test/support/sequencer.ts), so that the workers end together.
    sequence: { sequencer: LongestFirst },
  },
});
