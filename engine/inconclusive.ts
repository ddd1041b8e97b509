/**
 * The one rule telling a target that asks to be retried later (an inconclusive observation) from one that fails, and
 * the one rule telling a server error (a broken availability invariant) from a declared answer.
 */
import type { Exchange } from '../core/model.js';

/** Statuses by which a target says "not now": rate limited (429) or unavailable (503). */
const RETRY_LATER_STATUSES: readonly number[] = [429, 503];

/**
 * Whether an exchange makes its observation inconclusive for rate limiting or unavailability: a request the kit
 * sent (never a notification the kit received and answered itself) that the target answered 429 or 503.
 */
export function answeredRetryLater(x: Exchange): boolean {
  return !x.incoming && RETRY_LATER_STATUSES.includes(x.response?.status ?? 0);
}

/**
 * Whether the target answered a request the kit sent to an operation of the interface with a server error: a 5xx
 * status other than one asking to retry later (503) and other than one the profile declares for an error kind
 * (`declared`: a gateway may answer an unknown method 501 if its profile says so). Every listed answer of the
 * interface is 200, 400 or 404. Pages outside the operations (an issuer's page) are not the gateway's answers.
 */
export function answeredServerError(x: Exchange, declared: readonly number[] = []): boolean {
  const status = x.response?.status ?? 0;
  return (
    !x.incoming &&
    x.operation !== 'external' &&
    status >= 500 &&
    status <= 599 &&
    !answeredRetryLater(x) &&
    !declared.includes(status)
  );
}
