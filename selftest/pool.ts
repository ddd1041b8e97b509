/**
 * Runs variants in `jobs` child processes at once (selftest/worker.ts, started as the CLI starts: bin/run-ts.js), each child taking the next
 * variant when it is done. A child that crashes or overruns the time limit is replaced; its variant is recorded as
 * an error run.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { KIT_ROOT } from '../core/spec/paths.js';
import { errorRun, type VariantRun } from './run.js';
import type { PlannedVariant } from './plan.js';
import type { VariantSettings } from './variant.js';
import type { WorkerRequest } from './worker.js';

const LAUNCHER = path.join(KIT_ROOT, 'bin', 'run-ts.js');
const WORKER = 'selftest/worker.ts';
/** Characters of a child's stderr kept to explain a crash. */
const STDERR_TAIL = 2000;

interface Worker {
  child: ChildProcess;
  stderr: () => string;
}

function spawnWorker(): Worker {
  // A child of a vitest process must not look like a vitest worker itself.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST')));
  // No `--import tsx`: the launcher registers tsx in the child's main thread only, so its vitest workers do not load through it.
  const child = fork(LAUNCHER, [WORKER], {
    cwd: KIT_ROOT,
    execArgv: [],
    env,
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let tail = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL);
  });
  return { child, stderr: () => tail };
}

/** Send one variant to a worker and wait for its run. */
function ask(worker: Worker, request: WorkerRequest, timeoutMs: number): Promise<VariantRun> {
  return new Promise((resolve, reject) => {
    const { child } = worker;
    const done = (fn: () => void) => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      fn();
    };
    const onMessage = (run: VariantRun) => done(() => resolve(run));
    const onExit = (code: number | null) =>
      done(() =>
        reject(
          new Error(`the worker exited (${code ?? 'signal'}): ${worker.stderr().trim().split('\n').at(-1) ?? ''}`),
        ),
      );
    const timer = setTimeout(
      () => done(() => reject(new Error(`no result within ${Math.round(timeoutMs / 1000)} s`))),
      timeoutMs,
    );
    child.on('message', onMessage);
    child.on('exit', onExit);
    child.send(request);
  });
}

/** Run every variant, `jobs` at a time; `onRun` sees each run as it ends. Results come back in the variants' order. */
export async function runInWorkers(
  variants: readonly PlannedVariant[],
  settings: VariantSettings,
  options: { jobs: number; timeoutMs: number; onRun?: (run: VariantRun) => void },
): Promise<VariantRun[]> {
  const queue = [...variants];
  const runs = new Map<string, VariantRun>();
  const lane = async () => {
    let worker: Worker | undefined;
    try {
      for (let variant = queue.shift(); variant; variant = queue.shift()) {
        worker ??= spawnWorker();
        const started = Date.now();
        const current: Worker = worker;
        const run = await ask(current, { variant, settings }, options.timeoutMs).catch((e: Error) => {
          current.child.kill();
          worker = undefined;
          return errorRun(variant!, e.message, Date.now() - started);
        });
        runs.set(variant.name, run);
        options.onRun?.(run);
      }
    } finally {
      worker?.child.disconnect();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.jobs, variants.length)) }, lane));
  return variants.map((v) => runs.get(v.name)!);
}
