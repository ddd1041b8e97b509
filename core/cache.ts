/**
 * Where the kit keeps its caches (parsed YAML, vitest's transformed modules and its own cache): in the user's project,
 * never inside the installed package (which may be read-only, and is shared by every project using it). The folder is
 * `node_modules/.cache/pagi-conformance/` of the nearest folder at or above the working directory that has a
 * `node_modules` folder, as other tools keep theirs (find-cache-dir's convention); without one, or when that folder
 * is not writable, a folder of the system's temporary directory. A cache only saves time: results never depend on it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KIT_ROOT } from './spec/paths.js';

const chosen = new Map<string, string>();

/** Whether `dir` is inside `root` (or is it). */
function within(dir: string, root: string): boolean {
  const rel = path.relative(root, dir);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Whether the kit runs from an installed package (its root inside a node_modules folder), not from a clone. */
function installed(root: string = KIT_ROOT): boolean {
  return root.split(path.sep).includes('node_modules');
}

/** The project folder whose node_modules holds the cache: the nearest at or above `cwd` with a node_modules folder. */
function projectOf(cwd: string): string | undefined {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    // An installed kit's own folder is never the project (a run started from inside it).
    if (installed() && within(dir, KIT_ROOT)) {
      if (path.dirname(dir) === dir) return undefined;
      continue;
    }
    if (fs.existsSync(path.join(dir, 'node_modules'))) return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** Whether `dir` can be made and written. */
function writable(dir: string): boolean {
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.accessSync(dir, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The kit's cache folder for `cwd` (default: the working directory): `<project>/node_modules/.cache/pagi-conformance`,
 * or `<tmp>/pagi-conformance-cache-<user>` when there is no project folder or it is not writable. Made on first use.
 */
export function kitCacheDir(cwd: string = process.cwd()): string {
  const key = path.resolve(cwd);
  const known = chosen.get(key);
  if (known) return known;
  const project = projectOf(key);
  const inProject = project && path.join(project, 'node_modules', '.cache', 'pagi-conformance');
  const user = (() => {
    try {
      return String(os.userInfo().uid);
    } catch {
      return 'user';
    }
  })();
  const dir = inProject && writable(inProject) ? inProject : path.join(os.tmpdir(), `pagi-conformance-cache-${user}`);
  chosen.set(key, dir);
  return dir;
}

/** What the suites' vitest takes from Vite: Vite's cache folder (`.vite` by default, under vitest's root) in the kit's. */
export function viteOverrides(): { cacheDir: string } {
  return { cacheDir: path.join(kitCacheDir(), 'vite') };
}
