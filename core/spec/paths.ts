import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

/**
 * Root of the installed kit (the folder holding package.json, spec/ and schemas/): the nearest folder above this
 * module with the kit's package.json, so the TypeScript sources and the compiled dist/ find the same root.
 */
export const KIT_ROOT = findKitRoot(path.dirname(fileURLToPath(import.meta.url)));

function findKitRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    try {
      if (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).name === 'pagi-conformance') return dir;
    } catch {
      // no package.json here, or not the kit's
    }
    if (path.dirname(dir) === dir) return path.resolve(from, '..', '..');
  }
}
export const SPEC_DIR = path.join(KIT_ROOT, 'spec');
export const SCHEMAS_DIR = path.join(KIT_ROOT, 'schemas');
/** Base of every schema `$id`. */
export const SCHEMA_BASE = 'https://pagi-conformance.dev/schemas/';

/** Folder of the generated suite files, one per check family (the TypeScript sources). */
export const SUITES_DIR = path.join(KIT_ROOT, 'suites');
/** The naming rule of the generated suite files: `suites/<family>.suite.ts`. */
const SUITE_SUFFIX = '.suite.ts';
/** Glob, relative to the kit root, matching every generated suite file. */
export const SUITE_FILES_GLOB = `suites/*${SUITE_SUFFIX}`;

/**
 * Folder of the kit's modules as they run: the kit's root for the TypeScript sources, its dist/ when the kit runs
 * compiled ahead to JavaScript (scripts/build-js.mjs, started so by bin/launch.js).
 */
export const CODE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Whether the running kit is its compiled JavaScript (dist/), not its TypeScript sources. */
export const COMPILED = CODE_ROOT !== KIT_ROOT;

/** Where a run's suite files are: the sources (`suites/*.suite.ts`) or their compiled copies (`dist/suites/*.suite.js`). */
export interface SuiteTree {
  /** Folder holding them. */
  dir: string;
  /** Glob of them, relative to the kit root. */
  glob: string;
  /** Whether they are the compiled copies. */
  compiled: boolean;
}

/** The suite files of the sources, or of the compiled kit. */
export function suiteTree(compiled: boolean): SuiteTree {
  return compiled
    ? { dir: path.join(KIT_ROOT, 'dist', 'suites'), glob: 'dist/suites/*.suite.js', compiled }
    : { dir: SUITES_DIR, glob: SUITE_FILES_GLOB, compiled };
}

/** The generated suite file of a family (absolute, or inside `dir`; compiled: `<family>.suite.js`). */
export function suiteFile(family: string, dir: string = SUITES_DIR, compiled = false): string {
  return path.join(dir, `${family}${compiled ? '.suite.js' : SUITE_SUFFIX}`);
}

/** The kit's registry module as the running kit has it: `suites/registry.ts`, or its compiled copy. */
export const KIT_REGISTRY = path.join(CODE_ROOT, 'suites', COMPILED ? 'registry.js' : 'registry.ts');

/** The family a generated suite file runs (the inverse of `suiteFile`). */
export function familyOfSuiteFile(file: string): string {
  return path.basename(file).replace(/\.suite\.[jt]s$/, '');
}
