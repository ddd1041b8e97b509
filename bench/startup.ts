/**
 * The default run as a user starts it, phase by phase (part of `npm run bench:run`; alone: `node bin/run-ts.js
 * bench/startup.ts [RUNS]`): `node bin/pagi-conform.js run --reporter json --seed 1` in a fresh process, with
 * PAGI_PHASES naming a file each of its threads writes the phases it reaches to (engine/phases.ts, bin/launch.js).
 * Each phase is given in ms from the process's start (Node's time origin); `startUpMs` is the process's start to its
 * first probe (the suites' first request: what the pre-flight sends is start-up), `wallMs` the process from spawn to
 * exit. `compiled`: whether the CLI ran from dist/ (scripts/build-js.mjs) or from its TypeScript.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import type { runKitInstrumented as RunKitInstrumented } from '../kit/kit.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** One run of the CLI, by phase. */
export interface StartupRun {
  compiled: boolean;
  /** Spawn to exit (ms). */
  wallMs: number;
  /** Spawn to the process's time origin (ms): what Node needs before any of the kit's code. */
  spawnMs: number;
  /** Process start to the suites' first probe (ms). */
  startUpMs: number;
  /** Each phase reached, ms from the process's start, in the order reached. */
  phases: Record<string, number>;
  exitCode: number;
  checks: number;
  exchanges: number;
}

/** The default run of the CLI in a fresh process, with its phases. */
export function cliRun(extraArgs: readonly string[] = []): StartupRun {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'pagi-bench-cli-'));
  const file = path.join(out, 'phases.txt');
  try {
    const spawned = performance.timeOrigin + performance.now();
    const child = spawnSync(
      process.execPath,
      [
        path.join(ROOT, 'bin', 'pagi-conform.js'),
        'run',
        '--reporter',
        'json',
        '--seed',
        '1',
        '--out',
        out,
        ...extraArgs,
      ],
      {
        cwd: ROOT,
        encoding: 'utf8',
        env: {
          ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST'))),
          PAGI_PHASES: file,
        },
      },
    );
    const exited = performance.timeOrigin + performance.now();
    if (child.status === null || child.status > 1)
      throw new Error(`the CLI run failed (${child.status}): ${child.stderr}`);
    const marks = fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(' ') as [string, string]);
    const origin = Number(marks.find(([name]) => name === 'process')?.[1]);
    const phases = Object.fromEntries(
      marks.filter(([name]) => name !== 'process').map(([name, at]) => [name, Math.round(Number(at) - origin)]),
    );
    const results = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'));
    return {
      compiled: phases.compiled !== undefined,
      wallMs: Math.round(exited - spawned),
      spawnMs: Math.round(origin - spawned),
      startUpMs: phases.firstProbe ?? Number.NaN,
      phases,
      exitCode: child.status,
      checks: results.totals.checks,
      exchanges: results.totals.exchanges,
    };
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

/**
 * The kit as the CLI runs it: its compiled copy (dist/) when it is built and current, as bin/launch.js decides, else
 * its sources (through tsx, as the benchmarks themselves run).
 */
export async function kitModule(): Promise<{ compiled: boolean; runKitInstrumented: typeof RunKitInstrumented }> {
  const launcher = (await import(path.join(ROOT, 'bin', 'launch.js') as string)) as {
    compiledEntry(entry: string): string | undefined;
  };
  const compiled = launcher.compiledEntry('kit/kit.ts');
  const mod = (await import(compiled ?? '../kit/kit.js')) as { runKitInstrumented: typeof RunKitInstrumented };
  return { compiled: compiled !== undefined, runKitInstrumented: mod.runKitInstrumented };
}

/** The median of `runs` CLI runs by wall time (each phase from that run). */
export function medianCliRun(runs: number): StartupRun & { runs: number; wallMsAll: number[] } {
  const all = Array.from({ length: runs }, () => cliRun()).sort((a, b) => a.wallMs - b.wallMs);
  return { ...all[Math.floor(all.length / 2)]!, runs, wallMsAll: all.map((r) => r.wallMs) };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const runs = Number(process.argv[2] ?? 3);
  const loadAverage = os.loadavg().map((l) => Math.round(l * 100) / 100);
  console.log(JSON.stringify({ loadAverage, ...medianCliRun(runs) }, null, 2));
}
