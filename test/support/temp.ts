/** Temporary folders of a test file: each is removed once the file's tests are done (`afterAll`). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, onTestFinished } from 'vitest';
import { KIT_ROOT } from '../../src/spec/paths.js';

/**
 * A fresh folder under the system's temporary folder. Made inside a test, it is removed when that test ends;
 * made at the top of a test file or in a `describe` body, after the file's tests (not in a hook: vitest ignores an
 * `afterAll` registered there).
 */
export function tempDir(prefix = 'pagi-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const remove = () => fs.rmSync(dir, { recursive: true, force: true });
  try {
    onTestFinished(remove); // inside a test: removed when that test ends
  } catch {
    afterAll(remove); // at file or describe level: removed after the file's tests
  }
  return dir;
}

/** A file named `name` with `text` in a fresh temporary folder (removed after the calling file's tests). */
export function tempFile(name: string, text: string, prefix?: string): string {
  const file = path.join(tempDir(prefix), name);
  fs.writeFileSync(file, text);
  return file;
}

/**
 * A copy of the kit's `spec/` and `schemas/` in a temporary folder (removed after the calling file's tests), with
 * `edit` applied to it: the root for `loadSpec(root)` or `--spec-root`.
 */
export function specCopy(edit: (root: string) => void = () => {}): string {
  const root = tempDir('pagi-spec-copy-');
  for (const dir of ['spec', 'schemas']) fs.cpSync(path.join(KIT_ROOT, dir), path.join(root, dir), { recursive: true });
  edit(root);
  return root;
}

/** Rewrite the JSON file `file` under `root` through `change`. */
export function editJson(root: string, file: string, change: (value: any) => void): void {
  const full = path.join(root, file);
  const value = JSON.parse(fs.readFileSync(full, 'utf8'));
  change(value);
  fs.writeFileSync(full, JSON.stringify(value, null, 2));
}
