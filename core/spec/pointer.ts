/**
 * JSON pointers (RFC 6901) and `$ref` resolution over the spec's schema documents: the one place that escapes a
 * reference token, walks a pointer through an instance and follows a `$ref` to the node it names. Every resolver
 * (the spec model, the engine's decoder, the suites' schema walk, the pact's flattened schemas, the gateway's field
 * lists, discovery) and every pointer a finding, a fault or a probe builds goes through here.
 */

/** Path segment of a JSON pointer: an object key or an array index. */
export type PointerToken = string | number;

/** Escape one reference token: `~` as `~0`, `/` as `~1` (RFC 6901, 3). */
export function escapeToken(token: PointerToken): string {
  const t = String(token);
  // Checks build and read thousands of pointers per answer: skip the replacements when there is nothing to escape.
  return t.includes('~') || t.includes('/') ? t.replace(/~/g, '~0').replace(/\//g, '~1') : t;
}

/** Undo `escapeToken`: `~1` as `/`, then `~0` as `~` (RFC 6901, 4: in this order). */
export function unescapeToken(token: string): string {
  return token.includes('~') ? token.replace(/~1/g, '/').replace(/~0/g, '~') : token;
}

/** JSON pointer of a path (`['a/b', 0]` → `/a~1b/0`; `[]` → `''`, the whole document). */
export function pointerOf(path: readonly PointerToken[]): string {
  let out = '';
  for (const token of path) out += `/${escapeToken(token)}`;
  return out;
}

/** The pointer one step below `pointer`. */
export function childPointer(pointer: string, token: PointerToken): string {
  return `${pointer}/${escapeToken(token)}`;
}

/** The unescaped tokens of a pointer (`''` → `[]`, `/a~1b/0` → `['a/b', '0']`). */
export function tokensOf(pointer: string): string[] {
  return pointer === '' ? [] : pointer.split('/').slice(1).map(unescapeToken);
}

function child(node: unknown, token: string): unknown {
  return node !== null && typeof node === 'object' && Object.hasOwn(node, token)
    ? (node as Record<string, unknown>)[token]
    : undefined;
}

/** The value a pointer names in an instance (own members only), or undefined. */
export function valueAt(instance: unknown, pointer: string | readonly string[]): unknown {
  let node = instance;
  if (typeof pointer !== 'string') {
    for (const token of pointer) node = child(node, token);
    return node;
  }
  // The tokens of the pointer read in place, no array built (checks read thousands of pointers per answer).
  for (let at = pointer.indexOf('/'); at !== -1; ) {
    const end = pointer.indexOf('/', at + 1);
    node = child(node, unescapeToken(end === -1 ? pointer.slice(at + 1) : pointer.slice(at + 1, end)));
    at = end;
  }
  return node;
}

/**
 * `root` with the value at `pointer` replaced (`undefined`: the member removed). Only the objects and arrays on the
 * pointer's path are copied; the rest is shared with `root`, which stays unchanged. A path through a scalar or a
 * missing member changes nothing below it.
 */
export function withValueAt<T>(root: T, pointer: string | readonly string[], value: unknown): T {
  const tokens = typeof pointer === 'string' ? tokensOf(pointer) : pointer;
  const copy = (node: unknown): any => (Array.isArray(node) ? [...node] : { ...(node as object) });
  const out = copy(root);
  let node: any = out;
  for (const token of tokens.slice(0, -1)) {
    const next = node[token];
    if (!next || typeof next !== 'object') return out;
    node = node[token] = copy(next);
  }
  const last = tokens[tokens.length - 1];
  if (last === undefined) return out;
  if (value === undefined) delete node[last];
  else node[last] = value;
  return out;
}

/** A schema node found by a `$ref`, with the `$id` of its document and the pointer to it there. */
export interface RefTarget {
  /** The node, or undefined when the document or the pointer names nothing. */
  node: any;
  /** `$id` of the document holding the node: the base its own relative `$ref`s resolve against. */
  base: string;
  /** The pointer to the node within its document (`''` for the root). */
  pointer: string;
}

/** The `$id` of the document a `$ref` found in document `base` leads to (`base` may carry a fragment). */
export function refBase(ref: string, base: string): string {
  const hash = ref.indexOf('#');
  const file = hash < 0 ? ref : ref.slice(0, hash);
  return file ? new URL(file, base).href : base.split('#')[0]!;
}

/**
 * Resolve a `$ref` found in the document whose `$id` is `base` (a fragment on `base` is ignored), within schema
 * documents keyed by `$id`: the file part relative to `base`, the fragment a JSON pointer into that document.
 */
export function resolveRef(documents: ReadonlyMap<string, unknown>, ref: string, base: string): RefTarget {
  const hash = ref.indexOf('#');
  const pointer = hash < 0 ? '' : ref.slice(hash + 1);
  const id = refBase(ref, base);
  let node: any = documents.get(id);
  for (const token of pointer.split('/')) if (token) node = node?.[unescapeToken(token)];
  return { node, base: id, pointer };
}

/** Absolute reference (`$id#pointer`) of a node: usable as a schema id with `SpecModel.validator`. */
export function absoluteRef(target: Pick<RefTarget, 'base' | 'pointer'>): string {
  return `${target.base}#${target.pointer}`;
}

/** The absolute reference of a node below the one `ref` (`$id` or `$id#pointer`) names. */
export function refBelow(ref: string, ...path: PointerToken[]): string {
  const hash = ref.indexOf('#');
  return hash < 0 ? `${ref}#${pointerOf(path)}` : `${ref}${pointerOf(path)}`;
}
