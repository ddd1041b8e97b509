/**
 * The address restriction (`addressRestriction.operations`): a valid request of every operation sent from a
 * second local address the gateway has not registered; an operation refusing it with a refusal of no other kind
 * is restricted.
 */
import type { OperationKey } from '../../core/model.js';
import { attempt, noteKind, seen, type Discoverer, type Facts } from '../context.js';
import type { Session } from '../session.js';
import { kindOf, probe } from './errors.js';
import { selectingField } from '../world.js';
import { isSelecting } from '../../core/profile/operations.js';

/** A request the gateway takes from a registered address: the sample, a selection naming a known payment. */
function validBody(s: Session, facts: Facts, op: OperationKey): Record<string, unknown> {
  const body = s.body(op);
  if (op === 'payout') delete body.fee_paid_by;
  if (isSelecting(s.spec, op) && facts.approved) body[selectingField(s, op)] = facts.approved.transaction_id;
  return body;
}

/** Operations refused from an address not registered with the gateway (a valid request of each). */
async function addressRestriction(s: Session, facts: Facts): Promise<void> {
  const d = s.draft;
  const from = s.options.unregisteredAddress;
  if (!from) {
    d.unknown(
      'addressRestriction.operations',
      'no unregistered source address (config unregisteredAddress; 127.0.0.2 on a loopback target): restricted operations cannot be probed',
    );
    return;
  }
  const restricted: OperationKey[] = [];
  const evidence: string[] = [];
  for (const op of s.spec.operations.keys()) {
    const body = validBody(s, facts, op);
    const r = await attempt(s, op, body, { localAddress: from });
    const kind = r.refusal ? kindOf(facts, r.refusal) : undefined;
    if (r.refusal && r.refusal.status !== 0 && (kind === undefined || kind === 'refusedAddress')) {
      restricted.push(op);
      noteKind(facts, 'refusedAddress', seen(s, op, r.x, r.refusal, body));
      evidence.push(s.evidence(r.x, `from ${from}`));
    }
  }
  // A second refusal of the same kind, for the message.
  if (restricted.length === 1)
    await probe(s, facts, 'refusedAddress', restricted[0]!, validBody(s, facts, restricted[0]!), {
      localAddress: from,
    });
  d.set(
    'addressRestriction.operations',
    restricted,
    restricted.length ? evidence.join('; ') : `every operation answered a valid request from ${from}`,
  );
}

export const addressDiscoverer: Discoverer = {
  id: 'address',
  decides: ['addressRestriction.operations'],
  after: ['errors', 'selection'],
  run: addressRestriction,
};
