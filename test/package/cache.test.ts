/**
 * The kit's caches live in the user's project (`<project>/node_modules/.cache/pagi-conformance`, the nearest folder at
 * or above the working directory with a node_modules folder) or the system's temporary folder, never in the kit's own
 * folder: an installed package may be read-only and is shared. test/package/pack.test.ts runs the installed kit and
 * finds no cache inside it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { kitCacheDir, viteOverrides } from '../../core/cache.js';
import { suiteVitestOptions } from '../../engine/runner.js';
import { tempDir } from '../support/temp.js';

describe("the kit's cache folder", () => {
  it("is the node_modules/.cache/pagi-conformance of the working directory's project, from any folder inside it", () => {
    const project = tempDir('pagi-cache-');
    fs.mkdirSync(path.join(project, 'node_modules'));
    const inside = path.join(project, 'src', 'deep');
    fs.mkdirSync(inside, { recursive: true });
    const expected = path.join(project, 'node_modules', '.cache', 'pagi-conformance');
    expect(kitCacheDir(project)).toBe(expected);
    expect(kitCacheDir(inside)).toBe(expected);
    expect(fs.statSync(expected).isDirectory()).toBe(true);
  });

  it('is a folder of the system temporary directory where no project folder is found', () => {
    const bare = fs.mkdtempSync(path.join(os.tmpdir(), 'pagi-cache-bare-'));
    try {
      const hasModules = (dir: string): boolean =>
        fs.existsSync(path.join(dir, 'node_modules')) || (path.dirname(dir) !== dir && hasModules(path.dirname(dir)));
      if (!hasModules(bare)) expect(kitCacheDir(bare)).toMatch(/pagi-conformance-cache-/);
      expect(kitCacheDir(bare).startsWith(bare)).toBe(false);
    } finally {
      fs.rmSync(bare, { recursive: true, force: true });
    }
  });

  it("holds vitest's transformed modules and Vite's cache of a run", () => {
    expect(suiteVitestOptions(4, 1000).experimental.fsModuleCachePath).toBe(path.join(kitCacheDir(), 'vitest-modules'));
    expect(viteOverrides().cacheDir).toBe(path.join(kitCacheDir(), 'vite'));
  });
});
