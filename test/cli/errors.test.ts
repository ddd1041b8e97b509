/**
 * Every error path of the command line prints one sentence and exits with the code of the error's class: the
 * commands throw their KitErrors where they arise and cli/main.ts, the one place, prints them and maps each class's
 * `exitCode`. A representative set of each command's error paths, in-process through `main` and as child processes.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { failed, main } from '../../cli/main.js';
import {
  ConfigError,
  EXIT,
  KitError,
  PactFileError,
  ProfileError,
  UsageError,
  YamlSyntaxError,
} from '../../core/types/errors.js';
import { pagiConform } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

afterEach(() => vi.restoreAllMocks());

const dir = tempDir('pagi-cli-errors-');
const write = (name: string, text: string) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
};

/** `pagi-conform ARGS` in-process: its exit code and what it printed on stderr, line by line. */
async function inProcess(args: string[]): Promise<{ code: number; errors: string[] }> {
  const errors: string[] = [];
  vi.spyOn(console, 'error').mockImplementation((line: unknown) => void errors.push(...String(line).split('\n')));
  vi.spyOn(console, 'log').mockImplementation(() => undefined);
  return { code: await main(args), errors };
}

/** One line, one sentence: it starts with `pagi-conform: ` and ends with a full stop or a question mark. */
function oneSentence(line: string | undefined): void {
  expect(line).toMatch(/^pagi-conform: [A-Z/'-]|^pagi-conform: [a-z]/);
  expect(line).toMatch(/[.?)]$/);
}

describe('the one place errors become exit codes', () => {
  it("prints a KitError's message on one line and exits with its class's exitCode; anything else is a defect", () => {
    const errors: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: unknown) => void errors.push(String(line)));
    class Later extends KitError {
      override readonly exitCode = EXIT.inconclusive;
    }
    expect(failed(new Later('a reason\nsaid on two lines.'))).toBe(3);
    expect(failed(new ProfileError('The profile p.yaml is not valid.'))).toBe(2);
    expect(failed(new TypeError('x is not a function'))).toBe(2);
    expect(errors[0]).toBe('pagi-conform: a reason said on two lines.');
    expect(errors[1]).toBe('pagi-conform: The profile p.yaml is not valid.');
    expect(errors[2]).toMatch(
      /^pagi-conform: the command failed on a defect of the kit \(x is not a function, at .*\); please report it with the command line\.$/,
    );
  });
});

describe('error paths of every command, in-process', () => {
  const pactFile = write('not-a-pact.json', '{"consumer":{"name":"m"}}');
  const notJson = write('not-json.json', '{');
  const cases: [string[], RegExp, number][] = [
    [['frobnicate'], /unknown command 'frobnicate'\. Run 'pagi-conform help'/, new UsageError('').exitCode],
    [['merge'], /Name the folders of the shard runs to merge/, new UsageError('').exitCode],
    [['merge', '--reporters', 'json', 'a'], /Unknown option '--reporters'; did you mean '--reporter'\?/, 2],
    [['verify', path.join(dir, 'absent.html')], /Cannot read .*absent\.html: ENOENT\./, 2],
    [['verify'], /Name one report file/, 2],
    [['reproduce', path.join(dir, 'absent.json'), 'x'], /Cannot read .*absent\.json as results\.json: ENOENT\./, 2],
    [['profile'], /Name a profile command\. The commands are profile validate/, 2],
    [['profile', 'validate'], /Name one profile to validate/, 2],
    [['profile', 'validate', 'refrence'], /No profile named 'refrence'; did you mean 'reference'\?/, 2],
    [['profile', 'migrate', path.join(dir, 'absent.yaml')], /Cannot read .*absent\.yaml: ENOENT\./, 2],
    [['pact', 'frobnicate'], /Unknown pact command 'frobnicate'\. The commands are/, 2],
    [
      ['pact', 'check', pactFile],
      /not-a-pact\.json is not a pact: it has no interactions list/,
      new PactFileError('').exitCode,
    ],
    [['pact', 'check', notJson], /not-json\.json is not JSON/, 2],
    [['pact', 'check'], /Name one pact file/, 2],
    [['serve', '--port', '70000'], /--port must be an integer from 0 to 65535 \(received '70000'\)\./, 2],
    [['serve', '--prot', '1'], /Unknown option '--prot'; did you mean '--port'\?/, 2],
    [['serve', '--config', write('gw.yaml', 'sevrer: {}\n')], /did you mean 'server'\?/, new ConfigError('').exitCode],
    [
      ['serve', '--config', write('gw-syntax.yaml', 'a: [\n')],
      /gw-syntax\.yaml:2:1: not valid YAML/,
      new YamlSyntaxError('').exitCode,
    ],
    [['serve', '--fault', 'xml-root-wrng'], /Unknown fault 'xml-root-wrng'; did you mean 'xml-root-wrong'\?/, 2],
    [['selftest', '--jobs', '0'], /--jobs must be an integer of at least 1 \(received '0'\)/, 2],
  ];
  for (const [args, message, code] of cases)
    it(args.join(' '), async () => {
      const { code: exit, errors } = await inProcess(args);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(message);
      oneSentence(errors[0]);
      expect(exit).toBe(code);
    });

  it('serve on a port already in use', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const { code, errors } = await inProcess(['serve', '--port', String(port)]);
      expect(errors).toEqual([
        `pagi-conform: Port ${port} is already in use; stop what listens there or choose another with --port.`,
      ]);
      expect(code).toBe(2);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});

describe('error paths of run and the commands that guard their output, as child processes', () => {
  it('run, profile discover and selftest: one line on stderr, exit 2', async () => {
    const registry = write('registry.ts', 'export const CHECKS = 1;\n');
    const runs = await Promise.all([
      pagiConform(['run', '--concurency', '3']),
      pagiConform(['run', '--registry', registry, '--out', path.join(dir, 'never')]),
      pagiConform(['run', '--only', 'responseMatchesSchem', '--out', path.join(dir, 'never')]),
      pagiConform(['run', '--target', 'http://127.0.0.1:9', '--out', path.join(dir, 'never')], {
        PAGI_MERCHANT_ID: 'M1',
        PAGI_ACCOUNT_ID: 'A1',
        PAGI_SECRET: 's3cret-value',
      }),
      pagiConform(['profile', 'discover']),
      pagiConform(['selftest', '--only', 'xml-root-wrng']),
    ]);
    const expected = [
      /Unknown option '--concurency'; did you mean '--concurrency'\?/,
      /The registry module .*registry\.ts must export CHECKS and PROBES arrays; export both from it\./,
      /'responseMatchesSchem' names no family, check, operation or requirement of the plan; did you mean 'responseMatchesSchema'\?/,
      /The target http:\/\/127\.0\.0\.1:9 is unreachable \(ECONNREFUSED/,
      /Name the sandbox to discover with --target URL/,
      /--only names an unknown variant 'xml-root-wrng'; did you mean 'xml-root-wrong'\?/,
    ];
    runs.forEach((r, i) => {
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines, r.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(expected[i]!);
      oneSentence(lines[0]);
      expect(r.code).toBe(2);
    });
    expect(fs.existsSync(path.join(dir, 'never'))).toBe(false);
  });
});
