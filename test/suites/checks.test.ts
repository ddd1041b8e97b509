/**
 * Every check against synthetic observations: at least one passing and one failing case each, the failing ones
 * named by the requirement they exercise; findings in the one shape (code, fixed title, "expected … / received …",
 * location, masked evidence) at the level of their requirement.
 */
import { describe, expect, it } from 'vitest';
import { severityOf } from '../../engine/outcome.js';
import { kitSpec } from '../../core/spec/load.js';
import { operationsIn } from '../../core/spec/operations.js';
import { FINDING_CODES } from '../../core/types/finding-codes.js';
import { CHECKS, checkOf } from '../../suites/registry.js';
import { CHOICE_CASES } from './cases/choices.js';
import { CONVENTIONS_CASES } from './cases/conventions.js';
import { DEEP_CASES } from './cases/deep.js';
import { EVENTS_CASES } from './cases/events.js';
import { INTEGRITY_CASES } from './cases/integrity.js';
import { LIFECYCLE_CASES } from './cases/lifecycle.js';
import { LIMITS_CASES } from './cases/limits.js';
import { SECURITY_CASES, STATUS_CASES } from './cases/status-security.js';
import { PROFILE_RULE_CASES } from './cases/profile-rules.js';
import { SHAPE_CASES, MEDIA_CASES } from './cases/shape-media.js';
import type { Case } from './cases/types.js';
import { config, context } from './fixtures.js';

const CASES: Case[] = [
  ...SHAPE_CASES,
  ...MEDIA_CASES,
  ...CONVENTIONS_CASES,
  ...LIMITS_CASES,
  ...STATUS_CASES,
  ...SECURITY_CASES,
  ...LIFECYCLE_CASES,
  ...EVENTS_CASES,
  ...PROFILE_RULE_CASES,
  ...CHOICE_CASES,
  ...DEEP_CASES,
  ...INTEGRITY_CASES,
];

describe('check cases', () => {
  it.each(CASES.map((c) => [`${c.requirement} ${c.check} on ${c.op}: ${c.name}`, c] as const))('%s', (_, c) => {
    const check = checkOf(c.check);
    expect(operationsIn(kitSpec(), check.operations)).toContain(c.op);
    expect(c.requirement).toMatch(/^PAGI-/);
    const ctx = c.ctx?.() ?? context();
    const outcome = check.run(c.observation(), ctx);
    if (c.expect === 'notApplicable') {
      expect(outcome).toHaveProperty('notApplicable');
      return;
    }
    expect(outcome, JSON.stringify(outcome)).toBeInstanceOf(Array);
    const findings = outcome as Exclude<typeof outcome, { notApplicable: string }>;
    const failing = findings.filter((f) => f.severity !== 'info');
    if (c.expect === 'pass') {
      expect(failing.map((f) => `${f.code} ${f.location.pointer}: ${f.message}`)).toEqual([]);
      return;
    }
    const codes = findings.map((f) => f.code);
    for (const code of c.expect.codes) expect(codes, findings.map((f) => f.message).join('\n')).toContain(code);
    expect(
      findings.flatMap((f) => f.requirementIds),
      `a finding traces to ${c.requirement}`,
    ).toContain(c.requirement);
    for (const f of findings) {
      expect(f.checkId).toBe(c.check);
      expect(f.title).toBe(FINDING_CODES[f.code as keyof typeof FINDING_CODES]);
      expect(f.message).toMatch(/^expected .+ \/ received .*$/s);
      for (const id of f.requirementIds) expect(check.requirements).toContain(id);
      // The most serious level among the requirements it names (an echo of another value: the document's and the invariant).
      expect(f.severity).toBe(c.expect.info ? 'info' : severityOf(ctx.spec, f.requirementIds));
      expect(f.location.exchangeId).toBeTruthy();
      expect(f.evidence?.request.url).toBeTruthy();
    }
    for (const card of Object.values(config.cards)) expect(JSON.stringify(findings)).not.toContain(card);
  });

  it('every check has a passing and a failing case', () => {
    const missing: string[] = [];
    for (const check of CHECKS) {
      const cases = CASES.filter((c) => c.check === check.id);
      if (!cases.some((c) => c.expect === 'pass')) missing.push(`${check.id}: no passing case`);
      if (!cases.some((c) => typeof c.expect === 'object')) missing.push(`${check.id}: no failing case`);
    }
    expect(missing).toEqual([]);
  });
});
