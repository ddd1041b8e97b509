/**
 * `pagi-conform pact verify` with Pact's own Verifier: the generated pact against the reference gateway (all
 * verified) and against a gateway with a self-test fault (a failed interaction naming the field).
 */
import fs from 'node:fs';
import path from 'node:path';
import { generatePact, pactText } from '../../pact/interactions.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../gateway/index.js';
import { keepsColours, outputLine } from '../../cli/pact.js';
import { pagiConform } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

/** `pagi-conform ARGS` without colour; `out` is its stdout, then its stderr. */
async function cli(args: string[]): Promise<{ code: number; out: string }> {
  const { code, stdout, stderr } = await pagiConform(args, { NO_COLOR: '1' });
  return { code, out: stdout + stderr };
}

const plain = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '');

describe('colours of the Verifier', () => {
  it('are kept on a terminal only, never with NO_COLOR, and on no terminal only with FORCE_COLOR', () => {
    expect(keepsColours({}, true)).toBe(true);
    expect(keepsColours({ NO_COLOR: '1' }, true)).toBe(false);
    expect(keepsColours({}, false)).toBe(false);
    expect(keepsColours({}, undefined)).toBe(false);
    expect(keepsColours({ FORCE_COLOR: '1' }, false)).toBe(true);
    expect(keepsColours({ NO_COLOR: '1', FORCE_COLOR: '1' }, true)).toBe(false);
    const coloured = '\u001b[31mFailures:\u001b[0m \u001b[1;32mok\u001b[0m';
    expect(outputLine(coloured, false)).toBe('Failures: ok');
    expect(outputLine(coloured, true)).toBe(coloured);
  });
});

describe('pact verify', { timeout: 120_000 }, () => {
  let reference: RunningGateway;
  let faulty: RunningGateway;
  beforeAll(async () => {
    reference = await startGateway({});
    faulty = await startGateway({ fault: 'direct-drops-account-id' });
  });
  afterAll(async () => {
    await reference?.close();
    await faulty?.close();
  });

  it('verifies every interaction of the generated pact against the reference gateway', async () => {
    const { code, out } = await cli(['pact', 'verify', '--target', reference.url, '--pact', 'pacts']);
    expect(out).toContain('pact verify: all interactions verified');
    // NO_COLOR (and output that is no terminal): the Verifier's report without its colours.
    expect(out.includes('\u001b')).toBe(false);
    expect(code).toBe(0);
  });

  it('fails the interaction whose response lacks a field, naming the field', async () => {
    const { code, out } = await cli(['pact', 'verify', '--target', faulty.url]);
    expect(out.includes('\u001b')).toBe(false);
    const text = plain(out);
    expect(code).toBe(1);
    expect(text).toContain('1 interaction(s) failed');
    expect(text).toMatch(
      /a direct card payment \(authoriseDirect, HTTP 200\): body \$\.respon: Expected child <account_id\/> but was missing/,
    );
  });

  it('takes broker options up to the command line', async () => {
    const usage = await cli([
      'pact',
      'verify',
      '--target',
      reference.url,
      '--broker-url',
      'http://127.0.0.1:9',
      '--publish',
    ]);
    expect(usage.code).toBe(2);
    expect(usage.out).toContain('--publish needs --provider-version');
    const unreachable = await cli([
      'pact',
      'verify',
      '--target',
      reference.url,
      '--broker-url',
      'http://127.0.0.1:9',
      '--provider-version',
      '1.0.0',
    ]);
    expect(unreachable.code).toBe(2);
    expect(plain(unreachable.out)).toContain("could not load the pacts: No pacts found for provider 'pagi-gateway'");
    expect(plain(unreachable.out)).toContain('http://127.0.0.1:9');
  });

  it("masks the card numbers a gateway answers in the Verifier's output", async () => {
    const unmasked = await startGateway({ fault: 'card-unmasked' });
    const dir = tempDir('pagi-pact-mask-');
    try {
      // A merchant expecting the masked card: the Verifier prints the full number the faulty gateway sends.
      const pact = generatePact();
      pact.interactions = pact.interactions.filter((i) => i.key === 'authoriseDirect-200');
      const response = pact.interactions[0]!.response;
      response.body!.content = String(response.body!.content).replace(
        '</respon>',
        '<card>411111******1111</card></respon>',
      );
      response.matchingRules!.body!["$.respon.card['#text']"] = {
        combine: 'AND',
        matchers: [{ match: 'regex', regex: '^[0-9]{6}\\*+[0-9]{4}$' }],
      };
      fs.writeFileSync(path.join(dir, 'pact.json'), pactText(pact));
      const { code, out } = await cli([
        'pact',
        'verify',
        '--target',
        unmasked.url,
        '--pact',
        path.join(dir, 'pact.json'),
      ]);
      expect(code).toBe(1);
      expect(plain(out)).toContain("$.respon.card['#text']");
      expect(out).not.toContain('4111111111111111');
      expect(plain(out)).toContain("Expected '411111******1111' to match");
    } finally {
      await unmasked.close();
    }
  });
});
