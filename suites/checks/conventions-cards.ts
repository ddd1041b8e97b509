/**
 * conventions, cards in answers: no full card number or security code in any answer, and a card masked as the
 * profile says.
 */
import type { CheckContext, Exchange, Observation } from '../../core/model.js';
import { maskPan } from '../../core/mask.js';
import { decodedValues } from '../../engine/decode.js';
import { FIELD } from '../fields.js';
import { allSteps, defineCheck, onlyOnSuccess, quoted } from '../findings.js';
import { isObject, responseObject, text } from '../observe.js';
import { pointerOf } from '../../core/spec/pointer.js';
import { sentBody } from './common.js';
import { happy } from '../probes/basic.js';

/** Card numbers the kit sent or may have sent: the request's card field, the payment steps' and the configured test cards. */
function knownCards(ctx: CheckContext, o: Observation): string[] {
  const field = ctx.profile.fields.card.number;
  const cards = new Set<string>([
    ...Object.values(ctx.config.cards),
    ...ctx.profile.payments.testCards.approve,
    ...ctx.profile.payments.testCards.decline,
  ]);
  for (const x of [o.main, ...allSteps(o)]) {
    const v = x.request.body?.[field];
    if (typeof v === 'string') cards.add(v);
  }
  return [...cards].filter((c) => c.length >= 12);
}

/** Names a response field holding a card's security code goes by: the profile's request field, and the usual words. */
const SECURITY_CODE_KEY = /^(cvv2?|cvc2?|csc|cid|security_?code|card_?security_?code)$/i;

/** Every leaf of a decoded answer (JSON, XML, or the checkout form's inputs) with its pointer and its key. */
function answerLeaves(exchange: Exchange): { pointer: string; key: string; value: unknown }[] {
  const decoded = exchange.response?.decoded;
  const root =
    decoded?.kind === 'json' || decoded?.kind === 'xml'
      ? decoded.value
      : decoded?.kind === 'html'
        ? decoded.form.inputs
        : undefined;
  const out: { pointer: string; key: string; value: unknown }[] = [];
  const walk = (v: unknown, path: (string | number)[]) => {
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (isObject(v)) for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
    else out.push({ pointer: pointerOf(path), key: String(path[path.length - 1] ?? ''), value: v });
  };
  walk(root, decoded?.kind === 'html' ? ['inputs'] : []);
  return out;
}

export const noFullCardNumberInResponse = defineCheck({
  id: 'noFullCardNumberInResponse',
  family: 'conventions',
  probe: happy,
  operations: { requirement: 'PAGI-INV-010' },
  requirements: ['PAGI-INV-010'],
  description:
    'No response carries a full card number (card numbers appear only masked) or the security code the request sent.',
  verify(o, ctx, report) {
    const response = o.main.response;
    // Body, header names and header values; the digits written with any separators (spaces, dashes, dots, ...).
    // Each text on its own: a large body is not copied into one string with the headers.
    // The body both as received and decoded: a number written with escapes or character references is still the number.
    const body = response?.bodyText ?? '';
    const texts = [
      body,
      response ? decodedValues(response.decoded) : '',
      ...Object.entries(response?.headers ?? {}).flat(),
    ];
    for (const card of knownCards(ctx, o)) {
      const pattern = new RegExp(`(?<![0-9])${card.replace(/\D/g, '').split('').join('[^0-9A-Za-z]?')}(?![0-9])`);
      if (texts.some((text) => pattern.test(text))) {
        report({
          code: 'FULL_CARD_NUMBER',
          requirement: 'PAGI-INV-010',
          expected: 'no full card number in the response',
          received: `the full number of card ${maskPan(card)}`,
        });
      }
    }
    // The security code the request sent, in a field that carries one (the profile's name for it, or the usual ones).
    const field = ctx.profile.fields.card.securityCode;
    const sent = sentBody(o.main)[field];
    if (typeof sent !== 'string' || !/^[0-9]{3,4}$/.test(sent)) return;
    for (const leaf of answerLeaves(o.main)) {
      const named = leaf.key.toLowerCase() === field.toLowerCase() || SECURITY_CODE_KEY.test(leaf.key);
      if (named && String(leaf.value).trim() === sent) {
        report({
          code: 'SECURITY_CODE',
          requirement: 'PAGI-INV-010',
          pointer: leaf.pointer,
          expected: 'no security code in the response',
          received: `the security code the request sent, in ${leaf.key}`,
        });
      }
    }
  },
});

/** A card number masked as the profile says. */
export function profileMask(ctx: CheckContext, card: string): string {
  const m = ctx.profile.fields.cardMask;
  if (card.length <= m.keepFirst + m.keepLast) return card;
  // A mask of fixed width hides the middle digits behind the same number of characters whatever the card's length.
  const hidden = m.hiddenWidth === 'perDigit' ? card.length - m.keepFirst - m.keepLast : m.hiddenWidth;
  return `${card.slice(0, m.keepFirst)}${m.maskChar.repeat(hidden)}${card.slice(card.length - m.keepLast)}`;
}

/**
 * Whether the digits a masked card shows are those of the card sent, whatever the mask's form: the digits before the
 * first mask character begin the number, those after the last end it (a card of no mask at all is the number).
 */
export function showsDigitsOf(card: string, sent: string): boolean {
  const digits = sent.replace(/\D/g, '');
  const lead = /^[0-9]*/.exec(card)![0];
  if (lead === card) return card === digits;
  const trail = /[0-9]*$/.exec(card)![0];
  return digits.startsWith(lead) && digits.endsWith(trail);
}

export const cardMaskedPerProfile = onlyOnSuccess(
  defineCheck({
    id: 'cardMaskedPerProfile',
    family: 'conventions',
    probe: happy,
    operations: ['authoriseDirect'],
    requirements: ['PAGI-PAY-003', 'PAGI-PAY-012', 'PAGI-INV-006'],
    description:
      "The response card is the sent number masked, as the profile masks it; digits it shows that are not the sent card's name another card.",
    verify(o, ctx, report) {
      const sent = o.main.request.body?.[ctx.profile.fields.card.number];
      const card = text(responseObject(o.main, ctx.spec), FIELD.card);
      if (typeof sent !== 'string') return { notApplicable: 'the request carried no card number' };
      if (card === undefined)
        return { notApplicable: `the response has no ${FIELD.card}; responseMatchesSchema judges required fields` };
      if (card.includes(sent)) {
        report({
          code: 'FULL_CARD_NUMBER',
          requirement: 'PAGI-PAY-003',
          pointer: `/${FIELD.card}`,
          expected: 'a masked card number',
          received: `the full number ${maskPan(sent)}`,
        });
      } else if (card !== profileMask(ctx, sent)) {
        report({
          code: 'CARD_MASK',
          // The mask's form is the profile's; digits of another card than the one sent name another payment's card.
          requirement: showsDigitsOf(card, sent) ? 'PAGI-PAY-012' : ['PAGI-PAY-012', 'PAGI-INV-006'],
          pointer: `/${FIELD.card}`,
          expected: `${profileMask(ctx, sent)} (the profile's mask)`,
          received: quoted(card),
        });
      }
    },
  }),
);
