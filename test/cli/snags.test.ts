/**
 * The CLI's small snags a new user meets, one test each, named after the snag: help and names of `profile validate`,
 * option values and typos, `--list` selection and JSON, the progress and totals wording, sharded output, waiver
 * reasons, `verify` on an unsigned report, `npm start` and the example files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../cli/main.js';
import { parseArgv, readConfigFile } from '../../core/config/load.js';
import { UsageError } from '../../core/config/options.js';
import { KIT_ROOT } from '../../core/spec/paths.js';
import type { CheckResult } from '../../core/model.js';
import { consoleReporter } from '../../reporters/console.js';
import { runCli, type CliOutcome } from '../support/cli.js';
import { tempFile } from '../support/temp.js';

const REGISTRY = path.join(KIT_ROOT, 'test', 'engine', 'fixtures', 'fake-registry.ts');

async function inProcess(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = { stdout: '', stderr: '' };
  const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void (out.stdout += `${a.join(' ')}\n`));
  const error = vi
    .spyOn(console, 'error')
    .mockImplementation((...a: unknown[]) => void (out.stderr += `${a.join(' ')}\n`));
  try {
    return { code: await main(args), ...out };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

function usageMessage(argv: string[]): string {
  try {
    parseArgv(argv);
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return (e as Error).message;
  }
  throw new Error(`${argv.join(' ')} was accepted`);
}

describe('profile validate', () => {
  it('profile validate --help prints the usage (exit 0), not "cannot read profile --help"', async () => {
    const help = await inProcess(['profile', 'validate', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: pagi-conform profile validate FILE\|NAME/);
    expect(help.stderr).toBe('');
    expect((await inProcess(['profile', '--help'])).code).toBe(0);
  });

  it('profile validate reference accepts a shipped profile by name, as run --profile does', async () => {
    expect(await inProcess(['profile', 'validate', 'reference'])).toMatchObject({
      code: 0,
      stdout: 'reference: valid profile (schemas/profile.schema.json); 0 points not stated\n',
    });
    const unknown = await inProcess(['profile', 'validate', 'nosuch']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /No profile named 'nosuch'\. The profiles under spec\/profiles are [a-z0-9, -]*reference/,
    );
  });
});

describe('option values', () => {
  it('--concurrency -3 says what the value must be, not "argument is ambiguous"', () => {
    const message = usageMessage(['--concurrency', '-3']);
    expect(message).toBe("--concurrency must be an integer of at least 1 (received '-3').");
    expect(usageMessage(['--timeout', '-1'])).toMatch(/^--timeout must be an integer of at least 1/);
  });

  it('--targt suggests --target (did you mean)', () => {
    expect(usageMessage(['--targt', 'http://127.0.0.1:1'])).toBe(
      "Unknown option '--targt'; did you mean '--target'? Run 'pagi-conform run --help' for the options.",
    );
    expect(usageMessage(['--fail-onn', 'must'])).toMatch(/did you mean '--fail-on'\?/);
    expect(usageMessage(['--zzzzzzzz'])).toBe(
      "Unknown option '--zzzzzzzz'. Run 'pagi-conform run --help' for the options.",
    );
  });
});

describe('--list', { timeout: 60_000 }, () => {
  it('--list honours --only/--skip and has --format json', async () => {
    const [all, limits, json, skipped] = await Promise.all([
      runCli(['--list']),
      runCli(['--list', '--only', 'limits']),
      runCli(['--list', '--only', 'limits', '--format', 'json']),
      runCli(['--list', '--only', 'limits', '--skip', 'capture', '--format', 'json']),
    ]);
    const total = Number(/^(\d+) checks$/m.exec(all.stdout)?.[1]);
    expect(total).toBeGreaterThan(10);
    // One JSON object per check, one per line (JSON Lines), as the option's description says.
    type Listed = { id: string; family: string; operations: { operation: string; severity: string }[] };
    const jsonLines = (text: string) =>
      text
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as Listed);
    const items = jsonLines(json.stdout);
    expect(items.length).toBeGreaterThan(0);
    expect(items.length).toBeLessThan(total);
    expect(new Set(items.map((c) => c.id)).size).toBe(items.length);
    for (const c of items)
      expect(Object.keys(c)).toEqual(['id', 'family', 'description', 'operations', 'requirements']);
    expect(new Set(items.map((c) => c.family))).toEqual(new Set(['limits']));
    expect(limits.stdout.split('\n')[0]).toBe(`${items.length} of ${total} checks selected`);
    expect(limits.stdout).not.toMatch(/^(status|media|conventions) \(/m);
    const rest = jsonLines(skipped.stdout);
    expect(rest.flatMap((c) => c.operations.map((o) => o.operation))).not.toContain('capture');
    expect(items.flatMap((c) => c.operations.map((o) => o.operation))).toContain('capture');
  });
});

describe('console wording', () => {
  const result = (status: CheckResult['status'], operation: string): CheckResult =>
    ({ status, operation, family: 'limits', checkId: `c${operation}` }) as unknown as CheckResult;

  it('the progress line says how many checks are done so far, not "(so far 7: 7 passed)"', () => {
    const stream = new PassThrough();
    let text = '';
    stream.on('data', (c) => (text += String(c)));
    const reporter = consoleReporter(stream, {});
    for (let i = 0; i < 4; i++) reporter.onCheckResult?.(result('passed', 'capture'));
    for (let i = 0; i < 3; i++) reporter.onCheckResult?.(result('passed', 'refund'));
    reporter.onOperationEnd?.('limits', 'refund');
    // The capture results belong to a line not printed yet: the refund line counts its own 3.
    expect(text).toMatch(/limits\/refund\s+3 passed {2}\(3 checks done so far: 3 passed\)\n$/);
    expect(text).not.toMatch(/so far 3:/);
  });
});

describe('a run with a waiver, one selected check and a shard', { timeout: 120_000 }, () => {
  let run: CliOutcome;
  let sharded: CliOutcome;
  beforeAll(async () => {
    const waivers = tempFile(
      'snag-waivers.yaml',
      '- {check: fakeExpectedFails, reason: vendor ticket 42 open, expires: 2999-12-31}\n',
    );
    [run, sharded] = await Promise.all([
      runCli([
        '--registry',
        REGISTRY,
        '--only',
        'fakeExpectedFails',
        '--fail-on',
        'expected',
        '--waivers',
        waivers,
        '--seed',
        '4242',
        '--reporter',
        'console,json,markdown,html',
      ]),
      runCli(['--registry', REGISTRY, '--shard', '1/2']),
    ]);
  });

  it('checks: N counts the selected checks, and the console prints the seed', () => {
    expect(run.code).toBe(0);
    const total = run.results().checks.length;
    expect(total).toBeGreaterThan(1);
    expect(run.stdout).toMatch(new RegExp(`^checks: 1 selected of ${total}; seed: 4242; `, 'm'));
  });

  it('waiver reasons appear in the console and in summary.md', () => {
    expect(run.stdout).toMatch(
      /^waived checks \(1\):\n {2}- capture\/fakeExpectedFails: waived until 2999-12-31: vendor ticket 42 open$/m,
    );
    const summary = fs.readFileSync(path.join(run.out, 'summary.md'), 'utf8');
    expect(summary).toContain('### Waived checks (1)');
    expect(summary).toContain('| `capture/fakeExpectedFails` | waived until 2999-12-31: vendor ticket 42 open |');
  });

  it('sharded runs do not leak vitest\'s "blob report written"', () => {
    expect(sharded.code).toBe(0);
    expect(fs.readdirSync(path.join(sharded.out, 'shard'))).toContainEqual(expect.stringMatching(/^blob/));
    expect(`${sharded.stdout}${sharded.stderr}`).not.toMatch(/blob report/i);
  });

  it('verify on an unsigned report does not say "untouched" and exits 1', async () => {
    const outcome = await inProcess(['verify', path.join(run.out, 'report.html')]);
    expect(outcome.code).toBe(1);
    expect(outcome.stdout).not.toMatch(/untouched/);
    expect(outcome.stdout).toMatch(/report: NOT SIGNED: the digests match/);
  });
});

describe('npm start and the examples', () => {
  afterAll(() => undefined);

  it('npm start writes console, JSON and HTML', () => {
    const start = (
      JSON.parse(fs.readFileSync(path.join(KIT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts.start!;
    const [, entry, command, ...args] = start.split(' ');
    expect([entry, command]).toEqual(['bin/pagi-conform.js', 'run']);
    expect(parseArgv(args).reporter).toEqual(['console', 'json', 'html']);
  });

  it('examples/ holds a commented pagi.yaml and a vendor profile template that profile validate accepts', async () => {
    const config = path.join(KIT_ROOT, 'examples', 'pagi.yaml');
    const text = fs.readFileSync(config, 'utf8');
    expect(text.split('\n').filter((l) => l.startsWith('#')).length).toBeGreaterThan(5);
    const options = readConfigFile(config);
    expect(options).toMatchObject({
      environment: 'sandbox',
      profile: path.join(KIT_ROOT, 'examples', 'vendor-profile.yaml'),
      failOn: 'must',
    });
    expect(options).not.toHaveProperty('secret');
    const template = await inProcess(['profile', 'validate', options.profile!]);
    expect(template).toMatchObject({ code: 0, stderr: '' });
    expect(fs.readFileSync(options.profile!, 'utf8')).toMatch(/^# Vendor profile TEMPLATE/);
  });
});
