import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { createAjv } from '../../core/spec/ajv.js';
import { kitSpec, loadSpec } from '../../core/spec/load.js';
import { KIT_ROOT } from '../../core/spec/paths.js';
import { specCopy } from '../support/temp.js';

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
    const validate = ajv.compile(
      JSON.parse(fs.readFileSync(path.join(KIT_ROOT, 'schemas', 'requirements.schema.json'), 'utf8')),
    );
    expect(validate(catalogue), JSON.stringify(validate.errors, null, 1)).toBe(true);
  });

  it('has unique ids, 100 to 200 entries, each naming a document section', () => {
    const ids = catalogue.requirements.map((r: { id: string }) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThanOrEqual(100);
    expect(ids.length).toBeLessThanOrEqual(200);
    for (const r of catalogue.requirements) expect(r.section.trim(), r.id).not.toBe('');
  });

  it('uses every level, and unspecified entries name a "not shown" point', () => {
    const levels = new Set(catalogue.requirements.map((r: { level: string }) => r.level));
    expect([...levels].sort()).toEqual(['expected', 'invariant', 'must', 'profile', 'unspecified']);
  });

  it('the payment-integrity catalogue is short: PAGI-INV-* entries of the six families, each with its rationale and breach', () => {
    const invariants = [...spec.requirements.values()].filter((r) => r.level === 'invariant');
    expect(invariants.length).toBeGreaterThanOrEqual(4);
    expect(invariants.length).toBeLessThanOrEqual(20);
    expect(new Set(invariants.map((r) => r.family))).toEqual(
      new Set(['money', 'identity', 'availability', 'secrecy', 'authentication', 'state']),
    );
    for (const r of invariants) {
      expect(r.id).toMatch(/^PAGI-INV-\d{3}$/);
      expect(r.rationale!.length, r.id).toBeGreaterThan(60);
      expect(r.breach, r.id).toMatch(/^[a-z]/);
    }
    // The moved requirements stay traceable, and no entry of the document's levels is named PAGI-INV.
    const replaced = invariants.flatMap((r) => r.replaces ?? []);
    expect(replaced).toEqual(expect.arrayContaining(['PAGI-GEN-010', 'PAGI-SEC-001', 'PAGI-SEC-003']));
    for (const id of replaced) expect(spec.requirements.has(id), id).toBe(false);
    expect(
      [...spec.requirements.values()].filter((r) => r.level !== 'invariant' && r.id.startsWith('PAGI-INV')),
    ).toEqual([]);
    expect(spec.requirements.get('PAGI-APM-005')!.level).toBe('profile');
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
      const expected = catalogue.requirements
        .filter((r: { operations: string[] }) => r.operations.includes(op.key))
        .map((r: { id: string }) => r.id);
      expect(op.requirements, op.key).toEqual(expected);
    }
  });
});

describe('a broken catalogue is refused when the spec loads', () => {
  /** A spec copy whose catalogue text went through `edit`; the message `loadSpec` throws. */
  const loadError = (edit: (text: string) => string): string => {
    const root = specCopy((dir) => {
      const file = path.join(dir, 'spec', 'requirements.yaml');
      fs.writeFileSync(file, edit(fs.readFileSync(file, 'utf8')));
    });
    try {
      loadSpec(root);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('loadSpec accepted the broken catalogue');
  };

  it('a renamed top-level key names the file, the pointer and the unknown and the missing key', () => {
    const message = loadError((text) => text.replace(/^requirements:/m, 'requirement:'));
    expect(message).toMatch(/^spec: \S+\/spec\/requirements\.yaml does not match schemas\/requirements\.schema\.json:/);
    expect(
      message
        .split('\n')
        .slice(1)
        .map((l) => l.trim()),
    ).toEqual(['/requirements: missing (required)', '/requirement: unknown key']);
  });

  it('a wrong level names the entry and the allowed values', () => {
    const message = loadError((text) =>
      text.replace('  - id: PAGI-GEN-002\n    level: must', '  - id: PAGI-GEN-002\n    level: mandatory'),
    );
    expect(
      message
        .split('\n')
        .slice(1)
        .map((l) => l.trim()),
    ).toEqual(['/requirements/1/level: must be one of must, expected, profile, unspecified, invariant']);
  });

  it('an unknown operation and a malformed id name their entries', () => {
    const message = loadError((text) =>
      text
        .replace('  - id: PAGI-GEN-001\n', '  - id: PAGI-GEN-1\n')
        .replace(
          '[authoriseDirect, authoriseApm, checkout, retrievalTrans, capture, review, cancel, refund, retrievalRefund, payout]',
          '[authoriseDirect, authorize]',
        ),
    );
    const lines = message
      .split('\n')
      .slice(1)
      .map((l) => l.trim());
    expect(lines[0]).toBe('/requirements/0/id: must match pattern "^PAGI-[A-Z]{2,4}-[0-9]{3}$"');
    expect(lines[1]).toMatch(
      /^\/requirements\/0\/operations\/1: must be one of authoriseDirect, authoriseApm, checkout, /,
    );
  });

  it('a catalogue that is not a mapping says so at the root', () => {
    const message = loadError(() => '- id: PAGI-GEN-001\n');
    expect(
      message
        .split('\n')
        .slice(1)
        .map((l) => l.trim()),
    ).toEqual(['/: must be object']);
  });

  it('many problems are cut to ten lines and a count', () => {
    const message = loadError((text) => text.replace(/^ {4}section:/gm, '    chapter:'));
    const lines = message
      .split('\n')
      .slice(1)
      .map((l) => l.trim());
    expect(lines).toHaveLength(11);
    expect(lines.slice(0, 2)).toEqual([
      '/requirements/0/section: missing (required)',
      '/requirements/0/chapter: unknown key',
    ]);
    expect(lines[10]).toMatch(/^… and \d+ more$/);
  });
});
