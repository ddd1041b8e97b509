/** Exit codes and error classes: stable codes, and one typed flag table per flag-only command. */
import { describe, expect, it } from 'vitest';
import { SERVE_FLAGS } from '../../gateway/cli.js';
import { SELFTEST_FLAGS } from '../../cli/selftest.js';
import { flagHelp, parseFlags } from '../../core/config/flags.js';
import { UsageError as ConfigUsageError } from '../../core/config/options.js';
import { execFileSync } from 'node:child_process';
import * as errors from '../../core/types/errors.js';
import { EXIT, KitError, UsageError } from '../../core/types/errors.js';

describe('errors and exit codes', () => {
  it('a usage error is a kit error with a stable code and exit code 2', () => {
    const e = new UsageError('bad flag');
    expect(e).toBeInstanceOf(KitError);
    expect(ConfigUsageError).toBe(UsageError);
    expect({ name: e.name, code: e.code, exitCode: e.exitCode }).toEqual({
      name: 'UsageError',
      code: 'PAGI_E_USAGE',
      exitCode: 2,
    });
    expect(EXIT).toEqual({ ok: 0, failed: 1, usage: 2, inconclusive: 3 });
  });

  it('form one hierarchy: every class a kit error named after itself, each with its own PAGI_E_ code', () => {
    const classes = Object.entries(errors).filter(([, v]) => typeof v === 'function') as [string, typeof KitError][];
    const made = classes.map(([name, C]) => {
      const e =
        name === 'ForeignRequirementError'
          ? new (C as any)('c', ['X'])
          : name === 'SetupFailed'
            ? new (C as any)('s', undefined, 'w')
            : new C('x');
      expect(e).toBeInstanceOf(KitError);
      expect(e.name).toBe(name);
      expect(e.code).toMatch(/^PAGI_E_[A-Z_]+$/);
      return e.code;
    });
    expect(classes.length).toBeGreaterThan(10);
    expect(new Set(made).size).toBe(made.length);
  });

  it('are declared nowhere else: no other source file extends Error', () => {
    const hits = execFileSync('git', ['grep', '-l', '-E', 'extends (Error|[A-Za-z]*Error)\\b', '--', '*.ts'], {
      encoding: 'utf8',
    })
      .split('\n')
      .filter((f) => f && !f.startsWith('test/') && !f.includes('/test/'));
    expect(hits).toEqual(['core/types/errors.ts']);
  });
});

describe('flag tables', () => {
  it('parse typed values, apply defaults, and refuse a bad value with a UsageError naming the flag', () => {
    expect(parseFlags(SERVE_FLAGS, ['--port', '0', '--drain-seconds', '1.5'])).toEqual({
      values: { port: 0, host: '127.0.0.1', admin: false, drainSeconds: 1.5, check: false },
      help: false,
    });
    expect(parseFlags(SELFTEST_FLAGS, ['--only', 'a,b', '-h']).values.only).toEqual(['a', 'b']);
    expect(parseFlags(SELFTEST_FLAGS, ['-h']).help).toBe(true);
    expect(() => parseFlags(SERVE_FLAGS, ['--port', '65536'])).toThrow(
      new UsageError("--port must be an integer from 0 to 65535 (received '65536')."),
    );
    expect(() => parseFlags(SELFTEST_FLAGS, ['--jobs', '0'])).toThrow(UsageError);
  });

  it('list every flag in --help', () => {
    const listsEvery = (help: string, rows: readonly { flag: string }[]) =>
      expect(rows.map((r) => r.flag).filter((f) => !help.includes(`--${f}`))).toEqual([]);
    listsEvery(flagHelp(SERVE_FLAGS), Object.values(SERVE_FLAGS));
    listsEvery(flagHelp(SELFTEST_FLAGS), Object.values(SELFTEST_FLAGS));
  });
});
