/** Cases of the deep family: the probe's kept failures (a generated case, its exchange, follow-up and ledger) judged again. */
import type { Exchange, Observation, ObservationFacts, OperationKey } from '../../../core/model.js';
import type { DeepCase, DeepFailure } from '../../../suites/facts.js';
import { type FollowUp, responseObject } from '../../../suites/observe.js';
import { batchExchange, errorExchange, happyExchange, item } from '../fixtures.js';
import { type Case, fail, pass } from './types.js';
import { type MoneyBook, bookAccepted, openBook } from '../../../suites/money.js';
import type { BatchTransition } from '../../../core/spec/terms.js';

const VALID: DeepCase = { kind: 'valid', fields: { note: 'x' } };
const BROKEN: DeepCase = { kind: 'format', pointer: '/currency', value: '1.2.3', rule: 'PAGI-FMT-003' };
const TAMPERED: DeepCase = { kind: 'signature', pointer: '/currency', value: 'EUR', rule: 'PAGI-AUTH-006' };
const COUNTS = { valid: 10, accepted: 9, declined: 1, invalid: 10, refused: 10, followUps: 1 };

/** What the probe keeps after booking one accepted item of `cents` on `book`: the book when a rule broke. */
function booked(transition: BatchTransition, book: MoneyBook, cents: number): { ledger?: DeepFailure['ledger'] } {
  const breach = bookAccepted(book, transition, cents);
  return breach ? { ledger: { ...book, breach } } : {};
}

/** A deep observation keeping one failure of `checkId` (or none) with its exchange and extras. */
function kept(
  op: OperationKey,
  checkId: string | undefined,
  c: DeepCase,
  x: Exchange,
  extra: { followUp?: Exchange; followUpFact?: FollowUp; ledger?: DeepFailure['ledger'] } = {},
): Observation {
  const steps: Record<string, Exchange> = { [op]: x };
  const facts: ObservationFacts = { counts: COUNTS, depth: 10, seed: 1, failures: [] };
  if (checkId) {
    const step = `fail:${checkId}`;
    steps[step] = x;
    if (extra.followUp) {
      steps[`${step}:followUp`] = extra.followUp;
      facts[`${step}:followUp`] = extra.followUpFact;
    }
    facts.failures = [
      {
        checkId,
        case: c,
        seed: 1,
        path: '3:0',
        step,
        failing: 2,
        ...(extra.ledger ? { ledger: extra.ledger } : {}),
      } satisfies DeepFailure,
    ];
  }
  return { probeId: 'deep', operation: op, main: x, steps, facts };
}

function withStatus(x: Exchange, status: number): Exchange {
  return { ...x, response: { ...x.response!, status } };
}

function queriedOrder(): string {
  const list = responseObject(happyExchange('retrievalTrans'))?.orders_list as Record<string, unknown>[];
  return String(list[0]!.order_no);
}

