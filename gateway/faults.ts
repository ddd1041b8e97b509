/**
 * Named variants of the reference gateway (`--fault NAME`), so reporters and the kit's self-test can run against a
 * broken target, and against conformant targets that differ from the reference where the document allows it.
 * - `kind: 'fault'`: one deviation from the interface, declared with the requirement it breaks and the check that
 *   should catch it;
 * - `kind: 'neutral'`: a change the document allows (another key order, extra markup, ...): it must still pass.
 *
 * A variant is data plus at most four small hooks:
 * - `switches`: behaviour switches the operations consult (e.g. skip the signature check);
 * - `refuse`: an extra reason to refuse a request as invalid input (a gateway stricter than the document);
 * - `reply`: rewrites a structured reply before it is serialised (e.g. rename the XML root);
 * - `wire`: rewrites the serialised response (status, headers, body text).
 * Adding a variant means adding one entry to its family's file (faults-<family>.ts, faults-neutral.ts); operations only
 * read `BehaviourSwitches`.
 */
import { didYouMean } from '../core/config/suggest.js';
import type { BehaviourSwitches, FaultDefinition } from './fault-hooks.js';
import { CONVENTIONS_FAULTS } from './faults-conventions.js';
import { DEEP_FAULTS } from './faults-deep.js';
import { INTEGRITY_FAULTS } from './faults-integrity.js';
import { LEDGER_FAULTS } from './faults-ledger.js';
import { EVENTS_FAULTS, LIFECYCLE_FAULTS } from './faults-lifecycle.js';
import { LIMITS_FAULTS, STATUS_FAULTS } from './faults-limits-status.js';
import { MEDIA_FAULTS } from './faults-media.js';
import { NEUTRAL_VARIANTS } from './faults-neutral.js';
import { SECURITY_FAULTS } from './faults-security.js';
import { SHAPE_FAULTS } from './faults-shape.js';

export type {
  BehaviourSwitches,
  DeviationDefinition,
  FaultDefinition,
  NeutralDefinition,
  ReplyContext,
  SignatureCheck,
} from './fault-hooks.js';
import { UnknownFaultError } from '../core/types/errors.js';

/** The variant registry: faults family by family, then neutral variants. */
export const FAULTS: readonly FaultDefinition[] = [
  ...SHAPE_FAULTS,
  ...MEDIA_FAULTS,
  ...CONVENTIONS_FAULTS,
  ...LIMITS_FAULTS,
  ...STATUS_FAULTS,
  ...SECURITY_FAULTS,
  ...LIFECYCLE_FAULTS,
  ...EVENTS_FAULTS,
  ...INTEGRITY_FAULTS,
  ...LEDGER_FAULTS,
  ...DEEP_FAULTS,
  ...NEUTRAL_VARIANTS,
];

export { UnknownFaultError };

/** The variant of that name; throws UnknownFaultError naming the known ones. */
export function findFault(name: string): FaultDefinition {
  const fault = FAULTS.find((f) => f.name === name);
  if (!fault)
    throw new UnknownFaultError(
      `Unknown fault '${name}'${
        didYouMean(
          name,
          FAULTS.map((f) => f.name),
        ) || '.'
      } The faults are ${FAULTS.map((f) => f.name).join(', ')}.`,
    );
  return fault;
}

const CONFORMANT: BehaviourSwitches = {
  signatureCheck: 'verified',
  skipAddressRestriction: false,
  skipRefundBound: false,
  skipCaptureBound: false,
  captureCancelled: false,
  suppressNotifications: false,
  unsignedNotifications: false,
  unmaskedCard: false,
  skipSchemaValidation: false,
  unversionedPaths: [],
  batchLimitDelta: 0,
  selectionLimitDelta: 0,
  truncateOverLimit: false,
};

/** The behaviour switches of a variant (all off without one). */
export function switchesOf(fault: FaultDefinition | undefined): BehaviourSwitches {
  return { ...CONFORMANT, ...fault?.switches };
}
