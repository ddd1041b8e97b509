/**
 * The sandbox's own limit on a field's length (gateway configuration `limits.maxFieldLength`, default 8192
 * characters; not a profile point: the interface shows no lengths): a longer text value, at the top level or
 * nested, is refused with the profile's invalidInput answer and changes nothing; one at the limit is accepted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../index.js';
import * as h from './helpers.js';

const invalid = h.profile.errors.kinds.invalidInput;
const REASON = 'x-pagi-reason';

let gw: RunningGateway;
let small: RunningGateway;
beforeAll(async () => {
  gw = await h.gateway({ config: { notifications: { enabled: false } } });
  small = await h.gateway({ config: { notifications: { enabled: false }, limits: { maxFieldLength: 100 } } });
});
afterAll(async () => {
  await gw.close();
  await small.close();
});

describe('limits.maxFieldLength: the longest text value of a field', () => {
  it('is 8192 characters by default: a payout reason of 8192 is accepted, of 8193 refused as invalidInput', async () => {
    expect(gw.config.limits.maxFieldLength).toBe(8192);
    expect((await h.call(gw, 'payout', h.payoutBody({ reason: 'x'.repeat(8192) }))).status).toBe(200);
    const before = gw.stateDigest();
    const res = await h.call(gw, 'payout', h.payoutBody({ reason: 'x'.repeat(8193) }));
    expect(res.status).toBe(invalid.status);
    expect(res.text).toContain(invalid.code);
    expect(res.headers[REASON]).toBe(
      "invalidInput: /reason is longer than 8192 characters (the sandbox's limits.maxFieldLength)",
    );
    expect(gw.stateDigest()).toBe(before);
  });

  it('applies to nested values and to every operation; the configuration sets it', async () => {
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
  });
});
