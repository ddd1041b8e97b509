/**
 * Checks of profile choices no happy request shows: the refusal of a request naming a merchant or account the
 * gateway does not know (`errors.unknownMerchant`), and the signing of values whose place in the string to sign is
 * the profile's choice (`signature.request.leaveOut`, `requestMedia.formNestedValues`).
 */
import type { CheckContext, Exchange } from '../../core/model.js';
import { defineCheck, onlyWithSteps, outcomeOf, succeeded, wrap } from '../findings.js';
import { signedValues, unknownMerchant } from '../probes/choices.js';
import { checkErrorAnswer, errorKindOf, expectRefusal, refusalInBody } from './common.js';

export const unknownMerchantRefusedPerProfile = wrap(
  defineCheck({
    id: 'unknownMerchantRefusedPerProfile',
    family: 'status',
    probe: unknownMerchant,
    operations: { requirement: 'PAGI-PRF-010' },
    requirements: ['PAGI-PRF-010'],
    description:
      "A request naming a merchant_id, or an account_id of the merchant, that the gateway does not know is refused with the profile's error kind for an unknown merchant (errors.unknownMerchant).",
    verify(o, ctx, report) {
      const kind = ctx.profile.errors.unknownMerchant;
      for (const [step, what] of [
        ['unknownMerchant', 'a request of an unknown merchant_id'],
        ['unknownAccount', "a request of an account_id the run's merchant does not have"],
      ] as const) {
        const exchange = o.steps[step]!;
        if (expectRefusal(report, exchange, 'PAGI-PRF-010', what, { ctx, operation: o.operation }))
          checkErrorAnswer(ctx, report, exchange, o.operation, kind, 'PAGI-PRF-010');
      }
    },
  }),
  onlyWithSteps('unknownMerchant', 'unknownAccount'),
);

/** How the profile signs a part's values, and how the other choice would, in words. */
function choiceWords(ctx: CheckContext, step: string): { own: string; other: string } {
  if (step === 'scalars') {
    const leftOut: readonly string[] = ctx.profile.signature.request.leaveOut ?? [];
    const words = (types: readonly string[]) =>
      types.length === 0
        ? 'booleans and nulls counted'
        : `${types.join(' and ')} values left out${types.length < 2 ? `, ${types[0] === 'null' ? 'booleans' : 'nulls'} counted` : ''}`;
    const other = ['boolean', 'null'].filter((t) => !leftOut.includes(t));
    return {
      own: `signature.request.leaveOut: ${words(leftOut)}`,
      other: words(other),
    };
  }
  const mode = ctx.profile.requestMedia.formNestedValues ?? 'decoded';
  const words = (m: string) =>
    m === 'text' ? 'nested values signed as the JSON text sent' : 'nested values decoded (never signed as text)';
  return {
    own: `requestMedia.formNestedValues ${mode}: ${words(mode)}`,
    other: words(mode === 'text' ? 'decoded' : 'text'),
  };
}

/** What a part's request is, in words. */
const PART_WORDS: Record<string, string> = {
  scalars: 'a JSON body carrying a boolean and a null',
  nested: 'a form body carrying nested values',
};

export const valuesSignedPerProfile = defineCheck({
  id: 'valuesSignedPerProfile',
  family: 'security',
  probe: signedValues,
  operations: ['authoriseDirect'],
  requirements: ['PAGI-PRF-011'],
  description:
    'A request carrying booleans and nulls (JSON), or nested values (form), signed as the profile says (signature.request.leaveOut, requestMedia.formNestedValues) is not refused for its signature; signed as a gateway making the other choice would sign it, it is refused.',
  verify(o, ctx, report) {
    const parts = o.facts.parts ?? [];
    for (const part of parts) {
      const words = choiceWords(ctx, part.step);
      const what = PART_WORDS[part.step] ?? part.step;
      const own: Exchange = o.steps[part.step]!;
      if (errorKindOf(ctx, own, o.operation) === 'badSignature') {
        report({
          code: 'REQUEST_REFUSED',
          requirement: 'PAGI-PRF-011',
          exchange: own,
          expected: `${what}, signed with ${words.own}, not refused for its signature`,
          received: `${outcomeOf(own)} (the profile's badSignature)`,
        });
        continue;
      }
      const other = o.steps[`${part.step}Other`];
      if (!part.choiceSigned || !other) continue;
      if (succeeded(other) && !refusalInBody(ctx, other, o.operation)) {
        report({
          code: 'NOT_REFUSED',
          requirement: 'PAGI-PRF-011',
          exchange: other,
          expected: `a refusal of ${what} signed with ${words.other} (the profile: ${words.own})`,
          received: outcomeOf(other),
        });
      }
    }
  },
});
