/** Runs `pagi-conform run` against a hostile target in a child process, measuring its peak memory and wall time. */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KIT_ROOT } from '../../core/spec/paths.js';
import { SECURITY_CODE, type HostileTarget } from './server.js';

/** What a run against a hostile target left. */
export interface KitRun {
  code: number;
  stdout: string;
  stderr: string;
  out: string;
  /** Peak resident set size of the kit's process (all threads), kilobytes. */
  rssKb: number;
  wallMs: number;
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pagi-hostile-'));
// Reports of hostile runs are large (every finding carries its evidence): kept only with PAGI_KEEP_HOSTILE set.
if (!process.env.PAGI_KEEP_HOSTILE) process.once('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
let count = 0;

/** Options every hostile run shares: short timeouts, so a target that never answers costs seconds, not minutes. */
export const HOSTILE_ARGS = ['--timeout', '5000', '--notify-wait', '3000'];

/** `pagi-conform run --target <target> ARGS`, credentials and a distinctive security code from a config file. */
export function runKit(
  target: HostileTarget,
  args: string[],
  reporters = 'console,json,junit,markdown,har,html',
): Promise<KitRun> {
  const n = ++count;
  const out = path.join(tmp, `${target.mode}-${n}`);
  const config = path.join(tmp, `config-${n}.yaml`);
  const rssFile = path.join(tmp, `rss-${n}`);
  fs.writeFileSync(
    config,
    [
      `merchantId: ${target.merchantId}`,
      `accountId: ${target.accountId}`,
      `secret: ${target.secret}`,
      `cardSecurityCode: "${SECURITY_CODE}"`,
      '',
    ].join('\n'),
  );
  const argv = [
    '--import',
    path.join(KIT_ROOT, 'test', 'hostile', 'rss.mjs'),
    path.join(KIT_ROOT, 'bin', 'pagi-conform.js'),
    'run',
    '--target',
    target.url,
    '--config',
    config,
    '--out',
    out,
    '--reporter',
    reporters,
    ...args,
  ];
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      argv,
      {
        cwd: KIT_ROOT,
        env: { ...process.env, PAGI_RSS_FILE: rssFile, NO_COLOR: '1' },
        timeout: 300_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? ((error as { code?: number }).code ?? 1) : 0;
        const rssKb = fs.existsSync(rssFile) ? Number(fs.readFileSync(rssFile, 'utf8')) : NaN;
        resolve({ code, stdout, stderr, out, rssKb, wallMs: performance.now() - started });
      },
    );
  });
}
