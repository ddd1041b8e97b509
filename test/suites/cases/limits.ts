/** Cases of the limits family. */
import type { Exchange, Observation } from '../../../core/model.js';
import {
  batchExchange,
  errorExchange,
  exchange,
  item,
  observation,
  orderRecord,
  queryExchange,
  spec,
} from '../fixtures.js';
import { type Case, fail, pass } from './types.js';

export type BatchOp = 'capture' | 'review' | 'cancel' | 'refund';

const limit = (op: BatchOp) => spec.operations.get(op)!.batch!.maxItems;
const items = (n: number) => Array.from({ length: n }, (_, i) => item(`T${i + 1}`, `O${i + 1}`));

/** An at-limit observation: a batch of exactly the limit answered by `answer`. */
function atLimit(op: BatchOp, answer: (all: Record<string, unknown>[]) => Exchange): Observation {
  const main = answer(items(limit(op)));
  return observation('atLimit', op, main, { [op]: main }, { count: limit(op) });
}

export const FIRST = { transaction_id: 'T1', order_no: 'O1', amount: '10.36', currency: 'USD' };
const LAST = { transaction_id: 'T2', order_no: 'O2', amount: '10.36', currency: 'USD' };

/** An over-limit observation: the answer and a follow-up showing both prepared payments in the given states. */
function overLimit(op: BatchOp, main: Exchange, first = 'authorised', last = 'authorised'): Observation {
  const followUp = queryExchange([orderRecord(FIRST, first), orderRecord(LAST, last)]);
  return observation(
    'overLimit',
    op,
    main,
    { [op]: main, followUp },
    { count: limit(op) + 1, first: FIRST, last: LAST, state: 'authorised', expectedCode: '3000' },
  );
}

/** A selection observation (at or over the limit) answered by `main`. */
function selection(
  probe: string,
  op: 'retrievalTrans' | 'retrievalRefund',
  main: Exchange,
  count: number,
): Observation {
  return observation(probe, op, main, { [op]: main }, { field: 'transaction_id', count, first: FIRST, last: LAST });
}

const refundItem = (t: Record<string, unknown>) => ({
  transaction_id: t.transaction_id,
  order_no: t.order_no,
  amount: '10.36',
  currency: 'USD',
  refund_amount: '5.00',
  refund_status: '1',
  refund_reference_id: `${String(t.transaction_id)}-01`,
});
const refundSearch = (list: Record<string, unknown>[], status = 200) =>
  exchange('retrievalRefund', {
    status,
    json: {
      merchant_id: 'M10001',
      account_id: 'A20001',
      return_status: '1',
      return_message: 'OK',
      encryption_data: 'a'.repeat(64),
      refund_orders: list,
    },
  });

