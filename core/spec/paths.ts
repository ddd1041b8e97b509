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

/** Folder of the generated suite files, one per check family. */
export const SUITES_DIR = path.join(KIT_ROOT, 'suites');
/** The naming rule of the generated suite files: `suites/<family>.suite.ts`. */
const SUITE_SUFFIX = '.suite.ts';
/** Glob, relative to the kit root, matching every generated suite file. */
export const SUITE_FILES_GLOB = `suites/*${SUITE_SUFFIX}`;

/** The generated suite file of a family (absolute, or inside `dir`). */
export function suiteFile(family: string, dir: string = SUITES_DIR): string {
  return path.join(dir, `${family}${SUITE_SUFFIX}`);
}

/** The family a generated suite file runs (the inverse of `suiteFile`). */
export function familyOfSuiteFile(file: string): string {
  return path.basename(file).slice(0, -SUITE_SUFFIX.length);
}
