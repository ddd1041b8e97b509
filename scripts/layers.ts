/**
 * The kit's layers: one top-level folder each, what it holds, and the layers it may import (itself always). Layers
 * point one way; test/architecture.test.ts checks every import of every source file against this table, and finds
 * the layers in the folders (a top-level folder holding kit source that is no row fails it). The README's layer table
 * is generated from it (`npm run readme:layers`).
 */
export interface Layer {
  /** The layer's folder at the kit's root, and its name. */
  folder: string;
  /** What it holds, in a line. */
  what: string;
  /** The other layers it may import. */
  mayImport: readonly string[];
}

export const LAYERS: readonly Layer[] = [
  {
    folder: 'core',
    what: 'the vocabulary: model, spec model, profile loader and migrations, codecs, signing, masking, YAML, generated types, the options table, reporter hooks, how results read',
    mayImport: [],
  },
  {
    folder: 'engine',
    what: 'plan, client, runner, the suite API the suites are written in; emits reporter hooks, knows no suite, reporter or gateway',
    mayImport: ['core'],
  },
  { folder: 'suites', what: 'the spec-driven vitest suites, their probes and checks', mayImport: ['core', 'engine'] },
  { folder: 'reporters', what: 'report writers (they implement the hooks of core/reporter.ts)', mayImport: ['core'] },
  { folder: 'gateway', what: 'the reference gateway', mayImport: ['core'] },
  {
    folder: 'discover',
    what: '`profile discover`: the session probing a sandbox, the discoverers, the scheme catalogue, the draft',
    mayImport: ['core', 'engine'],
  },
  {
    folder: 'pact',
    what: 'Pact support: pacts from the spec, a merchant pact checked against the interface, provider verification',
    mayImport: ['core', 'engine'],
  },
  {
    folder: 'proxy',
    what: '`pagi-conform proxy`: the validating proxy between a merchant and a gateway, judging each exchange with the checks of the suites and of `pact check`',
    mayImport: ['core', 'engine', 'suites', 'pact'],
  },
  {
    folder: 'kit',
    what: 'the kit composed: the engine handed the reference gateway, the registry and the reporters; the package API',
    mayImport: ['core', 'engine', 'reporters', 'gateway'],
  },
  {
    folder: 'selftest',
    what: 'the self-test: the suites against every fault variant of the reference gateway',
    mayImport: ['core', 'engine', 'suites', 'reporters', 'gateway', 'kit'],
  },
  {
    folder: 'cli',
    what: 'the `pagi-conform` commands',
    mayImport: ['core', 'engine', 'discover', 'suites', 'reporters', 'gateway', 'pact', 'proxy', 'kit', 'selftest'],
  },
];

/** Top-level folders that hold TypeScript but no kit source: tests, generators, benchmarks, launchers, examples. */
export const NOT_LAYERS = ['test', 'scripts', 'bench', 'bin', 'examples', 'node_modules', 'dist'] as const;
