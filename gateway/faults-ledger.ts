/**
 * Faults only the run's ledger shows (the integrity family, suites/checks/integrity.ts): each answer or notification
 * is well formed and signed on its own, but contradicts what the gateway answered before in the same run.
 */
import { type DeviationDefinition, type Body, body, list, items, resigned } from './fault-hooks.js';

/** Every digit of an identifier replaced: the same identifier, of the same form, for every thing it is handed to. */
const sameForEvery = (id: unknown): unknown => (typeof id === 'string' ? id.replace(/[0-9]/g, '7') : id);

export const LEDGER_FAULTS: readonly DeviationDefinition[] = [
  {
    kind: 'fault',
    name: 'payout-transaction-id-reused',
    description: 'Every payout, whatever its request_id, is answered with one and the same transaction_id.',
    requirement: 'PAGI-INV-011',
    expectedCheck: 'identifiersNameOneThing',
    reply: body(['payout'], (b, ctx) =>
      resigned('payout', b, { ...b, transaction_id: sameForEvery(b.transaction_id) }, ctx),
    ),
  },
  {
    kind: 'fault',
    name: 'refund-search-phantom-refund',
    description:
      'A refund search lists, beside each accepted refund, a second one of the same amount the gateway never accepted.',
    requirement: 'PAGI-INV-012',
    expectedCheck: 'moneyAgreesWithLedger',
    reply: list(['retrievalRefund'], (all) =>
      all.flatMap((r: Body) =>
        typeof r.refund_reference_id === 'string'
          ? [
              r,
              {
                ...r,
                refund_reference_id: `${String(r.transaction_id)}-99`,
                refund_reference: `${String(r.transaction_id)}-99`,
              },
            ]
          : [r],
      ),
    ),
  },
  {
    kind: 'fault',
    name: 'query-shopper-email-other',
    description: "A query shows each payment with another shopper's e-mail address than the payment was made with.",
    requirement: 'PAGI-INV-016',
    expectedCheck: 'recordsAgreeWithLedger',
    reply: items(['retrievalTrans'], (r) =>
      typeof r.shopper_email === 'string' && r.shopper_email !== ''
        ? { ...r, shopper_email: `other.${r.shopper_email}` }
        : r,
    ),
  },
  {
    kind: 'fault',
    name: 'query-lists-unselected-order',
    description:
      'A query lists, beside each order found, one more of the same shape that the request did not select (another order number and transaction id): an order that is not the asking merchant’s.',
    requirement: 'PAGI-INV-016',
    expectedCheck: 'recordsAgreeWithLedger',
    reply: list(['retrievalTrans'], (all, ctx) =>
      all.flatMap((r: Body) =>
        r.query_result === ctx.profile.statusValues.query_result.found && typeof r.order_no === 'string'
          ? [r, { ...r, order_no: `${r.order_no}X`, transaction_id: `${String(r.transaction_id)}9` }]
          : [r],
      ),
    ),
  },
  {
    kind: 'fault',
    name: 'query-hides-cancel',
    description: 'A query shows a cancelled payment in the state it had before the cancel was accepted.',
    requirement: 'PAGI-INV-014',
    expectedCheck: 'queryShowsAcknowledgedState',
    reply: items(['retrievalTrans'], (r, ctx) => {
      const codes = ctx.profile.statusValues.payment_status as Record<string, string>;
      return r.payment_status === codes.cancelled && codes.authorised ? { ...r, payment_status: codes.authorised } : r;
    }),
  },
  {
    kind: 'fault',
    name: 'notification-amount-differs',
    description: "A payment's notification gives an amount one unit above the amount the payment was answered with.",
    requirement: 'PAGI-INV-015',
    expectedCheck: 'notificationsAgreeWithLedger',
    notification: (n) => {
      const amount = typeof n.body.amount === 'string' ? Number(n.body.amount) : Number.NaN;
      return n.kind === 'payment' && Number.isFinite(amount)
        ? { ...n, body: { ...n.body, amount: (amount + 1).toFixed(2) } }
        : n;
    },
  },
  {
    kind: 'fault',
    name: 'notification-posted-elsewhere',
    description: 'Notifications are posted to another path of the notify_url host than the notify_url given.',
    requirement: 'PAGI-INV-015',
    expectedCheck: 'notificationsAgreeWithLedger',
    notification: (n) => {
      try {
        const url = new URL(n.url);
        url.pathname = `${url.pathname.replace(/\/$/, '')}/elsewhere`;
        return { ...n, url: url.href };
      } catch {
        return n;
      }
    },
  },
];
