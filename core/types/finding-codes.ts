/**
 * The one table of finding codes: stable machine names with fixed titles, read by the engine, the suites' checks,
 * the reporters and the README's list of codes.
 */

/**
 * Every finding code with its fixed title, whoever reports it: the checks of the suites, and the engine itself for
 * every check (`NO_ANSWER`: an operation a probe could not get answered; `SERVER_ERROR`: a 5xx, which checks also
 * report for their own requests; `OFF_TARGET_URL`: a URL outside the target the kit did not request). Codes are
 * stable: reports, waivers and the README list them. To add one, add a line here (a code in capitals and a title
 * that says what went wrong); a code is never renamed or given another meaning.
 */
export const RUN_FINDING_CODES = {
  SCHEMA_VIOLATION: 'Body breaks its schema',
  FIELD_FORMAT: 'Field value has the wrong form',
  UNKNOWN_FIELD: 'Field the spec does not declare',
  NO_RESPONSE: 'No HTTP response',
  NO_ANSWER: 'Operation not answered',
  UNDECODABLE_BODY: 'Body cannot be read in its format',
  WRONG_BODY_FORMAT: 'Body is not in the operation’s format',
  DUPLICATE_MEMBER: 'JSON object holds a member name twice',
  CONTENT_TYPE: 'Unexpected content type',
  XML_ROOT: 'XML root element is not the documented one',
  HTTP_STATUS: 'Unexpected HTTP status',
  SERVER_ERROR: 'Answered with a server error (5xx)',
  REQUEST_REFUSED: 'Documented request refused',
  MEDIA_REFUSED: 'Request media type refused',
  WRONG_PATH: 'Operation not served at its path',
  ECHO_MISMATCH: 'Response does not echo the request',
  ITEM_NOT_ANSWERED: 'Batch item not answered',
  ITEM_ANSWERED_TWICE: 'Batch item answered more than once',
  UNREQUESTED_RESULT: 'Result answers no request item',
  ITEM_STATUS: 'Per-item status differs',
  ITEM_MESSAGE: 'Per-item message differs',
  ENVELOPE_STATUS: 'Envelope status differs',
  STATUS_VALUE: 'Status value differs from the expected one',
  REFERENCE_ID_FORM: 'Refund reference id does not extend the transaction id',
  REFERENCE_ID_NUMBERING: 'Refund reference ids not numbered as the profile says',
  FULL_CARD_NUMBER: 'Full card number in a response',
  SECURITY_CODE: 'Card security code in a response',
  CARD_MASK: 'Card not masked as the profile says',
  SECRET_ECHOED: 'Merchant signing key in a response',
  OFF_TARGET_URL: 'URL outside the target not requested',
  RESULT_MISSING: 'Requested result missing',
  LIMIT_NOT_ACCEPTED: 'Request at the limit not accepted',
  LIMIT_EXCEEDED: 'Request over the limit processed in full',
  LIMIT_NOT_REFUSED: 'Request over the limit not refused as a whole',
  ERROR_ANSWER: 'Error answer differs from the profile’s',
  NOT_REFUSED: 'Request accepted that must be refused',
  STATE_CHANGED: 'Refused request changed the gateway’s state',
  SIGNATURE_INVALID: 'Signature does not verify',
  TEXT_ALTERED: 'Free text not returned exactly',
  MARKUP_INJECTED: 'Free text added markup',
  FORM_COUNT: 'Checkout page holds no form',
  FORM_METHOD: 'Checkout form method is not POST',
  FORM_ACTION: 'Checkout form action is not the checkout URL',
  FORM_NOT_AUTO_SUBMITTED: 'Checkout form not submitted on load',
  FORM_INPUT_MISSING: 'Checkout form input missing',
  FORM_INPUT_VALUE: 'Checkout form input value differs',
  FORM_INPUT_NOT_HIDDEN: 'Checkout form input not hidden',
  FORM_INPUT_REPEATED: 'Checkout form input name repeated',
  ALL_PARAMS_MISMATCH: 'allParams differs from the submitted parameters',
  RECORD_NOT_FOUND: 'Record not shown',
  RECORD_MISMATCH: 'Record differs from the request',
  UNSELECTED_RECORD: 'Record outside the selection',
  RESULT_ORDER: 'Results not in the profile’s order',
  PAYOUT_AMOUNTS: 'Payout fee or amounts differ from the profile’s',
  TRANSITION_ALLOWED: 'Transition allowed that must be refused',
  TRANSITION_REFUSED: 'Transition refused that must be allowed',
  PAGE_NOT_SERVED: 'Page cannot be requested',
  PAYMENT_NOT_COMPLETED: 'Payment not completed',
  REPLAY_DIFFERS: 'Replay answered differently',
  PAYOUT_FAILURE: 'Payout failure not reported as the profile says',
  NOTIFICATION_MISSING: 'No notification received',
  NOTIFICATION_FORM: 'Notification differs from the profile',
  NOTIFICATION_RETRIES: 'Notification retries differ from the profile',
  LISTED_FIELD_ABSENT: 'Listed field absent from the answer',
  NOTIFICATION_FLOOD: 'Notifications past the receiver’s bounds',
  DEEP_SUMMARY: 'Generated requests sent and how they were answered',
  IDENTIFIER_REUSED: 'One identifier names two things',
  LEDGER_DISAGREES: 'Answer disagrees with what the run acknowledged',
  UNAUTHENTICATED_DONE: 'Request that did not authenticate was carried out',
  STATE_NOT_ACKNOWLEDGED: 'Query shows a state the gateway never acknowledged',
  NOTIFICATION_CONTRADICTS: 'Notification contradicts what it notifies',
} as const satisfies Record<string, string>;

/**
 * The codes of the pact checks (pact/checks.ts): what a merchant's pact expects that the interface does not show.
 * A code names one thing kit-wide: the pact's "request over the interface limit" is `REQUEST_OVER_LIMIT`, since the
 * run's `LIMIT_EXCEEDED` means a gateway processed such a request.
 */
export const PACT_FINDING_CODES = {
  PATH_NOT_SHOWN: 'Path not in the interface',
  METHOD_NOT_POST: 'Method is not POST',
  REQUEST_SCHEMA: 'Request differs from the interface',
  REQUEST_OVER_LIMIT: 'Request over the interface limit',
  REQUEST_MEDIA: 'Request media type not of the interface',
  RESPONSE_MEDIA: 'Response media type not guaranteed',
  STATUS_NOT_SHOWN: 'Response status not listed for the operation',
  BODY_FORM: 'Expected body is not in the response format',
  RESPONSE_SCHEMA: 'Expected value contradicts the interface',
  FIELD_NOT_SHOWN: 'Expected field not in the interface',
  PRESENCE_NOT_SHOWN: 'Expected field not guaranteed present',
  VALUE_NOT_SHOWN: 'Exact value not guaranteed',
  FORM_NARROWER: 'Expected form narrower than the interface',
  ARRAY_SIZE_NOT_SHOWN: 'Array size not guaranteed',
} as const satisfies Record<string, string>;

/** The one table: the run's codes and the pact checks' (test/pact/check.test.ts: no code in both blocks). */
export const FINDING_CODES = { ...RUN_FINDING_CODES, ...PACT_FINDING_CODES } as const;

/** A finding code. */
export type FindingCode = keyof typeof FINDING_CODES;

/** The fixed title of a finding code. */
export function findingTitle(code: FindingCode): string {
  return FINDING_CODES[code];
}
