/**
 * Payout (`/v1/payout`): the request echoed as the spec's `echoDeep` rule says, the profile's fee, failure rules
 * and local clearing system, ISO 8601 timestamps; idempotent on the profile's key.
 */
import { createHash, randomBytes } from 'node:crypto';
import { offsetDateTime } from '../clock.js';
import { ordered, str, type Gateway, type GatewayRequest, type OperationHandler, type Refusal } from '../context.js';
import { signResponse } from '../errors.js';
import { divide, percentFraction, toInteger } from '../money.js';
import { jsonReply } from '../reply.js';
import { valueAt, withValueAt } from '../../core/spec/pointer.js';

/** JSON text with object keys sorted, so two equal bodies digest alike whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function bodyDigest(body: Record<string, unknown>): string {
  const { encryption_data: _signature, ...rest } = body;
  return createHash('sha256').update(canonical(rest)).digest('hex');
}

function idempotencyKey(gw: Gateway, req: GatewayRequest): string | undefined {
  const key = str(req.body, gw.profile.payout.idempotencyKey);
  return key ? `${req.account.merchant.merchantId}\u0000${req.account.account.accountId}\u0000${key}` : undefined;
}

/** The fractional digits of the profile's fee (`payout.fee.decimals`; a fixed fee and the default: whole units). */
function feeDecimals(gw: Gateway): number {
  const fee = gw.profile.payout.fee;
  return fee.type === 'percentage' ? (fee.decimals ?? 0) : 0;
}

/** The fee of a payment amount, in units of 10^-`feeDecimals` of `payment_currency` (whole units by default). */
function feeOf(gw: Gateway, amount: bigint): bigint {
  const fee = gw.profile.payout.fee;
  if (fee.type === 'fixed') return BigInt(fee.amount);
  const { numerator, denominator } = percentFraction(fee.percent);
  return divide(amount * numerator * 10n ** BigInt(fee.decimals ?? 0), denominator, fee.rounding);
}

/** A scaled amount (units of 10^-`decimals`) as the JSON number the payout answer carries. */
function scaledNumber(value: bigint, decimals: number): number {
  if (decimals === 0) return Number(value);
  const scale = 10n ** BigInt(decimals);
  const sign = value < 0n ? '-' : '';
  const abs = value < 0n ? -value : value;
  return Number(`${sign}${abs / scale}.${String(abs % scale).padStart(decimals, '0')}`);
}

/** The payout operation. */
export const payout: OperationHandler = {
  refusals(req, gw) {
    const p = gw.profile.payout;
    const body = req.body;
    const out: Refusal[] = [];
    const bad = (reason: string) => out.push({ kind: 'invalidInput', reason });
    if (!str(body, p.idempotencyKey)) bad(`${p.idempotencyKey} is missing`);
    const amount = toInteger(body.payment_amount);
    if (amount === undefined) bad('payment_amount is missing');
    if (!str(body, 'payment_currency')) bad('payment_currency is missing');
    if (body.source_currency !== undefined && body.source_currency !== body.payment_currency)
      bad('source_currency differs from payment_currency (no conversion)');
    if (body.source_amount !== undefined && body.source_amount !== body.payment_amount)
      bad('source_amount differs from payment_amount (no conversion)');
    const paidBy = body.fee_paid_by;
    if (paidBy !== undefined && paidBy !== p.feePaidBy.payer && paidBy !== p.feePaidBy.beneficiary)
      bad('fee_paid_by has an unknown value');
    if (
      amount !== undefined &&
      paidBy === p.feePaidBy.beneficiary &&
      feeOf(gw, amount) > amount * 10n ** BigInt(feeDecimals(gw))
    )
      bad('the fee exceeds the payment amount');
    const key = idempotencyKey(gw, req);
    const known = key ? gw.store.payout(key) : undefined;
    if (known && known.bodyDigest !== bodyDigest(body) && p.replayWithDifferentBody === 'invalidInput')
      bad(`${p.idempotencyKey} was used with another body`);
    return out;
  },
  run(req, gw) {
    const key = idempotencyKey(gw, req)!;
    const known = gw.store.payout(key);
    if (known) return jsonReply(JSON.parse(known.responseText) as Record<string, unknown>);
    const p = gw.profile.payout;
    const body = req.body;
    const now = gw.now();
    const decimals = feeDecimals(gw);
    // Amounts in units of the fee's precision (whole units unless the profile's fee keeps decimals).
    const amount = toInteger(body.payment_amount)! * 10n ** BigInt(decimals);
    const fee = feeOf(gw, toInteger(body.payment_amount)!);
    const beneficiaryPays = body.fee_paid_by === p.feePaidBy.beneficiary;
    const rule = p.failureRules.find((r) => {
      const v = valueAt(body, r.field.split('.'));
      return typeof v === 'string' && (r.match === 'equals' ? v === r.value : v.startsWith(r.value));
    });
    let echoed = structuredClone(body);
    for (const pointer of req.op.model.echoDeep?.except ?? []) echoed = withValueAt(echoed, pointer, undefined);
    const beneficiary = echoed.beneficiary;
    if (beneficiary && typeof beneficiary === 'object' && !Array.isArray(beneficiary)) {
      const b = beneficiary as Record<string, unknown>;
      const details =
        b.bank_details && typeof b.bank_details === 'object' ? (b.bank_details as Record<string, unknown>) : {};
      b.bank_details = { ...details, local_clearing_system: p.localClearingSystem };
    }
    const transactionId = gw.store.nextId('PO', now);
    const values: Record<string, unknown> = {
      ...echoed,
      amount_beneficiary_receives: scaledNumber(beneficiaryPays ? amount - fee : amount, decimals),
      amount_payer_pays: scaledNumber(beneficiaryPays ? amount : amount + fee, decimals),
      fee_amount: scaledNumber(fee, decimals),
      fee_currency: body.payment_currency,
      created_at: offsetDateTime(now),
      last_updated_at: offsetDateTime(now),
      failure_reason: rule ? rule.failureReason : p.successFailureReason,
      failure_type: rule ? rule.failureType : p.successFailureType,
      payer_id: `PYR-${createHash('sha256')
        .update(`${req.account.merchant.merchantId}\u0000${canonical(body.payer ?? null)}`)
        .digest('hex')
        .slice(0, 10)
        .toUpperCase()}`,
      transaction_id: transactionId,
      short_reference_id: `P${transactionId.slice(4, 10)}-${randomBytes(3).toString('hex').toUpperCase()}`,
      status: rule ? gw.profile.statusValues.payout_status.failed : gw.profile.statusValues.payout_status.completed,
    };
    const response = ordered(req.op.responseFields, signResponse(gw, 'payout', values, req.account.secret));
    gw.store.payouts.set(key, { key, bodyDigest: bodyDigest(body), responseText: JSON.stringify(response) });
    const url = str(body, 'notify_url');
    if (
      url &&
      !gw.switches.suppressNotifications &&
      gw.profile.notifications.kinds.payout.sentAfter.includes('payout')
    ) {
      gw.notifier.send({
        kind: 'payout',
        key: str(body, p.idempotencyKey)!,
        url,
        body: response,
        secret: req.account.secret,
        merchantId: req.account.merchant.merchantId,
        accountId: req.account.account.accountId,
      });
    }
    return jsonReply(response);
  },
};
