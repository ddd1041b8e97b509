/**
 * What the gateway makes of a nested value in a form body (`requestMedia.formNestedValues`): a direct payment sent
 * as form, its nested values travelling as their JSON text, signed once with them decoded (the signature skips
 * them) and once with them kept as the text sent (the signature covers that text). The one not refused for its
 * signature tells the choice.
 */
import { signedView } from '../../core/signing.js';
import { attempt, type Discoverer } from '../context.js';
import type { Session } from '../session.js';

async function run(s: Session): Promise<void> {
  const d = s.draft;
  const op = 'authoriseDirect';
  const path = 'requestMedia.formNestedValues';
  if (s.work.requestMedia.types[op] !== 'form' && !d.get('requestMedia.acceptOther')) {
    d.unknown(path, `${op} reads JSON only: no form body carries a nested value to probe`);
    return;
  }
  const body = { ...s.body(op), ...s.cardBody() };
  const nested = Object.entries(body)
    .filter(([, v]) => v !== null && typeof v === 'object')
    .map(([k]) => k);
  if (!nested.length) {
    d.unknown(path, `the ${op} sample carries no nested value: no probe tells what a form body's nested value becomes`);
    return;
  }
  const tried = {} as Record<'decoded' | 'text', Awaited<ReturnType<typeof attempt>>>;
  for (const mode of ['decoded', 'text'] as const) {
    const sent = mode === 'decoded' ? body : { ...body, order_no: s.orderNo() };
    tried[mode] = await attempt(s, op, sent, { encoding: 'form', signedBody: signedView(sent, 'form', mode) });
  }
  const ok = (['decoded', 'text'] as const).filter((m) => !tried[m].refusal);
  const what = `a form ${op} with ${nested.join(', ')} as JSON text`;
  if (ok.length === 1)
    d.set(
      path,
      ok[0],
      s.evidence(
        tried[ok[0]!].x,
        `${what}: taken signed with them ${ok[0] === 'text' ? 'as the text sent' : 'decoded'}, refused signed the other way`,
      ),
    );
  else
    d.unknown(
      path,
      ok.length
        ? `${what}: taken signed either way (the two strings to sign may be one)`
        : `${what}: refused signed either way`,
      undefined,
      s.evidence(tried.decoded.x),
    );
}

export const formNestedDiscoverer: Discoverer = {
  id: 'formNested',
  decides: ['requestMedia.formNestedValues'],
  after: ['payments'],
  run,
};
