/**
 * The largest body (`limits.maxBodyBytes`, `errors.kinds.bodyTooLarge`): capture requests padded to a size, powers
 * of two from 64 KiB to 16 MiB until one is refused with a refusal of a new kind, then halving down to the byte.
 */
import { encodeForm } from '../../core/codecs/form.js';
import { attempt, noteKind, seen, type Discoverer, type Facts } from '../context.js';
import type { Session } from '../session.js';
import { kindOf } from './errors.js';

const MAX = 16 * 1024 * 1024;

/** A signed capture body of exactly `bytes` bytes (a padding field), in the capture's media. */
function sized(s: Session, bytes: number): { body: Record<string, unknown>; raw: string } {
  const body = s.body('capture');
  const sig = s.signatureOf(s.work.signature, 'capture', body);
  const signed = { ...body, ...(sig !== undefined ? { encryption_data: sig } : {}) };
  const media = s.work.requestMedia.types.capture;
  const encode = (b: Record<string, unknown>) => (media === 'json' ? JSON.stringify(b) : encodeForm(b));
  // The padding goes last and is ASCII: one byte per character.
  const base = Buffer.byteLength(encode({ ...signed, pagi_padding: '' }));
  const pad = 'a'.repeat(Math.max(0, bytes - base));
  return { body: signed, raw: encode({ ...signed, pagi_padding: pad }) };
}

async function run(s: Session, facts: Facts): Promise<void> {
  const d = s.draft;
  const contentType =
    s.work.requestMedia.types.capture === 'json' ? 'application/json' : 'application/x-www-form-urlencoded';
  let lastEvidence = '';
  const tooLarge = async (bytes: number): Promise<boolean> => {
    const { raw } = sized(s, bytes);
    const r = await attempt(s, 'capture', {}, { rawBody: raw, contentType, sign: false });
    lastEvidence = s.evidence(r.x, `a body of ${Buffer.byteLength(raw)} bytes`);
    if (!r.refusal) return false;
    const known = kindOf(facts, r.refusal);
    if (known && known !== 'bodyTooLarge') return false;
    noteKind(facts, 'bodyTooLarge', seen(s, 'capture', r.x, r.refusal, {}));
    return true;
  };
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
      MAX,
      lastEvidence,
    );
    d.unknown('errors.kinds.bodyTooLarge', 'no body discovery sent was too large: the kind never showed');
    return;
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
  d.set('limits.maxBodyBytes', lo, `${lo} bytes taken, ${hi} refused: ${lastEvidence}`);
}

export const limitsDiscoverer: Discoverer = {
  id: 'limits',
  decides: ['limits.maxBodyBytes'],
  after: ['errors'],
  run,
};
