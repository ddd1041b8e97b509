/** The run configuration probe clients and check contexts read, for tests. */
import type { RunConfigView } from '../../core/model.js';
import { loadProfile } from '../../core/profile/load.js';

const reference = loadProfile('reference').profile;

/**
 * A run configuration against `baseUrl`: merchant `M`, account `A`, order prefix `T`, seed 1, the reference
 * profile's first approving card, APM method `PIX` (unknown: `NOPE`), no notification wait; `overrides` win.
 */
export function runConfig(baseUrl: string, overrides: Partial<RunConfigView> = {}): RunConfigView {
  return {
    baseUrl,
    merchantId: 'M',
    accountId: 'A',
    orderPrefix: 'T',
    seed: 1,
    cards: { approve: reference.payments.testCards.approve[0]! },
    paymentMethods: { valid: ['PIX'], unknown: 'NOPE' },
    notifyWaitMs: 0,
    ...overrides,
  };
}
