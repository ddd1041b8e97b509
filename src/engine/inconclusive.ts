/** The one rule telling a target that asks to be retried later (an inconclusive observation) from one that fails. */
import type { Exchange } from '../model.js';

/** Statuses by which a target says "not now": rate limited (429) or unavailable (503). */
const RETRY_LATER_STATUSES: readonly number[] = [429, 503];

/**
 * Whether an exchange makes its observation inconclusive for rate limiting or unavailability: a request the kit
 * sent (never a notification the kit received and answered itself) that the target answered 429 or 503.
 */
export function answeredRetryLater(x: Exchange): boolean {
  return !x.incoming && RETRY_LATER_STATUSES.includes(x.response?.status ?? 0);
}
