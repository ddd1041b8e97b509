/** Exit codes and error classes: stable codes, and one typed flag table per flag-only command. */
import { describe, expect, it } from 'vitest';
import { SERVE_FLAGS } from '../../gateway/cli.js';
import { SELFTEST_FLAGS } from '../../src/cli/selftest.js';
import { flagHelp, parseFlags } from '../../src/config/flags.js';
import { UsageError as ConfigUsageError } from '../../src/config/options.js';
import { EXIT, KitError, UsageError } from '../../src/types/errors.js';

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
});

describe('flag tables', () => {
  it('parse typed values, apply defaults, and refuse a bad value with a UsageError naming the flag', () => {
    expect(parseFlags(SERVE_FLAGS, ['--port', '0', '--drain-seconds', '1.5'])).toEqual({
      values: { port: 0, host: '127.0.0.1', admin: false, drainSeconds: 1.5 },
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
