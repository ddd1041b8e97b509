import { describe, expect, it } from 'vitest';
import type { Observation, OperationKey } from '../../src/model.js';
import type { PlannedTest } from '../../src/engine/plan.js';
import { prefetch, type ObservationEntry } from '../../src/engine/suite.js';

function planned(probe: string, operation: OperationKey, selected = true): PlannedTest {
  return { key: `${operation}/${probe}`, checkId: probe, family: 'events', operation, probe, requirementIds: [], severity: 'must', title: probe, selected };
}

/** An observe() recording the order probes start in; each observation settles when its `finish` is called. */
function recorder() {
  const started: string[] = [];
  const finish = new Map<string, () => void>();
  const observe = (probe: string, operation: OperationKey): ObservationEntry => {
    const key = `${probe}@${operation}`;
    started.push(key);
    const observation = new Promise<Observation>((resolve) => finish.set(key, () => resolve({} as Observation)));
    return { key, observation, usage: () => ({ exchanges: 0, records: [], replay: [] }), claimed: false };
  };
  return { started, finish, observe };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('prefetch', () => {
  it('starts the probes that wait on the target first, beside the lanes, then the others in plan order', async () => {
    const plan = [planned('shape', 'authoriseDirect'), planned('shape', 'capture'), planned('retry', 'authoriseDirect'), planned('limits', 'capture'), planned('skipped', 'refund', false)];
    const r = recorder();
    prefetch(plan, r.observe, 1, new Set(['retry']));
    await tick();
    // The waiting probe never finishes here, and still the single lane goes on.
    expect(r.started).toEqual(['retry@authoriseDirect', 'shape@authoriseDirect']);
    r.finish.get('shape@authoriseDirect')!();
    await tick();
    r.finish.get('shape@capture')!();
    await tick();
    expect(r.started).toEqual(['retry@authoriseDirect', 'shape@authoriseDirect', 'shape@capture', 'limits@capture']);
  });

  it('starts each (probe, operation) once, and no unselected one', async () => {
    const plan = [planned('shape', 'authoriseDirect'), planned('shape', 'authoriseDirect'), planned('skipped', 'refund', false)];
    const r = recorder();
    prefetch(plan, r.observe, 4);
    await tick();
    expect(r.started).toEqual(['shape@authoriseDirect']);
  });
});
