/**
 * Payment outcomes (`payments`, `statusValues.order_status`, `fields.cardMask`, `review.triggers`): an approving
 * payment with and without 3-D Secure, a card of another length (the mask's width), the decline triggers of the
 * format's short list (test cards and their shortest declining suffix, security codes, e-mail domains, amounts),
 * the review holds (e-mail domains of the list, the lowest held amount), and tokens.
 */
import { luhnValid } from '../../core/mask.js';
import { codeMessageOf, answerOf, isRefusal } from '../answers.js';
import { textAt, type Discoverer, type Facts, type Payment } from '../context.js';
import type { Session } from '../session.js';
import {
  APPROVE_CARDS,
  DECLINE_AMOUNTS,
  DECLINE_CARDS,
  DECLINE_SECURITY_CODES,
  REVIEW_SEARCH_MAX,
  TOKEN_REQUEST_VALUES,
  TRIGGER_EMAIL_DOMAINS,
} from '../vocabulary.js';
import { amountOf, cents, pay, type Paid } from '../world.js';

/** A 15-digit Luhn-valid test number (the mask of another length tells a fixed width from one per digit). */
const FIFTEEN_DIGITS = '378282246310005';

type Outcome = 'approved' | 'declined' | 'pendingReview';

/** A card number with `suffix` at the end and `base`'s other digits, one digit changed to pass the Luhn check. */
export function withSuffix(base: string, suffix: string): string {
  const head = base.slice(0, base.length - suffix.length);
  for (let d = 0; d <= 9; d++) {
    const candidate = `${head.slice(0, -1)}${d}${suffix}`;
    if (candidate !== base && luhnValid(candidate)) return candidate;
  }
  return `${head}${suffix}`;
}

/** The mask rule of a masked number (`fields.cardMask`), or undefined when it is not a mask of it. */
export function maskOf(
  pan: string,
  masked: string,
): { keepFirst: number; keepLast: number; maskChar: string; hidden: number } | undefined {
  let first = 0;
  while (first < masked.length && first < pan.length && masked[first] === pan[first]) first++;
  let last = 0;
  while (
    last < masked.length - first &&
    last < pan.length - first &&
    masked[masked.length - 1 - last] === pan[pan.length - 1 - last]
  )
    last++;
  const middle = masked.slice(first, masked.length - last);
  if (!middle.length || /[0-9]/.test(middle) || new Set(middle).size !== 1) return undefined;
  return { keepFirst: first, keepLast: last, maskChar: middle[0]!, hidden: middle.length };
}

