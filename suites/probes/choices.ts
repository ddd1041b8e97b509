/**
 * Probes of profile choices no happy request shows: a request naming a merchant or account the gateway does not know
 * (`errors.unknownMerchant`), and requests carrying values whose signing is the profile's choice — booleans and
 * nulls in a JSON body (`signature.request.leaveOut`), nested values in a form body (`requestMedia.formNestedValues`).
 */
import type { CheckContext, Exchange, ObservationFacts, OperationKey } from '../../core/model.js';
import { signedView, stringToSign } from '../../core/signing.js';
import { FIELD } from '../fields.js';
import { paymentBody } from './basic.js';
import { Inconclusive, defineProbe, fakeValues } from './support.js';

/** Operations the unknown-merchant probe sends: an XML, a JSON batch and a payout answer. */
export const UNKNOWN_MERCHANT_OPERATIONS: readonly OperationKey[] = ['authoriseDirect', 'capture', 'payout'];

/**
 * `unknownMerchant`: a request with a `merchant_id` the gateway cannot know (`unknownMerchant`), and one with the
 * run's merchant and an `account_id` it cannot know (`unknownAccount`), each otherwise valid and signed with the
 * run's secret.
 */
export const unknownMerchant = defineProbe(
  'unknownMerchant',
  UNKNOWN_MERCHANT_OPERATIONS,
  {
    unknownMerchant: 'a request of a merchant_id the gateway cannot know',
    unknownAccount: 'a request of an account_id the merchant does not have',
  },
  async (op, client, ctx, steps) => {
    const [merchant, account] = fakeValues(ctx, 2);
    steps.add('unknownAccount', await client.send(op, paymentBody(client, ctx, op, { [FIELD.accountId]: account })));
    return steps.add(
      'unknownMerchant',
      await client.send(op, paymentBody(client, ctx, op, { [FIELD.merchantId]: merchant })),
    );
  },
);

/**
 * Top-level values of types the document never shows in a request: a boolean and a null, under names no profile
 * reads (the schemas tolerate unknown fields).
 */
export const SCALAR_EXTRAS = { pagi_probe_flag: true, pagi_probe_none: null } as const;

/** The profile's signature rule of requests. */
function requestRule(ctx: CheckContext) {
  return ctx.profile.signature.request;
}

/**
 * The body a gateway making the other choice would sign, for a JSON body carrying `SCALAR_EXTRAS`: the values the
 * profile leaves out counted (as their text), and those it counts left out.
 */
function otherScalarChoice(ctx: CheckContext, body: Record<string, unknown>): Record<string, unknown> {
  const leftOut: readonly string[] = requestRule(ctx).leaveOut ?? [];
  const other = { ...body };
  for (const [name, value] of Object.entries(SCALAR_EXTRAS)) {
    const type = value === null ? 'null' : 'boolean';
    if (leftOut.includes(type)) other[name] = value === null ? '' : String(value);
    else delete other[name];
  }
  return other;
}

/** The parts of the `signedValues` probe: a JSON body with a boolean and a null, a form body with nested values. */
export const SIGNED_VALUE_PARTS = [
  { step: 'scalars', encoding: 'json', choice: 'signature.request.leaveOut' },
  { step: 'nested', encoding: 'form', choice: 'requestMedia.formNestedValues' },
] as const;

/**
 * `signedValues` (direct payment): each part's request signed as the profile says (step `scalars`, `nested`), then
 * the same request signed as a gateway making the other choice would (step `<part>Other`, only where the two
 * strings to sign differ): a JSON body carrying a boolean and a null (`signature.request.leaveOut`), and a form body
 * with the payment's nested values (`requestMedia.formNestedValues`: decoded, or kept as the JSON text sent). A part
 * whose media type the profile refuses for the operation is left out (`facts.parts` lists those sent).
 */
export const signedValues = defineProbe(
  'signedValues',
  ['authoriseDirect'],
  {
    scalars: 'a JSON body with a boolean and a null, signed as the profile says',
    scalarsOther: 'the same, signed as the other choice would',
    nested: 'a form body with nested values, signed as the profile says',
    nestedOther: 'the same, signed as the other choice would',
  },
  async (op, client, ctx, steps) => {
    const media = ctx.profile.requestMedia;
    const sig = ctx.profile.signature;
    const parts: NonNullable<ObservationFacts['parts']> = [];
    let main: Exchange | undefined;
    for (const part of SIGNED_VALUE_PARTS) {
      if (media.types[op] !== part.encoding && !media.acceptOther) continue;
      let body = paymentBody(client, ctx, op);
      let own: Record<string, unknown>;
      let other: Record<string, unknown>;
      if (part.step === 'scalars') {
        body = { ...body, ...SCALAR_EXTRAS };
        own = body;
        other = otherScalarChoice(ctx, body);
      } else {
        if (!Object.values(body).some((v) => v !== null && typeof v === 'object')) continue;
        const mode = media.formNestedValues ?? 'decoded';
        own = signedView(body, 'form', mode);
        other = signedView(body, 'form', mode === 'text' ? 'decoded' : 'text');
      }
      const choiceSigned = stringToSign(sig, 'request', op, own) !== stringToSign(sig, 'request', op, other);
      const exchange = steps.add(part.step, await client.send(op, body, { encoding: part.encoding }));
      main ??= exchange;
      if (choiceSigned)
        steps.add(`${part.step}Other`, await client.send(op, body, { encoding: part.encoding, signedBody: other }));
      parts.push({ step: part.step, encoding: part.encoding, choiceSigned });
    }
    if (!main)
      throw new Inconclusive(
        `the profile takes ${op} requests as ${media.types[op]} only, and its example carries no value whose signing is a choice in that type`,
      );
    steps.facts.parts = parts;
    return main;
  },
);
