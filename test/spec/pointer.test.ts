/** The one JSON pointer and `$ref` module: escaping, walking, copy-on-write replacement, reference resolution. */
import { describe, expect, it } from 'vitest';
import {
  absoluteRef,
  childPointer,
  escapeToken,
  pointerOf,
  refBase,
  refBelow,
  resolveRef,
  tokensOf,
  unescapeToken,
  valueAt,
  withValueAt,
} from '../../core/spec/pointer.js';
import { kitSpec } from '../../core/spec/load.js';

describe('JSON pointers (RFC 6901)', () => {
  it('escape ~ before / and unescape ~1 before ~0, so every key round-trips', () => {
    expect(escapeToken('a/b~c')).toBe('a~1b~0c');
    expect(unescapeToken('~01')).toBe('~1');
    expect(unescapeToken(escapeToken('~1/~0'))).toBe('~1/~0');
    expect(pointerOf(['a/b', 0, '~'])).toBe('/a~1b/0/~0');
    expect(pointerOf([])).toBe('');
    expect(childPointer('/x', 'm~n')).toBe('/x/m~0n');
    expect(tokensOf('')).toEqual([]);
    expect(tokensOf('/a~1b/0/')).toEqual(['a/b', '0', '']);
  });

  it('read own members only, through objects and arrays', () => {
    const doc = { 'a/b': [{ c: 1 }], '': 2 };
    expect(valueAt(doc, '/a~1b/0/c')).toBe(1);
    expect(valueAt(doc, '/')).toBe(2);
    expect(valueAt(doc, '')).toBe(doc);
    expect(valueAt(doc, '/a~1b/1/c')).toBeUndefined();
    expect(valueAt(doc, '/constructor')).toBeUndefined();
    expect(valueAt(doc, ['a/b', '0', 'c'])).toBe(1);
  });

  it('replace or remove a value by copying only the path to it', () => {
    const doc = { a: { b: 1, c: [1, 2] }, d: { e: 1 } };
    const out = withValueAt(doc, '/a/b', 2);
    expect(out).toEqual({ a: { b: 2, c: [1, 2] }, d: { e: 1 } });
    expect(doc.a.b).toBe(1);
    expect(out.d).toBe(doc.d);
    expect(withValueAt(doc, '/d/e', undefined).d).toEqual({});
    expect(doc.d).toEqual({ e: 1 });
    expect(withValueAt(doc, '/x/y', 1)).toEqual(doc);
  });
});

describe('$ref resolution', () => {
  const docs = new Map<string, unknown>([
    [
      'https://k.test/s/a.json',
      { $defs: { 'x/y': { type: 'string' } }, properties: { p: { $ref: 'b.json#/$defs/q' } } },
    ],
    ['https://k.test/s/b.json', { $defs: { q: { type: 'integer' } } }],
  ]);

  it('resolve a fragment in the same document, a file relative to the base, and a base that carries a fragment', () => {
    expect(resolveRef(docs, '#/$defs/x~1y', 'https://k.test/s/a.json')).toEqual({
      node: { type: 'string' },
      base: 'https://k.test/s/a.json',
      pointer: '/$defs/x~1y',
    });
    const viaFile = resolveRef(docs, 'b.json#/$defs/q', 'https://k.test/s/a.json#/properties/p');
    expect(viaFile.node).toEqual({ type: 'integer' });
    expect(absoluteRef(viaFile)).toBe('https://k.test/s/b.json#/$defs/q');
    expect(refBase('b.json', 'https://k.test/s/a.json')).toBe('https://k.test/s/b.json');
    expect(refBelow('https://k.test/s/a.json', 'properties', 'a/b')).toBe('https://k.test/s/a.json#/properties/a~1b');
    expect(refBelow('https://k.test/s/a.json#/x', 'items')).toBe('https://k.test/s/a.json#/x/items');
    expect(resolveRef(docs, 'c.json#/x', 'https://k.test/s/a.json').node).toBeUndefined();
  });

  it('resolve every $ref of the kit spec’s schemas to a node', () => {
    const spec = kitSpec();
    const unresolved: string[] = [];
    const walk = (node: unknown, base: string, at: string) => {
      if (!node || typeof node !== 'object') return;
      const n = node as Record<string, unknown>;
      if (typeof n.$ref === 'string' && resolveRef(spec.schemas, n.$ref, base).node === undefined)
        unresolved.push(`${base}#${at}: ${n.$ref}`);
      for (const [k, v] of Object.entries(n)) walk(v, base, childPointer(at, k));
    };
    for (const [id, doc] of spec.schemas) walk(doc, id, '');
    expect(spec.schemas.size).toBeGreaterThan(10);
    expect(unresolved).toEqual([]);
  });
});
