/**
 * YAML, config and profile errors are one sentence: what is wrong, where (file:line:column, the JSON pointer mapped
 * back to the YAML node), the value seen (a secret or card number masked), what to do.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConfigFile } from '../../core/config/load.js';
import { loadProfile, locatedProblems, profileProblems } from '../../core/profile/load.js';
import { KIT_ROOT } from '../../core/spec/paths.js';
import { ProfileError, YamlSyntaxError } from '../../core/types/errors.js';
import { parseYamlText, yamlPosition } from '../../core/yaml.js';
import { loadGatewayConfig } from '../../gateway/config.js';
import { pagiConform } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

const dir = tempDir('pagi-input-errors-');
const write = (name: string, text: string) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
};
const reference = fs.readFileSync(path.join(KIT_ROOT, 'spec', 'profiles', 'reference.yaml'), 'utf8');

/** The error `fn` throws. */
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('nothing thrown');
}

describe('positions of YAML nodes', () => {
  it('maps a path of keys to the line and column of its value or key, or of the deepest node that exists', () => {
    const text = 'a:\n  b: [1, 2]\n  c: x\nlist:\n  - k: v\n';
    expect(yamlPosition(text, ['a', 'c'])).toEqual({ line: 3, column: 6 });
    expect(yamlPosition(text, ['a', 'c'], true)).toEqual({ line: 3, column: 3 });
    expect(yamlPosition(text, ['a', 'b', '1'])).toEqual({ line: 2, column: 10 });
    expect(yamlPosition(text, ['list', '0', 'k'])).toEqual({ line: 5, column: 8 });
    expect(yamlPosition(text, ['a', 'missing'])).toEqual({ line: 2, column: 3 });
  });
});

describe('a YAML syntax error', () => {
  it('is one sentence: file:line:column, what the parser found, what to do; no excerpt of the line', () => {
    const file = write('syntax.yaml', 'secret: hunter2-secret\nb: 2\nc: [1,\n');
    const e = thrown(() => parseYamlText(fs.readFileSync(file, 'utf8'), file));
    expect(e).toBeInstanceOf(YamlSyntaxError);
    expect(e.message).toBe(
      `${file}:4:1: not valid YAML: flow sequence in block collection must be sufficiently indented and end with a ]; correct the file there.`,
    );
    const repeated = write('repeated.yaml', 'a: 1\na: 2\n');
    expect(thrown(() => readConfigFile(repeated)).message).toMatch(
      new RegExp(`^${repeated}:2:1: not valid YAML: map keys must be unique; correct the file there\\.$`),
    );
  });

  it('reaches the user of run, serve and profile validate as that one line, exit 2', async () => {
    const config = write('pagi.yaml', 'target: http://127.0.0.1:1\nprofile: reference\n  bad: [\n');
    const profile = write('profile.yaml', 'a: 1\nb: 2\nc: [1,\n');
    const [run, runProfile, served, validated] = await Promise.all([
      pagiConform(['run', '--config', config]),
      pagiConform(['run', '--profile', profile, '--out', path.join(dir, 'never')]),
      pagiConform(['serve', '--config', profile]),
      pagiConform(['profile', 'validate', profile]),
    ]);
    expect(run).toMatchObject({ code: 2, stdout: '' });
    expect(run.stderr).toBe(
      `pagi-conform: ${config}:2:10: not valid YAML: nested mappings are not allowed in compact mappings; correct the file there.\n`,
    );
    const syntax = `${profile}:4:1: not valid YAML: flow sequence in block collection must be sufficiently indented and end with a ]; correct the file there.`;
    expect(runProfile).toMatchObject({ code: 2, stderr: `pagi-conform: ${syntax}\n` });
    expect(served).toMatchObject({ code: 2, stderr: `pagi-conform: ${syntax}\n` });
    expect(validated).toMatchObject({ code: 2, stderr: `pagi-conform: ${syntax}\n` });
  });
});

