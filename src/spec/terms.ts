/** The interface's own vocabulary, which the spec loader and the core types share: levels, operations, requirements. */

/** How strongly the interface document backs a requirement (spec/requirements.yaml). */
export type Level = 'must' | 'expected' | 'profile' | 'unspecified';

/** An operation of the spec; `/v1/authorise` is split into its direct and APM variants. */
export type OperationKey =
  | 'authoriseDirect'
  | 'authoriseApm'
  | 'checkout'
  | 'retrievalTrans'
  | 'capture'
  | 'review'
  | 'cancel'
  | 'refund'
  | 'retrievalRefund'
  | 'payout';

/** One normative statement of the interface document. */
export interface Requirement {
  /** Stable id, `PAGI-<AREA>-<NNN>`. */
  id: string;
  level: Level;
  /** Section of the interface document. */
  section: string;
  /** The statement in the kit's own words. */
  statement: string;
  operations: OperationKey[];
  note?: string;
}
