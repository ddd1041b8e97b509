/**
 * Finding codes the engine reports itself, not a check: an operation a probe could not get answered or got a server
 * error from, and a URL outside the target the kit did not request. suites/findings.ts lists them, with these
 * titles, among every code (checks report a server error to their own requests with SERVER_ERROR too).
 */
export const ENGINE_FINDING_CODES = {
  NO_ANSWER: 'Operation not answered',
  SERVER_ERROR: 'Answered with a server error (5xx)',
  OFF_TARGET_URL: 'URL outside the target not requested',
} as const;
