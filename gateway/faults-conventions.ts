/** Faults of the conventions family: written forms, echoes, masking, status values. */
import { type Body, type FaultDefinition, body, itemSuccess, items, without } from './fault-hooks.js';

const COMPACT_TIMESTAMP = /^([0-9]{4})([0-9]{2})([0-9]{2})([0-9]{2})([0-9]{2})([0-9]{2})$/;

/** The variants of this file: conventions: written forms, echoes, masking. */
export const CONVENTIONS_FAULTS: readonly FaultDefinition[] = [
  {
    kind: 'fault',
    name: 'batch-amount-three-decimals',
    description: 'Batch results write amount with three decimals (10.360).',
    requirement: 'PAGI-FMT-001',
    expectedCheck: 'fieldFormatsFollowConventions',
    reply: items('batch', (item) => (typeof item.amount === 'string' ? { ...item, amount: `${item.amount}0` } : item)),
  },
  {
    kind: 'fault',
    name: 'direct-currency-lower-case',
    description: 'Direct payment responses write currency in lower case (usd).',
    requirement: 'PAGI-FMT-004',
    expectedCheck: 'fieldFormatsFollowConventions',
    reply: body(['authoriseDirect'], (b) => ({ ...b, currency: String(b.currency).toLowerCase() })),
  },
  {
    kind: 'fault',
    name: 'query-transaction-date-iso',
    description: 'Query records write transaction_date as ISO 8601 (2024-01-31T12:00:00Z) instead of YYYYMMDDHHMMSS.',
    requirement: 'PAGI-FMT-007',
    expectedCheck: 'fieldFormatsFollowConventions',
    reply: items(['retrievalTrans'], (r) => ({
      ...r,
      transaction_date: String(r.transaction_date).replace(COMPACT_TIMESTAMP, '$1-$2-$3T$4:$5:$6Z'),
    })),
  },
  {
    kind: 'fault',
    name: 'payout-timestamps-without-offset',
    description: 'Payout responses write created_at and last_updated_at without a UTC offset.',
    requirement: 'PAGI-FMT-008',
    expectedCheck: 'fieldFormatsFollowConventions',
    reply: body(['payout'], (b) => ({
      ...b,
      created_at: String(b.created_at).replace(/(Z|[+-][0-9]{2}:[0-9]{2})$/, ''),
      last_updated_at: String(b.last_updated_at).replace(/(Z|[+-][0-9]{2}:[0-9]{2})$/, ''),
    })),
  },
  {
    kind: 'fault',
    name: 'refund-message-without-code',
    description: 'Refund results carry refund_message as a bare message, without the <code>: part.',
    requirement: 'PAGI-FMT-012',
    expectedCheck: 'fieldFormatsFollowConventions',
    reply: items(['refund'], (item) => ({
      ...item,
      refund_message: String(item.refund_message).replace(/^[^:]*:/, ''),
    })),
  },
  {
    kind: 'fault',
    name: 'refund-reference-id-one-digit',
    description: 'refund_reference_id numbers refunds with one digit (<transaction_id>-1).',
    requirement: 'PAGI-FMT-013',
    expectedCheck: 'refundReferenceIdExtendsTransactionId',
    reply: items({ requirement: 'PAGI-FMT-013' }, (item) =>
      typeof item.refund_reference_id === 'string'
        ? { ...item, refund_reference_id: item.refund_reference_id.replace(/-0([0-9])$/, '-$1') }
        : item,
    ),
  },
  {
    kind: 'fault',
    name: 'batch-drops-order-no',
    description: 'Capture, review, cancel and refund results leave out the order_no of their request item.',
    requirement: 'PAGI-BAT-002',
    expectedCheck: 'batchResultsEchoRequestIds',
    reply: items('batch', (item) => without(item, 'order_no')),
  },
  {
    kind: 'fault',
    name: 'direct-order-no-prefixed',
    description: 'Direct payment responses echo order_no with the merchant_id in front of it.',
    requirement: 'PAGI-PAY-007',
    expectedCheck: 'responseEchoesRequestFields',
    reply: body(['authoriseDirect'], (b) => ({ ...b, order_no: `${String(b.merchant_id)}-${String(b.order_no)}` })),
  },
  {
    kind: 'fault',
    name: 'apm-amount-not-echoed',
    description: 'APM payment responses answer amount 0.00 instead of the requested amount.',
    requirement: 'PAGI-APM-006',
    expectedCheck: 'responseEchoesRequestFields',
    reply: body(['authoriseApm'], (b) => ({ ...b, amount: '0.00' })),
  },
  {
    kind: 'fault',
    name: 'secret-echoed',
    description: "Every answer carries the merchant's signing key in a response header (a debugging header left on).",
    requirement: 'PAGI-INV-009',
    expectedCheck: 'noSecretInResponse',
    wire: (wire, ctx) =>
      ctx.secrets?.length
        ? { ...wire, headers: { ...wire.headers, 'x-debug-signing-key': ctx.secrets.join(',') } }
        : wire,
  },
  {
    kind: 'fault',
    name: 'card-unmasked',
    description: 'Direct payment responses carry the full card number in card.',
    requirement: 'PAGI-INV-010',
    expectedCheck: 'noFullCardNumberInResponse',
    switches: { unmaskedCard: true },
  },
  {
    kind: 'fault',
    name: 'three-ds-result-missing',
    description: 'A direct payment asking for 3-D Secure (open3d) gets no threeds_result.',
    requirement: 'PAGI-PAY-004',
    expectedCheck: 'paymentReturnsRequestedResults',
    reply: body(['authoriseDirect'], (b) => without(b, 'threeds_result')),
  },
  {
    kind: 'fault',
    name: 'query-subscription-result-flattened',
    description:
      'Query records spread the subscription result fields over the record instead of a subscription_result object.',
    requirement: 'PAGI-QRY-004',
    expectedCheck: 'queryReturnsRequestedResults',
    reply: items(['retrievalTrans'], (r) =>
      r.subscription_result && typeof r.subscription_result === 'object'
        ? { ...without(r, 'subscription_result'), ...(r.subscription_result as Body) }
        : r,
    ),
  },
  {
    kind: 'fault',
    name: 'direct-order-status-text',
    description: 'An approved direct payment answers order_status APPROVED instead of 1.',
    requirement: 'PAGI-PAY-008',
    expectedCheck: 'paymentApprovedPerProfile',
    reply: body(['authoriseDirect'], (b, ctx) =>
      b.order_status === ctx.profile.statusValues.order_status.approved ? { ...b, order_status: 'APPROVED' } : b,
    ),
  },
  {
    kind: 'fault',
    name: 'payout-status-success',
    description: 'A completed payout answers status SUCCESS instead of COMPLETED.',
    requirement: 'PAGI-PO-006',
    expectedCheck: 'payoutCompletedWithShownStatus',
    reply: body(['payout'], (b, ctx) =>
      b.status === ctx.profile.statusValues.payout_status.completed ? { ...b, status: 'SUCCESS' } : b,
    ),
  },
  {
    kind: 'fault',
    name: 'envelope-message-success',
    description: 'Accepted batches, queries and refund searches answer return_message Success instead of OK.',
    requirement: 'PAGI-BAT-005',
    expectedCheck: 'envelopeReturnsOk',
    reply: (reply, ctx) =>
      (ctx.op?.batch || ctx.op?.selectionLimit) &&
      reply.kind === 'json' &&
      !ctx.errorKind &&
      reply.body.return_message === ctx.profile.statusValues.return_status.successMessage
        ? { ...reply, body: { ...reply.body, return_message: 'Success' } }
        : reply,
  },
  {
    kind: 'fault',
    name: 'capture-success-message-ok',
    description: 'Successful capture results carry error_message OK instead of an empty string.',
    requirement: 'PAGI-BAT-007',
    expectedCheck: 'batchItemsSucceedWithShownValues',
    reply: items(['capture'], (item, ctx) =>
      item.capture_status === itemSuccess(ctx) ? { ...item, error_message: 'OK' } : item,
    ),
  },
];
