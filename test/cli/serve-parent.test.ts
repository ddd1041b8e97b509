/**
 * A `serve` started through npx dies with it: npx (`npm exec`) runs the command as `sh -c CMD`, so the gateway is
 * npm's grandchild and a SIGKILL of npm left the shell and the gateway serving on as orphans. The gateway watches the
 * chain up to the npm process that started it (gateway/launcher.ts) and drains and exits once a link is gone. Linux
 * only (the chain is read from /proc); polled, with no timing asserted beyond a generous bound.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { KIT_ROOT } from '../../core/spec/paths.js';

const PROC = fs.existsSync('/proc/self/stat');

/** The parent id of a live process, undefined once it is gone or a zombie. */
function parentOf(pid: number): number | undefined {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, ppid] = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return state === 'Z' || state === 'X' ? undefined : Number(ppid);
  } catch {
    return undefined;
  }
}

/** The live processes descending from `root` whose command line matches `re`. */
function descendants(root: number, re: RegExp): number[] {
  const out: number[] = [];
  for (const name of fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    const pid = Number(name);
    let cmdline = '';
    try {
      cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
    } catch {
      continue;
    }
    if (!re.test(cmdline)) continue;
    for (let p = parentOf(pid); p !== undefined && p > 1; p = parentOf(p))
      if (p === root) {
        out.push(pid);
        break;
      }
  }
  return out;
}

async function until<T>(probe: () => T | undefined, ms: number): Promise<T | undefined> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
    const value = probe();
    if (value !== undefined) return value;
  }
  return probe();
}

/** Processes this file started, ended after each test if still there. */
const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) if (parentOf(pid) !== undefined) process.kill(pid, 'SIGKILL');
});

describe('serve started through npx', () => {
  it.skipIf(!PROC)(
    'exits when the npx process that started it is killed with SIGKILL',
    { timeout: 120_000 },
    async () => {
      const npx = spawn('npx', ['--no-install', 'pagi-conform', 'serve', '--port', '0'], {
        cwd: KIT_ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      started.push(npx.pid!);
      let log = '';
      npx.stdout!.on('data', (c: Buffer) => (log += c.toString()));
      npx.stderr!.on('data', (c: Buffer) => (log += c.toString()));
      expect(await until(() => (/listening on http/.test(log) ? true : undefined), 60_000), log).toBe(true);
      // The gateway: a node process below npm (npm exec → sh -c → node …/pagi-conform serve).
      const [gateway, ...others] = descendants(npx.pid!, /^\S*node\S* \S*pagi-conform(\.js)? serve /);
      expect(others).toEqual([]);
      expect(gateway).toBeDefined();
      const shells = descendants(npx.pid!, /^\S*sh -c /);
      started.push(gateway!, ...shells);
      npx.kill('SIGKILL');
      const gone = await until(() => (parentOf(gateway!) === undefined ? true : undefined), 30_000);
      expect(gone, `serve (pid ${gateway}) still running after npx was killed:\n${log}`).toBe(true);
      expect(log).toMatch(/the npm process that started it \(pid \d+\) is gone: draining/);
    },
  );
});