async function run(s: Session, facts: Facts): Promise<void> {
  const d = s.draft;
  const outcomes = new Map<string, Outcome>();
  const ev = (p: Paid, note = '') => s.evidence(p.x, note);
  // An approving payment (the sample asks for 3-D Secure with the document's value).
  let approved: Paid | undefined;
  for (const card of [s.config.cards.approve!, ...APPROVE_CARDS.filter((c) => c !== s.config.cards.approve)]) {
    const p = await pay(s, { card });
    if (p.payment) {
      approved = p;
      s.config.cards.approve = card;
      break;
    }
  }
  if (!approved?.payment) {
    d.unknown('payments', 'no payment with the test cards of the list was made: state the payment outcomes by hand');
    return;
  }
  facts.approved = approved.payment;
  const approvedStatus = approved.payment.orderStatus;
  outcomes.set(approvedStatus, 'approved');
  d.set('payments.testCards.approve', [s.config.cards.approve], ev(approved, 'approved'));
  d.set('statusValues.order_status.approved', approvedStatus, ev(approved));
  const info = codeMessageOf(answerOf(approved.x)!);
  const second = await pay(s);
  const info2 = second.payment ? codeMessageOf(answerOf(second.x)!) : undefined;
  if (info) {
    d.set('payments.resultInfo.approved.code', info.code, ev(approved));
    d.set('payments.resultInfo.approved.message', info.message, ev(approved));
    if (info2?.message === info.message)
      d.set('payments.resultInfo.approved.pinned', true, 'the same message on two approved payments');
  }
  d.set('payments.risk.action.approved', textAt(approved.body, 'risk_action'), ev(approved));
  const reasons = approved.body.risk_reasons;
  const pass = firstStatus(reasons);
  if (pass !== undefined)
    d.set('payments.risk.checkStatus.pass', pass, ev(approved, 'risk_reasons of an approved payment'));
  // 3-D Secure: the document's value asked for, and no value.
  const asked = textAt(s.body('authoriseDirect'), 'open3d');
  const without = await pay(s, { set: { open3d: undefined } });
  const resultAsked = textAt(approved.body, 'threeds_result');
  const resultNot = textAt(without.body, 'threeds_result');
  d.set('payments.threeDS.resultWhenNotRequested', resultNot, ev(without, 'no open3d'));
  if (resultAsked !== resultNot) {
    d.set('payments.threeDS.resultWhenRequested', resultAsked, ev(approved, `open3d ${asked}`));
    d.set('payments.threeDS.requestValue', asked, 'the result differs with and without it');
  } else
    for (const point of ['payments.threeDS.requestValue', 'payments.threeDS.resultWhenRequested'])
      d.unknown(
        point,
        `open3d ${asked} changed nothing: which value asks for 3-D Secure, and what a payment asking for it gets, no probe told`,
      );
  // The mask, on two lengths.
  await cardMask(s, approved);
  // Decline triggers.
  await declines(s, facts, outcomes, approvedStatus);
  // Review holds (e-mail domains were tried with the declines; amounts here).
  await holds(s, facts, outcomes, approvedStatus);
  await tokens(s, facts);
}

function firstStatus(reasons: unknown): string | undefined {
  const list = Array.isArray(reasons) ? reasons : reasons && typeof reasons === 'object' ? [reasons] : [];
  for (const r of list as Record<string, unknown>[]) {
    const v = textAt(r, 'status');
    if (v) return v;
  }
  return undefined;
}

async function cardMask(s: Session, approved: Paid): Promise<void> {
  const d = s.draft;
  const pan = s.config.cards.approve!;
  const m16 = maskOf(pan, textAt(approved.body, 'card'));
  if (!m16) {
    d.unknown(
      'fields.cardMask',
      `the answer's card (${textAt(approved.body, 'card') ? 'present' : 'absent'}) is not a mask of the number sent`,
    );
    return;
  }
  const other = await pay(s, { card: FIFTEEN_DIGITS });
  const m15 = maskOf(FIFTEEN_DIGITS, textAt(other.body, 'card'));
  d.set('fields.cardMask.keepFirst', m16.keepFirst, s.evidence(approved.x, 'card'));
  d.set('fields.cardMask.keepLast', m16.keepLast, s.evidence(approved.x, 'card'));
  d.set('fields.cardMask.maskChar', m16.maskChar, s.evidence(approved.x, 'card'));
  if (m15) {
    const perDigit =
      m15.hidden === FIFTEEN_DIGITS.length - m15.keepFirst - m15.keepLast &&
      m16.hidden === pan.length - m16.keepFirst - m16.keepLast;
    d.set(
      'fields.cardMask.hiddenWidth',
      perDigit ? 'perDigit' : m16.hidden,
      `${m16.hidden} mask characters for ${pan.length} digits, ${m15.hidden} for ${FIFTEEN_DIGITS.length}`,
    );
  } else
    d.unknown(
      'fields.cardMask.hiddenWidth',
      'a card of another length was not masked (or refused): one mask character per digit or a fixed width no probe told',
      m16.hidden === pan.length - m16.keepFirst - m16.keepLast ? 'perDigit' : m16.hidden,
      s.evidence(other.x),
    );
}

/** What the decline search gathers: the declining rules with their answers and evidence, and the first decline. */
interface DeclineSearch {
  s: Session;
  approvedStatus: string;
  rules: Record<string, unknown>[];
  /** The answer of each rule's decline (its own result_info and risk_action, when they differ). */
  answers: Paid[];
  evidence: string[];
  declined?: Paid;
  /** The first declining trigger, to decline once more (a message is pinned only when two probes agree). */
  again?: () => Promise<Paid>;
}

