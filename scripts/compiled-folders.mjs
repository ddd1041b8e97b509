// The folders scripts/build-js.mjs compiles to dist/ (no side effects: test/bin/build-js.test.ts reads it).
/** The folders of the kit's runtime, as the package ships them: the layers of scripts/layers.ts (test/bin/build-js.test.ts). */
export const COMPILED_FOLDERS = [
  'core',
  'engine',
  'discover',
  'pact',
  'proxy',
  'kit',
  'cli',
  'gateway',
  'suites',
  'reporters',
  'selftest',
];
