/**
 * Finding codes of the pact checks (src/pact/checks.ts) with their fixed titles: one block, kept apart so it joins
 * the kit's one finding-code table as it is. A code names one thing kit-wide: the pact's "request over the interface
 * limit" is `REQUEST_OVER_LIMIT`, since the suites' `LIMIT_EXCEEDED` means a gateway processed such a request.
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

/** A finding code of the pact checks. */
export type PactFindingCode = keyof typeof PACT_FINDING_CODES;