/** A payment declined (not approved, not held). */
function isDeclined(st: DeclineSearch, p: Paid): boolean {
  return !!p.payment && p.payment.orderStatus !== st.approvedStatus && isDeclineAnswer(p);
}

/** Keep a declining trigger: its rule, answer and evidence; the first one is the decline tried again. */
function keepDecline(
  st: DeclineSearch,
  rule: Record<string, unknown>,
  p: Paid,
  note: string,
  again: () => Promise<Paid>,
): void {
  st.rules.push(rule);
  st.answers.push(p);
  st.evidence.push(st.s.evidence(p.x, note));
  st.declined ??= p;
  st.again ??= again;
}

async function declines(
  s: Session,
  facts: Facts,
  outcomes: Map<string, Outcome>,
  approvedStatus: string,
): Promise<void> {
  const st: DeclineSearch = { s, approvedStatus, rules: [], answers: [], evidence: [] };
  await declineCards(st);
  await declineTriggers(st, facts, outcomes);
  const allOwn = ruleWordings(st);
  const d = s.draft;
  const { rules, evidence, declined } = st;
  d.set(
    'payments.declineRules',
    rules,
    rules.length
      ? evidence.join('; ') || s.evidence(declined!.x)
      : "no trigger of the format's short list declines a payment",
  );
  if (!declined?.payment) {
    d.unknown('statusValues.order_status.declined', 'no payment declined: its order_status no probe saw');
    d.unknown('payments.resultInfo.declined', 'no payment declined: its result_info no probe saw');
    d.unknown('payments.risk.action.declined', 'no payment declined: its risk_action no probe saw');
    return;
  }
  facts.declined = declined.payment;
  outcomes.set(declined.payment.orderStatus, 'declined');
  d.set('statusValues.order_status.declined', declined.payment.orderStatus, s.evidence(declined.x));
  await declineWording(st, declined, allOwn);
}

/** The decline test numbers of the list, and the shortest suffix that still declines on the approving card. */
async function declineCards(st: DeclineSearch): Promise<void> {
  const { s } = st;
  let declineCard: string | undefined;
  for (const card of DECLINE_CARDS) {
    const p = await pay(s, { card });
    if (isDeclined(st, p)) {
      st.declined = p;
      declineCard = card;
      st.again = () => pay(s, { card });
      break;
    }
  }
  if (!st.declined || !declineCard) {
    s.draft.set(
      'payments.testCards.decline',
      [],
      `none of ${DECLINE_CARDS.length} decline test numbers of the list declines`,
    );
    return;
  }
  // The shortest suffix that still declines, on the approving card's digits.
  let suffix = declineCard;
  for (let k = 1; k < declineCard.length - 1; k++) {
    const trial = withSuffix(s.config.cards.approve!, declineCard.slice(-k));
    const p = await pay(s, { card: trial });
    if (isDeclined(st, p)) {
      suffix = declineCard.slice(-k);
      st.evidence.push(s.evidence(p.x, `a number ending in ${suffix} declines`));
      break;
    }
  }
  st.rules.push({ cardNumberSuffix: suffix });
  st.answers.push(st.declined);
  s.draft.set('payments.testCards.decline', [declineCard], s.evidence(st.declined.x, 'declined'));
  s.config.cards.decline = declineCard;
}

