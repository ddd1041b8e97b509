/**
 * The kit's self-test: the suites against every variant of the reference gateway (gateway/faults.ts), each on its
 * own gateway, in parallel child processes; then the detection score, the false alarms and the coverage of the
 * `must` and `expected` requirements by faults (selftest/score.ts). `pagi-conform selftest` prints it and
 * writes it as JSON.
 */
import os from 'node:os';
import { planVariants, type PlannedVariant } from './plan.js';
import { runInWorkers } from './pool.js';
import { incomplete, scoreSelftest, type SelftestScore } from './score.js';
import type { VariantRun, VariantSettings } from './variant.js';

/** Options of a self-test. */
export interface SelftestOptions extends VariantSettings {
  /** Variants run at once (child processes). */
  jobs: number;
  /** Run only these variants (default: all). */
  only: string[];
  /** Time limit of one variant's run, in milliseconds. */
  timeoutMs: number;
  /** Sees each run as it ends. */
  onRun?: (run: VariantRun, done: number, total: number) => void;
}

/** Defaults: a fixed seed, two runs at once (or one per core when fewer), short notification waits on loopback. */
export const SELFTEST_DEFAULTS: Omit<SelftestOptions, 'onRun'> = {
  jobs: Math.max(1, Math.min(2, os.availableParallelism())),
  only: [],
  timeoutMs: 240_000,
  seed: 1,
  notifyWait: 5_000,
  concurrency: 8,
};

/** What a self-test produced: its settings, each variant's run and the conclusions. */
export interface SelftestResult {
  settings: Omit<SelftestOptions, 'onRun' | 'timeoutMs'>;
  /** True when every variant of the registry ran (coverage is judged over all faults). */
  complete: boolean;
  startedAt: string;
  durationMs: number;
  variants: (PlannedVariant & { run: VariantRun })[];
  score: SelftestScore;
}

/** Longest runs first (every family, then the stateful families), so the lanes end together. */
function weight(v: PlannedVariant): number {
  const heavy = ['limits', 'lifecycle', 'events'];
  return v.families.length * 10 + (v.families.some((f) => heavy.includes(f)) ? 5 : 0);
}

/** Run the self-test. */
export async function runSelftest(options: Partial<SelftestOptions> = {}): Promise<SelftestResult> {
  const o = { ...SELFTEST_DEFAULTS, ...options };
  const variants = planVariants(o.only);
  const started = new Date();
  let done = 0;
  let total = variants.length;
  const ordered = [...variants].sort((a, b) => weight(b) - weight(a));
  const settings = { seed: o.seed, notifyWait: o.notifyWait, concurrency: o.concurrency };
  const pool = { jobs: o.jobs, timeoutMs: o.timeoutMs, onRun: (run: VariantRun) => o.onRun?.(run, ++done, total) };
  const runs = await runInWorkers(ordered, settings, pool);
  // A run that could not complete its checks (a worker crash, an inconclusive observation) is made once more.
  const again = ordered.filter((v, i) => incomplete(v, runs[i]!));
  total += again.length;
  const retried = again.length ? await runInWorkers(again, settings, pool) : [];
  const byName = new Map([...runs, ...retried.map((r) => ({ ...r, retried: true }))].map((r) => [r.name, r]));
  const inOrder = variants.map((v) => byName.get(v.name)!);
  return {
    settings: { jobs: o.jobs, only: o.only, seed: o.seed, notifyWait: o.notifyWait, concurrency: o.concurrency },
    complete: o.only.length === 0,
    startedAt: started.toISOString(),
    durationMs: Date.now() - started.getTime(),
    variants: variants.map((v, i) => ({ ...v, run: inOrder[i]! })),
    score: scoreSelftest(variants, inOrder),
  };
}

export { planVariants, declarationProblems } from './plan.js';
