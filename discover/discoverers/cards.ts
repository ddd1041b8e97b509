/**
 * The card fields of the direct payment (`fields.card`): which of the common names the gateway reads, the expiry
 * forms and the Luhn check. A body carrying every candidate name is usable when one of each group is the gateway's;
 * each group is then halved until one name is left. Whether card data is usable shows as a payment made (signature
 * known) or, at a gateway checking fields first, as a refusal for the (deliberately wrong) signature instead of one
 * for the fields.
 */
import { attempt, wrongSignature, type Facts } from '../context.js';
import type { Session } from '../session.js';
import { CARD_FIELD_CANDIDATES } from '../vocabulary.js';

type Group = keyof typeof CARD_FIELD_CANDIDATES;
const GROUPS = Object.keys(CARD_FIELD_CANDIDATES) as Group[];

/** The direct payment body without card fields (key fields and notify_url). */
function baseBody(s: Session): Record<string, unknown> {
  const full = s.body('authoriseDirect');
  const out: Record<string, unknown> = {};
  for (const k of ['merchant_id', 'account_id', 'order_no', 'currency', 'amount', 'notify_url'])
    if (full[k] !== undefined) out[k] = full[k];
  return out;
}

function values(s: Session, yearDigits: 2 | 4, month = '12'): Record<Group, string> {
  const year = String(new Date().getUTCFullYear() + 3);
  return {
    number: s.config.cards.approve!,
    expiryMonth: month,
    expiryYear: yearDigits === 4 ? year : year.slice(-2),
    securityCode: s.options.cardSecurityCode,
  };
}

function cardOf(names: Record<Group, readonly string[]>, v: Record<Group, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const g of GROUPS) for (const n of names[g]) out[n] = v[g];
  return out;
}

/** Find the card fields; sets `s.work.fields.card` and the draft's points. */
export async function searchCards(s: Session, facts: Facts): Promise<void> {
  const d = s.draft;
  const signed = s.work.signature.request.mode === 'sortedPairs' || d.has('signature.request.fields.authoriseDirect');
  const badSignatureCode = facts.wrongSignature.capture?.code;
  let lastEvidence = '';
  const usable = async (card: Record<string, string>): Promise<boolean> => {
    const body = { ...baseBody(s), ...card };
    if (signed) {
      const r = await attempt(s, 'authoriseDirect', body);
      lastEvidence = s.evidence(r.x);
      return !r.refusal;
    }
    const r = await attempt(s, 'authoriseDirect', body, { signature: () => wrongSignature(s.work.signature.encoding) });
    lastEvidence = s.evidence(r.x, 'deliberately wrong signature');
    return r.refusal !== undefined && badSignatureCode !== undefined && r.refusal.code === badSignatureCode;
  };
  const all: Record<Group, readonly string[]> = CARD_FIELD_CANDIDATES;
  let digits: 2 | 4 | undefined;
  for (const y of [4, 2] as const)
    if (await usable(cardOf(all, values(s, y)))) {
      digits = y;
      break;
    }
  let names: Record<Group, string> | undefined;
  if (digits) {
    names = {} as Record<Group, string>;
    for (const g of GROUPS) {
      let left = [...all[g]];
      while (left.length > 1) {
        const half = left.slice(0, Math.ceil(left.length / 2));
        const trial = { ...all, [g]: half };
        left = (await usable(cardOf(trial, values(s, digits)))) ? half : left.slice(half.length);
      }
      names[g] = left[0]!;
    }
  } else {
    // A gateway refusing unknown fields: the candidate names taken together, one set at a time.
    const sets = Math.max(...GROUPS.map((g) => all[g].length));
    outer: for (let i = 0; i < sets; i++)
      for (const y of [4, 2] as const) {
        const one = Object.fromEntries(GROUPS.map((g) => [g, [all[g][Math.min(i, all[g].length - 1)]!]])) as Record<
          Group,
          string[]
        >;
        if (await usable(cardOf(one, values(s, y)))) {
          digits = y;
          names = Object.fromEntries(GROUPS.map((g) => [g, one[g][0]])) as Record<Group, string>;
          break outer;
        }
      }
  }
  if (!names || !digits) {
    d.unknown(
      'fields.card',
      `no combination of the common card field names (${CARD_FIELD_CANDIDATES.number.join(', ')}, …) made a usable card: state the card fields`,
      undefined,
      lastEvidence,
    );
    return;
  }
  const card = s.work.fields.card;
  card.number = names.number;
  card.expiryMonth = names.expiryMonth;
  card.expiryYear = names.expiryYear;
  card.securityCode = names.securityCode;
  card.expiryYearFormat = digits === 4 ? 'YYYY' : 'YY';
  const found = lastEvidence;
  for (const g of GROUPS)
    d.set(`fields.card.${g}`, names[g], `the only name of its group the payment needs (${found})`);
  d.set('fields.card.expiryYearFormat', card.expiryYearFormat, `a ${digits}-digit year is usable`);
  const only = (v: Record<Group, string>) =>
    cardOf(Object.fromEntries(GROUPS.map((g) => [g, [names![g]]])) as never, v);
  const oneDigit = await usable(only(values(s, digits, '1')));
  card.expiryMonthFormat = oneDigit ? 'M' : 'MM';
  d.set(
    'fields.card.expiryMonthFormat',
    card.expiryMonthFormat,
    `month "1" ${oneDigit ? 'usable' : 'refused'}: ${lastEvidence}`,
  );
  const pan = s.config.cards.approve!;
  const notLuhn = `${pan.slice(0, -1)}${(Number(pan.at(-1)) + 1) % 10}`;
  const luhnUsable = await usable(only({ ...values(s, digits), number: notLuhn }));
  card.luhnCheck = !luhnUsable;
  d.set(
    'fields.card.luhnCheck',
    !luhnUsable,
    `a number failing the Luhn check ${luhnUsable ? 'is usable' : 'is refused'}: ${lastEvidence}`,
  );
}
