/**
 * Dependency chains of a run, as it followed them: each observation records its requests and its waits on the
 * target's clock (notifications) in the order they completed, each with how many of the observation's steps had
 * completed when it started. A step depends on every step completed before it started; the longest path through
 * those dependencies is the least time the run needs whatever its concurrency (see bench/run.ts, latency part).
 */

/** One step of an observation: a request, or a wait (`waitMs`) for the target's notifications. */
export interface ChainStep {
  /** Steps of the same observation completed when this one started: it depends on the first `after` of them. */
  after: number;
  /** For a wait: how long it lasted (ms). Absent for a request. */
  waitMs?: number;
}

/** The longest chain of one or more observations, with a request costing `rttMs`. */
export interface LongestChain {
  ms: number;
  /** Requests on the chain. */
  requests: number;
  /** Waits for notifications on the chain (ms). */
  waitMs: number;
  /** Index of the observation holding it (in the list given). */
  observation: number;
}

/** Recorder of one observation's steps (in completion order). */
export function chainRecorder(): { steps: ChainStep[]; track<T>(work: () => Promise<T>, wait?: boolean): Promise<T> } {
  const steps: ChainStep[] = [];
  return {
    steps,
    async track(work, wait = false) {
      const after = steps.length;
      const started = performance.now();
      try {
        return await work();
      } finally {
        steps.push(wait ? { after, waitMs: Math.round(performance.now() - started) } : { after });
      }
    },
  };
}

/** The longest chain of dependent steps among `observations` (each a list of steps in completion order). */
export function longestChain(observations: readonly (readonly ChainStep[])[], rttMs: number): LongestChain {
  let best: LongestChain = { ms: 0, requests: 0, waitMs: 0, observation: -1 };
  observations.forEach((steps, observation) => {
    // Longest path ending at each step; a step's predecessors are the steps completed before it started.
    const paths: { ms: number; requests: number; waitMs: number }[] = [];
    const prefixBest: number[] = []; // index of the longest path among steps 0..i
    steps.forEach((step, i) => {
      const before =
        step.after > 0 ? paths[prefixBest[Math.min(step.after, i) - 1]!]! : { ms: 0, requests: 0, waitMs: 0 };
      const wait = step.waitMs ?? 0;
      const isRequest = step.waitMs === undefined;
      const path = {
        ms: before.ms + (isRequest ? rttMs : wait),
        requests: before.requests + (isRequest ? 1 : 0),
        waitMs: before.waitMs + wait,
      };
      paths.push(path);
      prefixBest.push(i > 0 && paths[prefixBest[i - 1]!]!.ms >= path.ms ? prefixBest[i - 1]! : i);
      if (path.ms > best.ms) best = { ...path, observation };
    });
  });
  return best;
}
