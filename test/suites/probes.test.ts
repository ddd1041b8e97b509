/**
 * Probes against a scripted ProbeClient: inconclusive on set-up failures and rate limits (never failed), state
 * plans from the profile's transitions, reproducible negative cases, free-text fields and the shopper's submission.
 * The probes' requests against a real gateway are exercised by gateway.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { CheckoutFormModel, Exchange, OperationKey, ProbeClient } from '../../core/model.js';
import { declinedPayment, freeTextFields, generatedNegative, happy, injection } from '../../suites/probes/basic.js';
import { notified } from '../../suites/probes/events.js';
import { defineProbe, planTo, SetupFailed, shopperSubmission } from '../../suites/probes/support.js';
import { bodies, context, exchange, happyExchange, profile } from './fixtures.js';

/** A client answering every request with `answer`, recording what was sent. */
function scripted(
  answer: (op: OperationKey, body: Record<string, unknown>) => Exchange,
): ProbeClient & { sent: Record<string, unknown>[] } {
  let n = 0;
  const sent: Record<string, unknown>[] = [];
  return {
    sent,
    orderNo: () => `FX-${++n}`,
    sample: (op, overrides = {}) => {
      const body: Record<string, unknown> = { ...bodies(op).request, order_no: `FX-${++n}` };
      for (const [k, v] of Object.entries(overrides))
        if (v === undefined) delete body[k];
        else body[k] = v;
      return body;
    },
    send: async (op, body) => {
      sent.push(body);
      return answer(op, body);
    },
    notifications: async () => [],
  };
}

describe('probe outcomes', () => {
  it('a failed set-up makes the observation inconclusive with the set-up exchange, not a failure', async () => {
    const client = scripted((op) => exchange(op, { status: 400, json: { return_status: '0' } }));
    const o = await happy.run('capture', client, context());
    expect(o.inconclusive).toMatch(/set-up step prepare failed: no transaction_id/);
    expect(o.main.operation).toBe('authoriseDirect');
  });

  it('a 429 anywhere makes it inconclusive; a refused notification (the kit answering 503) does not', async () => {
    const limited = await happy.run(
      'payout',
      scripted((op) => exchange(op, { status: 429 })),
      context(),
    );
    expect(limited.inconclusive).toMatch(/rate-limited or unavailable: step payout was answered HTTP 429/);
    const probe = defineProbe('t', ['payout'], { notification: 'a notification' }, async (op, client, _ctx, steps) => {
      steps.add('notification', { ...exchange('external', { status: 503 }), incoming: true });
      return steps.add(op, await client.send(op, {}));
    });
    expect(
      (
        await probe.run(
          'payout',
          scripted((op) => exchange(op, { json: {} })),
          context(),
        )
      ).inconclusive,
    ).toBeUndefined();
  });

  it('without a notification URL the events probes are inconclusive with that reason', async () => {
    const o = await notified.run(
      'authoriseDirect',
      scripted((op) => happyExchange(op)),
      context({ config: { notifyUrl: undefined } }),
    );
    expect(o.inconclusive).toMatch(/no public notification URL/);
    expect(o.main.id).toMatch(/not-sent/);
  });

  it('without a decline test card a declined payment comes from a decline rule; with no rule either it is inconclusive', async () => {
    const answered = () => happyExchange('authoriseDirect');
    const noCard = context({
      config: { cards: { approve: '4111111111111111' } },
      profile: (p) => {
        p.payments.testCards.decline = [];
        p.payments.declineRules = [{ shopperEmailDomain: 'fraud.example' }, { amount: '66.66' }];
      },
    });
    const client = scripted(answered);
    const o = await declinedPayment.run('authoriseDirect', client, noCard);
    expect(o.inconclusive).toBeUndefined();
    expect(client.sent.slice(0, 3).map((b) => [b.shopper_email, b.amount])).toEqual([
      ['decline-probe@fraud.example', expect.any(String)],
      ['decline-probe@fraud.example', expect.any(String)],
      [expect.any(String), '66.66'],
    ]);
    const none = context({
      config: { cards: { approve: '4111111111111111' } },
      profile: (p) => {
        p.payments.testCards.decline = [];
        p.payments.declineRules = [];
      },
    });
    const inconclusive = await declinedPayment.run('authoriseDirect', scripted(answered), none);
    expect(inconclusive.inconclusive).toMatch(/no decline card in the configuration and no decline rule/);
  });

  it('SetupFailed carries the step and the exchange', () => {
    const x = exchange('capture');
    const e = new SetupFailed('capture', x, 'why');
    expect([e.step, e.exchange, e.message]).toEqual(['capture', x, 'set-up step capture failed: why']);
  });
});

