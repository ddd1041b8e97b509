/**
 * The processes npm started `pagi-conform serve` through (`npx`, `npm exec`, `npm run`: the npm process, and the shell
 * it runs the command in), watched so the gateway stops when they are gone. npm runs a command as `sh -c CMD`, so a
 * serve started with npx is npm's grandchild: killing npm (SIGKILL, a crashed test runner) leaves the shell and the
 * gateway behind, the shell still the gateway's parent, and npm forwards no signal it never got. The watch reads each
 * link of that chain (Linux: /proc/PID/stat; elsewhere, the gateway's own parent id) and reports the first process
 * of it that is gone or no longer the parent of the one below. A serve started without npm (directly, by a shell,
 * under nohup or a service manager) is tied to nothing: it keeps running when the process that started it ends.
 */
import fs from 'node:fs';

/** How far up the chain npm is looked for: the shell, npm, and a wrapper of npm's (npx's own process). */
const MAX_LINKS = 4;

/** `/proc/PID/stat`'s parent id and state, or undefined when the process is gone (or /proc is not there). */
function stat(pid: number): { ppid: number; state: string } | undefined {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "PID (COMM) STATE PPID …": COMM may hold spaces and parentheses, so read after the last ')'.
    const [state, ppid] = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(ppid), state: state ?? '' };
  } catch {
    return undefined;
  }
}

/** Whether a process's command line is npm's (`npm exec …` as npm titles itself, or node running npm-cli.js). */
function isNpm(pid: number): boolean {
  try {
    const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    return /^(\S*\/)?np[mx](\s|$)/.test(args[0] ?? '') || args.some((a) => /np[mx]-cli\.js$/.test(a));
  } catch {
    return false;
  }
}

/**
 * The chain of processes from this one's parent up to the npm process that started it (both included), or an
 * empty list when npm did not start it (no `npm_command` in the environment, or no npm process within a few links).
 */
export function launcherChain(env: NodeJS.ProcessEnv = process.env): number[] {
  if (!env.npm_command) return [];
  if (!fs.existsSync('/proc/self/stat')) return [process.ppid];
  const chain: number[] = [];
  for (let pid = process.ppid; pid > 1 && chain.length < MAX_LINKS; pid = stat(pid)?.ppid ?? 0) {
    chain.push(pid);
    if (isNpm(pid)) return chain;
  }
  return [];
}

/** The first process of `chain` that is gone or no longer the parent of the one below it, or undefined. */
export function goneLauncher(chain: readonly number[]): number | undefined {
  if (!chain.length) return undefined;
  if (!fs.existsSync('/proc/self/stat')) return process.ppid === chain[0] ? undefined : chain[0];
  let below: number = process.pid;
  for (const pid of chain) {
    const link = stat(below);
    const self = stat(pid);
    if (!link || link.ppid !== pid || !self || self.state === 'Z' || self.state === 'X') return pid;
    below = pid;
  }
  return undefined;
}

/**
 * Call `onGone` once with the pid of the first launcher gone (checked every `everyMs`, on a timer that keeps no
 * process alive); returns the function stopping the watch. Does nothing when npm did not start this process.
 */
export function watchLaunchers(onGone: (pid: number) => void, everyMs = 500): () => void {
  const chain = launcherChain();
  if (!chain.length) return () => {};
  const timer = setInterval(() => {
    const gone = goneLauncher(chain);
    if (gone === undefined) return;
    clearInterval(timer);
    onGone(gone);
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
