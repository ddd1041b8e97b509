/**
 * The kit's command line in child processes, for every test that needs it: `pagi-conform ARGS` to completion,
 * `pagi-conform run` into a fresh output folder, `pagi-conform serve` until it listens, and a bare spawn for tests
 * that signal the process or read it while it runs. Runs to completion take at most two slots at once per worker:
 * each loads the kit and vitest.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import type { RunResult } from '../../core/model.js';
import { KIT_ROOT } from '../../core/spec/paths.js';
import { createLimiter } from '../../engine/limiter.js';
import { tempRoot } from './temp.js';

/** The CLI entry point. */
export const KIT_BIN = path.join(KIT_ROOT, 'bin', 'pagi-conform.js');

const kitProcesses = createLimiter(2, 0);

/** What a finished CLI process printed and returned. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `pagi-conform ARGS` with extra environment variables, to completion. */
export function pagiConform(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 240_000): Promise<CliRun> {
  return kitProcesses.run(
    () =>
      new Promise((resolve) => {
        execFile(
          process.execPath,
          [KIT_BIN, ...args],
          { cwd: KIT_ROOT, env: { ...process.env, ...env }, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 },
          (error, stdout, stderr) => {
            resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
          },
        );
      }),
  );
}

/** What a `pagi-conform run` left behind. */
export interface CliOutcome extends CliRun {
  /** Its output folder. */
  out: string;
  /** Its results.json; throws saying why a run left none. */
  results(): RunResult;
}

let runs = 0;

// The test workers are threads of one process: the pid alone names the same folder in two of them.

/** `pagi-conform run --out <fresh folder> ARGS` with extra environment variables. */
export async function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliOutcome> {
  const out = path.join(tempRoot(), `run-${process.pid}-${threadId}-${++runs}`);
  const run = await pagiConform(['run', '--out', out, ...args], env, 180_000);
  const results = () => {
    const file = path.join(out, 'results.json');
    if (!fs.existsSync(file))
      throw new Error(
        `pagi-conform run ${args.join(' ')} wrote no results.json (exit ${run.code}); stderr: ${run.stderr.slice(-2000)}`,
      );
    return JSON.parse(fs.readFileSync(file, 'utf8')) as RunResult;
  };
  return { ...run, out, results };
}

/** `pagi-conform ARGS` as a child process with stdout and stderr piped (`shell`: a bash line run first, e.g. `ulimit`). */
export function spawnKit(args: string[], options: { env?: NodeJS.ProcessEnv; shell?: string } = {}): ChildProcess {
  const env = { ...process.env, ...options.env };
  const stdio: ['ignore', 'pipe', 'pipe'] = ['ignore', 'pipe', 'pipe'];
  return options.shell
    ? spawn('bash', ['-c', `${options.shell}; exec "$0" "$@"`, process.execPath, KIT_BIN, ...args], {
        cwd: KIT_ROOT,
        env,
        stdio,
      })
    : spawn(process.execPath, [KIT_BIN, ...args], { cwd: KIT_ROOT, env, stdio });
}

/** A running `pagi-conform serve`. */
export interface ServeProcess {
  child: ChildProcess;
  /** Its base URL, from the listening line. */
  url: string;
  port: number;
  /** stdout and stderr so far. */
  log(): string;
  /** Its exit code, once it exits. */
  exited: Promise<number | null>;
  /** Wait until the log matches `re` (or `ms` pass); the match, or null. */
  until(re: RegExp, ms?: number): Promise<RegExpExecArray | null>;
  /** SIGTERM, resolved once it exited. */
  stop(): Promise<void>;
}

/** `pagi-conform serve --port 0 ARGS`, resolved once it listens (rejected with its log when it does not). */
export async function serve(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; shell?: string } = {},
): Promise<ServeProcess> {
  const child = spawnKit(['serve', '--port', '0', ...args], options);
  let log = '';
  child.stdout!.on('data', (c: Buffer) => (log += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (log += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let gone = false;
  void exited.then(() => (gone = true));
  const until = async (re: RegExp, ms = 15_000) => {
    for (const end = Date.now() + ms; !re.test(log) && !gone && Date.now() < end; )
      await new Promise((r) => setTimeout(r, 25));
    return re.exec(log);
  };
  const url = (await until(/listening on (http:\/\/\S+)/, 30_000))?.[1];
  if (!url) {
    child.kill('SIGTERM');
    throw new Error(`pagi-conform serve ${args.join(' ')} did not start:\n${log}`);
  }
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  return { child, url, port: Number(new URL(url).port), log: () => log, exited, until, stop };
}