/** The security codes, e-mail domains (declining or holding) and amounts of the list. */
async function declineTriggers(st: DeclineSearch, facts: Facts, outcomes: Map<string, Outcome>): Promise<void> {
  const { s } = st;
  for (const code of DECLINE_SECURITY_CODES) {
    const p = await pay(s, { securityCode: code });
    if (isDeclined(st, p))
      keepDecline(st, { securityCode: code }, p, `security code ${code}`, () => pay(s, { securityCode: code }));
  }
  facts.heldDomains = [];
  for (const domain of TRIGGER_EMAIL_DOMAINS) {
    const p = await pay(s, { set: { shopper_email: `shopper@${domain}` } });
    if (!p.payment || p.payment.orderStatus === st.approvedStatus) continue;
    if (isDeclined(st, p))
      keepDecline(st, { shopperEmailDomain: domain }, p, `e-mail at ${domain}`, () =>
        pay(s, { set: { shopper_email: `shopper@${domain}` } }),
      );
    else {
      facts.heldDomains.push(domain);
      facts.held ??= p.payment;
      outcomes.set(p.payment.orderStatus, 'pendingReview');
    }
  }
  for (const amount of DECLINE_AMOUNTS) {
    const p = await pay(s, { set: { amount } });
    if (isDeclined(st, p)) keepDecline(st, { amount }, p, `amount ${amount}`, () => pay(s, { set: { amount } }));
  }
}

/** The result_info and risk_action of a declined answer. */
function wordingOf(p: Paid | undefined): { code: string; message: string; risk: string } {
  const m = /^([^:]*):(.*)$/.exec(textAt(p?.body, 'result_info'));
  return { code: m?.[1] ?? '', message: m?.[2] ?? '', risk: textAt(p?.body, 'risk_action') };
}

/**
 * A rule whose decline is worded (or risk-rated) otherwise than the first one carries its own wording. Returns
 * whether every rule is worded otherwise (two or more rules): then which wording (if any) is the global one no probe
 * can tell; every rule carries its own and the global decline wording is left open.
 */
function ruleWordings(st: DeclineSearch): boolean {
  const { rules, answers } = st;
  const base = wordingOf(st.declined);
  const key = (w: ReturnType<typeof wordingOf>) => `${w.code}:${w.message}:${w.risk}`;
  const keys = answers.map((p) => key(wordingOf(p)));
  const allOwn = rules.length >= 2 && answers.length === rules.length && new Set(keys).size === keys.length;
  rules.forEach((rule, i) => {
    const w = wordingOf(answers[i]);
    if (!answers[i] || (!allOwn && key(w) === key(base))) return;
    if (w.code) rule.resultInfo = { code: w.code, message: w.message };
    if (w.risk) rule.riskAction = w.risk;
  });
  return allOwn;
}

/** The decline's result_info (pinned when a second decline says the same) and risk_action, or each rule's own. */
async function declineWording(st: DeclineSearch, declined: Paid, allOwn: boolean): Promise<void> {
  const { s, rules, evidence, again } = st;
  const d = s.draft;
  const info = codeMessageOf(answerOf(declined.x)!);
  if (info) {
    const second = again ? await again() : undefined;
    const info2 = second?.payment ? codeMessageOf(answerOf(second.x)!) : undefined;
    const pinned = info2?.message === info.message;
    if (allOwn) {
      const own = rules[0]!.resultInfo as Record<string, unknown> | undefined;
      if (own && pinned) own.pinned = true;
      d.set('payments.declineRules', rules, `${evidence.join('; ')}; each rule worded otherwise: each carries its own`);
    } else {
      d.set('payments.resultInfo.declined.code', info.code, s.evidence(declined.x));
      d.set('payments.resultInfo.declined.message', info.message, s.evidence(declined.x));
      if (pinned) d.set('payments.resultInfo.declined.pinned', true, 'the same message on two declined payments');
    }
  }
  if (allOwn) {
    const why = `${rules.length} declining rules, each worded otherwise: the wording of a decline no rule words no probe reaches`;
    d.unknown('payments.resultInfo.declined', why);
    d.unknown('payments.risk.action.declined', why);
    return;
  }
  d.set('payments.risk.action.declined', textAt(declined.body, 'risk_action'), s.evidence(declined.x));
}

