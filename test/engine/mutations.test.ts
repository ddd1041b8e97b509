/**
 * Faults nobody hand-picked (test/support/mutations.ts): from a run through the identity proxy, every field a query
 * record or a refund-search record shares with the answer or the request of the payment it is about (the same value,
 * for the same transaction) is derived as a target; each, changed into another value of the same form in every
 * answer, makes the run fail through the integrity verdict (exit 1). No list of fields is written here: which fields a
 * record shares with its payment is what the gateway's answers show. The test changes two of each list (by position);
 * `npm run bench:mutations` changes every field of every operation's answers and records which are caught.
 */
import { describe, expect, it } from 'vitest';
import { type MutationTarget, observeAnswers, runMutation, targetKey } from '../support/mutations.js';

/** Fields of `op`'s `list` items holding, for some transaction, the value its payment was made or answered with. */
function sharedWithPayment(
  seen: Awaited<ReturnType<typeof observeAnswers>>,
  op: 'retrievalTrans' | 'retrievalRefund',
  list: string,
): MutationTarget[] {
  const payments = new Map<string, Record<string, unknown>>();
  for (const a of seen.answers)
    if (a.operation === 'authoriseDirect' && typeof a.body.transaction_id === 'string')
      payments.set(a.body.transaction_id, { ...a.request, ...a.body });
  const fields = new Set<string>();
  for (const a of seen.answers) {
    if (a.operation !== op || !Array.isArray(a.body[list])) continue;
    for (const record of a.body[list] as Record<string, unknown>[]) {
      const payment = payments.get(String(record.transaction_id));
      if (!payment) continue;
      for (const [field, value] of Object.entries(record))
        if ((typeof value === 'string' && value !== '') || typeof value === 'number')
          if (payment[field] === value && field !== 'transaction_id') fields.add(field);
    }
  }
  return [...fields].sort().map((field) => ({ operation: op, list, field }));
}

describe('one field of the answers changed, derived from what the run saw', () => {
  it('a field a query or refund-search record shares with its payment, changed, fails payment integrity (a sample)', {
    timeout: 900_000,
  }, async () => {
    const seen = await observeAnswers();
    expect(seen.exitCode).toBe(0);
    const query = sharedWithPayment(seen, 'retrievalTrans', 'orders_list');
    const search = sharedWithPayment(seen, 'retrievalRefund', 'refund_orders');
    // The run made payments and found them: the fields shared are there to change (order number, amount, currency…).
    expect(query.map((t) => t.field)).toEqual(expect.arrayContaining(['amount', 'currency', 'order_no']));
    expect(search.map((t) => t.field)).toEqual(expect.arrayContaining(['amount', 'currency', 'order_no']));
    // A fast sample, two of each list taken by position (every one: npm run bench:mutations).
    const sample = [query, search].flatMap((all) => [all[0]!, all[Math.floor(all.length / 2)]!]);
    const outcomes = await Promise.all(sample.map((t) => runMutation(t)));
    const missed = outcomes
      .filter((o) => o.rewrites > 0 && (o.exitCode !== 1 || o.integrity !== 'FAILED'))
      .map((o) => `${o.key}: exit ${o.exitCode}, integrity ${o.integrity}, failed ${o.failed.join(' ') || 'none'}`);
    expect(missed).toEqual([]);
    // Each target was found and changed in the run it was tested in.
    expect(outcomes.filter((o) => o.rewrites === 0).map((o) => o.key)).toEqual([]);
    expect(outcomes.map((o) => o.key)).toEqual(sample.map(targetKey));
  });
});
