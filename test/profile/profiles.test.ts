import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadProfile, profileProblems } from '../../src/profile/load.js';
import { kitSpec } from '../../src/spec/load.js';
import { SPEC_DIR } from '../../src/spec/paths.js';

const read = (name: string) => parseYaml(fs.readFileSync(path.join(SPEC_DIR, 'profiles', `${name}.yaml`), 'utf8'));

describe('profiles', () => {
  it('the reference profile validates against the published profile schema', () => {
    expect(profileProblems(read('reference'))).toEqual([]);
    expect(loadProfile('reference').profile.signature.algorithm.name).toBe('sha256');
  });

  it('a second vendor profile (HMAC-SHA256, sorted fields, upper-case hex) validates too', () => {
    const { profile } = loadProfile('sample-hmac-sorted');
    expect(profileProblems(read('sample-hmac-sorted'))).toEqual([]);
    expect(profile.signature.algorithm.name).toBe('hmac-sha256');
    expect(profile.signature.request.mode).toBe('sortedPairs');
    expect(profile.signature.encoding).toBe('hex-upper');
  });

  it('rejects a profile with an unknown key, a wrong type or a broken consistency rule', () => {
    expect(profileProblems({ ...read('reference'), surprise: 1 }).join()).toMatch(/surprise/);
    const badType = read('reference');
    badType.limits.maxBodyBytes = 'big';
    expect(profileProblems(badType)).not.toEqual([]);
    const inconsistent = read('reference');
    inconsistent.signature.response = { signed: false };
    expect(profileProblems(inconsistent).join()).toMatch(/asResponse/);
    const declines = read('reference');
    declines.payments.testCards.approve = ['4000000000000002'];
    expect(profileProblems(declines).join()).toMatch(/approve 400000\*+0002 matches a decline rule/);
  });

  it('names every alias of the spec exactly once and no limit of the interface', () => {
    const spec = kitSpec();
    const form = spec.operations.get('checkout')!.checkoutForm!;
    for (const name of ['reference', 'sample-hmac-sorted']) {
      const p = read(name);
      expect(Object.keys(p.checkout.aliases).sort(), name).toEqual([...form.aliasNames].sort());
      expect(JSON.stringify(p)).not.toMatch(/maxListLength|maxItems/);
    }
  });
});
