import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkOptions, helpText, parseArgv, readConfigFile, resolveOptions } from '../../core/config/load.js';
import { OPTIONS, UsageError, defaults, flagOf, optionsOf, type OptionDef } from '../../core/config/options.js';
import { tempDir } from '../support/temp.js';

const table = OPTIONS as readonly OptionDef[];
const tmp = tempDir('pagi-options-');
const write = (name: string, text: string) => {
  fs.writeFileSync(path.join(tmp, name), text);
  return path.join(tmp, name);
};

describe('options table', () => {
  it('defines every flag the issue names, once', () => {
    const flags = table.filter((o) => o.flag).map((o) => o.flag);
    for (const f of [
      'target',
      'config',
      'profile',
      'only',
      'skip',
      'fail-on',
      'waivers',
      'out',
      'reporter',
      'seed',
      'list',
      'shard',
      'concurrency',
      'rate',
      'timeout',
      'max-response-bytes',
      'order-prefix',
      'ca-file',
      'proxy',
      'notify-url',
      'notify-wait',
    ]) {
      expect(flags).toContain(f);
    }
    // A flag means one thing per command (`--out`: the reports' folder of run and merge, the file of profile migrate).
    for (const command of [
      'run',
      'merge',
      'verify',
      'profile migrate',
      'profile discover',
      'pact generate',
      'pact verify',
      'pact check',
    ] as const) {
      const own = optionsOf(command).flatMap((o) => (flagOf(o, command) ? [o.flag!] : []));
      expect(new Set(own).size, command).toBe(own.length);
    }
    expect(new Set(table.map((o) => o.key)).size).toBe(table.length);
    // Keys `run` reads from a config file or the environment only (pact verify takes the credentials as flags).
    expect(
      optionsOf('run')
        .filter((o) => !flagOf(o, 'run'))
        .map((o) => o.key),
    ).toEqual([
      'cards',
      'cardSecurityCode',
      'paymentMethods',
      'unregisteredAddress',
      'merchantId',
      'accountId',
      'secret',
    ]);
    expect(defaults()).toMatchObject({
      failOn: 'must',
      timeout: 10_000,
      maxResponseBytes: 8 * 1024 * 1024,
      out: 'reports',
      reporter: ['console', 'json'],
    });
  });

  it('generates --help from the table', () => {
    const help = helpText();
    for (const o of optionsOf('run')) expect(help).toContain(flagOf(o, 'run') ? `--${o.flag}` : o.key);
    expect(help).not.toContain('--public-key'); // verify's only
    expect(help).not.toContain('--merchant-id'); // pact verify's only: run takes credentials from a file or the environment
    expect(help).toContain('env PAGI_MERCHANT_ID');
    expect(help).toMatch(/3 INCONCLUSIVE/);
  });
});

describe('parseArgv', () => {
  it('parses every kind of value', () => {
    expect(
      parseArgv([
        '--target',
        'http://gw.example:8080/',
        '--only',
        'shape,limits',
        '--only',
        'capture',
        '--fail-on',
        'expected',
        '--seed',
        '42',
        '--list',
        '--shard',
        '2/3',
        '--timeout',
        '500',
        '--rate',
        '0',
      ]),
    ).toEqual({
      target: 'http://gw.example:8080',
      only: ['shape', 'limits', 'capture'],
      failOn: 'expected',
      seed: 42,
      list: true,
      shard: '2/3',
      timeout: 500,
      rate: 0,
    });
  });

  it.each([
    [['--nope'], /Unknown option '--nope'/],
    [['--fail-on', 'maybe'], /--fail-on must be one of must, expected, profile \(received 'maybe'\)/],
    [['--timeout', '0'], /--timeout must be an integer of at least 1/],
    [['--target', 'ftp://x'], /--target must be an http or https URL/],
    [['--shard', '3/2'], /--shard must be i\/n/],
    [['stray'], /Unexpected argument|positional/i],
  ])('refuses %j with one sentence', (argv, message) => {
    expect(() => parseArgv(argv)).toThrow(UsageError);
    expect(() => parseArgv(argv)).toThrow(message);
  });
});

describe('config file and environment', () => {
  it('reads config keys, resolves file paths against the file, and lets env and flags override', () => {
    const file = write(
      'kit.yaml',
      'target: https://gw.example\nmerchantId: M-FILE\naccountId: A-FILE\nsecret: file-secret\nwaivers: waivers.yaml\nprofile: ./vendor.yaml\ncards: {approve: "4111111111111111", decline: "4000000000000002"}\npaymentMethods: {valid: [PIX], unknown: NOPE}\nconcurrency: 8\n',
    );
    const fromFile = readConfigFile(file);
    expect(fromFile).toMatchObject({
      target: 'https://gw.example',
      waivers: path.join(tmp, 'waivers.yaml'),
      profile: path.join(tmp, 'vendor.yaml'),
      paymentMethods: { valid: ['PIX'], unknown: 'NOPE' },
    });
    const options = resolveOptions(parseArgv(['--config', file, '--concurrency', '2']), {
      PAGI_MERCHANT_ID: 'M-ENV',
      PAGI_SECRET: 'env-secret',
    });
    expect(options).toMatchObject({
      merchantId: 'M-ENV',
      accountId: 'A-FILE',
      secret: 'env-secret',
      concurrency: 2,
      failOn: 'must',
      target: 'https://gw.example',
    });
  });

  it('refuses unknown keys and CLI-only keys in a config file', () => {
    expect(() => readConfigFile(write('bad1.yaml', 'targte: x\n'))).toThrow(/unknown key 'targte'/);
    expect(() => readConfigFile(write('bad2.yaml', 'list: true\n'))).toThrow(/unknown key 'list'/);
    expect(() => readConfigFile(write('bad3.yaml', '- a\n'))).toThrow(/YAML mapping/);
    expect(() => readConfigFile(write('bad4.yaml', 'cards: [1]\n'))).toThrow(/bad4\.yaml:1:8: cards must be a mapping/);
  });

  it('checks programmatic options with the same parsers', () => {
    expect(checkOptions({ failOn: 'expected', only: ['shape'] })).toEqual({ failOn: 'expected', only: ['shape'] });
    expect(() => checkOptions({ timeout: -1 })).toThrow(/timeout must be an integer/);
    expect(() => checkOptions({ nope: 1 } as never)).toThrow(/Unknown option 'nope'/);
  });
});
