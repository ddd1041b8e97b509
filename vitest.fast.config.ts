/**
 * The development lane (`npm run test:fast`): every test file but the self-test, hostile, personality, end-to-end
 * and load files below, which start the kit, the gateway or a browser in child processes or send thousands of
 * requests. CI runs everything (`npm test`).
 */
import fs from 'node:fs';
import { configDefaults, defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

/** The files left out: each takes seconds to minutes (measured with `npx vitest run --reporter=verbose`). */
export const SLOW_FILES = [
  // self-test, hostile targets, profile personalities, old profiles run: whole runs of the kit, minutes each
  'test/selftest/selftest.test.ts',
  'test/hostile/matrix.test.ts',
  'test/engine/personalities.test.ts',
  'test/profile/migrate-run.test.ts',
  'test/engine/unseen-gateway.test.ts',
  'test/discover/proof.test.ts',
  'test/discover/neighbourhood.test.ts', // six neighbours discovered and run with their drafts (about a minute)
  'test/discover/neighbours.test.ts', // neighbours of the personalities discovered and run (about 45 s)
  // end to end: `pagi-conform` in child processes against a gateway, a packed install, a browser
  'test/engine/reference.test.ts',
  'test/engine/integrity.test.ts',
  'test/engine/mutations.test.ts',
  'test/engine/generation.test.ts',
  'test/engine/egress-run.test.ts',
  'test/engine/rollup.test.ts',
  'test/reporters/reports.test.ts',
  'test/cli/run.test.ts',
  'test/cli/unstated-run.test.ts',
  'test/cli/snags.test.ts',
  'test/cli/interrupt.test.ts',
  'test/cli/reproduce.test.ts',
  'test/cli/report-folders.test.ts',
  'test/cli/serve-parent.test.ts',
  'test/ci/recipes.test.ts',
  'test/pact/verify.test.ts',
  'test/package/pack.test.ts',
  'test/docs/docs.test.ts',
  'test/suites/deep.test.ts',
  'test/suites/integrity.test.ts',
  'gateway/test/cli.test.ts',
  'gateway/test/stop.test.ts',
  // load and property tests of the gateway: thousands of requests or sockets
  'gateway/test/connections.test.ts',
  'gateway/test/fuzz.test.ts',
  'gateway/test/never-5xx.test.ts',
  'gateway/test/persist-memory.test.ts', // 3,000 payouts of 1 MB through serve --data (about a minute)
  'gateway/test/shared.test.ts', // serve --database processes on a PostgreSQL
  // the generated files and redocly lint (`npm run spec:check` checks the same)
  'test/spec/tooling.test.ts',
];

for (const file of SLOW_FILES)
  if (!fs.existsSync(new URL(file, import.meta.url))) throw new Error(`vitest.fast.config.ts: ${file} does not exist`);

export default mergeConfig(base, defineConfig({ test: { exclude: [...configDefaults.exclude, ...SLOW_FILES] } }));
