/**
 * Interrupted runs: SIGINT or SIGTERM mid-run stops sending and still writes every selected report, with verdict
 * INCONCLUSIVE and the reason ("interrupted after N of M checks"); the process exits 130 (SIGINT) or 143 (SIGTERM),
 * the code results.json records.
 * A second signal exits at once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ResultsDocument } from '../../reporters/json.js';
import { spawnKit } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

interface Stopped {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  stdout: string;
  stderr: string;
  /** Milliseconds from the first signal to the exit. */
  afterSignalMs: number;
}

/** Start a run, and once it has reported checks of one operation (mid-run), send `signals` one after the other. */
function interrupt(signals: NodeJS.Signals[], gapMs = 0): Promise<Stopped> {
  const out = tempDir('pagi-interrupt-');
  const child = spawnKit(['run', '--out', out, '--reporter', 'console,json,junit,markdown,har,html'], {
    env: { NO_COLOR: '1' },
  });
  let stdout = '';
  let stderr = '';
  let signalledAt = 0;
  child.stderr!.on('data', (d) => (stderr += d));
  child.stdout!.on('data', (d) => {
    stdout += d;
    if (!signalledAt && /^ {2}[✓✗] /m.test(stdout)) {
      signalledAt = Date.now();
      signals.forEach((s, i) => setTimeout(() => child.kill(s), i * gapMs));
    }
  });
  return new Promise((resolve) =>
    child.on('exit', (code, signal) =>
      resolve({ code, signal, out, stdout, stderr, afterSignalMs: Date.now() - signalledAt }),
    ),
  );
}

describe('an interrupted run', () => {
  it('on SIGINT mid-run writes every selected report with verdict INCONCLUSIVE and the reason, and exits 130', {
    timeout: 180_000,
  }, async () => {
    const run = await interrupt(['SIGINT']);
    expect(run.code, run.stderr.slice(-1000)).toBe(130);
    expect(run.stderr).toContain('pagi-conform: SIGINT: stopping');
    expect(fs.readdirSync(run.out).sort()).toEqual([
      'exchanges.har',
      'junit.xml',
      'report.html',
      'results.json',
      'summary.md',
    ]);
    const results = JSON.parse(fs.readFileSync(path.join(run.out, 'results.json'), 'utf8')) as ResultsDocument;
    expect(results.verdict).toBe('INCONCLUSIVE');
    // One contract: the process's exit code and the one results.json records are both 130.
    expect(results.exitCode).toBe(130);
    const { checksRun, checksSelected } = results.interrupted!;
    expect(results.interrupted!.signal).toBe('SIGINT');
    expect(checksRun).toBeGreaterThan(0);
    expect(checksRun).toBeLessThan(checksSelected);
    expect(results.verdictReasons[0]).toBe(`Interrupted (SIGINT) after ${checksRun} of ${checksSelected} checks.`);
    expect(results.checks.filter((c) => c.reason === 'not run: the run was interrupted (SIGINT)').length).toBe(
      checksSelected - checksRun,
    );
    expect(run.stdout).toContain('verdict: INCONCLUSIVE (Interrupted (SIGINT) after');
    expect(fs.readFileSync(path.join(run.out, 'summary.md'), 'utf8')).toContain('INCONCLUSIVE');
  });

  it('on a second SIGTERM exits at once with 143', { timeout: 180_000 }, async () => {
    const run = await interrupt(['SIGTERM', 'SIGTERM'], 20);
    expect(run.code, run.stderr.slice(-1000)).toBe(143);
    expect(run.stderr).toContain('pagi-conform: SIGTERM: stopping');
    expect(run.afterSignalMs).toBeLessThan(5000);
  });
});
