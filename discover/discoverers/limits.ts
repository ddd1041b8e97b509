/**
 * The largest body (`limits.maxBodyBytes`, `errors.kinds.bodyTooLarge`): capture requests padded to a size, powers
 * of two from 64 KiB to 16 MiB until one is refused with a refusal of a new kind, then halving down to the byte. The
 * limit is stated to the byte or not at all: a size answered by no answer (a lost connection, twice) or a boundary
 * that moves when sent again leaves it undecided.
 */
import { encodeForm } from '../../core/codecs/form.js';
import { attempt, noteKind, seen, type Discoverer, type Facts } from '../context.js';
import type { Session } from '../session.js';
import { kindOf } from './errors.js';
import { NoAnswerAtSize as Lost } from '../../core/types/errors.js';
import type { OperationKey } from '../../core/model.js';
import { isHttpForm } from '../answers.js';

const MAX = 16 * 1024 * 1024;

/**
 * Characters of one padding field at most: a gateway may cap a field's length (the reference gateway's
 * `limits.maxFieldLength`, 8192) and refuse a longer value as invalid input, which says nothing of the body's size.
 */
const PAD_FIELD = 4000;

/**
 * A signed body of `op` (the capture by default) of exactly `bytes` bytes (padding fields of at most PAD_FIELD
 * characters, then one shorter), in the operation's media.
 */
function sized(
  s: Session,
  bytes: number,
  op: OperationKey = 'capture',
): { body: Record<string, unknown>; raw: string } {
  const body = s.body(op);
  const sig = s.signatureOf(s.work.signature, op, body);
  const signed = { ...body, ...(sig !== undefined ? { encryption_data: sig } : {}) };
  const media = s.work.requestMedia.types[op];
  const encode = (b: Record<string, unknown>) => (media === 'json' ? JSON.stringify(b) : encodeForm(b));
  // The padding goes last and is ASCII: one byte per character. Full fields first, then one field taking the rest;
  // a field adds its key and value with a separator (JSON: two pairs of quotes, a colon and a comma; a form: = and &).
  const key = (n: number) => `pagi_padding_${n}`;
  const overhead = (n: number) => key(n).length + (media === 'json' ? 6 : 2);
  const padded: Record<string, unknown> = { ...signed };
  let rest = bytes - Buffer.byteLength(encode({ ...padded, [key(0)]: '' }));
  let n = 0;
  for (; rest > PAD_FIELD; n++) {
    padded[key(n)] = 'a'.repeat(PAD_FIELD);
    rest -= PAD_FIELD + overhead(n + 1);
  }
  padded[key(n)] = 'a'.repeat(Math.max(0, rest));
  let raw = encode(padded);
  // The arithmetic is exact for these ASCII fields; should an encoding differ, the last field takes the difference.
  const off = bytes - Buffer.byteLength(raw);
  if (off !== 0) {
    padded[key(n)] = 'a'.repeat(Math.max(0, Math.max(0, rest) + off));
    raw = encode(padded);
  }
  return { body: signed, raw };
}

async function run(s: Session, facts: Facts): Promise<void> {
  const d = s.draft;
  const contentType =
    s.work.requestMedia.types.capture === 'json' ? 'application/json' : 'application/x-www-form-urlencoded';
  let lastEvidence = '';
  /** Whether a body of `bytes` is refused as too large; a lost connection is no answer (Lost), never a refusal. */
  const tooLarge = async (bytes: number): Promise<boolean> => {
    const { raw } = sized(s, bytes);
    let r = await attempt(s, 'capture', {}, { rawBody: raw, contentType, sign: false });
    if (r.refusal?.lost) r = await attempt(s, 'capture', {}, { rawBody: raw, contentType, sign: false });
    lastEvidence = s.evidence(r.x, `a body of ${Buffer.byteLength(raw)} bytes`);
    if (r.refusal?.lost) throw new Lost(bytes);
    if (!r.refusal) return false;
    const known = kindOf(facts, r.refusal);
    if (known && known !== 'bodyTooLarge') return false;
    noteKind(facts, 'bodyTooLarge', seen(s, 'capture', r.x, r.refusal, {}));
    return true;
  };
  try {
    const refusedAt = await bisect(s, tooLarge, () => lastEvidence);
    if (refusedAt !== undefined) await httpStatusElsewhere(s, facts, refusedAt);
  } catch (e) {
    if (!(e instanceof Lost)) throw e;
    d.unknown(
      'limits.maxBodyBytes',
      `the connection was lost without an answer at ${e.bytes} bytes, twice: no bisection found the largest body to the byte; state it`,
      undefined,
      lastEvidence,
    );
  }
}

