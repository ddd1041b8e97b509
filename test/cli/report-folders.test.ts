/**
 * Each command's report set in its own folder, and never a report of an earlier run beside a new one: `run` writes
 * to `reports/`, `pact check` to `reports/pact/` (the `out` row's default for that command); before a command's
 * reporters write, the report files an earlier run left in its output folder (results.json, junit.xml, summary.md,
 * exchanges.har, report.html) are removed, so a CONFORMANT report.html never stays beside a NOT CONFORMANT
 * results.json.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaults } from '../../core/config/options.js';
import { KIT_ROOT } from '../../core/spec/paths.js';
import { reportFiles } from '../../reporters/index.js';
import { KIT_BIN, type CliRun } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

const PACT = path.join(KIT_ROOT, 'pacts', 'merchant-pagi-gateway-reference.json');

/** `pagi-conform ARGS` in `cwd`, to completion. */
function kit(args: string[], cwd: string): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [KIT_BIN, ...args], { cwd, timeout: 180_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const list = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).sort() : []);

describe('report folders', () => {
  it('the report set is every file a kit reporter writes', () => {
    expect(reportFiles().sort()).toEqual(['exchanges.har', 'junit.xml', 'report.html', 'results.json', 'summary.md']);
  });

  it('pact check writes to reports/pact by default, run to reports: neither lands beside the other', async () => {
    expect(defaults('pact check').out).toBe('reports/pact');
    expect(defaults('run').out).toBe('reports');
    const cwd = tempDir('pagi-report-folders-');
    const check = await kit(['pact', 'check', PACT, '--reporter', 'json,html'], cwd);
    expect(check.stderr).toBe('');
    expect(check.code).toBe(0);
    expect(list(path.join(cwd, 'reports', 'pact'))).toEqual(['report.html', 'results.json']);
    expect(list(path.join(cwd, 'reports'))).toEqual(['pact']);
    const help = await kit(['pact', 'check', '--help'], cwd);
    const out = help.stdout.slice(help.stdout.indexOf('--out DIR'), help.stdout.indexOf('--reporter'));
    expect(out.replace(/\s+/g, ' ')).toContain('(default: reports/pact)');
  });

  it("a command writing to a folder removes the reports an earlier run left there that it does not write: a run after a pact check's HTML report", {
    timeout: 240_000,
  }, async () => {
    const cwd = tempDir('pagi-report-stale-');
    const out = path.join(cwd, 'shared');
    const first = await kit(['pact', 'check', PACT, '--out', out, '--reporter', 'json,html,junit'], cwd);
    expect(first.code).toBe(0);
    expect(list(out)).toEqual(['junit.xml', 'report.html', 'results.json']);
    // Another pact check with fewer reporters: the HTML and JUnit files of the first are gone.
    const second = await kit(['pact', 'check', PACT, '--out', out, '--reporter', 'json'], cwd);
    expect(second.code).toBe(0);
    expect(list(out)).toEqual(['results.json']);
    fs.writeFileSync(path.join(out, 'report.html'), '<p>CONFORMANT</p>');
    fs.writeFileSync(path.join(out, 'notes.txt'), 'not a report');
    const run = await kit(['run', '--only', 'limits', '--out', out, '--reporter', 'console,json,markdown'], cwd);
    expect(run.code).toBe(0);
    // The run's own files, and what is not a report of the set untouched.
    expect(list(out)).toEqual(['notes.txt', 'results.json', 'summary.md']);
    expect(JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8')).metadata.target.embedded).toBe(true);
  });
});
