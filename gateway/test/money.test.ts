/** Amounts in integer minor units: no float drift, the interface's two-decimal form both ways. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { divide, fromMinor, percentFraction, toInteger, toMinor } from '../money.js';
import { addInterval, compactTimestamp, dateTime, offsetDateTime } from '../clock.js';

describe('money', () => {
  it('reads and writes two-decimal amounts exactly', () => {
    expect(toMinor('10.36')).toBe(1036n);
    expect(toMinor('0.10')).toBe(10n);
    expect(toMinor('010.36')).toBe(1036n);
    expect(toMinor('00.00')).toBe(0n);
    for (const bad of ['10.3', '10', '-1.00', '1e3', ' 1.00', 10.36]) expect(toMinor(bad)).toBeUndefined();
    expect(fromMinor(1036n)).toBe('10.36');
    expect(fromMinor(5n)).toBe('0.05');
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 10n ** 20n }), (n) => toMinor(fromMinor(n)) === n));
  });

  it('adds 0.10 thirty times to 3.00 (where floats drift)', () => {
    let sum = 0n;
    for (let i = 0; i < 30; i++) sum += toMinor('0.10')!;
    expect(fromMinor(sum)).toBe('3.00');
  });

  it('divides with the profile roundings', () => {
    const { numerator, denominator } = percentFraction('1.5');
    expect(divide(1000n * numerator, denominator, 'down')).toBe(15n);
    expect(divide(1001n * numerator, denominator, 'down')).toBe(15n);
    expect(divide(1001n * numerator, denominator, 'up')).toBe(16n);
    expect(divide(1033n * numerator, denominator, 'halfUp')).toBe(15n);
    expect(divide(1034n * numerator, denominator, 'halfUp')).toBe(16n);
    expect(toInteger('250')).toBe(250n);
    expect(toInteger('2.50')).toBeUndefined();
  });
});

describe('timestamps', () => {
  const at = new Date(Date.UTC(2026, 10, 22, 14, 30, 15));
  it('writes the document forms in UTC', () => {
    expect(compactTimestamp(at)).toBe('20261122143015');
    expect(offsetDateTime(at)).toBe('2026-11-22T14:30:15+00:00');
    expect(dateTime(addInterval(at, 'day', 30))).toBe('2026-12-22 00:00:00');
    expect(dateTime(addInterval(at, 'month', 1))).toBe('2026-12-22 00:00:00');
  });
});
