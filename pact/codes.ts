/** The pact checks' finding codes: their block of the one finding-code table (core/types/finding-codes.ts). */
export { PACT_FINDING_CODES } from '../core/types/finding-codes.js';

/** A finding code of the pact checks. */
export type PactFindingCode = keyof typeof import('../core/types/finding-codes.js').PACT_FINDING_CODES;
