/**
 * Payouts (`payout`, `statusValues.payout_status`): the `fee_paid_by` values of the format's short list, the fee
 * (two amounts tell fixed from proportional; a large one the percentage; two more the rounding), the idempotency
 * key (the same request again, then with another body), the clearing system, and what a completed payout carries.
 * Failure rules: the triggers of the format's short list (vocabulary.ts), each tried once.
 */
import { answerOf } from '../answers.js';
import { attempt, textAt, type Discoverer, type Facts, type PayoutFailure } from '../context.js';
import type { Session } from '../session.js';
import { FEE_PAID_BY_PAIRS, PAYOUT_FAILURE_TRIALS } from '../vocabulary.js';

/** A payout sent: its exchange, the answer's body, and whether it was taken. */
type Out = { x: import('../../core/model.js').Exchange; body: Record<string, unknown>; ok: boolean };

/** A payout with fields set (undefined: removed), fee_paid_by left out unless set. */
async function payout(s: Session, set: Record<string, unknown>): Promise<Out> {
  const body = s.body('payout');
  delete body.fee_paid_by;
  for (const [k, v] of Object.entries(set)) {
    if (v === undefined) delete body[k];
    else body[k] = v;
  }
  if ('source_amount' in body && set.payment_amount !== undefined) body.source_amount = set.payment_amount;
  const r = await attempt(s, 'payout', body);
  const answer = answerOf(r.x)?.body ?? {};
  return { x: r.x, body: answer, ok: !r.refusal };
}

const num = (b: Record<string, unknown>, f: string) => Number(b[f]);

async function run(s: Session, facts: Facts): Promise<void> {
  const found = await feePaidBy(s);
  if (!found) return;
  const { payer, payerOut } = found;
  await feeOf(s, payer, num(payerOut.body, 'fee_amount'));
  completed(s, payerOut);
  const sent = await idempotency(s, payerOut);
  await conversion(s, payer, sent);
  await failureRules(s, facts, payer);
}

/** fee_paid_by: a pair of the list whose both values are taken, and which of them means the payer pays. */
async function feePaidBy(s: Session): Promise<{ payer: string; payerOut: Out } | undefined> {
  const d = s.draft;
  let pair: [string, string] | undefined;
  let payerOut: Out | undefined;
  let benOut: Out | undefined;
  for (const [a, b] of FEE_PAID_BY_PAIRS) {
    const x = await payout(s, { fee_paid_by: a, payment_amount: '1000' });
    if (!x.ok) continue;
    const y = await payout(s, { fee_paid_by: b, payment_amount: '1000' });
    if (!y.ok) continue;
    pair = [a, b];
    payerOut = x;
    benOut = y;
    break;
  }
  if (!pair || !payerOut || !benOut) {
    d.unknown(
      'payout.feePaidBy',
      `no pair of ${FEE_PAID_BY_PAIRS.map((p) => p.join('/')).join(', ')} was taken as fee_paid_by`,
    );
    return undefined;
  }
  // Which value means the payer pays: the payer then pays more than the amount.
  const fee = num(payerOut.body, 'fee_amount');
  const swapped =
    fee > 0 && num(payerOut.body, 'amount_payer_pays') === 1000 && num(benOut.body, 'amount_payer_pays') > 1000;
  const [payer, beneficiary] = swapped ? [pair[1], pair[0]] : pair;
  const why =
    fee > 0
      ? `amount_payer_pays ${num(payerOut.body, 'amount_payer_pays')} with ${payer}`
      : "no fee: the pair's own order (no amount tells them apart)";
  d.set('payout.feePaidBy.payer', payer, `${s.evidence(payerOut.x)}; ${why}`);
  d.set('payout.feePaidBy.beneficiary', beneficiary, s.evidence(benOut.x));
  s.work.payout.feePaidBy = { payer, beneficiary };
  return { payer, payerOut };
}

/** The fee: two amounts, then a large one (the percentage) and two more (its rounding); its decimals. */
async function feeOf(s: Session, payer: string, fee: number): Promise<void> {
  const d = s.draft;
  const second = await payout(s, { fee_paid_by: payer, payment_amount: '2000' });
  const fee2 = num(second.body, 'fee_amount');
  if (fee === fee2)
    d.set('payout.fee', { type: 'fixed', amount: String(fee) }, `fee_amount ${fee} for 1000 and for 2000`);
  else await percentageFee(s, payer);
  // Fees to the cent: a fee amount with a fraction.
  const fees = [fee, fee2].filter((x) => Number.isFinite(x));
  const places = Math.max(0, ...fees.map((x) => (String(x).split('.')[1] ?? '').length));
  if (places > 0) d.set('payout.fee.decimals', Math.min(places, 2) === 1 ? 2 : places, `fee_amount ${fees.join(', ')}`);
}

