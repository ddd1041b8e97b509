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
import { isMap, isNode, isSeq, LineCounter, parse as parseYaml, parseDocument, YAMLParseError } from 'yaml';
import { kitCacheDir } from './cache.js';
import { YamlSyntaxError } from './types/errors.js';

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

/**
 * Parse YAML text (through the cache; repeated keys refused, as `yaml` does by default). The value is a fresh copy the
 * caller may change. A syntax error is a YamlSyntaxError naming `source` (what the text was read from) and the place.
 */
export function parseYamlText(text: string, source = 'the YAML text'): any {
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
  let value: unknown;
  try {
    value = parseYaml(text, { uniqueKeys: true });
  } catch (e) {
    throw e instanceof YAMLParseError ? syntaxError(e, source) : e;
  }
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

/** Read and parse a YAML file (through the cache); a syntax error is a YamlSyntaxError naming the file and the place. */
export function readYamlFile(file: string): any {
  return parseYamlText(fs.readFileSync(file, 'utf8'), file);
}

/**
 * The parser's error as one sentence: `file:line:column: not valid YAML: what the parser found; correct the file there.`
 * The parser's excerpt of the line is left out: the line may hold a secret or a card number.
 */
function syntaxError(e: YAMLParseError, file: string): YamlSyntaxError {
  const [line, column] = e.linePos ? [e.linePos[0].line, e.linePos[0].col] : [undefined, undefined];
  const what = e.message
    .split('\n')[0]!
    .replace(/ at line [0-9]+, column [0-9]+:?\s*$/, '')
    .replace(/[.:]\s*$/, '');
  const at = line === undefined ? file : `${file}:${line}:${column}`;
  return new YamlSyntaxError(
    `${at}: not valid YAML: ${what.charAt(0).toLowerCase()}${what.slice(1)}; correct the file there.`,
  );
}

/** A place in a YAML text, 1-based. */
export interface YamlPosition {
  line: number;
  column: number;
}

/**
 * Where the node at `path` (keys and indexes) is written in YAML `text`: the value's position, or its key's with
 * `key`; the deepest node of the path that exists when the path goes further than the text (a missing key lies in the
 * mapping that lacks it). Undefined when the text cannot be parsed or has no root node.
 */
export function yamlPosition(text: string, path: readonly (string | number)[], key = false): YamlPosition | undefined {
  const lineCounter = new LineCounter();
  let doc: ReturnType<typeof parseDocument>;
  try {
    doc = parseDocument(text, { lineCounter, uniqueKeys: false });
  } catch {
    return undefined;
  }
  let node: unknown = doc.contents;
  let at: [number, number, number] | undefined = isNode(node) ? (node.range ?? undefined) : undefined;
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find(
        (p) => String((p.key as { value?: unknown } | null)?.value ?? p.key) === String(segment),
      );
      if (!pair) break;
      const k = isNode(pair.key) ? pair.key.range : undefined;
      node = pair.value;
      const v = isNode(node) ? node.range : undefined;
      at = (key && segment === path[path.length - 1] ? k : (v ?? k)) ?? at;
    } else if (isSeq(node) && /^[0-9]+$/.test(String(segment))) {
      const item = node.items[Number(segment)];
      if (item === undefined) break;
      node = item;
      at = (isNode(item) ? item.range : undefined) ?? at;
    } else break;
  }
  if (!at) return undefined;
  const { line, col } = lineCounter.linePos(at[0]);
  return { line, column: col };
}

/** The keys of a JSON pointer (`/a/b~1c/0` → `a`, `b/c`, `0`). */
export function pointerKeys(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
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
