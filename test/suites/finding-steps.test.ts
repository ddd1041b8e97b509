/**
 * A finding resting on several exchanges lists them as steps to replay: in the order the kit sent them (the failing
 * one first in its arguments, the set-up after it, out of order), each naming the identifiers it takes from an
 * earlier step's answer, never an echo of what the earlier request sent itself.
 */
import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../core/model.js';
import { findingSteps } from '../../suites/finding-steps.js';
import { makeFinding } from '../../suites/findings.js';
import { context } from './fixtures.js';

let clock = 0;
/** An exchange of client `w1` numbered `n`, sending `body`, answered `answer` (JSON). */
function exchange(operation: string, n: number, body: Record<string, unknown>, answer: unknown): Exchange {
  const url = `http://127.0.0.1:9/v1/${operation}`;
  return {
    id: `${operation}#w1.${n}`,
    operation: operation as Exchange['operation'],
    request: { method: 'POST', url, headers: {}, body, bodyText: JSON.stringify(body), encoding: 'json' },
    response: {
      status: 200,
      headers: {},
      bodyText: JSON.stringify(answer),
      truncated: false,
      decoded: { kind: 'json', value: answer },
    },
    startedAt: new Date(Date.UTC(2026, 11, 1, 0, 0, 0, 100 - clock++)).toISOString(), // clocks need not agree
    durationMs: 1,
    evidence: { request: { method: 'POST', url, headers: {}, body: '' }, curl: `curl ${url}` },
  };
}

const payment = exchange(
  'authorise',
  3,
  { merchant_id: 'M1', order_no: 'O-1' },
  {
    merchant_id: 'M1',
    order_no: 'O-1',
    transaction_id: 'T20261201000001',
  },
);
const capture = exchange(
  'capture',
  5,
  { capture_orders: [{ transaction_id: 'T20261201000001', amount: '10.00' }] },
  {
    capture_orders: [{ transaction_id: 'T20261201000001', capture_status: '1' }],
  },
);
const refund = exchange(
  'refund',
  12,
  { refund_orders: [{ transaction_id: 'T20261201000001', amount: '99.00' }] },
  {
    refund_orders: [{ transaction_id: 'T20261201000001', refund_reference_id: 'T20261201000001-1' }],
  },
);
const query = exchange(
  'retrievalRefund',
  14,
  { transaction_id: 'T20261201000001' },
  {
    refund_orders: [{ refund_reference_id: 'T20261201000001-1' }],
  },
);

describe('the steps of a finding', () => {
  it('are in the order sent, whatever order the check names them in', () => {
    expect(findingSteps([refund, query, capture, payment]).map((s) => s.exchangeId)).toEqual([
      'authorise#w1.3',
      'capture#w1.5',
      'refund#w1.12',
      'retrievalRefund#w1.14',
    ]);
  });

  it('name the identifiers a step takes from an earlier answer: from the step that produced them, not an echo', () => {
    const [first, second, third, fourth] = findingSteps([refund, query, capture, payment]);
    expect(first!.uses).toBeUndefined(); // merchant_id and order_no were sent, not produced
    const fromPayment = { value: 'T20261201000001', from: 'authorise#w1.3', fromField: '/transaction_id' };
    expect(second!.uses).toEqual([{ field: '/capture_orders/0/transaction_id', ...fromPayment }]);
    expect(third!.uses).toEqual([{ field: '/refund_orders/0/transaction_id', ...fromPayment }]);
    expect(fourth!.uses).toEqual([{ field: '/transaction_id', ...fromPayment }]);
  });
});

describe('makeFinding on several exchanges', () => {
  it('lists them in the order sent: the failing refund last, after the payment and capture it rests on', () => {
    const f = makeFinding(context(), 'overRefundRefused', 'refund', {
      code: 'TRANSITION_ALLOWED',
      requirement: 'PAGI-INV-001',
      expected: 'the refund refused',
      received: 'success',
      exchange: refund,
      also: [query, payment, capture],
    });
    expect(f.location.exchangeId).toBe('refund#w1.12');
    expect(f.exchanges!.map((x) => [x.exchangeId, x.uses?.length ?? 0])).toEqual([
      ['authorise#w1.3', 0],
      ['capture#w1.5', 1],
      ['refund#w1.12', 1],
      ['retrievalRefund#w1.14', 1],
    ]);
  });
});