/** A proportional fee: its percentage from a large amount, its rounding from two amounts either side of a half. */
async function percentageFee(s: Session, payer: string): Promise<void> {
  const big = await payout(s, { fee_paid_by: payer, payment_amount: '1000000' });
  const percent = Number(((num(big.body, 'fee_amount') / 1_000_000) * 100).toFixed(4));
  // Amounts whose exact fee has a fraction below and above one half.
  const amountFor = (fraction: number) => {
    for (let a = 1001; a < 1200; a++) {
      const exact = (a * percent) / 100;
      const f = exact - Math.floor(exact);
      if (fraction < 0.5 ? f > 0.05 && f < 0.45 : f > 0.55 && f < 0.95) return a;
    }
    return 1001;
  };
  const low = amountFor(0.25);
  const high = amountFor(0.75);
  const l = await payout(s, { fee_paid_by: payer, payment_amount: String(low) });
  const h = await payout(s, { fee_paid_by: payer, payment_amount: String(high) });
  const exactL = (low * percent) / 100;
  const exactH = (high * percent) / 100;
  const rounding =
    num(l.body, 'fee_amount') === Math.ceil(exactL)
      ? 'up'
      : num(h.body, 'fee_amount') === Math.floor(exactH)
        ? 'down'
        : 'halfUp';
  s.draft.set(
    'payout.fee',
    { type: 'percentage', percent: String(percent), rounding },
    `fee_amount ${num(big.body, 'fee_amount')} for 1000000; ${num(l.body, 'fee_amount')} for ${low} (${exactL.toFixed(3)}), ${num(h.body, 'fee_amount')} for ${high} (${exactH.toFixed(3)})`,
  );
}

/** What a completed payout carries: its status, failure fields and clearing system. */
function completed(s: Session, payerOut: Out): void {
  const d = s.draft;
  d.set('statusValues.payout_status.completed', textAt(payerOut.body, 'status'), s.evidence(payerOut.x));
  d.set('payout.successFailureType', textAt(payerOut.body, 'failure_type'), s.evidence(payerOut.x));
  d.set('payout.successFailureReason', textAt(payerOut.body, 'failure_reason'), s.evidence(payerOut.x));
  const details = (payerOut.body.beneficiary as Record<string, unknown> | undefined)?.bank_details as
    | Record<string, unknown>
    | undefined;
  const clearing = textAt(details, 'local_clearing_system');
  if (clearing) d.set('payout.localClearingSystem', clearing, s.evidence(payerOut.x, 'beneficiary.bank_details'));
  else
    d.unknown(
      'payout.localClearingSystem',
      'the payout answer carried no local_clearing_system',
      undefined,
      s.evidence(payerOut.x),
    );
}

/** Idempotency: the same request again, then the same key with another body; returns the body sent. */
async function idempotency(s: Session, payerOut: Out): Promise<Record<string, unknown>> {
  const d = s.draft;
  const key = s.defaults.payout.idempotencyKey;
  const sent = payerOut.x.request.body as Record<string, unknown>;
  const again = await attempt(s, 'payout', sent, { sameKey: true });
  const sameId = textAt(answerOf(again.x)?.body, 'transaction_id') === textAt(payerOut.body, 'transaction_id');
  if (sameId) d.set('payout.idempotencyKey', key, s.evidence(again.x, `the same ${key} again: the first answer`));
  else
    d.unknown(
      'payout.idempotencyKey',
      `a repeated request with the same ${key} made another payout`,
      undefined,
      s.evidence(again.x),
    );
  const other = await attempt(
    s,
    'payout',
    { ...sent, reason: `${String(sent.reason ?? '')} (changed)` },
    { sameKey: true },
  );
  if (other.refusal)
    d.set('payout.replayWithDifferentBody', 'invalidInput', s.evidence(other.x, `the same ${key}, another body`));
  else d.set('payout.replayWithDifferentBody', 'sameResponse', s.evidence(other.x, `the same ${key}, another body`));
  return sent;
}

