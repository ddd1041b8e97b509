/**
 * The card search's elimination (discover/discoverers/cards.ts): names read from a refusal's text, and a gateway
 * refusing every name it does not know searched one group at a time, a name kept when the refusal changes (the
 * candidate's name taken out of the refusal only where it stands as a word), the names tried in every spelling.
 */
import { describe, expect, it } from 'vitest';
import type { Refusal } from '../../discover/answers.js';
import { namedFields, oneAtATime } from '../../discover/discoverers/cards.js';
import type { Session } from '../../discover/session.js';
import { CARD_FIELD_CANDIDATES, COMMON_CARD_FIELD_NAMES, spellings } from '../../discover/vocabulary.js';

const session = { config: { cards: { approve: '4111111111111111' } }, options: { cardSecurityCode: '123' } };

describe('card fields by elimination', () => {
  it('reads the field names a refusal names and the group of each', () => {
    expect(namedFields('Invalid input: exp_mm is not in the form M', [])).toEqual([['expiryMonth', 'exp_mm']]);
    expect(namedFields('pan is not a card number', [])).toEqual([['number', 'pan']]);
    expect(namedFields('cardCvv2 missing; expYY wrong', [])).toEqual([
      ['securityCode', 'cardCvv2'],
      ['expiryYear', 'expYY'],
    ]);
    expect(namedFields('card_number is not a card number', ['card_number'])).toEqual([]);
    expect(namedFields('order_no is missing', ['order_no'])).toEqual([]);
  });

  it('tries every common name in the other naming conventions and without its prefix, the common names first', () => {
    expect(spellings('card_cvv')).toEqual(['cardCvv', 'CardCvv', 'CARD_CVV', 'cvv']);
    expect(spellings('expMonth')).toEqual(['exp_month', 'ExpMonth', 'EXP_MONTH', 'month']);
    for (const [group, common] of Object.entries(COMMON_CARD_FIELD_NAMES)) {
      const all = CARD_FIELD_CANDIDATES[group as keyof typeof COMMON_CARD_FIELD_NAMES];
      expect(all.slice(0, common.length)).toEqual(common);
      expect(new Set(all).size).toBe(all.length);
    }
    expect(CARD_FIELD_CANDIDATES.expiryMonth).toEqual(expect.arrayContaining(['month', 'EXPIRATION_MONTH']));
    expect(CARD_FIELD_CANDIDATES.securityCode).toContain('cardCvv');
  });

  it('a strict gateway (`pan`, month `M`, year `YY`; any other name refused) is found one group at a time', async () => {
    const want = { number: 'pan', expiryMonth: 'card_month', expiryYear: 'card_year', securityCode: 'cvv2' };
    let last: Refusal | undefined;
    const refuse = (message: string): false => {
      last = { form: 'httpError', status: 400, format: 'json', contentType: '', code: 'E', message } as Refusal;
      return false;
    };
    // The gateway checks its fields in its order and quotes the first name it does not know.
    const usable = async (card: Record<string, string>) => {
      const stranger = Object.keys(card).find((k) => !Object.values(want).includes(k));
      if (stranger) return refuse(`unknown field ${stranger}`);
      if (!/^\d{12,19}$/.test(card.pan ?? '')) return refuse('bad number');
      if (!/^(0?[1-9]|1[0-2])$/.test(card.card_month ?? '')) return refuse('bad month');
      if (!/^\d{2}$/.test(card.card_year ?? '')) return refuse('bad year');
      if (!/^\d{3,4}$/.test(card.cvv2 ?? '')) return refuse('bad code');
      return true;
    };
    const all = Object.fromEntries(Object.entries(CARD_FIELD_CANDIDATES).map(([g, names]) => [g, [...names]])) as never;
    const found = await oneAtATime(session as unknown as Session, all, usable, () => last);
    expect(found).toEqual({ names: want, digits: 2 });
  });
});
