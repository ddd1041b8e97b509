/**
 * Profile format 6, stated or not stated: a key the format requires may be left out; the loaded profile has the
 * format's default there and names the point, and the profile as checks read it refuses the read.
 */
import { describe, expect, it } from 'vitest';
import { loadProfile, readProfile } from '../../core/profile/load.js';
import { kitProfile } from '../../core/profile/reads.js';
import { ProfilePointNotStated } from '../../core/types/errors.js';
import { notJudgedReason, notStatedPoint } from '../../engine/suite.js';
import { shipped } from './history.js';

const reference = () => shipped('reference');

describe('a profile that leaves points out', () => {
  it('is completed with the format defaults, each leaf filled named by its JSON pointer', () => {
    const value = reference();
    delete value.statusValues.payment_status.captured;
    delete value.notifications.retry;
    const read = readProfile(value);
    expect(read.problems).toEqual([]);
    expect([...read.unstated].sort()).toEqual(
      [
        ...Object.keys(reference().notifications.retry).map((k) => `/notifications/retry/${k}`),
        '/statusValues/payment_status/captured',
      ].sort(),
    );
    expect(read.profile!.statusValues.payment_status.captured).toBe(reference().statusValues.payment_status.captured);
    expect(read.profile!.notifications.retry).toEqual(reference().notifications.retry);
  });

  it('states every point when complete: every shipped profile, and an earlier format migrated', () => {
    for (const name of [
      'reference',
      'sample-hmac-sorted',
      'legacy-sha256-pipe',
      'hmac-fields-formfirst',
      'sha256-pairs-ownshape',
    ])
      expect(loadProfile(name).unstated, name).toEqual([]);
    expect(readProfile({ ...reference(), format: 5 }).unstated).toEqual([]);
  });

  it('leaves an optional key it omits absent (its absence keeps its meaning), and the format and name required', () => {
    const value = reference();
    delete value.checkout.gatewayFieldValues;
    const read = readProfile(value);
    expect(read.unstated).toEqual([]);
    expect(read.profile!.checkout.gatewayFieldValues).toBeUndefined();
    const nameless = reference();
    delete nameless.name;
    expect(readProfile(nameless).problems).toContain("/: must have required property 'name'");
  });

  it('names in notStated an optional key whose absence would say something: not stated, and read as such', () => {
    const value = reference() as any;
    delete value.requestMedia.formNestedValues;
    value.notStated = ['/requestMedia/formNestedValues', '/signature/response/fields/authoriseApm'];
    delete value.signature.response.fields.authoriseApm;
    const read = readProfile(value);
    expect(read.problems).toEqual([]);
    expect(read.unstated).toEqual(['/requestMedia/formNestedValues', '/signature/response/fields/authoriseApm']);
    const profile = kitProfile(read.profile!, read.unstated);
    expect(() => profile.requestMedia.formNestedValues).toThrow(ProfilePointNotStated);
    expect(() => profile.signature.response.signed).not.toThrow();
    // A point the profile states cannot be listed as not stated.
    const both = reference() as any;
    both.notStated = ['/requestMedia/types/capture'];
    expect(readProfile(both).problems).toEqual([
      'notStated lists /requestMedia/types/capture, which the profile states: leave the point out, or take it off the list',
    ]);
    expect(readProfile({ ...reference(), notStated: ['requestMedia'] }).problems[0]).toMatch(/^\/notStated\/0: /);
  });

  it('a value it states is still judged: a wrong value stays a problem', () => {
    const value = reference();
    value.statusValues.payment_status.captured = 4;
    expect(readProfile(value).problems.join('\n')).toMatch(/\/statusValues\/payment_status\/captured: must be string/);
  });

  it('a default cannot clash with a value the profile states (the distinct-values rule counts stated values)', () => {
    const value = reference();
    const captured = value.statusValues.payment_status.captured;
    const other = Object.keys(value.statusValues.payment_status).find(
      (k) => k !== 'captured' && k !== 'successMessage',
    )!;
    delete value.statusValues.payment_status.captured;
    value.statusValues.payment_status[other] = captured;
    expect(readProfile(value).problems).toEqual([]);
  });

  it('a key of the one object variant of an object-or-null (review.triggers) may be left out; null stays null', () => {
    const value = reference();
    delete value.review.triggers.shopperEmailDomains;
    const read = readProfile(value);
    expect(read.problems).toEqual([]);
    expect(read.unstated).toEqual(['/review/triggers/shopperEmailDomains']);
    expect(read.profile!.review.triggers!.amountAtLeast).toBe(reference().review.triggers!.amountAtLeast);
    const never = reference();
    never.review.triggers = null;
    expect(readProfile(never).unstated).toEqual([]);
  });

  it('a key of the oneOf variant the value and the default share (signature.response field lists) may be left out', () => {
    type Lists = { fields: Record<string, string[]> };
    const value = reference();
    delete (value.signature.response as unknown as Lists).fields.authoriseDirect;
    const read = readProfile(value);
    expect(read.problems).toEqual([]);
    expect(read.unstated).toEqual(['/signature/response/fields/authoriseDirect']);
    expect((read.profile!.signature.response as unknown as Lists).fields.authoriseDirect).toEqual(
      (reference().signature.response as unknown as Lists).fields.authoriseDirect,
    );
    // Another variant than the default's (sorted pairs: the reference signs field lists) is held whole: a key it
    // leaves out is a problem, never a default of the other variant.
    const pairs = reference();
    const sorted = structuredClone(shipped('sample-hmac-sorted').signature.response) as unknown as {
      pairs: Record<string, unknown>;
    };
    delete sorted.pairs.skipEmpty;
    pairs.signature.response = sorted as never;
    const other = readProfile(pairs);
    expect(other.unstated).toEqual([]);
    expect(other.problems.length).toBeGreaterThan(0);
  });

  it("rules between points skip a point not stated: failure types, a transition's allowed states", () => {
    const value = reference();
    delete value.payout.failureTypes;
    value.payout.failureRules[0]!.failureType = 'OWN_TYPE';
    delete value.transitions.cancel.from;
    value.transitions.cancel.refusals = { [reference().transitions.cancel.from[0]!]: 'invalidState' };
    // A kind of the gateway's own with the check order not stated (the default's order knows no such kind).
    delete value.errors.precedence;
    value.errors.kinds.unknownMerchant = { ...reference().errors.kinds.badSignature, code: 'OWN' };
    value.errors.unknownMerchant = 'unknownMerchant';
    const read = readProfile(value);
    expect(read.problems).toEqual([]);
    expect(read.unstated).toEqual(
      expect.arrayContaining(['/payout/failureTypes', '/transitions/cancel/from', '/errors/precedence']),
    );
  });
});

