/**
 * `profile discover` against a local sandbox: for each personality under spec/profiles, the reference gateway serves
 * it (in this process) and `pagi-conform profile discover` (a child process, as a user runs it) drafts its profile.
 * Prints per personality the requests sent, the wall time of the command, the UNKNOWN points, the share of the
 * personality's leaves the draft states and the stated values that are wrong (core/profile/agreement.ts
 * `statedAgreement`; the goal is none), and the leaf agreement of the draft with the personality (a leaf left out
 * counts against it), with the machine's load average; writes bench/results/discover.json.
 * Goal (issue: onboarding a gateway): under 30 s and at most a few hundred requests per discovery.
 * `npm run bench:discover` (`--only NAME,...` measures some personalities only).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { startGateway } from '../gateway/index.js';
import { leafAgreement, leftOutPoints, statedAgreement } from '../core/profile/agreement.js';
import { completed } from '../core/profile/load.js';
import { KIT_ROOT, SPEC_DIR } from '../core/spec/paths.js';

const RESULT_FILE = path.join(KIT_ROOT, 'bench', 'results', 'discover.json');
const onlyAt = process.argv.indexOf('--only');
const only =
  process.argv.find((a) => a.startsWith('--only='))?.slice(7) ?? (onlyAt > 0 ? process.argv[onlyAt + 1] : undefined);
const names = fs
  .readdirSync(path.join(SPEC_DIR, 'profiles'))
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => f.slice(0, -5))
  .filter((n) => !only || only.split(',').includes(n))
  .sort();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pagi-bench-discover-'));

function discover(args: string[]): Promise<{ code: number; stdout: string; stderr: string; wallMs: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(KIT_ROOT, 'bin', 'pagi-conform.js'), 'profile', 'discover', ...args],
      { cwd: KIT_ROOT, maxBuffer: 16 * 1024 * 1024, timeout: 300_000 },
      (error, stdout, stderr) =>
        resolve({
          code: error ? ((error as { code?: number }).code ?? 1) : 0,
          stdout,
          stderr,
          wallMs: Math.round(performance.now() - started),
        }),
    );
  });
}

const rows = [];
try {
  for (const name of names) {
    const gw = await startGateway({ port: 0, host: '127.0.0.1', profile: name });
    try {
      const merchant = gw.config.merchants[0]!;
      const account = merchant.accounts[0]!;
      const config = path.join(tmp, `${name}.config.yaml`);
      fs.writeFileSync(
        config,
        `merchantId: ${merchant.merchantId}\naccountId: ${account.accountId}\nsecret: ${account.secret}\n` +
          `paymentMethods:\n  valid: ${JSON.stringify(gw.config.apm.paymentMethods)}\n  unknown: PAGI_KIT_UNKNOWN\n`,
      );
      const out = path.join(tmp, `${name}.yaml`);
      const loadBefore = os.loadavg().map((l) => Number(l.toFixed(2)));
      const r = await discover(['--target', gw.baseUrl, '--config', config, '--out', out]);
      const summary = /(\d+) values, (\d+) UNKNOWN .*?, (\d+) requests in ([\d.]+) s/.exec(r.stdout);
      const personality = parse(fs.readFileSync(path.join(SPEC_DIR, 'profiles', `${name}.yaml`), 'utf8'));
      const draft = fs.existsSync(out) ? parse(fs.readFileSync(out, 'utf8')) : undefined;
      const agreement = draft ? leafAgreement(personality, draft) : undefined;
      const stated = draft
        ? statedAgreement(personality, draft, leftOutPoints(draft, completed(draft).unstated))
        : undefined;
      const row = {
        personality: name,
        exitCode: r.code,
        requests: summary ? Number(summary[3]) : undefined,
        discoverySeconds: summary ? Number(summary[4]) : undefined,
        commandSeconds: Number((r.wallMs / 1000).toFixed(1)),
        values: summary ? Number(summary[1]) : undefined,
        unknowns: summary ? Number(summary[2]) : undefined,
        agreementPercent: agreement ? Number((agreement.ratio * 100).toFixed(1)) : undefined,
        disagreements: agreement?.disagreements.length,
        statedPercent: stated ? Number(((stated.stated / stated.leaves) * 100).toFixed(1)) : undefined,
        wrongStated: stated?.wrong.map((w) => w.path),
        loadAverageBefore: loadBefore,
      };
      rows.push(row);
      console.log(
        `${name.padEnd(24)} exit ${row.exitCode}  ${String(row.requests).padStart(4)} requests  ${String(row.discoverySeconds).padStart(5)} s (command ${row.commandSeconds} s)  ${String(row.unknowns).padStart(3)} UNKNOWN of ${row.values}  stated ${row.statedPercent} %, ${row.wrongStated?.length} wrong  agreement ${row.agreementPercent} %  load ${loadBefore.join(' ')}`,
      );
      if (r.code !== 0) console.log(r.stderr.split('\n').slice(-5).join('\n'));
    } finally {
      await gw.close();
    }
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}

const report = {
  date: new Date().toISOString(),
  node: process.version,
  cpus: os.cpus().length,
  loadAverage: os.loadavg().map((l) => Number(l.toFixed(2))),
  goals: {
    seconds: 'discovery under 30 s against a local sandbox',
    requests: 'at most a few hundred requests',
    wrongStated: 'no stated value wrong',
  },
  personalities: rows,
};
if (!only) fs.writeFileSync(RESULT_FILE, `${JSON.stringify(report, null, 2)}\n`);
console.log(
  `load average ${report.loadAverage.join(' ')} on ${report.cpus} cores${only ? '' : `; written to ${path.relative(KIT_ROOT, RESULT_FILE)}`}`,
);
