/**
 * The seal of report.html covers the file as written: the write path masks card-like digit runs and secrets, and a
 * profile name, version or description that only looks like one (a draft's `discovered-127-0-0-1-18080` beside its
 * version `0.1.0`) must not turn an untouched, signed report into an EDITED one.
 */
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { htmlReporter } from '../../reporters/html.js';
import { verifyReport } from '../../reporters/seal.js';
import { hostileResult } from './fixtures/hostile.js';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'pagi-seal-'));

/** The report.html the html reporter writes for the hostile run with this profile. */
async function writtenReport(profile: { name: string; version: string; description?: string }): Promise<string> {
  const result = hostileResult();
  result.metadata.profile = { ...result.metadata.profile, ...profile };
  const outDir = fs.mkdtempSync(path.join(work, 'run-'));
  const [file] = (await htmlReporter(privateKey).onRunEnd!(result, { outDir, exchanges: [], files: [] })) as string[];
  return fs.readFileSync(file!, 'utf8');
}

/** Name-like text: digits, dashes, dots, spaces, letters and a few non-ASCII characters. */
const piece = fc.oneof(
  fc.stringMatching(/^[0-9]{1,6}$/),
  fc.constantFrom('-', '.', ' ', '_', '+', 'discovered', 'acme', 'é', 'ß', '支付', '🙂', 'gw'),
);
const nameLike = fc.array(piece, { minLength: 1, maxLength: 10 }).map((p) => p.join(''));

describe('the seal of the written report', () => {
  it('verifies the drafts of profile discover against a loopback sandbox', async () => {
    for (const [name, version] of [
      ['discovered-127-0-0-1-18080', '0.1.0'],
      ['acme-18080', '0.1.0'],
      ['discovered-10-0-0-12-8443', '1.0.0'],
    ] as const) {
      const html = await writtenReport({
        name,
        version,
        description:
          'Draft profile of the gateway at http://127.0.0.1:18080, written by pagi-conform profile discover.',
      });
      expect(verifyReport(html, publicKey).lines.slice(1)).toEqual([
        expect.stringMatching(/^page: matches its digest/),
        expect.stringMatching(/^signature: a valid Ed25519 signature/),
        'report: untouched',
      ]);
      expect(html).toContain(`${name} (version ${version})`);
    }
  });

  it('verifies for any name, version and description, even one holding a card number (masked before sealing)', async () => {
    await fc.assert(
      fc.asyncProperty(nameLike, fc.stringMatching(/^[0-9]{1,3}(\.[0-9]{1,5}){0,3}$/), nameLike, async (n, v, d) => {
        const html = await writtenReport({ name: n, version: v, description: `${d} (card 4111 1111 1111 1111)` });
        expect(verifyReport(html, publicKey)).toMatchObject({ ok: true });
        expect(html).not.toContain('4111 1111 1111 1111');
      }),
      { numRuns: 60, seed: 35, examples: [['discovered-127-0-0-1-18080', '0.1.0', '']] },
    );
  });
});
