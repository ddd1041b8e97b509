/**
 * security: missing or wrong `encryption_data` refused with nothing changed; response signatures verified where the
 * profile signs them; query (and, where the profile says, refund search) refused from an unregistered address;
 * free text carrying markup returned exactly (decoded) in the checkout page's inputs, adding no input, and in the XML
 * answer's note, adding no element.
 */
import type { CheckContext, Observation } from '../../core/model.js';
import { covers } from '../../core/spec/operations.js';
import { FIELD } from '../fields.js';
import {
  type FindingSide,
  type Report,
  allSteps,
  defineCheck,
  onlyOnSuccess,
  onlyWhen,
  outcomeOf,
  quoted,
  succeeded,
  wrap,
} from '../findings.js';
import { formOf, operationOf, responseObject } from '../observe.js';
import { INJECTION_PAYLOADS } from '../probes/basic.js';
import { checkErrorAnswer, checkFollowUp, expectRefusal, followUpReason, requirementFor, sentBody } from './common.js';
import { knownInputs } from './shape.js';
import { badSignature, happy, injection, noSignature, unregisteredAddress } from '../probes/basic.js';

/** Report the follow-up of a refused request when the probe made one. */
function followUpIfAny(ctx: CheckContext, report: Report, o: Observation, requirement: string): void {
  if (followUpReason(o) === undefined) checkFollowUp(ctx, report, o, requirement);
}

export const missingSignatureRefused = defineCheck({
  id: 'missingSignatureRefused',
  family: 'security',
  probe: noSignature,
  operations: 'all',
  requirements: ['PAGI-AUTH-005', 'PAGI-ERR-003'],
  description: 'A request without encryption_data is refused with a 4xx and changes nothing.',
  verify(o, ctx, report) {
    expectRefusal(report, o.main, 'PAGI-AUTH-005', `a request without ${FIELD.signature}`, {
      ctx,
      operation: o.operation,
    });
    followUpIfAny(ctx, report, o, 'PAGI-ERR-003');
  },
});

export const badSignatureRefusedPerProfile = defineCheck({
  id: 'badSignatureRefusedPerProfile',
  family: 'security',
  probe: badSignature,
  operations: 'all',
  requirements: ['PAGI-AUTH-006', 'PAGI-ERR-004', 'PAGI-ERR-003'],
  description:
    "A request whose encryption_data does not verify is refused with the profile's badSignature error and changes nothing.",
  verify(o, ctx, report) {
    if (
      expectRefusal(report, o.main, 'PAGI-AUTH-006', 'a request with a wrong signature', {
        ctx,
        operation: o.operation,
      })
    ) {
      checkErrorAnswer(ctx, report, o.main, o.operation, 'badSignature', 'PAGI-ERR-004');
    }
    followUpIfAny(ctx, report, o, 'PAGI-ERR-003');
  },
});

/** Why a response signature cannot be judged for an operation, or undefined when it can. */
function unsigned(ctx: CheckContext, o: Observation): string | undefined {
  const rule = ctx.profile.signature.response;
  if (!rule.signed) return 'the profile says responses are not signed';
  if ('fields' in rule && !(rule.fields as Record<string, unknown>)[o.operation])
    return `the profile signs no ${o.operation} response`;
  const body = responseObject(o.main, ctx.spec);
  if (body && body[FIELD.signature] === undefined)
    return `the answer carries no ${FIELD.signature} (responseMatchesSchema or responseHoldsListedFields reports it)`;
  if (typeof o.facts.signatureUnverifiable === 'string') return o.facts.signatureUnverifiable;
  if (o.facts.signatureValid === undefined)
    return 'the signature could not be verified (no decodable body or no rule for it)';
  return undefined;
}

