import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { createAjv } from '../../src/spec/ajv.js';
import { kitSpec } from '../../src/spec/load.js';
import { KIT_ROOT } from '../../src/spec/paths.js';

const spec = kitSpec();
const catalogue = parseYaml(fs.readFileSync(path.join(KIT_ROOT, 'spec', 'requirements.yaml'), 'utf8'));

/** Every string value under `node` matching a requirement id, with where it was found. */
function idsIn(node: unknown, where: string, out: [string, string][] = []): [string, string][] {
  if (typeof node === 'string') {
    for (const m of node.matchAll(/PAGI-[A-Z]{2,4}-\d{3}/g)) out.push([m[0], where]);
  } else if (Array.isArray(node)) node.forEach((n, i) => idsIn(n, `${where}/${i}`, out));
  else if (node && typeof node === 'object') for (const [k, v] of Object.entries(node)) idsIn(v, `${where}/${k}`, out);
  return out;
}

describe('requirement catalogue', () => {
  it('validates against its schema', () => {
    const ajv = createAjv();
    const validate = ajv.compile(JSON.parse(fs.readFileSync(path.join(KIT_ROOT, 'schemas', 'requirements.schema.json'), 'utf8')));
    expect(validate(catalogue), JSON.stringify(validate.errors, null, 1)).toBe(true);
  });

  it('has unique ids, 100 to 180 entries, each naming a document section', () => {
    const ids = catalogue.requirements.map((r: { id: string }) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThanOrEqual(100);
    expect(ids.length).toBeLessThanOrEqual(180);
    for (const r of catalogue.requirements) expect(r.section.trim(), r.id).not.toBe('');
  });

  it('uses every level, and unspecified entries name a "not shown" point', () => {
    const levels = new Set(catalogue.requirements.map((r: { level: string }) => r.level));
    expect([...levels].sort()).toEqual(['expected', 'must', 'profile', 'unspecified']);
  });

  it('every requirement id named by the spec or a schema exists in the catalogue', () => {
    const named = idsIn(spec.openapi, 'openapi.yaml');
    for (const [id, schema] of spec.schemas) idsIn(schema, id, named);
    const unknown = named.filter(([id]) => !spec.requirements.has(id));
    expect(unknown).toEqual([]);
    expect(named.length).toBeGreaterThan(100);
  });

  it('every schema constraint annotation names a requirement that is not unspecified', () => {
    const bad: string[] = [];
    const walk = (node: unknown, where: string) => {
      if (Array.isArray(node)) node.forEach((n, i) => walk(n, `${where}/${i}`));
      else if (node && typeof node === 'object') {
        const id = (node as Record<string, unknown>)['x-requirement'];
        if (typeof id === 'string' && spec.requirements.get(id)?.level === 'unspecified') bad.push(`${where}: ${id}`);
        for (const [k, v] of Object.entries(node)) walk(v, `${where}/${k}`);
      }
    };
    for (const [id, schema] of spec.schemas) walk(schema, id);
    expect(bad).toEqual([]);
  });

  it("each operation's requirement ids are the catalogue's (npm run spec:sync keeps them derived)", () => {
    for (const op of spec.operations.values()) {
      const expected = catalogue.requirements.filter((r: { operations: string[] }) => r.operations.includes(op.key)).map((r: { id: string }) => r.id);
      expect(op.requirements, op.key).toEqual(expected);
    }
  });
});