export const LIMITS_CASES: Case[] = [
  pass('batchAtLimitAccepted', 'PAGI-LIM-004', '50 captures answered', 'capture', () =>
    atLimit('capture', (all) => batchExchange('capture', all)),
  ),
  fail(
    'batchAtLimitAccepted',
    'PAGI-LIM-003',
    '100 reviews refused',
    'review',
    () =>
      atLimit('review', (all) =>
        errorExchange('review', 'overLimit', { merchant_id: 'M10001', account_id: 'A20001', review_orders: all }),
      ),
    ['LIMIT_NOT_ACCEPTED'],
  ),
  fail(
    'batchAtLimitAccepted',
    'PAGI-LIM-006',
    'one refund not answered',
    'refund',
    () =>
      atLimit('refund', (all) => {
        const x = batchExchange('refund', all);
        (x.response!.decoded as { value: { refund_orders: unknown[] } }).value.refund_orders.pop();
        return x;
      }),
    ['ITEM_NOT_ANSWERED'],
  ),
  pass('batchOverLimitNotProcessedInFull', 'PAGI-LIM-005', 'refused, nothing moved', 'cancel', () =>
    overLimit('cancel', errorExchange('cancel', 'overLimit')),
  ),
  fail(
    'batchOverLimitNotProcessedInFull',
    'PAGI-LIM-004',
    'all 51 answered',
    'capture',
    () => overLimit('capture', batchExchange('capture', items(51))),
    ['LIMIT_EXCEEDED'],
  ),
  fail(
    'batchOverLimitNotProcessedInFull',
    'PAGI-LIM-004',
    'the last payment captured',
    'capture',
    () => overLimit('capture', errorExchange('capture', 'overLimit'), 'authorised', 'captured'),
    ['LIMIT_EXCEEDED'],
  ),
  pass('batchOverLimitRefusedWhole', 'PAGI-LIM-007', 'refused, nothing moved', 'capture', () =>
    overLimit('capture', errorExchange('capture', 'overLimit')),
  ),
  fail(
    'batchOverLimitRefusedWhole',
    'PAGI-LIM-007',
    'the first 50 processed',
    'capture',
    () => overLimit('capture', batchExchange('capture', items(50)), 'captured'),
    ['LIMIT_NOT_REFUSED', 'STATE_CHANGED'],
  ),
  pass('batchOverLimitAnsweredPerProfile', 'PAGI-LIM-008', "the profile's overLimit answer", 'refund', () =>
    overLimit('refund', errorExchange('refund', 'overLimit', { merchant_id: 'M10001', account_id: 'A20001' })),
  ),
  fail(
    'batchOverLimitAnsweredPerProfile',
    'PAGI-LIM-008',
    'another status',
    'refund',
    () => overLimit('refund', exchange('refund', { status: 413, json: {} })),
    ['ERROR_ANSWER'],
  ),
  fail(
    'batchOverLimitAnsweredPerProfile',
    'PAGI-LIM-008',
    'another message',
    'review',
    () =>
      overLimit(
        'review',
        exchange('review', {
          status: 400,
          json: { merchant_id: '', account_id: '', return_status: '0', return_message: '1002:Invalid input' },
        }),
      ),
    ['ERROR_ANSWER'],
  ),
  pass('emptyBatchNoServerError', 'PAGI-INV-008', 'refused with 400', 'capture', () =>
    observation('empty', 'capture', errorExchange('capture', 'invalidInput')),
  ),
  fail(
    'emptyBatchNoServerError',
    'PAGI-INV-008',
    'answered 500',
    'cancel',
    () => observation('empty', 'cancel', exchange('cancel', { status: 500, bodyText: 'oops' })),
    ['SERVER_ERROR'],
  ),
  fail(
    'emptyBatchNoServerError',
    'PAGI-ERR-002',
    'connection reset',
    'review',
    () => observation('empty', 'review', exchange('review', { error: { kind: 'network', message: 'ECONNRESET' } })),
    ['NO_RESPONSE'],
  ),
  pass('selectionAtLimitAccepted', 'PAGI-LIM-001', '100 selected, record shown', 'retrievalTrans', () =>
    selection('selectionAtLimit', 'retrievalTrans', queryExchange([orderRecord(FIRST, 'authorised')]), 100),
  ),
  fail(
    'selectionAtLimitAccepted',
    'PAGI-LIM-002',
    '100 refused',
    'retrievalRefund',
    () => selection('selectionAtLimit', 'retrievalRefund', errorExchange('retrievalRefund', 'overLimit'), 100),
    ['LIMIT_NOT_ACCEPTED'],
  ),
  fail(
    'selectionAtLimitAccepted',
    'PAGI-LIM-001',
    'record missing',
    'retrievalTrans',
    () => selection('selectionAtLimit', 'retrievalTrans', queryExchange([]), 100),
    ['RECORD_NOT_FOUND'],
  ),
  pass('selectionOverLimitNotServed', 'PAGI-LIM-002', 'refused', 'retrievalRefund', () =>
    selection('selectionOverLimit', 'retrievalRefund', errorExchange('retrievalRefund', 'overLimit'), 101),
  ),
  fail(
    'selectionOverLimitNotServed',
    'PAGI-LIM-002',
    'the 101st order served',
    'retrievalRefund',
    () => selection('selectionOverLimit', 'retrievalRefund', refundSearch([refundItem(FIRST), refundItem(LAST)]), 101),
    ['LIMIT_EXCEEDED'],
  ),
  pass('selectionOverLimitRefused', 'PAGI-LIM-008', "the profile's overLimit answer", 'retrievalTrans', () =>
    selection(
      'selectionOverLimit',
      'retrievalTrans',
      errorExchange('retrievalTrans', 'overLimit', { merchant_id: 'M10001', account_id: 'A20001' }),
      101,
    ),
  ),
  fail(
    'selectionOverLimitRefused',
    'PAGI-LIM-008',
    'answered as a success',
    'retrievalTrans',
    () => selection('selectionOverLimit', 'retrievalTrans', queryExchange([orderRecord(FIRST, 'authorised')]), 101),
    ['LIMIT_NOT_REFUSED'],
  ),
  fail(
    'selectionOverLimitRefused',
    'PAGI-LIM-008',
    'refused with another status',
    'retrievalTrans',
    () => selection('selectionOverLimit', 'retrievalTrans', exchange('retrievalTrans', { status: 422, json: {} }), 101),
    ['ERROR_ANSWER'],
  ),
];
