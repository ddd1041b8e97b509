/** Leaf agreement of two profiles (core/profile/agreement.ts): the figure `profile discover` is judged by. */
import { describe, expect, it } from 'vitest';
import { leafAgreement } from '../../core/profile/agreement.js';

describe('leafAgreement', () => {
  it('counts the reference leaves the other holds alike; sets compare as sets, other lists in order', () => {
    const reference = {
      payments: { testCards: { approve: ['1', '2'] } },
      signature: { request: { fields: { capture: ['a', 'b'] } } },
      review: { triggers: {} },
      notifications: { retry: { factor: 2 } },
    };
    const other = {
      payments: { testCards: { approve: ['2', '1'] } },
      signature: { request: { fields: { capture: ['b', 'a'] } } },
      review: { triggers: {} },
      notifications: { retry: { factor: 2, extra: true } },
    };
    const a = leafAgreement(reference, other);
    expect(a.leaves).toBe(4);
    expect(a.agreeing).toBe(3);
    expect(a.disagreements).toEqual([
      { path: 'signature.request.fields.capture', expected: ['a', 'b'], received: ['b', 'a'] },
    ]);
    expect(a.extra).toEqual([{ path: 'notifications.retry.extra', value: true }]);
  });

  it("leaves out the profile's labels (name, version, description), which no probe can tell", () => {
    const a = leafAgreement({ name: 'x', version: '1', description: 'd', format: 5 }, { name: 'y', format: 5 });
    expect(a).toMatchObject({ leaves: 1, agreeing: 1, ratio: 1 });
  });

  it('counts a leaf the other lacks as a disagreement', () => {
    const a = leafAgreement({ errors: { signed: true } }, {});
    expect(a.ratio).toBe(0);
    expect(a.disagreements[0]).toEqual({ path: 'errors.signed', expected: true, received: undefined });
  });
});
