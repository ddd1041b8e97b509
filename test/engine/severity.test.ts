/** The one severity order and what is derived from it: ranks, the most serious of several, document levels. */
import { describe, expect, it } from 'vitest';
import {
  DOCUMENT_LEVELS,
  SEVERITY_ORDER,
  atLeast,
  mostSevere,
  severityCounts,
  severityOfLevel,
  severityRank,
} from '../../core/run-result.js';
import { OPTIONS } from '../../core/config/options.js';

describe('the severity order', () => {
  it('runs from a broken invariant through the document levels to information', () => {
    expect(SEVERITY_ORDER).toEqual(['invariant', 'must', 'expected', 'profile', 'info']);
    expect(DOCUMENT_LEVELS).toEqual(['must', 'expected', 'profile']);
    expect(SEVERITY_ORDER.map(severityRank)).toEqual([0, 1, 2, 3, 4]);
    expect(severityCounts()).toEqual({ invariant: 0, must: 0, expected: 0, profile: 0, info: 0 });
  });

  it('names the most serious of several, and whether one reaches a floor', () => {
    expect(mostSevere(['profile', 'must', 'info'])).toBe('must');
    expect(mostSevere(['info', 'invariant'])).toBe('invariant');
    expect(mostSevere([])).toBeUndefined();
    expect(atLeast('invariant', 'must')).toBe(true);
    expect(atLeast('must', 'must')).toBe(true);
    expect(atLeast('expected', 'must')).toBe(false);
  });

  it('gives an unspecified requirement information severity, any other its level', () => {
    expect(severityOfLevel('unspecified')).toBe('info');
    expect(severityOfLevel('profile')).toBe('profile');
    expect(severityOfLevel('invariant')).toBe('invariant');
  });

  it('is what --fail-on accepts', () => {
    const failOn = OPTIONS.find((o) => o.key === 'failOn')!;
    expect(failOn.type.label).toBe('must|expected|profile');
    for (const level of DOCUMENT_LEVELS) expect(failOn.type.parse(level, '--fail-on')).toBe(level);
    expect(() => failOn.type.parse('info', '--fail-on')).toThrow();
  });
});
