/** The one table of checks and probes: validated at load, covering the catalogue, with families and levels as data. */
import { describe, expect, it } from 'vitest';
import type { Check, Probe } from '../../src/model.js';
import { kitSpec } from '../../src/spec/load.js';
import {
  CHECKS,
  CONFORMANCE_LEVELS,
  FAMILIES,
  FAMILY_ORDER,
  checkOf,
  checkSeverity,
  registryProblems,
  requirementsFor,
  validateRegistry,
} from '../../suites/registry.js';

const spec = kitSpec();
const probe: Probe = { id: 'p', operations: ['capture'], run: async () => Promise.reject(new Error('not run')) };
const check = (over: Partial<Check> = {}): Check => ({
  id: 'someCheck',
  family: 'status',
  probe: 'p',
  operations: ['capture'],
  requirements: ['PAGI-GEN-007'],
  description: 'test',
  run: () => [],
  ...over,
});

describe('registry validation', () => {
  it('refuses a duplicate check id, an unknown probe, operation or requirement, and an unspecified requirement', () => {
    expect(registryProblems([check(), check()], [probe], spec)).toContain('duplicate check id someCheck');
    expect(registryProblems([check({ probe: 'nope' })], [probe], spec)).toContain('check someCheck names unknown probe nope');
    expect(registryProblems([check({ operations: ['review'] })], [probe], spec)).toContain('check someCheck covers review, which probe p does not');
    expect(registryProblems([check({ requirements: ['PAGI-XXX-999'] })], [probe], spec)).toContain('check someCheck names unknown requirement PAGI-XXX-999');
    expect(registryProblems([check({ requirements: ['PAGI-ST-003'] })], [probe], spec)[0]).toMatch(/unspecified/);
    expect(registryProblems([check({ id: 'Bad-Id' })], [probe], spec)[0]).toMatch(/camelCase/);
    expect(registryProblems([check()], [probe, probe], spec)).toContain('duplicate probe id p');
    expect(() => validateRegistry([check(), check()], [probe], spec)).toThrow(/duplicate check id someCheck/);
  });
});

describe('coverage of the catalogue', () => {
  it('every must, expected and profile requirement has at least one check', () => {
    const covered = new Set(CHECKS.flatMap((c) => c.requirements));
    const uncovered = [...spec.requirements.values()].filter((r) => r.level !== 'unspecified' && !covered.has(r.id)).map((r) => r.id);
    expect(uncovered).toEqual([]);
  });

  it("each requirement of a check belongs to one of the check's operations (or to none)", () => {
    const bad: string[] = [];
    for (const c of CHECKS) {
      for (const id of c.requirements) {
        const ops = spec.requirements.get(id)!.operations;
        if (ops.length && !ops.some((op) => c.operations.includes(op))) bad.push(`${c.id}: ${id}`);
      }
    }
    expect(bad).toEqual([]);
  });
});

describe('families, levels and selections', () => {
  it('every family holds at least one check', () => {
    expect(FAMILY_ORDER.filter((f) => FAMILIES[f].length === 0)).toEqual([]);
  });

  it('conformance levels nest, and information-only checks are in none', () => {
    const { must, expected, profile } = CONFORMANCE_LEVELS;
    for (const id of must) expect(expected).toContain(id);
    for (const id of expected) expect(profile).toContain(id);
    expect(profile).not.toContain('unknownResponseFields');
    expect(must).toContain('xmlRootIsRespon');
    expect(must).not.toContain('responseContentTypeConventional');
    expect(expected).toContain('responseContentTypeConventional');
  });

  it('requirements and severity of a check are those of the operation it runs on', () => {
    expect(requirementsFor(checkOf('batchAtLimitAccepted'), 'capture')).toEqual(['PAGI-LIM-004', 'PAGI-BAT-003']);
    expect(requirementsFor(checkOf('batchAtLimitAccepted'), 'review')).toEqual(['PAGI-LIM-003', 'PAGI-BAT-003']);
    expect(checkSeverity(checkOf('wrongFormatRefused'), 'authoriseApm')).toBe('must');
    expect(checkSeverity(checkOf('wrongFormatRefused'), 'capture')).toBe('expected');
    expect(checkSeverity(checkOf('requestHeadersPerProfile'), 'capture')).toBe('profile');
    expect(checkSeverity(checkOf('unknownResponseFields'), 'capture')).toBe('info');
  });

  it('transitions the document leaves unspecified are never judged at must', () => {
    for (const c of CHECKS.filter((x) => x.family === 'lifecycle')) {
      for (const id of c.requirements) {
        const r = spec.requirements.get(id)!;
        if (r.section.includes('States and transitions')) expect(r.level, `${c.id} ${id}`).not.toBe('must');
      }
    }
  });
});