/**
 * The kind's HTTP status, when every capture refusal of a body too large came in an HTTP 200 body (the capture
 * refuses in its body): a body of a size the capture refused, sent once to the first operation a wrong signature
 * showed refusing as an HTTP error. Its answer counts only when it carries the code the capture's refusals did.
 */
async function httpStatusElsewhere(s: Session, facts: Facts, bytes: number): Promise<void> {
  const seenList = facts.kinds.bodyTooLarge ?? [];
  const code = seenList[0]?.code;
  if (code === undefined || seenList.some((r) => isHttpForm(r.form))) return;
  const op = [...s.spec.operations.keys()].find((o) => {
    const w = facts.wrongSignature[o];
    return w !== undefined && isHttpForm(w.form) && w.format !== 'html';
  });
  if (!op) return;
  const { raw } = sized(s, bytes, op);
  const contentType =
    s.work.requestMedia.types[op] === 'json' ? 'application/json' : 'application/x-www-form-urlencoded';
  const r = await attempt(s, op, {}, { rawBody: raw, contentType, sign: false });
  if (r.refusal && !r.refusal.lost && isHttpForm(r.refusal.form) && r.refusal.code === code)
    noteKind(facts, 'bodyTooLarge', seen(s, op, r.x, r.refusal, {}));
}

/**
 * Powers of two until a body is refused, then bisection to the byte; the limit is stated only when the boundary
 * holds when sent again (`lo` taken, `lo + 1` refused), otherwise left undecided. The smallest size refused, when
 * one was.
 */
async function bisect(
  s: Session,
  tooLarge: (bytes: number) => Promise<boolean>,
  evidence: () => string,
): Promise<number | undefined> {
  const d = s.draft;
  let lo = 0;
  let hi = 0;
  for (let size = 64 * 1024; size <= MAX; size *= 2) {
    if (await tooLarge(size + 1)) {
      hi = size + 1;
      break;
    }
    lo = size + 1;
  }
  if (!hi) {
    d.unknown(
      'limits.maxBodyBytes',
      `a body of ${MAX + 1} bytes was taken: the largest body lies beyond what discovery sends`,
      undefined,
      evidence(),
    );
    d.unknown('errors.kinds.bodyTooLarge', 'no body discovery sent was too large: the kind never showed');
    return undefined;
  }
  // The limit is most often a round size: the largest multiple of 4 KiB taken first, then to the byte.
  const page = 4096;
  let a = Math.ceil(lo / page);
  let b = Math.floor((hi - 1) / page);
  while (a < b) {
    const k = Math.ceil((a + b) / 2);
    if (await tooLarge(k * page)) b = k - 1;
    else a = k;
  }
  if (a * page > lo && !(await tooLarge(a * page))) lo = a * page;
  if (!(await tooLarge(lo + 1))) {
    hi = Math.min(hi, lo + page);
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (await tooLarge(mid)) hi = mid;
      else lo = mid;
    }
  } else hi = lo + 1;
  // The boundary sent again: a limit that moves (a gateway refusing by time or load, not by size) is not stated.
  if ((await tooLarge(lo)) || !(await tooLarge(hi))) {
    d.unknown(
      'limits.maxBodyBytes',
      `the boundary did not hold when sent again (${lo} bytes taken, ${hi} refused, then otherwise): the largest body is not a fixed size; state it`,
      undefined,
      evidence(),
    );
    return hi;
  }
  d.set('limits.maxBodyBytes', lo, `to the byte: ${lo} bytes taken and ${hi} refused, each twice: ${evidence()}`);
  return hi;
}

export const limitsDiscoverer: Discoverer = {
  id: 'limits',
  decides: ['limits.maxBodyBytes'],
  after: ['errors'],
  run,
};
