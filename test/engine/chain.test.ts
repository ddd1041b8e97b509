/** The dependency chains a run follows (engine/chain.ts): recorded per observation, longest one found. */
import { describe, expect, it } from 'vitest';
import { chainRecorder, longestChain, type ChainStep } from '../../engine/chain.js';

const later = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

describe('chainRecorder', () => {
  it('records each step in completion order with the steps completed before it started', async () => {
    const chain = chainRecorder();
    // Two requests at once, then a wait, then a request: the last depends on all three.
    await Promise.all([chain.track(() => later(20, 'a')), chain.track(() => later(5, 'b'))]);
    await chain.track(() => later(30, []), true);
    await chain.track(() => later(1, 'c'));
    expect(chain.steps.map((s) => s.after)).toEqual([0, 0, 2, 3]);
    expect(chain.steps[2]!.waitMs).toBeGreaterThanOrEqual(25);
    expect(chain.steps.filter((s) => s.waitMs === undefined)).toHaveLength(3);
  });

  it('records a step that failed', async () => {
    const chain = chainRecorder();
    await expect(chain.track(() => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(chain.steps).toEqual([{ after: 0 }]);
  });
});

describe('longestChain', () => {
  it('counts requests sent side by side once, and requests sent one after another each', () => {
    const parallel: ChainStep[] = Array.from({ length: 8 }, () => ({ after: 0 }));
    const sequential: ChainStep[] = Array.from({ length: 5 }, (_, i) => ({ after: i }));
    expect(longestChain([parallel], 50)).toEqual({ ms: 50, requests: 1, waitMs: 0, observation: 0 });
    expect(longestChain([parallel, sequential], 50)).toEqual({ ms: 250, requests: 5, waitMs: 0, observation: 1 });
  });

  it('adds the waits on the chain, and weighs them against requests by the round trip', () => {
    // A payment, then a 1,500 ms wait for its notification retries.
    const retries: ChainStep[] = [{ after: 0 }, { after: 1, waitMs: 1500 }];
    const scenario: ChainStep[] = Array.from({ length: 10 }, (_, i) => ({ after: i }));
    expect(longestChain([scenario, retries], 50)).toEqual({ ms: 1550, requests: 1, waitMs: 1500, observation: 1 });
    expect(longestChain([scenario, retries], 200)).toEqual({ ms: 2000, requests: 10, waitMs: 0, observation: 0 });
  });

  it('follows the longest of the paths a step may come after', () => {
    // Steps 0 (wait 100) and 1 (request) side by side; step 2 started once both were done; step 3 after step 1 only.
    const steps: ChainStep[] = [{ after: 0 }, { after: 0, waitMs: 100 }, { after: 2 }, { after: 1 }];
    expect(longestChain([steps], 50)).toMatchObject({ ms: 150, requests: 1, waitMs: 100 });
    expect(longestChain([], 50)).toEqual({ ms: 0, requests: 0, waitMs: 0, observation: -1 });
  });
});
