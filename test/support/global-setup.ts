/**
 * One temporary folder for the whole test run (`PAGI_TEST_TMP`), removed when the run ends: the fixtures' folders
 * live in it, so none outlives the run even when a test or a hook made it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export default function setup(): () => void {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'pagi-tests-'));
  process.env.PAGI_TEST_TMP = root;
  return () => fs.rmSync(root, { recursive: true, force: true });
}
