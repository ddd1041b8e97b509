/** Temporary folders of the tests, inside one folder per run (test/support/global-setup.ts) that the run removes. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, onTestFinished } from 'vitest';
import { KIT_ROOT } from '../../core/spec/paths.js';

/** The run's temporary folder (made and removed by test/support/global-setup.ts), or the system's. */
export function tempRoot(): string {
  const root = process.env.PAGI_TEST_TMP;
  return root && fs.existsSync(root) ? root : os.tmpdir();
}

/**
 * A fresh folder in the run's temporary folder. Made inside a test, it is removed when that test ends;
 * made at the top of a test file or in a `describe` body, after the file's tests; made in a hook, when the run ends.
 */
export function tempDir(prefix = 'pagi-test-'): string {
  const dir = fs.mkdtempSync(path.join(tempRoot(), prefix));
  const remove = () => fs.rmSync(dir, { recursive: true, force: true });
  try {
    onTestFinished(remove); // inside a test: removed when that test ends
  } catch {
    afterAll(remove); // at file or describe level: after the file's tests (in a hook vitest ignores it)
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
