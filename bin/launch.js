// Starts a TypeScript entry of the kit under tsx. Dependencies the command needs are imported first, before
// tsx's loader is registered: through the loader each of their files costs a round trip to tsx's hooks thread
// (vitest/node: ~1.5 s instead of ~0.3 s on the kit's 2-core machine). tsx is registered in this thread only,
// so the vitest workers running the suites load the kit through vitest's own transform, not through tsx.
import { isAbsolute } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { pathToFileURL } from 'node:url';
import { register } from 'tsx/esm/api';

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

/** Import `entry` (a path relative to the kit's root or absolute, .ts allowed); `suites`: the command runs the vitest suites. */
export async function launch(entry, { suites = false } = {}) {
  const names = [...AHEAD.common, ...(suites ? AHEAD.suites : [])];
  await Promise.all(names.map((name) => import(name)));
  register();
  return import(entryUrl(entry));
}
