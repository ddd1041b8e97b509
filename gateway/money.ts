/**
 * Amounts in integer minor units. The interface writes amounts as decimal strings with two fractional digits
 * (`10.36`); every computation is done on BigInt minor units so nothing drifts.
 */

// The spec's formats (schemas/common.schema.json amount, integerAmount) allow leading zeros: so does the gateway.
const DECIMAL = /^([0-9]+)\.([0-9]{2})$/;
const INTEGER = /^([0-9]+)$/;

/** Minor units of a two-decimal amount string, or undefined when the string is not in that form. */
export function toMinor(amount: unknown): bigint | undefined {
  if (typeof amount !== 'string') return undefined;
  const m = DECIMAL.exec(amount);
  return m ? BigInt(m[1]!) * 100n + BigInt(m[2]!) : undefined;
}

/** The two-decimal string of an amount in minor units. */
export function fromMinor(minor: bigint): string {
  const sign = minor < 0n ? '-' : '';
  const abs = minor < 0n ? -minor : minor;
  return `${sign}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
}

/** An integer amount string (payout amounts), or undefined. */
export function toInteger(amount: unknown): bigint | undefined {
  return typeof amount === 'string' && INTEGER.test(amount) ? BigInt(amount) : undefined;
}

/** Rounding of a division to an integer. */
export type Rounding = 'halfUp' | 'up' | 'down';

/** `numerator / denominator` rounded as asked (both non-negative). */
export function divide(numerator: bigint, denominator: bigint, rounding: Rounding): bigint {
  const q = numerator / denominator;
  const r = numerator % denominator;
  if (r === 0n) return q;
  if (rounding === 'down') return q;
  if (rounding === 'up') return q + 1n;
  return r * 2n >= denominator ? q + 1n : q;
}

/** A percentage written as a decimal string (`1.5`) as the fraction numerator / denominator of 100. */
export function percentFraction(percent: string): { numerator: bigint; denominator: bigint } {
  const [whole, frac = ''] = percent.split('.');
  const scale = 10n ** BigInt(frac.length);
  return { numerator: BigInt(whole! + frac), denominator: scale * 100n };
}