export const responseSignatureVerifies = wrap(
  defineCheck({
    id: 'responseSignatureVerifies',
    family: 'security',
    probe: happy,
    operations: 'signedResponse',
    requirements: ['PAGI-AUTH-007'],
    description:
      "Every answer carrying encryption_data (query and APM answers included) verifies under the profile's response signature scheme.",
    verify(o, ctx, report) {
      if (o.facts.signatureValid === false) {
        const got = responseObject(o.main, ctx.spec)?.[FIELD.signature];
        report({
          code: 'SIGNATURE_INVALID',
          requirement: 'PAGI-AUTH-007',
          pointer: `/${FIELD.signature}`,
          expected: "a signature verifying under the profile's response scheme",
          received: quoted(got),
        });
      }
    },
  }),
  onlyOnSuccess,
  onlyWhen(
    (o, ctx) => unsigned(ctx, o) === undefined,
    (o, ctx) => unsigned(ctx, o)!,
  ),
);

export const queryRefusedFromUnregisteredAddress = wrap(
  defineCheck({
    id: 'queryRefusedFromUnregisteredAddress',
    family: 'security',
    probe: unregisteredAddress,
    operations: 'selecting',
    requirements: ['PAGI-AUTH-008', 'PAGI-AUTH-009', 'PAGI-ERR-004'],
    description:
      "A query (and a refund search where the profile restricts it) from an unregistered address is refused with the profile's error.",
    verify(o, ctx, report) {
      const requirement = requirementFor(ctx, o.operation, ['PAGI-AUTH-008', 'PAGI-AUTH-009']);
      if (
        expectRefusal(report, o.main, requirement, `a ${o.operation} from ${String(ctx.config.unregisteredAddress)}`, {
          ctx,
          operation: o.operation,
        })
      ) {
        checkErrorAnswer(ctx, report, o.main, o.operation, 'refusedAddress', 'PAGI-ERR-004');
      }
    },
  }),
  // The query is restricted by the document itself (`x-pagi-address-restricted`); others only where the profile says so.
  onlyWhen(
    (o, ctx) =>
      covers(ctx.spec, 'addressRestricted', o.operation) ||
      (ctx.profile.addressRestriction.operations as string[]).includes(o.operation),
    (o) => `the profile does not restrict ${o.operation} to registered addresses`,
  ),
);

/** Element names the injected payloads would add if they were not escaped. */
const INJECTED_TAGS = [
  ...new Set(INJECTION_PAYLOADS.flatMap((p) => [...p.matchAll(/<\/?([A-Za-z][\w-]*)/g)].map((m) => m[1]!))),
];

/** Pieces of the injected payloads no gateway-made input would hold: their markup and their script text. */
const INJECTED_PIECES = [
  ...new Set(
    INJECTION_PAYLOADS.flatMap((p) => [...p.matchAll(/<\/?[A-Za-z][\w-]*>?|alert\([^)]*\)/g)].map((m) => m[0])),
  ),
];

/** Whether a form input is made of injected markup: named like an injected element, or holding a piece of a payload. */
function carriesMarkup(name: string, value: string | undefined): boolean {
  return (
    INJECTED_TAGS.includes(name) ||
    INJECTED_PIECES.some((piece) => name.includes(piece) || (value ?? '').includes(piece))
  );
}

/** What the XML answer holds where text was expected, in words (an element made of the markup, or another value). */
function notText(value: unknown): FindingSide {
  return value && typeof value === 'object'
    ? quoted(Object.keys(value).slice(0, 4).join(', '), 'markup read as elements ')
    : quoted(value);
}

/**
 * The free text an XML answer returns under the request field's name (the direct payment's note) is, after XML
 * decoding (character references, CDATA), exactly the sent string; markup in it adds no element. Fields the answer
 * leaves out are not judged (responseHoldsListedFields reports them).
 */
function xmlReadsBack(ctx: CheckContext, o: Observation, injected: Record<string, string>, report: Report) {
  const body = responseObject(o.main, ctx.spec) ?? {};
  const returned = Object.entries(injected).filter(([field]) => body[field] !== undefined);
  if (returned.length === 0) return { notApplicable: 'the answer returned none of the free-text fields' };
  for (const [field, sent] of returned) {
    const got = body[field];
    if (got === sent) continue;
    report({
      code: typeof got === 'string' ? 'TEXT_ALTERED' : 'MARKUP_INJECTED',
      requirement: 'PAGI-SEC-004',
      pointer: `/${field}`,
      expected: `exactly ${JSON.stringify(sent)} (the sent ${field}, read after XML decoding)`,
      received: notText(got),
    });
  }
  return undefined;
}

