/**
 * What the proxy judges of a merchant's request ("your request"): the request checks of `pact check` (the request is
 * one of the interface: method, the operation's fields, formats and types as the spec gives them, the order limits,
 * the media types the spec lists and the profile takes), run on the request the proxy saw instead of a pact's, and
 * two checks only live traffic can make: the signature recomputed with the configured secret, and an order number
 * reused for another payment. Each is an ordinary check of the one shape, its findings in the one finding shape.
 */
import type { Check, CheckContext, Exchange, Finding, Observation, OperationKey } from '../core/model.js';
import { signedView, stringToSign } from '../core/signing.js';
import { PACT_CHECKS } from '../pact/checks.js';
import type { PactView } from '../pact/observation.js';
import { FIELD } from '../suites/fields.js';
import { defineCheck, quoted } from '../suites/findings.js';

/** Id of the proxy's observation source: one exchange it passed on. */
export const PROXY_PROBE_ID: string = 'proxy';

/** What the proxy knows of a request besides the exchange. */
export interface ProxyFacts {
  /** The exchange of an earlier payment answered with the same order_no, when there is one. */
  orderNoUsedBy?: Exchange;
  /** Whether the configured secret is known (the signature can be recomputed). */
  secretKnown: boolean;
}

declare module '../core/model.js' {
  interface ObservationFacts {
    /** What the proxy knows of the request it passed on (proxy/request-checks.ts). */
    proxy?: ProxyFacts;
  }
}

/** The pact checks that judge a request (the others judge a pact's expectations of the answer). */
const PACT_REQUEST_CHECK_IDS = ['pactRequestFollowsSpec', 'pactRequestWithinLimits', 'pactMediaTypesShown'];

/** The observed request as the pact view the request checks of `pact check` read (no expected response). */
export function requestView(x: Exchange, operation: OperationKey): PactView & { operation: OperationKey } {
  const path = new URL(x.request.url).pathname;
  const contentType = Object.entries(x.request.headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1];
  return {
    interaction: {
      description: x.id,
      request: { method: x.request.method, path, ...(contentType ? { headers: { 'Content-Type': contentType } } : {}) },
    } as PactView['interaction'],
    index: 0,
    where: '',
    path,
    ...(contentType !== undefined ? { contentType } : {}),
    body: x.request.body ?? {},
    operation,
  };
}

/** The name the signature field and the order number go by. */
const SIGNATURE = FIELD.signature;

/** Why a request's signature cannot be recomputed, or undefined when it can. */
function unverifiable(o: Observation, ctx: CheckContext): string | undefined {
  const body = o.main.request.body;
  if (!o.facts.proxy?.secretKnown) return 'no secret is configured (secret in the config file, or PAGI_SECRET)';
  if (!body) return 'the request body is neither JSON nor form fields';
  if (body[SIGNATURE] === undefined) return `the request carries no ${SIGNATURE} (pactRequestFollowsSpec reports it)`;
  if (stringToSign(ctx.profile.signature, 'request', o.operation, body) === undefined)
    return `the profile signs no ${o.operation} request`;
  return undefined;
}

/** The merchant's signature verifies under the profile's request scheme with the configured secret. */
export const requestSignatureVerifies = defineCheck({
  id: 'requestSignatureVerifies',
  family: 'security',
  probe: PROXY_PROBE_ID,
  operations: 'all',
  requirements: ['PAGI-AUTH-006'],
  description:
    "The merchant's request carries an encryption_data that verifies under the profile's request scheme with the configured secret (the proxy recomputes it).",
  verify(o, ctx, report) {
    const why = unverifiable(o, ctx);
    if (why) return { notApplicable: why };
    const body = o.main.request.body!;
    const encoding = o.main.request.encoding === 'form' ? 'form' : 'json';
    const view = signedView(body, encoding, ctx.profile.requestMedia.formNestedValues ?? 'decoded');
    if (ctx.verifySignature?.(o.operation, 'request', view) === false)
      report({
        code: 'SIGNATURE_INVALID',
        requirement: 'PAGI-AUTH-006',
        pointer: `/request/body/${SIGNATURE}`,
        expected: `a signature over the fields the profile ${ctx.profile.name} signs for ${o.operation} (${ctx.profile.signature.algorithm.name})`,
        received: quoted(body[SIGNATURE], '', ', which does not verify'),
      });
  },
});

/** Operations that make a payment, each named by its order number. */
const PAYMENTS: readonly OperationKey[] = ['authoriseDirect', 'authoriseApm', 'checkout'];

/** A payment request names an order number no earlier answered payment of the session carries. */
export const orderNumberNamesOnePayment = defineCheck({
  id: 'orderNumberNamesOnePayment',
  family: 'conventions',
  probe: PROXY_PROBE_ID,
  operations: PAYMENTS,
  requirements: ['PAGI-QRY-006'],
  description:
    'A payment request names an order_no no earlier payment of the session was answered with: the query selects payments by it (the profile selection fields), so one order number must name one payment.',
  verify(o, ctx, report) {
    const fields = (ctx.profile.selection.retrievalTrans?.fields ?? []) as readonly string[];
    if (!fields.includes(FIELD.orderNo))
      return { notApplicable: `the profile's query does not select by ${FIELD.orderNo}` };
    const first = o.facts.proxy?.orderNoUsedBy;
    if (!first) return;
    report({
      code: 'IDENTIFIER_REUSED',
      requirement: 'PAGI-QRY-006',
      pointer: `/request/body/${FIELD.orderNo}`,
      also: [first],
      expected: `an ${FIELD.orderNo} no earlier payment of the session carries`,
      received: quoted(o.main.request.body?.[FIELD.orderNo], '', `, the order number of the payment of ${first.id}`),
    });
  },
});

/** The checks of a merchant's request, in the order they run. */
export const REQUEST_CHECKS: readonly Check[] = [
  ...PACT_CHECKS.filter((c) => PACT_REQUEST_CHECK_IDS.includes(c.id)),
  requestSignatureVerifies,
  orderNumberNamesOnePayment,
];

/** The pact checks read the view in `facts.pact`, the proxy's own the exchange: one observation serves both. */
export function requestObservation(x: Exchange, operation: OperationKey, facts: ProxyFacts): Observation {
  return {
    probeId: PROXY_PROBE_ID,
    operation,
    main: x,
    steps: {},
    facts: { pact: requestView(x, operation), proxy: facts },
  };
}

/** A pact check's finding about an observed request: its evidence is the exchange's. */
export function withEvidence(f: Finding, x: Exchange): Finding {
  return f.evidence ? f : { ...f, location: { ...f.location, exchangeId: x.id }, evidence: x.evidence };
}