describe('a schema error of a profile', () => {
  it('names the file, line and column, the key path and the value seen, and what to do', () => {
    const file = write('keep-first.yaml', reference.replace(/keepFirst: 6/, 'keepFirst: "six"'));
    const line = reference.split('\n').findIndex((l) => l.includes('keepFirst: 6')) + 1;
    const e = thrown(() => loadProfile(file));
    expect(e).toBeInstanceOf(ProfileError);
    expect(e.message).toBe(
      `The profile ${file} is not valid, 1 problem: ${file}:${line}:16: fields.cardMask.keepFirst must be integer (found 'six'); correct it and check with 'pagi-conform profile validate ${file}'.`,
    );
  });

  it('places an unknown key at the key, a consistency rule at its key path, and masks a card number seen', () => {
    const file = write(
      'cards.yaml',
      reference
        .replace('approve: ["4111111111111111"]', 'approve: 4111111111111111')
        .replace(/^name: .*$/m, '$&\nsurprise: 1'),
    );
    const text = fs.readFileSync(file, 'utf8');
    const lineOf = (needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;
    const problems = locatedProblems(profileProblems(parseYamlText(text)), text, file);
    expect(problems).toContain(`${file}:${lineOf('surprise: 1')}:1: must NOT have additional properties (surprise)`);
    expect(problems).toContain(
      `${file}:${lineOf('approve: 4111')}:14: payments.testCards.approve must be array (found 411111******1111)`,
    );
    expect(problems.join()).not.toContain('4111111111111111');
    const mistyped = reference.replace('keepFirst: 6', 'keepFrist: 6');
    expect(profileProblems(parseYamlText(mistyped))).toContain(
      "/fields/cardMask: must NOT have additional properties (keepFrist; did you mean 'keepFirst'?)",
    );
    const declined = write(
      'declined.yaml',
      reference.replace('approve: ["4111111111111111"]', 'approve: ["4000000000000002"]'),
    );
    const declinedText = fs.readFileSync(declined, 'utf8');
    expect(locatedProblems(profileProblems(parseYamlText(declinedText)), declinedText, declined)).toEqual([
      `${declined}:${declinedText.split('\n').findIndex((l) => l.includes('approve: ["4000')) + 1}:14: payments.testCards.approve 400000******0002 matches a decline rule`,
    ]);
  });
});

describe('a config error', () => {
  it('of the run config: the key or value where it is written, a secret never shown', () => {
    const file = write('values.yaml', 'target: http://127.0.0.1:1\nconcurrency: lots\n');
    expect(thrown(() => readConfigFile(file)).message).toBe(
      `${file}:2:14: concurrency must be an integer of at least 1 (received 'lots').`,
    );
    const secret = write('secret.yaml', 'secret: 987654321\n');
    expect(thrown(() => readConfigFile(secret)).message).toBe(
      `${secret}:1:9: secret must be a non-empty string (received [SECRET]).`,
    );
    const cards = write('cards.yaml', 'cards:\n  approve: [4111111111111111]\n');
    expect(thrown(() => readConfigFile(cards)).message).not.toMatch(/4111111111111111/);
    const unknown = write('unknown.yaml', 'target: http://127.0.0.1:1\nfailon: must\n');
    expect(thrown(() => readConfigFile(unknown)).message).toBe(
      `${unknown}:2:1: unknown key 'failon'; did you mean 'failOn'? 'pagi-conform run --help' lists the keys.`,
    );
  });

  it("of the gateway's configuration: each problem where it is, the closest key, a secret never shown", () => {
    const file = write(
      'gateway.yaml',
      'sevrer:\n  drainSeconds: 2\nmerchants:\n  - merchantId: M1\n    registeredAddresses: []\n    accounts:\n      - accountId: A1\n        secret: 12345678\n',
    );
    const message = thrown(() => loadGatewayConfig({ file })).message;
    expect(message).toContain(`${file}:1:1: must NOT have additional properties ('sevrer'; did you mean 'server'?)`);
    expect(message).toContain(`${file}:8:17: merchants.0.accounts.0.secret must be string (found [SECRET])`);
    expect(message).not.toContain('12345678');
    expect(message.split('\n')).toHaveLength(1);
  });
});
