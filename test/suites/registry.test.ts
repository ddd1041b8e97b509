/** The one table of checks and probes: validated at load, covering the catalogue, with families and levels as data. */
import { describe, expect, it } from 'vitest';
import { FAMILIES, type Check, type Probe } from '../../core/model.js';
import { registryProblems as tableProblems } from '../../engine/registry.js';
import { ENGINE_RULES } from '../../engine/rules.js';
import { kitSpec } from '../../core/spec/load.js';
import { covers } from '../../core/spec/operations.js';
import {
  CHECKS,
  PROBES,
  RULES,
  CONFORMANCE_LEVELS,
  CHECKS_BY_FAMILY,
  checkOf,
  checkSeverity,
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
    expect(tableProblems({ CHECKS: [check(), check()], PROBES: [probe] }, spec)).toContain(
      'duplicate check id someCheck',
    );
    expect(tableProblems({ CHECKS: [check({ probe: 'nope' })], PROBES: [probe] }, spec)).toContain(
      'check someCheck names unknown probe nope',
    );
    expect(tableProblems({ CHECKS: [check({ operations: ['review'] })], PROBES: [probe] }, spec)).toContain(
      'check someCheck covers review, which probe p does not',
    );
    expect(tableProblems({ CHECKS: [check({ requirements: ['PAGI-XXX-999'] })], PROBES: [probe] }, spec)).toContain(
      'check someCheck names unknown requirement PAGI-XXX-999',
    );
    expect(tableProblems({ CHECKS: [check({ requirements: ['PAGI-ST-003'] })], PROBES: [probe] }, spec)[0]).toMatch(
      /unspecified/,
    );
    expect(tableProblems({ CHECKS: [check({ id: 'Bad-Id' })], PROBES: [probe] }, spec)[0]).toMatch(/camelCase/);
    expect(tableProblems({ CHECKS: [check()], PROBES: [probe, probe] }, spec)).toContain('duplicate probe id p');
    const rule = { ...ENGINE_RULES[0]!, id: 'someCheck' };
    expect(tableProblems({ CHECKS: [check()], PROBES: [probe], RULES: [rule, rule] }, spec)).toEqual([
      'duplicate rule id someCheck',
      "check id someCheck is also a rule's id",
    ]);
    expect(tableProblems({ CHECKS: CHECKS, PROBES: PROBES, RULES: RULES }, spec)).toEqual([]);
    expect(() => validateRegistry([check(), check()], [probe], spec)).toThrow(/duplicate check id someCheck/);
  });
});

describe('coverage of the catalogue', () => {
  it('every must, expected and profile requirement has at least one check', () => {
    const covered = new Set(CHECKS.flatMap((c) => c.requirements));
    const uncovered = [...spec.requirements.values()]
      .filter((r) => r.level !== 'unspecified' && !covered.has(r.id))
      .map((r) => r.id);
    expect(uncovered).toEqual([]);
  });

  it("each requirement of a check belongs to one of the check's operations (or to none)", () => {
    const bad: string[] = [];
    for (const c of CHECKS) {
      for (const id of c.requirements) {
        const ops = spec.requirements.get(id)!.operations;
        if (ops.length && !ops.some((op) => covers(spec, c.operations, op))) bad.push(`${c.id}: ${id}`);
      }
    }
    expect(bad).toEqual([]);
  });
});

describe('families, levels and selections', () => {
  it('every family holds at least one check', () => {
    expect(FAMILIES.filter((f) => CHECKS_BY_FAMILY[f].length === 0)).toEqual([]);
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
    expect(requirementsFor(checkOf('batchAtLimitAccepted'), 'capture')).toEqual([
      'PAGI-LIM-004',
      'PAGI-BAT-002',
      'PAGI-INV-006',
      'PAGI-INV-007',
    ]);
    expect(requirementsFor(checkOf('batchAtLimitAccepted'), 'review')).toEqual([
      'PAGI-LIM-003',
      'PAGI-BAT-002',
      'PAGI-INV-006',
      'PAGI-INV-007',
    ]);
    expect(checkSeverity(checkOf('overRefundRefused'), 'refund')).toBe('invariant');
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

describe('the table derives its entries', () => {
  it('every check a module under suites/checks or suites/probes exports is in the table, once, family by family', async () => {
    const fs = await import('node:fs');
    const path = await import('node:path');
    const ids = CHECKS.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const folder of ['checks', 'probes']) {
      const dir = path.join(import.meta.dirname, '..', '..', 'suites', folder);
      for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
        const mod = (await import(path.join(dir, file))) as Record<string, unknown>;
        for (const [name, value] of Object.entries(mod)) {
          const v = value as Partial<Check> | null;
          const isCheck =
            typeof v === 'object' && v !== null && typeof v.family === 'string' && typeof v.run === 'function';
          if (isCheck) expect(CHECKS, `${folder}/${file} exports ${name}`).toContain(value);
        }
      }
    }
    const order = CHECKS.map((c) => FAMILIES.indexOf(c.family));
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });
});
