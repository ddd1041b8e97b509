/**
 * The retry schedule from measured delays (discover/discoverers/notifications.ts, fitSchedule): the lateness of the
 * sender's timer and connection (the short delays the most disturbed under load) does not move the first delay or the
 * factor; delays no schedule explains are left undecided.
 */
import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../core/model.js';
import { fitSchedule, leastDelays } from '../../discover/discoverers/notifications.js';

describe('fitSchedule', () => {
  it('100 ms doubling, each delay measured 20 ms late: 100 ms and 2', () => {
    expect(fitSchedule([120, 220, 420, 820])).toMatchObject({ initialDelayMs: 100, factor: 2 });
  });

  it('one second tripling with jitter; equal delays are a factor 1', () => {
    expect(fitSchedule([1020, 3050, 9010])).toMatchObject({ initialDelayMs: 1000, factor: 3 });
    expect(fitSchedule([2010, 2040, 2005, 2030])).toMatchObject({ initialDelayMs: 2000, factor: 1 });
  });

  it('the short delays late under load, the long ones on time: 100 ms doubling (not 50 ms and 2.5)', () => {
    expect(fitSchedule([153, 226, 402, 802])).toMatchObject({ initialDelayMs: 100, factor: 2 });
    expect(fitSchedule([122, 209, 413, 804])).toMatchObject({ initialDelayMs: 100, factor: 2 });
    expect(fitSchedule([368, 231, 438, 809])).toMatchObject({ initialDelayMs: 100, factor: 2 });
  });

  it('two delays: 150 ms tripling, 120 ms doubling; two delays two schedules fit: undecided', () => {
    expect(fitSchedule([152, 455])).toMatchObject({ initialDelayMs: 150, factor: 3 });
    expect(fitSchedule([124, 243])).toMatchObject({ initialDelayMs: 120, factor: 2 });
    // 120 ms doubling measured 20 to 35 ms late: 150 ms and 1.5 fit nearly as well, so neither is stated.
    expect(fitSchedule([141, 250])).toBeUndefined();
    expect(fitSchedule([155, 253])).toBeUndefined();
  });

  it('too few delays, or delays no schedule fits: undecided', () => {
    expect(fitSchedule([100])).toBeUndefined();
    expect(fitSchedule([100, 900, 300, 2000])).toBeUndefined();
  });
});

describe('leastDelays', () => {
  const at = (starts: number[]) =>
    starts.map((t) => ({ startedAt: new Date(1_000_000 + t).toISOString(), durationMs: 5 }) as unknown as Exchange);
  it('the least delay of each place over the series sent at once, and the most attempts', () => {
    // Each attempt takes 5 ms: late 190, 200, 400; on time at first, then late: 100, 350, 400.
    const late = at([0, 195, 400, 805]);
    const onTime = at([0, 105, 460, 865]);
    expect(leastDelays([late, onTime])).toEqual({ attempts: 4, gaps: [100, 200, 400] });
    expect(leastDelays([[], []])).toEqual({ attempts: 0, gaps: [] });
  });
});
