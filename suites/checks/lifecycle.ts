/**
 * lifecycle: what the stateful scenarios show. Transitions the document leaves unspecified are judged at `expected`
 * (payment invariants) or `profile` level (the profile's states, codes and numbering), never `must`.
 */
import type { Check } from '../../core/model.js';
import { OUTCOME_CHECKS } from './lifecycle-outcomes.js';
import { PAYOUT_CHECKS } from './lifecycle-payout.js';
import { REVIEW_CHECKS } from './lifecycle-review.js';
import { TRANSITION_CHECKS } from './lifecycle-transitions.js';

/** The lifecycle family, in report order: scenario by scenario. */
export const LIFECYCLE_CHECKS: readonly Check[] = [
  ...TRANSITION_CHECKS,
  ...REVIEW_CHECKS,
  ...PAYOUT_CHECKS,
  ...OUTCOME_CHECKS,
];
