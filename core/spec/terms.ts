import type { KitBatchOperationKey, KitOperationKey } from '../types/generated.js';

export type { KitOperationKey };

/** The interface's own vocabulary, which the spec loader and the core types share: levels, operations, requirements. */

/**
 * How strongly the interface document backs a requirement (spec/requirements.yaml): `must`, `expected`, `profile` and
 * `unspecified` are the document's levels; `invariant` is what no payment gateway may do though the document does
 * not state it (the payment-integrity catalogue, `PAGI-INV-*`).
 */
export type Level = 'must' | 'expected' | 'profile' | 'unspecified' | 'invariant';

/** The families of the payment-integrity catalogue. */
export type InvariantFamily = 'money' | 'identity' | 'availability' | 'secrecy' | 'authentication' | 'state';

/**
 * An operation of the spec by its variant key (`x-pagi-variants[].key`; `/v1/authorise` is split into its direct and
 * APM variants), generated from the kit's spec. An operation a copy of the spec adds (`--spec-root`) is checked by the
 * generic families with no code naming it: at run time a key may be one of that spec's.
 */
export type OperationKey = KitOperationKey;

/**
 * A batch operation of the kit's spec (a path with `x-pagi-batch`: an order array with per-item results), generated
 * from the spec; at run time `isBatchOperation` tells the batches of the run's spec.
 */
export type BatchOperationKey = KitBatchOperationKey;

/**
 * Which of the profile's transitions a batch operation follows (`x-pagi-batch.transition`): `transitions.<name>` of
 * the profile format says from which payment states the operation acts, what it moves them to and how it refuses the
 * others. An operation a copy of the spec adds by copying a batch's entry carries its transition with it.
 */
export type BatchTransition = 'capture' | 'review' | 'cancel' | 'refund';

/** Every batch transition of the profile format. */
export const BATCH_TRANSITIONS: readonly BatchTransition[] = ['capture', 'review', 'cancel', 'refund'];

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
  /** Invariants: their family. */
  family?: InvariantFamily;
  /** Invariants: why no payment gateway may break it, though the document does not state it. */
  rationale?: string;
  /** Invariants: what a run that breaks it saw, in words ("a refund above the captured amount was accepted"). */
  breach?: string;
  /** Ids of requirements this one replaces (kept traceable). */
  replaces?: string[];
}

/**
 * The free-text field of a direct payment that the field-length probe fills and discovery's `limits.maxFieldLength`
 * bisection lengthens (the document's `note`).
 */
export const LONG_FIELD = 'note';

/** The direct payment's field asking for a token, and the answer's field carrying it (the document's words). */
export const TOKEN_FIELDS = { flag: 'token_flag', id: 'token_id' } as const;
