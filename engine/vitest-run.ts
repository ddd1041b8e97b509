/**
 * The suites run by vitest for the runner. Vitest is created and its worker started as the run starts, beside the
 * target, the receiver and the pre-flight (`startSuites`): the worker loads the spec and the registry meanwhile and
 * waits for the run (engine/handoff.ts). When the pre-flight passes the runner hands the run over (`go`), else it
 * abandons it (nothing reported, vitest closed).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { TestSpecification, Vitest } from 'vitest/node';
import type { RunOptions } from '../core/config/options.js';
import { kitCacheDir, viteOverrides } from '../core/cache.js';
import { FAMILIES, type Family } from '../core/model.js';
import { COMPILED, familyOfSuiteFile, KIT_ROOT, suiteFile, suiteTree, type SuiteTree } from '../core/spec/paths.js';
import type { VitestAdapter } from './adapter.js';
import { setupSender } from './handoff.js';
import { INTERRUPTS, type Interrupt } from './interrupts.js';
import { phase } from './phases.js';
import type { EarlySetup, RunSetup } from './setup.js';
import { blobFile } from './shards.js';
import { clearSpool } from './spool.js';

/**
 * How the suite files run under vitest. One worker thread runs the files one after the other (`isolate: false`:
 * spec, profile, registry and observations are shared by all families), and the tests of a file concurrently
 * (`concurrency`). The embedded gateway runs on the main thread meanwhile. `bench/run.ts` runs its no-check floor
 * with the same settings. `compiled`: the suites are the kit's compiled JavaScript (dist/, see suiteTree), which the
 * worker imports as Node does, without vitest's transform.
 */
export function suiteVitestOptions(concurrency: number, timeoutMs: number, compiled = false) {
  return {
    config: false,
    root: KIT_ROOT,
    watch: false,
    pool: 'threads',
    isolate: false,
    maxWorkers: 1,
    // The kit's TypeScript, transformed once and kept on disk in the kit's cache folder (core/cache.ts: the user's
    // project, never the installed package): a run starts without transforming the engine, the checks and the probes again.
    experimental: { fsModuleCache: true, fsModuleCachePath: path.join(kitCacheDir(), 'vitest-modules') },
    ...(compiled ? { server: { deps: { external: [compiledModules()] } } } : {}),
    fileParallelism: false,
    sequence: { concurrent: true },
    maxConcurrency: concurrency,
    testTimeout: timeoutMs,
    hookTimeout: timeoutMs,
  } as const;
}