describe('the profile as checks read it', () => {
  it('throws ProfilePointNotStated naming the pointer on a read of a point not stated, and only then', () => {
    const value = reference();
    delete value.errors.kinds.badSignature.code;
    const read = readProfile(value);
    const profile = kitProfile(read.profile!, read.unstated);
    expect(profile.errors.kinds.badSignature.status).toBe(reference().errors.kinds.badSignature.status);
    expect(profile.errors.kinds.unknownMerchant ?? profile.errors.kinds.badSignature).toBeTruthy();
    let thrown: unknown;
    try {
      void profile.errors.kinds.badSignature.code;
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ProfilePointNotStated);
    expect((thrown as ProfilePointNotStated).pointer).toBe('/errors/kinds/badSignature/code');
    expect(() => Object.values(profile.errors.kinds.badSignature)).toThrow(ProfilePointNotStated);
    // A complete profile is read as it is.
    const complete = loadProfile('reference');
    expect(kitProfile(complete.profile, complete.unstated)).toBe(complete.profile);
  });

  it('the engine reads the point from the error or its causes, for the not-applicable reason', () => {
    const e = new ProfilePointNotStated('/batch/itemFailures');
    expect(notStatedPoint(e)).toBe('/batch/itemFailures');
    expect(notStatedPoint(new Error('probe failed', { cause: e }))).toBe('/batch/itemFailures');
    expect(notStatedPoint(new Error('other'))).toBeUndefined();
    expect(notJudgedReason('/batch/itemFailures')).toBe('not judged: the profile does not state /batch/itemFailures');
  });
});

describe('a request field whose name the profile does not state', () => {
  it('is left out of the request, not sent under a guessed name', async () => {
    const { sampleBody } = await import('../../engine/sample.js');
    const { kitSpec } = await import('../../core/spec/load.js');
    const { runConfig } = await import('../support/config.js');
    const value = reference();
    const name = value.fields.antifraudTokenCookie;
    delete value.fields.antifraudTokenCookie;
    const read = readProfile(value);
    const settings = { config: runConfig('http://127.0.0.1:1'), cardSecurityCode: '123' };
    const fresh = { orderNo: 'o', requestId: 'r' };
    const stated = sampleBody(kitSpec(), loadProfile('reference').profile, settings, 'authoriseDirect', fresh);
    expect(stated[name]).toBeDefined();
    const body = sampleBody(kitSpec(), kitProfile(read.profile!, read.unstated), settings, 'authoriseDirect', fresh);
    expect(Object.keys(body).filter((k) => /antifraud/i.test(k))).toEqual([]);
    expect(body.order_no).toBe(stated.order_no);
  });
});
