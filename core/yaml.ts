/**
 * YAML text to data, with a cache of the parsed value: the `yaml` package takes about a quarter of a second to
 * parse the spec and the catalogue in a fresh process or worker, and every run parses them in two. The cache key
 * is the sha256 of the text, so an edited file is parsed again; a value is cached only when it
 * is plain JSON data. Parse errors are never cached: they come from `yaml` itself, as before.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import { kitCacheDir } from './cache.js';

const memory = new Map<string, string>();
let cacheDir: string | null | undefined;

function dir(): string | null {
  if (cacheDir !== undefined) return cacheDir;
  const candidates = [path.join(kitCacheDir(), 'yaml'), path.join(os.tmpdir(), 'pagi-conformance-yaml')];
  cacheDir = null;
  for (const candidate of candidates) {
    try {
      fs.mkdirSync(candidate, { recursive: true });
      fs.accessSync(candidate, fs.constants.W_OK);
      cacheDir = candidate;
      break;
    } catch {
      // not writable here: try the next place, or parse every time
    }
  }
  return cacheDir;
}

/** Parse YAML text (through the cache; repeated keys refused, as `yaml` does by default). The value is a fresh copy the caller may change. */
export function parseYamlText(text: string): any {
  const key = createHash('sha256').update(text).digest('hex');
  const remembered = memory.get(key);
  if (remembered !== undefined) return JSON.parse(remembered);
  const folder = dir();
  const file = folder ? path.join(folder, `${key}.json`) : undefined;
  if (file) {
    try {
      const json = fs.readFileSync(file, 'utf8');
      memory.set(key, json);
      return JSON.parse(json);
    } catch {
      // not cached yet (or unreadable): parse
    }
  }
  const value = parseYaml(text, { uniqueKeys: true });
  const json = JSON.stringify(value);
  if (json !== undefined && isPlainJson(value)) {
    memory.set(key, json);
    if (file) {
      try {
        const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
        fs.writeFileSync(tmp, json);
        fs.renameSync(tmp, file); // atomic: parallel workers never read half a file
      } catch {
        // a read-only or full disk only costs the next parse
      }
    }
  }
  return value;
}

/** Read and parse a YAML file (through the cache). */
export function readYamlFile(file: string): any {
  return parseYamlText(fs.readFileSync(file, 'utf8'));
}

/** Whether a parsed value survives JSON unchanged (no Infinity, NaN, Date, Map …). */
function isPlainJson(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isPlainJson);
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)
    return Object.values(value as object).every(isPlainJson);
  return false;
}