/** The compiled kit's modules (dist/ of the kit's root), as vitest's `server.deps.external` matches them. */
function compiledModules(): RegExp {
  const dist = path.join(KIT_ROOT, 'dist', path.sep);
  return new RegExp(`^${dist.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);
}

/**
 * The suite files a run loads: the compiled ones when the kit runs compiled and the registry is JavaScript (the
 * kit's own compiled registry, or a `--registry` module in JavaScript), else the TypeScript sources through vitest's
 * transform (a `--registry` module in TypeScript, the kit run from its sources, the kit's own tests).
 */
export function runSuiteTree(registry: string): SuiteTree {
  return suiteTree(COMPILED && !/\.[cm]?tsx?$/.test(registry));
}

/** vitest's stdout for a shard: its "blob report written to …" notice is the kit's internals, not the user's output. */
function withoutBlobNotice(out: NodeJS.WriteStream): NodeJS.WriteStream {
  const filtered = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      const text = String(chunk).replace(/^.*blob report written.*(?:\r?\n|$)/gim, '');
      if (text) out.write(text);
      done();
    },
  });
  return Object.assign(filtered, { isTTY: false, columns: out.columns }) as unknown as NodeJS.WriteStream;
}

/** The suites of a run, started before the run is known to go ahead. */
export interface StartedSuites {
  /**
   * The run goes ahead with `setup`: the worker is handed it, the reporters hear the run's start. Resolves when
   * the suites ended: with the signal's name when `stop` interrupted them (see startSuites).
   */
  go(setup: RunSetup): Promise<Interrupt | undefined>;
  /** The run does not go ahead (it failed before its suites): the worker is told, vitest closed, nothing reported. */
  abandon(): Promise<void>;
}

/** Vitest created and its worker started, with the run's worker started on `early`. */
async function createSuites(
  early: EarlySetup,
  adapter: VitestAdapter,
  options: RunOptions,
  stop: AbortSignal | undefined,
): Promise<{ vitest: Vitest; running: Promise<void> }> {
  const { createVitest, BaseSequencer } = await import('vitest/node'); // loaded only when suites run (not for --list or usage errors)
  const tree = runSuiteTree(early.registry);
  // The families run in their order, the integrity family last: it judges what the others did (its probe also waits
  // for every observation made ahead of it).
  const rank = (file: string) => FAMILIES.indexOf(familyOfSuiteFile(file) as Family);
  class FamilyOrder extends BaseSequencer {
    override async sort(files: TestSpecification[]) {
      return [...files].sort((a, b) => rank(a.moduleId) - rank(b.moduleId));
    }
  }
  // A shard also writes vitest's blob report, which `pagi-conform merge` replays (with the shard's manifest).
  const blob: [string, { outputFile: string }][] = options.shard
    ? [['blob', { outputFile: blobFile(options.out, options.shard) }]]
    : [];
  const own = new Map((Object.keys(INTERRUPTS) as Interrupt[]).map((s) => [s, new Set(process.listeners(s))]));
  // What vitest's startVitest sets before creating its instance.
  process.env.TEST = 'true';
  process.env.VITEST = 'true';
  process.env.NODE_ENV ??= 'test';
  const vitest = await createVitest(
    'test',
    {
      ...suiteVitestOptions(
        options.concurrency,
        options.timeout * 30 + options.notifyWait + options.depth * 1_000,
        tree.compiled,
      ),
      include: [tree.glob],
      sequence: { concurrent: true, sequencer: FamilyOrder },
      reporters: [adapter, ...blob],
      provide: { pagiRun: early },
      ...(options.shard ? { shard: options.shard } : {}),
    },
    viteOverrides(),
    { stdout: options.shard ? withoutBlobNotice(process.stdout) : process.stdout, stderr: process.stderr },
  );
  if (stop)
    for (const [signal, before] of own)
      for (const l of process.listeners(signal)) if (!before.has(l)) process.off(signal, l);
  phase('vitestCreated');
  const files = FAMILIES.map((f) => path.relative(KIT_ROOT, suiteFile(f, tree.dir, tree.compiled)));
  const running = vitest.start(files).then(() => undefined);
  running.catch(() => undefined); // awaited by go or abandon
  return { vitest, running };
}

/**
 * Create vitest and start its worker on `early` now; the run itself follows with `go`, or `abandon`. With `stop`,
 * the run's signals are the caller's (vitest's own exit-on-signal handlers are removed) and an abort ends it early:
 * the stop file tells the worker to send nothing more, vitest's run is cancelled, the adapter takes no more results,
 * and `go` returns the signal's name.
 */
export function startSuites(
  early: EarlySetup,
  adapter: VitestAdapter,
  options: RunOptions,
  stop?: AbortSignal,
): StartedSuites {
  const exitCode = process.exitCode;
  const restore = () => {
    process.exitCode = exitCode; // the verdict decides the exit code, not vitest
  };
  adapter.holdStart();
  const sender = setupSender(early.channel);
  const created = createSuites(early, adapter, options, stop);
  created.catch(() => undefined); // awaited by go or abandon
  let settled = false;
  const interrupt = (setup: RunSetup) => {
    adapter.freeze();
    const file = setup.stopFile;
    if (file) {
      fs.writeFileSync(file, '');
      process.once('exit', () => fs.rmSync(file, { force: true }));
    }
    const spool = setup.spoolDir;
    if (spool) process.once('exit', () => clearSpool(spool)); // the worker may still be winding down
    return stop!.reason as Interrupt;
  };
  const cancel = async ({ vitest, running }: Awaited<typeof created>) => {
    await vitest.cancelCurrentRun('keyboard-input').catch(() => undefined);
    await running.catch(() => undefined);
    await vitest.close().catch(() => undefined);
  };
  return {
    async go(setup) {
      settled = true;
      try {
        if (stop?.aborted) {
          // Stopped while the run was being prepared: nothing is sent.
          sender.abandon();
          void created.then(cancel, () => undefined);
          return interrupt(setup);
        }
        const suites = await created;
        adapter.begin(setup.config.baseUrl);
        sender.send(setup);
        const stopped = new Promise<'stopped'>((resolve) =>
          stop?.addEventListener('abort', () => resolve('stopped'), { once: true }),
        );
        if ((await Promise.race([suites.running, stopped])) === 'stopped' || stop?.aborted) {
          const signal = interrupt(setup);
          void suites.vitest.cancelCurrentRun('keyboard-input').catch(() => undefined);
          return signal;
        }
        await suites.running;
        await suites.vitest.close();
        return undefined;
      } finally {
        sender.close();
        restore();
      }
    },
    async abandon() {
      if (settled) return;
      settled = true;
      sender.abandon();
      try {
        await cancel(await created);
      } catch {
        // vitest could not even start: nothing to close
      } finally {
        sender.close();
        restore();
      }
    },
  };
}
