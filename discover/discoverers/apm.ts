/**
 * The APM payment's issuer page (`transitions.afterIssuerPage`): two APM payments whose issuer page (on the
 * target's origin, or a host of `allowedHosts`) the kit acts on as the shopper, paying and declining; each payment's
 * state read by a query. The page of a session the issuer does not know is an HTML error page of the gateway
 * (kept as an observation of the error catalogue).
 */
import { answerOf, refusalOf } from '../answers.js';
import { attempt, noteKind, textAt, type Discoverer, type Facts } from '../context.js';
import type { Session } from '../session.js';
import { followForms } from '../world.js';

/** One APM payment completed on its issuer page with the button `choice` matches; its order number. */
export async function completeApm(
  s: Session,
  choice: RegExp,
  notifyUrl?: string,
): Promise<{ orderNo?: string; evidence: string; issuer?: string }> {
  const body = s.body('authoriseApm', notifyUrl ? { notify_url: notifyUrl } : {});
  const r = await attempt(s, 'authoriseApm', body);
  const issuer = textAt(answerOf(r.x)?.body, 'issuer_url');
  if (r.refusal || !issuer) return { evidence: s.evidence(r.x, 'APM payment') };
  const page = await s.follow(issuer);
  const pages = await followForms(s, page, choice);
  const last = pages.at(-1) ?? page;
  return { orderNo: String(body.order_no), evidence: s.evidence(last, 'issuer page'), issuer };
}

async function run(s: Session, facts: Facts): Promise<void> {
  const d = s.draft;
  const paid = await completeApm(s, /pay/i);
  const declined = await completeApm(s, /decline|cancel/i);
  // The states: the payments selected by their order number.
  const selects = facts.selecting?.retrievalTrans ?? [];
  const codes = facts.stateCodes ?? {};
  const stateOf = (c: string) => Object.entries(codes).find(([, v]) => v === c)?.[0];
  for (const [which, done] of [
    ['paid', paid],
    ['declined', declined],
  ] as const) {
    if (!done.orderNo) {
      d.unknown(
        `transitions.afterIssuerPage.${which}`,
        `the APM payment's issuer page could not be completed (${done.evidence})`,
      );
      continue;
    }
    if (!selects.includes('order_no')) {
      d.unknown(
        `transitions.afterIssuerPage.${which}`,
        'the query does not select by order number: the APM payment could not be found',
      );
      continue;
    }
    const q = await attempt(s, 'retrievalTrans', { ...s.body('retrievalTrans'), order_no: done.orderNo });
    const list = answerOf(q.x)?.body?.orders_list;
    const rec = Array.isArray(list)
      ? (list as Record<string, unknown>[]).find((x) => textAt(x, 'order_no') === done.orderNo)
      : undefined;
    const state = rec ? stateOf(textAt(rec, 'payment_status')) : undefined;
    if (state)
      d.set(`transitions.afterIssuerPage.${which}`, state, s.evidence(q.x, `the payment ${which} on the issuer page`));
    else
      d.unknown(
        `transitions.afterIssuerPage.${which}`,
        'the payment made on the issuer page was not found or its status matches no state',
        undefined,
        s.evidence(q.x),
      );
  }
  // An issuer page of no session: the gateway's HTML error page, when it serves the issuer pages itself.
  if (paid.issuer && new URL(paid.issuer).origin === new URL(s.options.baseUrl).origin) {
    const x = await s.follow(`${paid.issuer}-unknown`);
    const r = refusalOf(s.spec, s.work, 'authoriseApm', x);
    if (r && r.format === 'html' && r.code)
      noteKind(facts, 'unknownRecord', {
        ...r,
        evidence: s.evidence(x, 'an issuer page of no session'),
        op: 'authoriseApm',
        request: {},
      });
  }
}

export const apmDiscoverer: Discoverer = {
  id: 'apm',
  decides: ['transitions.afterIssuerPage'],
  after: ['lifecycle', 'selection'],
  run,
};
