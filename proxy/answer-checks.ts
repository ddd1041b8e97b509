/**
 * What the proxy judges of a gateway's answer ("the gateway's answer"): the checks a run applies to the answer of a
 * single valid request (the `happy` probe's: shape, formats, media, status conventions, signature, echoes, the
 * checkout page, secrecy), the engine's observation rules (an unanswered request, a server error), and at the end
 * the payment-integrity invariants (the integrity family) against a ledger of the observed traffic. Which checks of
 * the table apply is data here: a check that assumes the kit chose the request's state or outcome (an approving
 * card, a payment in the state a capture starts from, the records a query was prepared with, a request holding every
 * field of the spec's example: `responseHoldsListedFields`) is not one of them.
 */
import type { Check } from '../core/model.js';
import { ENGINE_RULES } from '../engine/rules.js';
import { CHECKS } from '../suites/registry.js';

/** Checks of the `happy` probe that judge any answer, whatever the request (secrecy, the content type, JSON form). */
const ON_ANY_ANSWER = [
  'noFullCardNumberInResponse',
  'noSecretInResponse',
  'responseContentTypeConventional',
  'jsonMembersNamedOnce',
] as const;

/**
 * Checks of the `happy` probe that judge the answer to a request of the interface (one with no "your request"
 * finding): its form, fields, formats, echoes of the request, signature and status.
 */
const ON_CLEAN_REQUEST = [
  'successAnsweredWith200',
  'responseBodyFormat',
  'xmlRootIsRespon',
  'responseMatchesSchema',
  'unknownResponseFields',
  'responseAddsDocumentedFields',
  'fieldFormatsFollowConventions',
  'responseEchoesRequestFields',
  'payoutEchoesRequest',
  'batchResultsEchoRequestIds',
  'refundReferenceIdExtendsTransactionId',
  'cardMaskedPerProfile',
  'responseSignatureVerifies',
  'checkoutPageHasOneForm',
  'checkoutFormPostsToBaseUrl',
  'checkoutFormSubmitsOnLoad',
  'checkoutFormEchoesSubmittedFields',
  'checkoutFormHasEveryAlias',
  'checkoutAliasesEqualSources',
  'checkoutAllParamsMatchSubmitted',
  'checkoutFormHasGatewayFields',
  'checkoutInputNamesOnce',
] as const;

/** Checks of `successAnsweredWith200`'s kind: judged only on a 2xx answer (a refusal of a valid request is the business's). */
export const ONLY_ON_2XX: ReadonlySet<string> = new Set(['successAnsweredWith200']);

function pick(ids: readonly string[]): Check[] {
  return ids.map((id) => {
    const check = CHECKS.find((c) => c.id === id);
    if (!check) throw new Error(`proxy: no check ${id} in the table`);
    return check;
  });
}

/** The answer checks on any answer, and those on the answer to a clean request. */
export const ANSWER_CHECKS = { any: pick(ON_ANY_ANSWER), clean: pick(ON_CLEAN_REQUEST) } as const;

/** The integrity family: the invariants judged against the ledger of the observed traffic. */
export const LEDGER_CHECKS: readonly Check[] = CHECKS.filter((c) => c.family === 'integrity');

/** The engine's rules an answer is judged by (no answer, a server error); the off-target rule concerns the kit's own requests. */
export const ANSWER_RULES = ENGINE_RULES.filter((r) => r.id !== 'onlyTargetUrlsFollowed');