/** A declined answer, told from a held one: the risk checks passed (a hold is a failed check). */
function isDeclineAnswer(p: Paid): boolean {
  const reasons = p.body.risk_reasons;
  const list = (Array.isArray(reasons) ? reasons : reasons && typeof reasons === 'object' ? [reasons] : []) as Record<
    string,
    unknown
  >[];
  const approved = list.map((r) => textAt(r, 'status'));
  return new Set(approved).size <= 1;
}

/** Amounts tried for a review hold, ascending (the threshold is found exactly between the last two). */
const HOLD_AMOUNTS = [
  '100.00',
  '250.00',
  '500.00',
  '1000.00',
  '2500.00',
  '5000.00',
  '10000.00',
  '25000.00',
  '50000.00',
  '100000.00',
  REVIEW_SEARCH_MAX,
];

async function holds(s: Session, facts: Facts, outcomes: Map<string, Outcome>, approvedStatus: string): Promise<void> {
  const d = s.draft;
  const isHeld = (p: Paid) =>
    !!p.payment && p.payment.orderStatus !== approvedStatus && !outcomes.get(p.payment.orderStatus)?.startsWith('decl');
  let below = '0.00';
  let held: Paid | undefined;
  let at: string | undefined;
  for (const amount of HOLD_AMOUNTS) {
    const p = await pay(s, { set: { amount } });
    if (isHeld(p)) {
      held = p;
      at = amount;
      break;
    }
    below = amount;
  }
  let threshold: string | undefined;
  if (held && at) {
    let lo = cents(below);
    let hi = cents(at);
    // The hold starts at `hi`: a round amount most often (one cent less approves), else halve down to the cent.
    let first = true;
    while (hi - lo > 1) {
      const probeAt = first ? hi - 1 : Math.floor((lo + hi) / 2);
      first = false;
      const p = await pay(s, { set: { amount: amountOf(probeAt) } });
      if (isHeld(p)) hi = probeAt;
      else lo = probeAt;
    }
    threshold = amountOf(hi);
    facts.held ??= held.payment;
    outcomes.set(held.payment!.orderStatus, 'pendingReview');
  }
  const domains = facts.heldDomains ?? [];
  // Nothing of the search holding a payment is no evidence that nothing does (an amount beyond it, a domain off the
  // list): `null` (never held) is not stated.
  if (!threshold && !domains.length) {
    d.unknown(
      'review.triggers',
      `no amount up to ${REVIEW_SEARCH_MAX} and no e-mail domain of the list (${TRIGGER_EMAIL_DOMAINS.join(', ')}) holds a payment: state what holds one, or null if nothing does`,
    );
  } else {
    // No amount up to the search's end held is no threshold found (one may lie beyond, or none be): not stated.
    if (threshold)
      d.set(
        'review.triggers.amountAtLeast',
        threshold,
        `held from ${threshold}, approved at ${amountOf(cents(threshold) - 1)}`,
      );
    else
      d.unknown(
        'review.triggers.amountAtLeast',
        `no amount up to ${REVIEW_SEARCH_MAX} is held (an e-mail domain is): state the amount that holds a payment, if any`,
      );
    // No domain of the short list holding a payment is no evidence that none does (the list is tried, not the space
    // of all domains): an empty list is not stated.
    if (domains.length) d.set('review.triggers.shopperEmailDomains', domains, `held: ${domains.join(', ')}`);
    else
      d.unknown(
        'review.triggers.shopperEmailDomains',
        `no e-mail domain of the list (${TRIGGER_EMAIL_DOMAINS.join(', ')}) holds a payment: list the domains that do, if any`,
      );
  }
  const h = facts.held;
  if (!h) {
    d.unknown(
      'statusValues.order_status.pendingReview',
      'no payment was held for review: its order_status no probe saw',
    );
    d.unknown('payments.resultInfo.pendingReview', 'no payment was held for review: its result_info no probe saw');
    d.unknown('payments.risk.action.pendingReview', 'no payment was held for review');
    d.unknown('payments.risk.checkStatus.fail', 'no payment was held for review: no failing check was seen');
    return;
  }
  const a = answerOf(h.exchange)!;
  const body = a.body ?? {};
  d.set('statusValues.order_status.pendingReview', h.orderStatus, s.evidence(h.exchange));
  const info = codeMessageOf(a);
  if (info) {
    d.set('payments.resultInfo.pendingReview.code', info.code, s.evidence(h.exchange));
    d.set('payments.resultInfo.pendingReview.message', info.message, s.evidence(h.exchange));
    const domain = facts.heldDomains?.[0];
    const another = await pay(s, { set: domain ? { shopper_email: `shopper@${domain}` } : { amount: threshold! } });
    const other = another.payment?.orderStatus === h.orderStatus ? codeMessageOf(answerOf(another.x)!) : undefined;
    if (other?.message === info.message)
      d.set('payments.resultInfo.pendingReview.pinned', true, 'the same message on two held payments');
  }
  d.set('payments.risk.action.pendingReview', textAt(body, 'risk_action'), s.evidence(h.exchange));
  const pass = s.draft.get<string>('payments.risk.checkStatus.pass');
  const reasons = (Array.isArray(body.risk_reasons) ? body.risk_reasons : [body.risk_reasons]) as Record<
    string,
    unknown
  >[];
  const fail = reasons.map((r) => textAt(r, 'status')).find((v) => v && v !== pass);
  if (fail) d.set('payments.risk.checkStatus.fail', fail, s.evidence(h.exchange, 'risk_reasons of a held payment'));
  else d.unknown('payments.risk.checkStatus.fail', 'the held payment showed no failing check status');
}