export const DEEP_CASES: Case[] = [
  pass('deepCasesGenerated', 'PAGI-ERR-002', 'counts only', 'payout', () =>
    kept('payout', undefined, VALID, happyExchange('payout')),
  ),
  {
    ...pass('deepCasesGenerated', 'PAGI-ERR-002', 'counts reported', 'capture', () =>
      kept('capture', undefined, VALID, happyExchange('capture')),
    ),
    expect: { codes: ['DEEP_SUMMARY'], info: true },
  },
  pass('deepNeverServerError', 'PAGI-ERR-002', 'no failure kept', 'authoriseDirect', () =>
    kept('authoriseDirect', undefined, VALID, happyExchange('authoriseDirect')),
  ),
  fail(
    'deepNeverServerError',
    'PAGI-ERR-002',
    'a generated request answered 500',
    'authoriseDirect',
    () => kept('authoriseDirect', 'deepNeverServerError', VALID, withStatus(happyExchange('authoriseDirect'), 500)),
    ['SERVER_ERROR'],
  ),
  pass('deepAnswersConform', 'PAGI-FMT-001', 'documented answer', 'authoriseDirect', () =>
    kept('authoriseDirect', 'deepAnswersConform', VALID, happyExchange('authoriseDirect')),
  ),
  fail(
    'deepAnswersConform',
    'PAGI-FMT-001',
    'amount without decimals',
    'authoriseDirect',
    () =>
      kept(
        'authoriseDirect',
        'deepAnswersConform',
        VALID,
        happyExchange('authoriseDirect', (b) => (b.response.amount = '112')),
      ),
    ['FIELD_FORMAT'],
  ),
  pass('deepValidRequestAccepted', 'PAGI-ERR-004', 'accepted', 'payout', () =>
    kept('payout', 'deepValidRequestAccepted', VALID, happyExchange('payout')),
  ),
  fail(
    'deepValidRequestAccepted',
    'PAGI-ERR-004',
    'refused as invalid input',
    'payout',
    () => kept('payout', 'deepValidRequestAccepted', VALID, errorExchange('payout', 'invalidInput')),
    ['REQUEST_REFUSED'],
  ),
  pass('deepInvalidRequestRefused', 'PAGI-ERR-002', "refused with the profile's invalidInput", 'authoriseDirect', () =>
    kept('authoriseDirect', 'deepInvalidRequestRefused', BROKEN, errorExchange('authoriseDirect', 'invalidInput')),
  ),
  fail(
    'deepInvalidRequestRefused',
    'PAGI-AUTH-006',
    'currency changed after signing, accepted',
    'authoriseDirect',
    () => kept('authoriseDirect', 'deepInvalidRequestRefused', TAMPERED, happyExchange('authoriseDirect')),
    ['NOT_REFUSED'],
  ),
  pass('deepInvalidChangesNothing', 'PAGI-ERR-003', 'follow-up finds no payment', 'checkout', () =>
    kept('checkout', 'deepInvalidChangesNothing', BROKEN, errorExchange('checkout', 'invalidInput'), {
      followUp: happyExchange('retrievalTrans'),
      followUpFact: { kind: 'absent', orderNo: 'NO-SUCH-ORDER' },
    }),
  ),
  fail(
    'deepInvalidChangesNothing',
    'PAGI-ERR-003',
    'follow-up finds the refused payment',
    'checkout',
    () =>
      kept('checkout', 'deepInvalidChangesNothing', BROKEN, errorExchange('checkout', 'invalidInput'), {
        followUp: happyExchange('retrievalTrans'),
        followUpFact: { kind: 'absent', orderNo: queriedOrder() },
      }),
    ['STATE_CHANGED'],
  ),
  pass('deepLifecycleInvariants', 'PAGI-INV-001', 'refunds within the capture', 'refund', () =>
    kept(
      'refund',
      'deepLifecycleInvariants',
      VALID,
      batchExchange('refund', [item('TX', 'OX', { refund_amount: '5.00' })]),
      booked('refund', openBook('TX', 1036, { captured: true }), 500),
    ),
  ),
  fail(
    'deepLifecycleInvariants',
    'PAGI-INV-001',
    'refunded above the capture',
    'refund',
    () =>
      kept(
        'refund',
        'deepLifecycleInvariants',
        VALID,
        batchExchange('refund', [item('TX', 'OX', { refund_amount: '9.00' })]),
        booked('refund', { ...openBook('TX', 1036, { captured: true }), refundedCents: 500 }, 900),
      ),
    ['TRANSITION_ALLOWED'],
  ),
  fail(
    'deepLifecycleInvariants',
    'PAGI-INV-002',
    'captured above the authorisation',
    'capture',
    () =>
      kept(
        'capture',
        'deepLifecycleInvariants',
        VALID,
        batchExchange('capture', [item('TX', 'OX', { amount: '10.37' })]),
        booked('capture', openBook('TX', 1036), 1037),
      ),
    ['TRANSITION_ALLOWED'],
  ),
];
