/**
 * The kit's layers point one way. Each layer is a top-level folder; scripts/layers.ts says what each may import (the
 * README's layer table is generated from it). This test finds the layers in the folders (a top-level folder holding
 * kit source that is no layer fails), reads every source file's imports (static, `import type`, re-exports, dynamic
 * `import('…')` and `import('…')` types, through TypeScript's own scanner) and fails on an import the table does not
 * allow and on any cycle between files.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { KIT_ROOT } from '../core/spec/paths.js';
import { LAYERS, NOT_LAYERS } from '../scripts/layers.js';
import { LAYER_MARKERS, layersTable } from '../scripts/readme-layers.js';
import { sectionIsCurrent } from '../scripts/readme-section.js';

interface Layer {
  name: string;
  mayImport: string[];
}

const layers: Layer[] = LAYERS.map((l) => ({ name: l.folder, mayImport: [l.folder, ...l.mayImport] }));

const SOURCE = /\.(ts|mts|mjs)$/;

/** Source files of the kit under `dir` (tests and the gateway's test folder left out). */
function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(KIT_ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (entry.name !== 'test' && entry.name !== 'node_modules') out.push(...sourceFiles(rel));
    } else if (SOURCE.test(entry.name) && !entry.name.endsWith('.test.ts')) out.push(rel);
  }
  return out;
}

interface Import {
  from: string;
  line: number;
  specifier: string;
  /** The kit file imported, relative to the root. */
  to: string;
}

/** The kit files `file` imports: relative specifiers resolved (`.js` standing for the `.ts` source). */
function importsOf(file: string): Import[] {
  const text = fs.readFileSync(path.join(KIT_ROOT, file), 'utf8');
  const info = ts.preProcessFile(text, true, true);
  const out: Import[] = [];
  for (const ref of info.importedFiles) {
    if (!ref.fileName.startsWith('.')) continue; // packages
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), ref.fileName));
    const to =
      [target.replace(/\.js$/, '.ts'), target].find((candidate) => fs.existsSync(path.join(KIT_ROOT, candidate))) ??
      target;
    out.push({ from: file, line: text.slice(0, ref.pos).split('\n').length, specifier: ref.fileName, to });
  }
  return out;
}

/** The layer holding `file`: its top-level folder's. */
function layerOf(layers: readonly Layer[], file: string): Layer | undefined {
  return layers.find((l) => l.name === file.split('/')[0]);
}

/** Top-level folders holding TypeScript source (the layers must be exactly these, bar the ones that are no layer). */
function sourceFolders(): string[] {
  return fs
    .readdirSync(KIT_ROOT, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.') && !(NOT_LAYERS as readonly string[]).includes(e.name))
    .map((e) => e.name)
    .filter((d) => sourceFiles(d).length > 0)
    .sort();
}

/** Every cycle between files, each as its files in import order (Tarjan's strongly connected components). */
function cyclesOf(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (edges.get(v) ?? []).includes(v)) cycles.push(component.reverse());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

/** One shortest cycle through the first file of a strongly connected component, shown as its imports. */
function shortestCycle(edges: ReadonlyMap<string, readonly string[]>, component: readonly string[]): string {
  const inside = new Set(component);
  const start = component[0]!;
  const before = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of edges.get(v) ?? []) {
      if (!inside.has(w) || before.has(w)) continue;
      before.set(w, v);
      if (w === start) queue.length = 0;
      else queue.push(w);
    }
  }
  const cycle = [start];
  for (let v = before.get(start)!; v !== start; v = before.get(v)!) cycle.unshift(v);
  cycle.unshift(start);
  const more =
    component.length > cycle.length - 1
      ? ` (${component.length} files import each other through cycles like this)`
      : '';
  return `${cycle.join(' → ')}${more}`;
}

const files = layers.flatMap((l) => (fs.existsSync(path.join(KIT_ROOT, l.name)) ? sourceFiles(l.name) : []));
const imports = files.flatMap(importsOf);

describe('architecture: the layers are the folders', () => {
  it('allows imports only downwards (no two layers may import each other), naming layers that exist', () => {
    const names = new Set(layers.map((l) => l.name));
    expect(layers.length).toBeGreaterThan(5);
    expect(
      layers.flatMap((l) =>
        l.mayImport.filter((n) => !names.has(n)).map((n) => `${l.name} may import unknown layer ${n}`),
      ),
    ).toEqual([]);
    const upward = new Map(layers.map((l) => [l.name, l.mayImport.filter((n) => n !== l.name)]));
    expect(cyclesOf(upward).map((c) => shortestCycle(upward, c))).toEqual([]);
  });

  it('has one layer per top-level source folder, and a folder for every layer', () => {
    expect(sourceFolders()).toEqual(layers.map((l) => l.name).sort());
    expect(files.length).toBeGreaterThan(100);
  });

  it("the README's layer table is generated from scripts/layers.ts (npm run readme:layers)", () => {
    expect(sectionIsCurrent(LAYER_MARKERS, layersTable())).toBe(true);
  });
});

describe('architecture: imports', () => {
  it('point only where the layer table allows', () => {
    const wrong: string[] = [];
    for (const i of imports) {
      const from = layerOf(layers, i.from);
      const to = layerOf(layers, i.to);
      if (!from) continue; // reported by the test above
      if (!to) wrong.push(`${i.from}:${i.line} imports '${i.specifier}', which is no source file of a layer`);
      else if (to !== from && !from.mayImport.includes(to.name))
        wrong.push(
          `${i.from}:${i.line} imports '${i.specifier}': ${from.name} may not import ${to.name} (only ${from.mayImport.join(', ')})`,
        );
    }
    expect(wrong).toEqual([]);
  });

  it('form no cycle between files (runtime or type imports)', () => {
    const edges = new Map<string, string[]>(files.map((f) => [f, []]));
    for (const i of imports) edges.get(i.from)?.push(i.to);
    expect(cyclesOf(edges).map((c) => shortestCycle(edges, c))).toEqual([]);
  });

  it('are all seen, dynamic import() and import() types included', () => {
    const seen = (from: string, to: string) => imports.some((i) => i.from === from && i.to === to);
    expect(seen('kit/kit.ts', 'gateway/index.ts')).toBe(true); // await import('../gateway/index.js')
    expect(seen('core/model.ts', 'core/spec/load.ts')).toBe(true); // import('./spec/load.js').SpecModel
    expect(seen('engine/adapter.ts', 'engine/suite.ts')).toBe(true); // import type {} from './suite.js'
  });
});
