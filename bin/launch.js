// Starts a TypeScript entry of the kit: its compiled copy under dist/ when the build is there and current (npm ci or
// `prepare` builds it in a clone, the package ships it: scripts/build-js.mjs), imported as Node imports JavaScript;
// else the TypeScript under tsx. Under tsx, dependencies the command needs are imported first, before
// tsx's loader is registered: through the loader each of their files costs a round trip to tsx's hooks thread
// (vitest/node: ~1.5 s instead of ~0.3 s on the kit's 2-core machine). tsx is registered in this thread only,
// so the vitest workers running the suites load the kit through vitest's own transform, not through tsx.
import fs from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { fileURLToPath, pathToFileURL } from 'node:url';

// The young generation of every thread made from here on (the suites' worker among them): a deep run allocates
// bodies, answers and verdicts for each of its requests, and a larger nursery collects them in fewer, cheaper pauses.
setFlagsFromString('--max-semi-space-size=32');
// How far the old generation may grow past what the last full collection kept before the next one: V8's default
// lets it reach about four times that when the thread allocates fast, as a deep run's worker does (its peak then
// follows the run's length, not what it holds). Twice what it holds keeps a deep run's memory flat for a few more
// full collections, each about 10 ms on the kit's machine.
setFlagsFromString('--heap-growing-percent=100');

/** Packages imported ahead, by what the command does. */
const AHEAD = {
  common: ['undici', 'yaml', 'ajv/dist/2020.js', 'ajv-formats', 'fast-xml-parser'],
  suites: ['vitest/node'],
};

/** The URL of an entry: a path relative to the kit's root, or an absolute path. */
export function entryUrl(entry) {
  return isAbsolute(entry) ? pathToFileURL(entry).href : new URL(`../${entry}`, import.meta.url).href;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BUILD = join(ROOT, 'dist', 'BUILD.json');

/** Whether a file under `folders` (relative to the kit's root) was changed after `since` (ms). */
function changedSince(folders, since) {
  for (const folder of folders)
    for (const e of fs.readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true }))
      if (e.isFile() && fs.statSync(join(e.parentPath ?? e.path, e.name)).mtimeMs > since) return true;
  return false;
}

/**
 * The compiled copy (dist/…/*.js) of an entry under the compiled folders, when the build is there and no source of
 * those folders changed after it (in a clone; an installed package is never edited); else undefined, and the entry
 * runs from its TypeScript. PAGI_SOURCES=1 runs the sources whatever the build.
 */
export function compiledEntry(entry) {
  const rel = (isAbsolute(entry) ? relative(ROOT, entry) : entry).split(sep).join('/');
  if (process.env.PAGI_SOURCES === '1' || !rel.endsWith('.ts') || rel.startsWith('..')) return undefined;
  let build;
  try {
    build = { ...JSON.parse(fs.readFileSync(BUILD, 'utf8')), at: fs.statSync(BUILD).mtimeMs };
  } catch {
    return undefined; // not built
  }
  if (!Array.isArray(build.folders) || !build.folders.includes(rel.split('/')[0])) return undefined;
  const file = join(ROOT, 'dist', rel.replace(/\.ts$/, '.js'));
  if (!fs.existsSync(file)) return undefined;
  const installed = ROOT.split(sep).includes('node_modules');
  return installed || !changedSince(build.folders, build.at) ? file : undefined;
}

/** Import `entry` (a path relative to the kit's root or absolute, .ts allowed); `suites`: the command runs the vitest suites. */
export async function launch(entry, { suites = false } = {}) {
  mark('process', performance.timeOrigin);
  mark('launch');
  const compiled = compiledEntry(entry);
  if (compiled) {
    mark('compiled');
    // The suites' runner loads while the command does: the run creates vitest first thing (engine/vitest-run.ts).
    if (suites) import('vitest/node').catch(() => undefined);
    return import(pathToFileURL(compiled).href).finally(() => mark('entry'));
  }
  const names = [...AHEAD.common, ...(suites ? AHEAD.suites : [])];
  await Promise.all(names.map((name) => import(name)));
  const { register } = await import('tsx/esm/api');
  register();
  return import(entryUrl(entry)).finally(() => mark('entry'));
}

/** A phase of the start-up, for the benchmark (as engine/phases.ts writes them, PAGI_PHASES naming the file). */
function mark(name, at = performance.timeOrigin + performance.now()) {
  if (process.env.PAGI_PHASES) fs.appendFileSync(process.env.PAGI_PHASES, `${name} ${at.toFixed(1)}\n`);
}
