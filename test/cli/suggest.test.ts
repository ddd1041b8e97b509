/**
 * `--version`, and the one "did you mean" (core/config/suggest.ts) wherever a name is mistyped: commands, every
 * command's flags (`serve`'s and `selftest`'s tables too), config-file keys, the programmatic API's options and hooks,
 * `pact` and `profile` commands, gateway faults and --only/--skip selectors.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../cli/main.js';
import { SELFTEST_FLAGS } from '../../cli/selftest.js';
import { parseFlags } from '../../core/config/flags.js';
import { checkOptions, parseCommandLine, readConfigFile } from '../../core/config/load.js';
import { optionsOf } from '../../core/config/options.js';
import { closestName, didYouMean } from '../../core/config/suggest.js';
import { KIT_ROOT } from '../../core/spec/paths.js';
import { kitSpec } from '../../core/spec/load.js';
import { loadPlan } from '../../engine/runner.js';
import { findFault } from '../../gateway/faults.js';
import { SERVE_FLAGS } from '../../gateway/cli.js';
import { run } from '../../kit/index.js';
import { KIT_PARTS } from '../../kit/kit.js';
import { pagiConform } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

afterEach(() => vi.restoreAllMocks());

/** What a command run in-process printed and returned. */
async function inProcess(fn: () => Promise<number>): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((line: unknown) => void out.push(String(line)));
  vi.spyOn(console, 'error').mockImplementation((line: unknown) => void err.push(String(line)));
  const code = await fn();
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const version = JSON.parse(fs.readFileSync(path.join(KIT_ROOT, 'package.json'), 'utf8')).version as string;

describe('pagi-conform --version', () => {
  it('prints pagi-conform <the version of package.json> and exits 0, through the command line', async () => {
    const { code, stdout, stderr } = await pagiConform(['--version']);
    expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: `pagi-conform ${version}\n`, stderr: '' });
  });

  it('-v is the same, and help lists it', async () => {
    expect(await inProcess(() => main(['-v']))).toEqual({ code: 0, out: `pagi-conform ${version}`, err: '' });
    expect((await inProcess(() => main(['help']))).out).toMatch(/--version, -v/);
  });
});

describe('one suggestion helper', () => {
  it('offers the closest name within a few edits or as a prefix, and nothing for a word far from all', () => {
    expect(closestName('serv', ['run', 'serve', 'merge'])).toBe('serve');
    expect(closestName('fial-on', ['fail-on', 'only'])).toBe('fail-on');
    expect(closestName('TARGTE', ['target'])).toBe('target');
    expect(closestName('zzzzzz', ['target', 'profile'])).toBeUndefined();
    expect(didYouMean('prot', ['port'], (f) => `--${f}`)).toBe("; did you mean '--port'?");
    expect(didYouMean('zzzzzz', ['port'])).toBe('');
  });

  it('suggests a command, a pact command and a profile command', async () => {
    expect(await inProcess(() => main(['serv']))).toMatchObject({
      code: 2,
      err: "pagi-conform: unknown command 'serv'; did you mean 'serve'? Run 'pagi-conform help' for the list.",
    });
    expect((await inProcess(() => main(['--versoin']))).err).toMatch(/did you mean '--version'\?/);
    expect((await inProcess(() => main(['xyzzy']))).err).toBe(
      "pagi-conform: unknown command 'xyzzy'. Run 'pagi-conform help' for the list.",
    );
    const pact = await inProcess(() => main(['pact', 'verfy']));
    expect(pact.code).toBe(2);
    expect(pact.err).toMatch(/Unknown pact command 'verfy'; did you mean 'pact verify'\?/);
    const profile = await inProcess(() => main(['profile', 'valdate', 'reference']));
    expect(profile.code).toBe(2);
    expect(profile.err).toMatch(/Unknown profile command 'valdate'; did you mean 'profile validate'\?/);
  });

  it('suggests a flag of serve and selftest (their own tables) and of every command of the options table', () => {
    expect(() => parseFlags(SERVE_FLAGS, ['--prot', '8080'])).toThrow(
      "Unknown option '--prot'; did you mean '--port'? Run 'pagi-conform serve --help' for the options.",
    );
    expect(() => parseFlags(SELFTEST_FLAGS, ['--job', '2'], 'selftest')).toThrow(
      /did you mean '--jobs'\? Run 'pagi-conform selftest --help'/,
    );
    expect(() => parseCommandLine('pact verify', ['--brokr-url', 'http://x'], false)).toThrow(
      /did you mean '--broker-url'\? Run 'pagi-conform pact verify --help'/,
    );
    expect(() => parseCommandLine('verify', ['--publc-key', 'k.pem'], true)).toThrow(/did you mean '--public-key'/);
  });

  it('suggests a config-file key, an option and a hook of the programmatic API', async () => {
    const file = path.join(tempDir('pagi-suggest-'), 'pagi.yaml');
    fs.writeFileSync(file, 'targte: http://127.0.0.1:1\n');
    expect(() => readConfigFile(file)).toThrow(/unknown key 'targte'; did you mean 'target'\?/);
    expect(() => checkOptions({ reporters: ['json'] } as never)).toThrow(
      /^Unknown option 'reporters'; did you mean 'reporter'\?/,
    );
    // Every option key of the table is among the names offered: a near miss of each finds it.
    for (const { key } of optionsOf('run'))
      if (key.length >= 6) expect(() => checkOptions({ [`${key}x`]: 1 } as never), key).toThrow(`'${key}'`);
    await expect(run({}, { reporter: [] } as never)).rejects.toThrow(
      /Unknown hook 'reporter' of run\(\); did you mean 'reporters'\?/,
    );
  });

  it('suggests a gateway fault and a check id of --only', async () => {
    expect(() => findFault('xml-root-wrng')).toThrow(/did you mean 'xml-root-wrong'\?/);
    await expect(loadPlan(kitSpec(), { only: ['responseMatchesSchem'], skip: [] }, KIT_PARTS)).rejects.toThrow(
      /did you mean 'responseMatchesSchema'\?/,
    );
  });
});