/** The checkout page returns each free-text field as an input holding exactly the sent string, adding no input. */
function formReadsBack(ctx: CheckContext, o: Observation, injected: Record<string, string>, report: Report) {
  const form = formOf(o.main);
  if (!form) return { notApplicable: 'the answer holds no readable form' };
  let returned = 0;
  for (const [field, sent] of Object.entries(injected)) {
    const got = form.inputs[field];
    if (got === undefined) continue;
    returned++;
    if (got !== sent)
      report({
        code: 'TEXT_ALTERED',
        requirement: 'PAGI-SEC-002',
        pointer: `/inputs/${field}`,
        expected: `exactly ${JSON.stringify(sent)}`,
        received: quoted(got),
      });
  }
  if (returned === 0) return { notApplicable: 'the answer returned none of the free-text fields' };
  // An input the spec does not name is the gateway's business, unless it carries the injected markup.
  const known = knownInputs(ctx, o.operation, sentBody(o.main));
  for (const name of [...new Set(form.inputOrder.filter((n) => !known.has(n)))].filter((n) =>
    carriesMarkup(n, form.inputs[n]),
  )) {
    report({
      code: 'MARKUP_INJECTED',
      requirement: 'PAGI-SEC-002',
      pointer: `/inputs/${name}`,
      expected: 'no input made of the markup in free text',
      received: quoted(name, 'input '),
    });
  }
  return undefined;
}

export const freeTextParsesBackExactly = defineCheck({
  id: 'freeTextParsesBackExactly',
  family: 'security',
  probe: injection,
  operations: ['authoriseDirect', 'checkout'],
  requirements: ['PAGI-SEC-002', 'PAGI-SEC-004', 'PAGI-MED-006'],
  description:
    'Free text carrying "><script> or </note><x> leaves the answer readable and reads back, decoded, as exactly the sent string: on the checkout page as its input, adding no input; in the direct payment answer as its note, adding no element.',
  verify(o, ctx, report) {
    const injected = o.facts.injected!;
    const op = operationOf(ctx.spec, o.operation);
    // The requirement applies where a field is returned: a gateway may refuse markup in free text.
    if (!succeeded(o.main))
      return {
        notApplicable: `free text with markup was not accepted (${outcomeOf(o.main)}): nothing returned to judge`,
      };
    const decoded = o.main.response?.decoded;
    if (decoded?.kind === 'undecodable') {
      report({
        code: 'MARKUP_INJECTED',
        // The XML answer must stay a well-formed document whatever the request held; the page, a page.
        requirement: op.checkoutForm ? 'PAGI-SEC-002' : 'PAGI-MED-006',
        expected: 'a readable document despite markup in free text',
        received: decoded.problem,
      });
      return;
    }
    // Where the document shows a field returned: the checkout form holds every submitted field under its own name;
    // the direct payment response lists note, the request's free-text field, under its own name.
    return op.checkoutForm ? formReadsBack(ctx, o, injected, report) : xmlReadsBack(ctx, o, injected, report);
  },
});

export const noSecretInResponse = defineCheck({
  id: 'noSecretInResponse',
  family: 'security',
  probe: happy,
  operations: 'all',
  requirements: ['PAGI-INV-009'],
  description: "No response carries the merchant's signing key, in its body, a header name or a header value.",
  verify(o, _ctx, report) {
    // The client notes where a response carried the secret when it records it; the check never sees the secret.
    for (const x of [o.main, ...allSteps(o)].filter((e) => e && !e.incoming)) {
      const where = x.response?.secretEchoed;
      if (where?.length) {
        report({
          code: 'SECRET_ECHOED',
          requirement: 'PAGI-INV-009',
          exchange: x,
          expected: "no trace of the merchant's signing key",
          received: `the signing key in the response (${where.join(', ')})`,
        });
      }
    }
  },
});