describe('state plans from the profile', () => {
  const ctx = context();
  it('lead a new payment to each state through the profile transitions', () => {
    const kinds = (s: string) => planTo(ctx, s)?.map((a) => ('outcome' in a ? `authorise:${a.outcome}` : a.kind));
    expect(kinds('authorised')).toEqual(['authorise:approved']);
    expect(kinds('captured')).toEqual(['authorise:approved', 'capture']);
    expect(kinds('partiallyRefunded')).toEqual(['authorise:approved', 'capture', 'refundPartial']);
    expect(kinds('pendingReview')).toEqual(['authorise:pendingReview']);
    expect(kinds('cancelled')).toEqual(['authorise:approved', 'cancel']);
    expect(kinds('nowhere')).toBeUndefined();
  });
});

describe('generated negative cases', () => {
  const run = async (seed: number) => {
    const client = scripted((op) => exchange(op, { status: 400, json: {} }));
    const o = await generatedNegative.run('refund', client, context({ config: { seed, negativeCases: 5 } }));
    return { cases: o.facts.cases, sent: client.sent.map((b) => JSON.stringify(b).replace(/FX-[0-9]+/g, 'FX')) };
  };

  it('are bounded and reproducible from the seed', async () => {
    const a = await run(11);
    expect(a.cases).toHaveLength(5);
    expect(await run(11)).toEqual(a);
    expect((await run(12)).cases).not.toEqual(a.cases);
  });
});

describe('free text and the shopper', () => {
  const ctx = context();
  it('free-text fields are plain strings that are not identity, echo, signature or excluded-form fields', () => {
    const direct = freeTextFields(ctx, 'authoriseDirect', bodies('authoriseDirect').request);
    expect(direct).toContain('note');
    for (const f of ['order_no', 'amount', 'currency', 'merchant_id', 'card', 'encryption_data'])
      expect(direct).not.toContain(f);
    expect(freeTextFields(ctx, 'checkout', bodies('checkout').request)).toEqual(
      expect.arrayContaining(['note', 'custom', 'first_name']),
    );
  });

  it('the injection probe appends the markup to every free-text field', async () => {
    const client = scripted((op) => happyExchange(op));
    const o = await injection.run('checkout', client, ctx);
    const injected = o.facts.injected as Record<string, string>;
    expect(injected.note).toMatch(/<\/note><x>$|"><script>alert\(1\)<\/script>$/);
    expect(client.sent[0]).toMatchObject(injected);
  });

  it('a shopper fills the empty card inputs of a page and presses its first button', () => {
    const card = profile.fields.card;
    const form: CheckoutFormModel = {
      forms: 1,
      method: 'POST',
      action: '/pay/x',
      autoSubmit: false,
      autoSubmitBy: 'none',
      inputs: { [card.number]: '', [card.securityCode]: '', token: 'kept' },
      inputTypes: {},
      inputOrder: [],
      buttons: [
        { name: 'action', value: 'pay' },
        { name: 'action', value: 'decline' },
      ],
    };
    const client = scripted((op) => exchange(op));
    client.sample = (op) =>
      op === 'authoriseDirect' ? { [card.number]: '4111111111111111', [card.securityCode]: '123' } : {};
    expect(shopperSubmission(client, ctx, form)).toEqual({
      [card.number]: '4111111111111111',
      [card.securityCode]: '123',
      token: 'kept',
      action: 'pay',
    });
    expect(shopperSubmission(client, ctx, { ...form, autoSubmit: true, inputs: { a: '1' } })).toEqual({ a: '1' });
  });
});
