/**
 * The card fields of the direct payment (`fields.card`): which of the common names the gateway reads, the expiry
 * forms and the Luhn check. A body carrying every candidate name is usable when one of each group is the gateway's;
 * each group is then halved until one name is left. A refusal naming a field the body lacks adds that name to its
 * group; a gateway refusing names it does not know is searched one group at a time, a name kept when the refusal
 * changes (elimination on the refusals, not a list of vendors' combinations). Whether card data is usable shows as a
 * payment made (signature known) or, at a gateway checking fields first, as a refusal for the (deliberately wrong)
 * signature instead of one for the fields.
 */
import type { Refusal } from '../answers.js';
import { attempt, wrongSignature, type Facts } from '../context.js';
import type { Session } from '../session.js';
import { fromStates } from '../from.js';
import { CARD_FIELD_CANDIDATES, COMMON_CARD_FIELD_NAMES } from '../vocabulary.js';

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

/** Which group a field name a refusal names belongs to, by its words. */
const GROUP_WORDS: readonly [Group, RegExp][] = [
  ['expiryMonth', /month|mm/i],
  ['expiryYear', /year|yy/i],
  ['securityCode', /cvv|cvc|csc|cv2|security|verif/i],
  ['number', /pan|number|num($|_)|(^|_)no($|_)|card/i],
];

/**
 * Field names a refusal's text names that the request did not carry (`exp_mm is not in the form M`), each with its
 * group: a name is a word holding `_` or an inner capital, or a bare `pan`.
 */
export function namedFields(text: string, sent: readonly string[]): [Group, string][] {
  const out: [Group, string][] = [];
  for (const word of new Set(text.match(/[A-Za-z][A-Za-z0-9_]*/g) ?? [])) {
    if (sent.includes(word) || !(/_/.test(word) || /[a-z][A-Z]/.test(word) || word === 'pan')) continue;
    const group = GROUP_WORDS.find(([, re]) => re.test(word))?.[0];
    if (group) out.push([group, word]);
  }
  return out;
}

type Usable = (card: Record<string, string>) => Promise<boolean>;
type Found = { names: Record<Group, string>; digits: 2 | 4 };

/**
 * Add the names a refusal names to their groups (first); whether any was new. `known`: the request's other fields
 * (`order_no is missing` names no card field).
 */
function learnNames(all: Record<Group, string[]>, refusal: Refusal | undefined, known: readonly string[]): boolean {
  const text = `${refusal?.message ?? ''} ${refusal?.answer?.text ?? ''}`;
  let added = false;
  for (const [g, name] of namedFields(text, [...Object.values(all).flat(), ...known])) {
    all[g].unshift(name);
    added = true;
  }
  return added;
}

/**
 * Every candidate name at once, a four-digit then a two-digit year (a month `12` fits both month forms): a gateway
 * reading its own names and ignoring the others takes it; each group is then halved down to its one name. A refusal
 * naming a field the body lacks adds that name to its group, and the search starts again.
 */
async function unionSearch(
  s: Session,
  all: Record<Group, string[]>,
  usable: Usable,
  refusal: () => Refusal | undefined,
  known: readonly string[] = [],
): Promise<Found | undefined> {
  for (let round = 0; round < 4; round++) {
    let digits: 2 | 4 | undefined;
    let added = false;
    for (const y of [4, 2] as const) {
      if (await usable(cardOf(all, values(s, y)))) {
        digits = y;
        break;
      }
      added = learnNames(all, refusal(), known) || added;
    }
    if (!digits) {
      if (!added) return undefined;
      continue;
    }
    const names = {} as Record<Group, string>;
    for (const g of GROUPS) {
      let left = [...all[g]];
      while (left.length > 1) {
        const half = left.slice(0, Math.ceil(left.length / 2));
        left = (await usable(cardOf({ ...all, [g]: half }, values(s, digits)))) ? half : left.slice(half.length);
      }
      names[g] = left[0]!;
    }
    return { names, digits };
  }
  return undefined;
}

/**
 * A gateway refusing names it does not know: one name per group, each group's names tried in turn with the others
 * held. The gateway's own name gets past that field, so its refusal is the odd one out (the candidate's own name
 * taken out of the text, which may quote it); that name is kept. A refusal naming a field adds it to its group.
 */