async function tokens(s: Session, facts: Facts): Promise<void> {
  const d = s.draft;
  let token: { value: string; id: string; p: Paid } | undefined;
  for (const value of TOKEN_REQUEST_VALUES) {
    const p = await pay(s, { set: { token_flag: value } });
    const id = textAt(p.body, 'token_id');
    if (p.payment && id) {
      token = { value, id, p };
      break;
    }
  }
  const no = textAt(s.body('authoriseDirect'), 'token_flag') || 'NO';
  if (!token) {
    d.unknown(
      'payments.token.requestValue',
      `none of ${TOKEN_REQUEST_VALUES.join(', ')} as token_flag gave a token_id`,
    );
    d.unknown('payments.token.unknownToken', 'no token was obtained: the answer to an unknown one was not compared');
    return;
  }
  d.set('payments.token.requestValue', token.value, s.evidence(token.p.x, 'token_id answered'));
  const plain = await pay(s, { set: { token_flag: no } });
  if (plain.payment && !textAt(plain.body, 'token_id'))
    d.set('payments.token.noRequestValue', no, s.evidence(plain.x, 'no token_id'));
  else
    d.unknown(
      'payments.token.noRequestValue',
      `token_flag ${no} did not leave the token out`,
      undefined,
      s.evidence(plain.x),
    );
  facts.tokenId = token.id;
  const withToken = await pay(s, { noCard: true, set: { token_id: token.id, token_flag: no } });
  void withToken;
  const unknown = await pay(s, { noCard: true, set: { token_id: `${token.id}X`, token_flag: no } });
  facts.unknownToken = isRefusal(unknown.refusal)
    ? { ...unknown.refusal, evidence: s.evidence(unknown.x, 'an unknown token_id'), op: 'authoriseDirect', request: {} }
    : undefined;
  if (!unknown.refusal)
    d.unknown(
      'payments.token.unknownToken',
      'a payment with an unknown token_id was not refused',
      undefined,
      s.evidence(unknown.x),
    );
}

export type { Payment };

export const paymentsDiscoverer: Discoverer = {
  id: 'payments',
  decides: [
    'payments.resultInfo',
    'payments.declineRules',
    'payments.testCards',
    'payments.threeDS',
    'payments.token.requestValue',
    'payments.token.noRequestValue',
    'payments.risk.action',
    'payments.risk.checkStatus',
    'statusValues.order_status',
    'fields.cardMask',
    'review.triggers',
  ],
  after: ['signature'],
  run,
};
