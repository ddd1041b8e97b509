/**
 * What the gateway makes of a nested value in a form body (`requestMedia.formNestedValues`): a direct payment sent
 * as form, its nested values travelling as their JSON text, signed once with them decoded (the signature skips
 * them) and once with them kept as the text sent (the signature covers that text). The one not refused for its
 * signature tells the choice; when both are taken (the signature covers no nested value), the checkout page's echo
 * of a nested value sent as JSON text with spaces does.
 */
import { signedView } from '../../core/signing.js';
import { answerOf } from '../answers.js';
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
  else if (!ok.length || !(await byEcho(s)))
    d.unknown(
      path,
      ok.length
        ? `${what}: taken signed either way (the two strings to sign may be one), and no checkout page echoed it`
        : `${what}: refused signed either way`,
      undefined,
      s.evidence(tried.decoded.x),
    );
}

/**
 * The checkout page's echo of a nested value sent in a form body as JSON text with spaces: the text as sent (`text`)
 * or the value written out again (`decoded`). Whether a choice was set.
 */
async function byEcho(s: Session): Promise<boolean> {
  const op = 'checkout';
  const body = s.body(op);
  // The two payment requests share their field set: a nested value of the direct payment's sample goes on the page.
  const direct = s.body('authoriseDirect');
  const nested = (b: Record<string, unknown>) => Object.keys(b).find((k) => b[k] !== null && typeof b[k] === 'object');
  const field = nested(body) ?? nested(direct);
  if (!field) return false;
  const value = body[field] ?? direct[field];
  const spaced = JSON.stringify(value, null, 1);
  for (const mode of ['decoded', 'text'] as const) {
    const sent = { ...body, order_no: s.orderNo(), [field]: spaced };
    const signed = mode === 'decoded' ? { ...sent, [field]: value } : sent;
    const r = await attempt(s, op, sent, { encoding: 'form', signedBody: signedView(signed, 'form', mode) });
    const echoed = answerOf(r.x)?.page?.inputs?.[field];
    if (r.refusal || echoed === undefined) continue;
    const seen = echoed === spaced ? 'text' : echoed === JSON.stringify(value) ? 'decoded' : undefined;
    if (!seen) continue;
    s.draft.set(
      'requestMedia.formNestedValues',
      seen,
      s.evidence(
        r.x,
        `a form checkout with ${field} as JSON text with spaces: the page echoes ${seen === 'text' ? 'that text' : 'the value written out again'}`,
      ),
    );
    return true;
  }
  return false;
}

export const formNestedDiscoverer: Discoverer = {
  id: 'formNested',
  decides: ['requestMedia.formNestedValues'],
  after: ['payments'],
  run,
};