export async function oneAtATime(
  s: Session,
  all: Record<Group, string[]>,
  usable: Usable,
  refusal: () => Refusal | undefined,
  known: readonly string[] = [],
): Promise<Found | undefined> {
  const current = Object.fromEntries(GROUPS.map((g) => [g, all[g][0]!])) as Record<Group, string>;
  // The candidate's name taken out where it stands as a word (`no` is no part of `unknown`).
  const keyOf = (r: Refusal | undefined, name: string) =>
    `${r?.status}|${r?.code}|${r?.message ?? ''}`.replace(
      new RegExp(`(?<![A-Za-z0-9_])${name.replace(/[^A-Za-z0-9_]/g, '\\$&')}(?![A-Za-z0-9_])`, 'g'),
      '*',
    );
  for (const digits of [4, 2] as const) {
    const one = () => cardOf(Object.fromEntries(GROUPS.map((g) => [g, [current[g]]])) as never, values(s, digits));
    if (await usable(one())) return { names: { ...current }, digits };
    for (const g of GROUPS) {
      const was = current[g];
      const tried: { name: string; key: string }[] = [];
      for (const name of [...all[g]]) {
        current[g] = name;
        if (await usable(one())) return { names: { ...current }, digits };
        tried.push({ name, key: keyOf(refusal(), name) });
        learnNames(all, refusal(), known);
      }
      const odd = tried.filter((t) => tried.filter((u) => u.key === t.key).length === 1);
      current[g] = tried.length >= 3 && odd.length === 1 ? odd[0]!.name : was;
    }
  }
  return undefined;
}

/** Find the card fields; sets `s.work.fields.card` and the draft's points. */
export async function searchCards(s: Session, facts: Facts): Promise<void> {
  const d = s.draft;
  const signed = s.work.signature.request.mode === 'sortedPairs' || d.has('signature.request.fields.authoriseDirect');
  const badSignatureCode = facts.wrongSignature.capture?.code;
  let lastEvidence = '';
  let lastRefusal: Refusal | undefined;
  const usable = async (card: Record<string, string>): Promise<boolean> => {
    const body = { ...baseBody(s), ...card };
    if (signed) {
      const r = await attempt(s, 'authoriseDirect', body);
      lastEvidence = s.evidence(r.x);
      lastRefusal = r.refusal;
      return !r.refusal;
    }
    const r = await attempt(s, 'authoriseDirect', body, { signature: () => wrongSignature(s.work.signature.encoding) });
    lastEvidence = s.evidence(r.x, 'deliberately wrong signature');
    lastRefusal = r.refusal;
    return r.refusal !== undefined && badSignatureCode !== undefined && r.refusal.code === badSignatureCode;
  };
  // Card fields `--from` states: one payment with them, as stated; usable, they are confirmed and not searched.
  if (fromStates(s.options.from, 'fields.card') && (await usable(s.cardBody()))) {
    const why = `a payment with the card fields as ${s.options.from!.file} states them is usable (${lastEvidence})`;
    for (const [key, value] of Object.entries(s.work.fields.card))
      if (key !== 'luhnCheck') d.set(`fields.card.${key}`, value, why);
    await luhn(
      s,
      usable,
      (number) => s.cardBody(number),
      () => lastEvidence,
    );
    return;
  }
  // The working profile's name first (a name `--from` states is tried even when no common name is it).
  const all = Object.fromEntries(
    GROUPS.map((g) => [g, [...new Set([s.work.fields.card[g], ...CARD_FIELD_CANDIDATES[g]])]]),
  ) as Record<Group, string[]>;
  const last = () => lastRefusal;
  const known = Object.keys(s.body('authoriseDirect'));
  const search = (await unionSearch(s, all, usable, last, known)) ?? (await oneAtATime(s, all, usable, last, known));
  const names = search?.names;
  const digits = search?.digits;
  if (!names || !digits) {
    d.unknown(
      'fields.card',
      `no combination of the common card field names (${COMMON_CARD_FIELD_NAMES.number.join(', ')}, …, each in other spellings) made a usable card: state the card fields`,
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
  await luhn(
    s,
    usable,
    (number) => only({ ...values(s, digits), number }),
    () => lastEvidence,
  );
}

/** Whether the gateway checks the Luhn digit: a number failing it, otherwise the approving card. */
async function luhn(
  s: Session,
  usable: Usable,
  card: (number: string) => Record<string, string>,
  evidence: () => string,
): Promise<void> {
  const pan = s.config.cards.approve!;
  const notLuhn = `${pan.slice(0, -1)}${(Number(pan.at(-1)) + 1) % 10}`;
  const luhnUsable = await usable(card(notLuhn));
  s.work.fields.card.luhnCheck = !luhnUsable;
  s.draft.set(
    'fields.card.luhnCheck',
    !luhnUsable,
    `a number failing the Luhn check ${luhnUsable ? 'is usable' : 'is refused'}: ${evidence()}`,
  );
}
