/** An operation of the spec the profile does not name takes the profile-wide defaults (`operationDefaults`). */
import { describe, expect, it } from 'vitest';
import { loadProfile } from '../../core/profile/load.js';
import { operationDefaults, profileForSpec } from '../../core/profile/operations.js';
import { kitSpec, loadSpec } from '../../core/spec/load.js';
import { specWithCancelSubscription } from '../support/added-operation.js';

describe('a profile read against a spec with an operation it does not name', () => {
  const spec = loadSpec(specWithCancelSubscription());
  const { profile } = loadProfile('reference');

  it('is the profile itself when it names every operation of the spec', () => {
    expect(profileForSpec(profile, kitSpec())).toBe(profile);
  });

  it('gives the unnamed operation what the named ones agree on, leaving the named ones as they were', () => {
    const read = profileForSpec(profile, spec) as any;
    expect(read).not.toBe(profile);
    expect(read.requestMedia.types.cancelSubscription).toBe('json');
    expect(read.signature.request.fields.cancelSubscription).toEqual(['merchant_id', 'account_id']);
    expect(read.signature.response.fields.cancelSubscription).toEqual(['merchant_id', 'account_id']);
    expect(read.errors.formatByOperation.cancelSubscription).toBe('json');
    expect(read.errors.refusalForms.cancelSubscription).toEqual(['httpError']);
    expect({ ...read.requestMedia.types, cancelSubscription: undefined }).toEqual({
      ...profile.requestMedia.types,
      cancelSubscription: undefined,
    });
    expect((profile.requestMedia.types as Record<string, unknown>).cancelSubscription).toBeUndefined();
  });

  it('takes every setting of operationDefaults the profile gives', () => {
    const given = structuredClone(profile);
    given.operationDefaults = {
      requestMedia: 'form',
      signatureFields: { request: ['merchant_id', 'recurring_id'], response: ['merchant_id', 'return_status'] },
      errorFormat: 'xml',
      refusalForms: ['statusInBody', 'httpError'],
    };
    expect(operationDefaults(given)).toEqual(given.operationDefaults);
    const read = profileForSpec(given, spec) as any;
    expect(read.requestMedia.types.cancelSubscription).toBe('form');
    expect(read.signature.request.fields.cancelSubscription).toEqual(['merchant_id', 'recurring_id']);
    expect(read.signature.response.fields.cancelSubscription).toEqual(['merchant_id', 'return_status']);
    expect(read.errors.formatByOperation.cancelSubscription).toBe('xml');
    expect(read.errors.refusalForms.cancelSubscription).toEqual(['statusInBody', 'httpError']);
  });
});