/** No conversion: another source currency is refused. */
async function conversion(s: Session, payer: string, sent: Record<string, unknown>): Promise<void> {
  const conv = await payout(s, {
    fee_paid_by: payer,
    source_currency: sent.payment_currency === 'USD' ? 'EUR' : 'USD',
  });
  if (!conv.ok)
    s.draft.set(
      'payout.currencyConversion',
      'none',
      s.evidence(conv.x, 'a source currency other than the payment currency'),
    );
  else
    s.draft.unknown(
      'payout.currencyConversion',
      'a payout converting currencies was accepted: the format states no conversion rule',
      undefined,
      s.evidence(conv.x),
    );
}

/** A copy of `body` with the value at a dotted path replaced (undefined when a step of the path is missing). */
function withValue(body: Record<string, unknown>, dotted: string, value: string): Record<string, unknown> | undefined {
  const out = structuredClone(body);
  const steps = dotted.split('.');
  let at: Record<string, unknown> = out;
  for (const step of steps.slice(0, -1)) {
    const next = at[step];
    if (!next || typeof next !== 'object' || Array.isArray(next)) return undefined;
    at = next as Record<string, unknown>;
  }
  if (!(steps.at(-1)! in at)) return undefined;
  at[steps.at(-1)!] = value;
  return out;
}

/**
 * Failure rules from the format's short list of payout failure triggers: a payout carrying one trigger that answers
 * another status than a completed payout's (or a failure type) names a rule; the same value with a letter added
 * tells `equals` from `prefix`. Triggers outside the list stay unknown.
 */
async function failureRules(s: Session, facts: Facts, payer: string): Promise<void> {
  const d = s.draft;
  const completed = d.get<string>('statusValues.payout_status.completed');
  const successType = d.get<string>('payout.successFailureType') ?? '';
  const failed = (o: Out) =>
    o.ok && ((!!completed && textAt(o.body, 'status') !== completed) || textAt(o.body, 'failure_type') !== successType);
  const base = s.body('payout', { fee_paid_by: payer });
  const rules: PayoutFailure[] = [];
  const tried: string[] = [];
  for (const trial of PAYOUT_FAILURE_TRIALS) {
    const prefix = trial.value.endsWith('-');
    const sent = prefix ? `${trial.value}${s.orderNo()}` : trial.value;
    const body = withValue(base, trial.field, sent);
    if (!body) continue;
    tried.push(`${trial.field}=${trial.value}`);
    const o = await payout(s, body);
    if (!failed(o)) continue;
    let match: 'equals' | 'prefix' = 'prefix';
    if (!prefix) {
      const longer = await payout(s, withValue(base, trial.field, `${trial.value}X`)!);
      match = failed(longer) ? 'prefix' : 'equals';
    }
    rules.push({
      rule: {
        field: trial.field,
        match,
        value: trial.value,
        failureType: textAt(o.body, 'failure_type'),
        failureReason: textAt(o.body, 'failure_reason'),
      },
      status: textAt(o.body, 'status'),
      evidence: s.evidence(o.x, `${trial.field} ${sent}`),
      request: o.x.request.body as Record<string, unknown>,
    });
  }
  facts.payoutFailures = rules;
  if (rules.length)
    d.set(
      'payout.failureRules',
      rules.map((r) => r.rule),
      `${rules
        .map(
          (r) =>
            `${r.evidence} (${r.rule.match === 'equals' ? `${r.rule.value}X completed` : r.rule.value.endsWith('-') ? 'a prefix with a fresh suffix' : `${r.rule.value}X failed too`})`,
        )
        .join('; ')}; other triggers are the gateway's test data: tried ${tried.join(', ')}`,
    );
  else
    d.unknown(
      'payout.failureRules',
      `no payout failed with a trigger of the format's list (${tried.join(', ')}): a failure rule names a field and a value of the gateway's own test data; list the failing payouts its documentation names`,
      [],
    );
}

export const payoutDiscoverer: Discoverer = {
  id: 'payout',
  decides: [
    'payout.idempotencyKey',
    'payout.replayWithDifferentBody',
    'payout.fee',
    'payout.feePaidBy',
    'payout.currencyConversion',
    'payout.failureRules',
    'payout.successFailureType',
    'payout.successFailureReason',
    'payout.localClearingSystem',
    'statusValues.payout_status.completed',
  ],
  after: ['signature'],
  run,
};
