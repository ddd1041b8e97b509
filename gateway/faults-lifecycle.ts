/** Faults of the lifecycle family (transitions, queries after them, payouts, the issuer page) and of the events family. */
import { succeeded, type FaultDefinition, body, items, list } from './fault-hooks.js';

/** The variants of this file: lifecycle. */
export const LIFECYCLE_FAULTS: readonly FaultDefinition[] = [
  {
    kind: 'fault',
    name: 'refund-exceeds-capture',
    description: 'Refunds are accepted beyond the captured amount.',
    requirement: 'PAGI-INV-001',
    expectedCheck: 'overRefundRefused',
    switches: { skipRefundBound: true },
  },
  {
    kind: 'fault',
    name: 'partial-refund-refused',
    description:
      'A refund of less than the payment amount is refused as invalid input: no payment is refunded in part.',
    requirement: 'PAGI-REF-003',
    expectedCheck: 'partialRefundsSucceedTwice',
    refuse: (op, b) => {
      const orders = op === 'refund' ? b.refund_orders : undefined;
      const partial =
        Array.isArray(orders) &&
        orders.some((o: unknown) => {
          const item = o as Record<string, unknown> | null;
          return !!item && Number(item.refund_amount) < Number(item.amount);
        });
      return partial ? 'partial refunds are not supported' : undefined;
    },
  },
  {
    kind: 'fault',
    name: 'over-capture-allowed',
    description: 'A capture may take more than the authorised amount (the profile’s transitions refuse it).',
    requirement: 'PAGI-INV-002',
    expectedCheck: 'overCaptureRefused',
    switches: { skipCaptureBound: true },
  },
  {
    kind: 'fault',
    name: 'capture-after-cancel',
    description: 'A cancelled payment can still be captured (the profile’s transitions refuse it).',
    requirement: 'PAGI-CNL-002',
    expectedCheck: 'cancelledPaymentNotCapturable',
    switches: { captureCancelled: true },
  },
  {
    kind: 'fault',
    name: 'query-ignores-captures',
    description: 'The query still shows a captured payment as authorised (out of sync with captures).',
    requirement: 'PAGI-QRY-007',
    expectedCheck: 'queryShowsStatusAfterTransitions',
    reply: items(['retrievalTrans'], (r, ctx) => {
      const codes = ctx.profile.statusValues.payment_status;
      return r.payment_status === codes.captured ? { ...r, payment_status: codes.authorised } : r;
    }),
  },
  {
    kind: 'fault',
    name: 'query-amount-in-cents',
    description: 'Query records show the amount in minor units (1036 for 10.36), not as the payment was made.',
    requirement: 'PAGI-INV-004',
    expectedCheck: 'queryShowsAuthorisedPayment',
    reply: items(['retrievalTrans'], (r) =>
      typeof r.amount === 'string' ? { ...r, amount: r.amount.replace('.', '') } : r,
    ),
  },
  {
    kind: 'fault',
    name: 'refund-search-first-refund-only',
    description: 'Refund search shows only the first refund of each transaction.',
    requirement: 'PAGI-INV-005',
    expectedCheck: 'refundSearchShowsEveryRefund',
    reply: list('batchResultSearch', (all) =>
      all.filter((r, i) => all.findIndex((o) => o.transaction_id === r.transaction_id) === i),
    ),
  },
  {
    kind: 'fault',
    name: 'payout-failure-without-reason',
    description: 'A failed payout carries an empty failure_reason.',
    requirement: 'PAGI-PO-005',
    expectedCheck: 'payoutFailureReported',
    reply: body(['payout'], (b, ctx) =>
      b.status === ctx.profile.statusValues.payout_status.failed ? { ...b, failure_reason: '' } : b,
    ),
  },
  {
    kind: 'fault',
    name: 'issuer-page-not-found',
    description: 'The issuer_url of an APM payment answers 404 when the merchant requests it.',
    requirement: 'PAGI-APM-003',
    expectedCheck: 'issuerUrlRequestable',
    reply: (reply, ctx) =>
      reply.kind === 'html' && succeeded(ctx, ['authoriseApm'])
        ? { kind: 'html', status: 404, page: { title: 'Not found', autoSubmit: false, paragraphs: [] } }
        : reply,
  },
];

/** The variants of this file: events. */
export const EVENTS_FAULTS: readonly FaultDefinition[] = [
  {
    kind: 'fault',
    name: 'notification-never-sent',
    description: 'No payment or payout result is ever sent to notify_url.',
    requirement: 'PAGI-EVT-001',
    expectedCheck: 'notificationDelivered',
    switches: { suppressNotifications: true },
  },
  {
    kind: 'fault',
    name: 'notification-unsigned',
    description: 'Notifications carry no encryption_data (the profile signs them as responses).',
    requirement: 'PAGI-EVT-002',
    expectedCheck: 'notificationFollowsProfile',
    switches: { unsignedNotifications: true },
  },
];
