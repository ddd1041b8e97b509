/**
 * Finding codes the engine reports itself, not a check: an operation a probe could not get answered, and a URL
 * outside the target the kit did not request. suites/findings.ts lists them, with these titles, among every code.
 */
export const ENGINE_FINDING_CODES = {
  NO_ANSWER: 'Operation not answered',
  OFF_TARGET_URL: 'URL outside the target not requested',
} as const;
