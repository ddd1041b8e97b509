/**
 * Profile choices the reference gateway and the kit read alike, each worked out in one place so the two can never
 * disagree on what the profile means: an error kind as one operation words it (`errors.byOperation`), the check
 * order of an operation (`errors.precedenceByOperation`), the decline rule a payment matches and the outcome it
 * gives (`payments.declineRules`), and how a message text is compared (`pinned`).
 */
import type { PAGIProfile } from '../types/generated.js';
import { ProfileError } from '../types/errors.js';

type Profile = PAGIProfile;
/** An operation key (core/model.ts imports this module's loader: the key is named from the profile's own type). */
type OperationKey = keyof Profile['requestMedia']['types'];

/** An error kind's name (`errors.kinds`; `unknownMerchant` only where the profile defines it). */
export type ErrorKindName = keyof Profile['errors']['kinds'];

/** How a message text is compared: exactly (`true`), as the start of the text (`prefix`), or not at all. */
export type Pinned = boolean | 'prefix';

/** An error kind as an operation answers it: the HTTP status, `<code>`, `<message>` and how the message is compared. */
export interface KindSpec {
  status: number;
  code: string;
  message: string;
  pinned?: Pinned;
}

/** The kinds the profile defines, in the order `errors.kinds` lists them. */
export function definedKinds(profile: Profile): ErrorKindName[] {
  return Object.keys(profile.errors.kinds) as ErrorKindName[];
}

/**
 * An error kind as `operation` words it: the kind of `errors.kinds`, with the code, message and comparison of
 * `errors.byOperation.<operation>.<kind>` where the profile words it otherwise there. Throws (a kit error) when the
 * profile does not define the kind.
 */
export function errorKindSpec(profile: Profile, kind: ErrorKindName, operation?: OperationKey): KindSpec {
  const base = profile.errors.kinds[kind];
  if (!base) throw new ProfileError(`profile: the error kind ${kind} is not defined in errors.kinds`);
  const wording = operation ? profile.errors.byOperation?.[operation]?.[kind] : undefined;
  return wording ? { ...base, ...wording } : base;
}

/** The order in which the gateway checks a request of `operation` (`errors.precedenceByOperation`, else `precedence`). */
export function precedenceOf(profile: Profile, operation?: OperationKey): readonly ErrorKindName[] {
  const own = operation ? profile.errors.precedenceByOperation?.[operation] : undefined;
  return (own ?? profile.errors.precedence) as ErrorKindName[];
}

/** A decline rule of the profile (`payments.declineRules`). */
export type DeclineRule = Profile['payments']['declineRules'][number];

/** What a payment shows a decline rule: the card number, the security code, the shopper e-mail and the amount. */
export interface DeclineFacts {
  cardNumber?: string;
  securityCode?: string;
  shopperEmail?: unknown;
  amount?: unknown;
}

const DECIMAL = /^([0-9]+)\.([0-9]{2})$/;

/** Minor units of a two-decimal amount string (leading zeros allowed, as the spec's formats), else undefined. */
function minor(amount: unknown): bigint | undefined {
  const m = typeof amount === 'string' ? DECIMAL.exec(amount) : null;
  return m ? BigInt(m[1]!) * 100n + BigInt(m[2]!) : undefined;
}

/** The domain of an e-mail address, lower case ('' without one). */
function domainOf(email: unknown): string {
  const text = typeof email === 'string' ? email : '';
  return text.includes('@') ? text.slice(text.lastIndexOf('@') + 1).toLowerCase() : '';
}

/** Whether a payment's facts trigger a decline rule. */
export function triggers(rule: DeclineRule, facts: DeclineFacts): boolean {
  if ('cardNumberSuffix' in rule) return facts.cardNumber?.endsWith(rule.cardNumberSuffix) ?? false;
  if ('securityCode' in rule) return facts.securityCode === rule.securityCode;
  if ('shopperEmailDomain' in rule) return domainOf(facts.shopperEmail) === rule.shopperEmailDomain.toLowerCase();
  const amount = minor(facts.amount);
  return amount !== undefined && amount === minor(rule.amount);
}

/** The first decline rule a payment's facts trigger (the one that decides its decline), or undefined. */
export function declineRuleOf(profile: Profile, facts: DeclineFacts): DeclineRule | undefined {
  return profile.payments.declineRules.find((rule) => triggers(rule, facts));
}

/** The `result_info` pair and `risk_action` of a payment a rule declines (the rule's own, else the profile's declined ones). */
export function declineOutcome(
  profile: Profile,
  rule: DeclineRule | undefined,
): { resultInfo: { code: string; message: string; pinned?: Pinned }; riskAction: string } {
  return {
    resultInfo: rule?.resultInfo ?? profile.payments.resultInfo.declined,
    riskAction: rule?.riskAction ?? profile.payments.risk.action.declined,
  };
}

/** `<code>:<message>` of a code/message pair. */
export function codeMessage(pair: { code: string; message: string }): string {
  return `${pair.code}:${pair.message}`;
}
