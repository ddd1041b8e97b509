/**
 * The longest field value (`limits.maxFieldLength`): direct payments whose free-text `note` (the field the run's
 * `fieldLengthPerProfile` fills) is a run of ASCII letters, powers of two from 256 characters until one is refused as
 * invalid input, then halving down to the character. Stated to the character or not at all: a refusal of another kind,
 * a length taken up to the largest body, or a boundary that moves when sent again leaves it undecided.
 */
import { LONG_FIELD } from '../../core/spec/terms.js';
import type { Discoverer, Facts } from '../context.js';
import type { Session } from '../session.js';
import { pay } from '../world.js';
import { kindOf } from './errors.js';

/** Below this many characters no gateway is expected to cap a free-text field: the search starts here. */
const FIRST = 256;
/** Room a payment's other fields take in a body (the note's length stays this far under the largest body). */
const BODY_ROOM = 8192;
/** The longest note sent when the largest body is not known. */
const MAX_NOTE = 1 << 20;

/** A length's answer: taken, refused as invalid input, or something else (which stops the search). */
type Verdict = 'taken' | 'tooLong' | { other: string };

async function run(s: Session, facts: Facts): Promise<void> {
  const d = s.draft;
  const path = 'limits.maxFieldLength';
  const body = d.get<number>('limits.maxBodyBytes');
  const max = Math.min(MAX_NOTE, (body ?? MAX_NOTE + BODY_ROOM) - BODY_ROOM);
  const evidence = new Map<number, string>();
  const verdict = async (length: number): Promise<Verdict> => {
    const p = await pay(s, { set: { [LONG_FIELD]: 'a'.repeat(length) } });
    const why = s.evidence(p.x, `a direct payment whose ${LONG_FIELD} is ${length} characters`);
    evidence.set(length, why);
    if (!p.refusal) return 'taken';
    if (p.refusal.lost) return { other: `no answer to a ${LONG_FIELD} of ${length} characters` };
    const kind = kindOf(facts, p.refusal);
    if (kind === 'invalidInput') return 'tooLong';
    return { other: `a ${LONG_FIELD} of ${length} characters was refused as ${kind ?? 'an unknown kind'}: ${why}` };
  };
  const leave = (why: string) => d.unknown(path, `${why}; state the longest field value the gateway takes`);
  let lo = 0;
  let hi = 0;
  for (let length = FIRST; length <= max; length *= 2) {
    const v = await verdict(length);
    if (typeof v === 'object') return leave(v.other);
    if (v === 'tooLong') {
      hi = length;
      break;
    }
    lo = length;
  }
  if (!hi) {
    if (lo)
      return leave(`a ${LONG_FIELD} of ${lo} characters was taken, the longest discovery sends under the largest body`);
    return leave(`no ${LONG_FIELD} of ${FIRST} characters or more fits the largest body`);
  }
  if (!lo) {
    const v = await verdict(1);
    if (v !== 'taken') return leave(`a ${LONG_FIELD} of one character was not taken`);
    lo = 1;
  }
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    const v = await verdict(mid);
    if (typeof v === 'object') return leave(v.other);
    if (v === 'tooLong') hi = mid;
    else lo = mid;
  }
  // The boundary sent again: a limit that moves is not stated.
  if ((await verdict(lo)) !== 'taken' || (await verdict(hi)) !== 'tooLong')
    return leave(`the boundary did not hold when sent again (${lo} characters taken, ${hi} refused, then otherwise)`);
  d.set(
    path,
    lo,
    `to the character: a ${LONG_FIELD} of ${lo} characters taken and of ${hi} refused as invalid input, each twice: ${evidence.get(hi)}; ${evidence.get(lo)}`,
  );
}

export const fieldLengthDiscoverer: Discoverer = {
  id: 'fieldLength',
  decides: ['limits.maxFieldLength'],
  after: ['payments', 'errors', 'limits'],
  run,
};
