/**
 * The longest text value of a field: the profile's point `limits.maxFieldLength` (profile format 7; the interface
 * shows no lengths), or, when the profile does not state it, the gateway configuration's `limits.maxFieldLength`
 * (default 8192 characters). A longer text value, at the top level or nested, is refused with the profile's
 * invalidInput answer and changes nothing; one at the limit is accepted.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { SPEC_DIR } from '../../core/spec/paths.js';
import type { RunningGateway } from '../index.js';
import { tempDir } from '../../test/support/temp.js';
import * as h from './helpers.js';

const invalid = h.profile.errors.kinds.invalidInput;
const REASON = 'x-pagi-reason';

/** The reference profile with `limits.maxFieldLength` as given (undefined: left out, not stated), in a file. */
function referenceWith(maxFieldLength: number | undefined): string {
  const value = parse(fs.readFileSync(path.join(SPEC_DIR, 'profiles', 'reference.yaml'), 'utf8'));
  if (maxFieldLength === undefined) delete value.limits.maxFieldLength;
  else value.limits.maxFieldLength = maxFieldLength;
  const file = path.join(tempDir('field-length'), `reference-${maxFieldLength ?? 'unstated'}.yaml`);
  fs.writeFileSync(file, stringify(value));
  return file;
}

let gw: RunningGateway;
let small: RunningGateway;
let unstated: RunningGateway;
const off = { notifications: { enabled: false } };
beforeAll(async () => {
  gw = await h.gateway({ config: off });
  // The profile states 100: the configuration's length (8192 by default) does not count.
  small = await h.gateway({ profile: referenceWith(100), config: off });
  // The profile leaves it out: the configuration's length applies.
  unstated = await h.gateway({
    profile: referenceWith(undefined),
    config: { ...off, limits: { maxFieldLength: 120 } },
  });
});
afterAll(async () => {
  await gw.close();
  await small.close();
  await unstated.close();
});

describe('limits.maxFieldLength: the longest text value of a field', () => {
  it("is the profile's: the reference states 8192, a payout reason of 8192 is accepted, of 8193 refused as invalidInput", async () => {
    expect(h.profile.limits.maxFieldLength).toBe(8192);
    expect(gw.fieldLength).toEqual({ max: 8192, from: 'profile' });
    expect((await h.call(gw, 'payout', h.payoutBody({ reason: 'x'.repeat(8192) }))).status).toBe(200);
    const before = gw.stateDigest();
    const res = await h.call(gw, 'payout', h.payoutBody({ reason: 'x'.repeat(8193) }));
    expect(res.status).toBe(invalid.status);
    expect(res.text).toContain(invalid.code);
    expect(res.headers[REASON]).toBe(
      "invalidInput: /reason is longer than 8192 characters (the profile's limits.maxFieldLength)",
    );
    expect(gw.stateDigest()).toBe(before);
  });

  it('applies to nested values and to every operation; a profile stating another length sets it', async () => {
    expect(small.fieldLength).toEqual({ max: 100, from: 'profile' });
    const payout = h.payoutBody();
    payout.beneficiary = { ...payout.beneficiary, company_name: 'c'.repeat(101) };
    const nested = await h.call(small, 'payout', payout);
    expect(nested.status).toBe(invalid.status);
    expect(nested.headers[REASON]).toMatch(/^invalidInput: \/beneficiary\/company_name is longer than 100 characters/);
    const paid = await h.call(
      small,
      'authoriseDirect',
      h.directBody({ website: `https://${'w'.repeat(100)}.example` }),
    );
    expect(paid.status).toBe(invalid.status);
    expect(paid.headers[REASON]).toMatch(/^invalidInput: \/website is longer than 100 characters/);
    expect((await h.call(small, 'authoriseDirect', h.directBody())).status).toBe(200);
    expect((await h.call(small, 'authoriseDirect', h.directBody({ note: 'n'.repeat(100) }))).status).toBe(200);
    expect((await h.call(small, 'authoriseDirect', h.directBody({ note: 'n'.repeat(101) }))).status).toBe(
      invalid.status,
    );
  });

  it("is the configuration's when the profile does not state it (its default), and says so", async () => {
    expect(unstated.fieldLength).toEqual({ max: 120, from: 'configuration' });
    expect((await h.call(unstated, 'authoriseDirect', h.directBody({ note: 'n'.repeat(120) }))).status).toBe(200);
    const res = await h.call(unstated, 'authoriseDirect', h.directBody({ note: 'n'.repeat(121) }));
    expect(res.status).toBe(invalid.status);
    expect(res.headers[REASON]).toBe(
      "invalidInput: /note is longer than 120 characters (the gateway configuration's limits.maxFieldLength: the profile states none)",
    );
  });
});
