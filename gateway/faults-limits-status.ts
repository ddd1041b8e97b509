/** Faults of the limits family (too strict, too loose, truncating) and of the status family (status codes). */
import { succeeded, type FaultDefinition, itemSuccess, items, listOf } from './fault-hooks.js';

/** The variants of this file: limits: too strict, too loose, truncating. */
export const LIMITS_FAULTS: readonly FaultDefinition[] = [
  {
    kind: 'fault',
    name: 'batch-limit-too-strict',
    description:
      'Batch operations refuse a request holding exactly their documented number of orders (limit one lower).',
    requirement: 'PAGI-LIM-004',
    expectedCheck: 'batchAtLimitAccepted',
    switches: { batchLimitDelta: -1 },
  },
  {
    kind: 'fault',
    name: 'query-limit-too-loose',
    description:
      'Query and refund search serve one order more than their documented limit (orders named in the profile’s selection fields).',
    requirement: 'PAGI-LIM-001',
    expectedCheck: 'selectionOverLimitNotServed',
    switches: { selectionLimitDelta: 1 },
  },
  {
    kind: 'fault',
    name: 'over-limit-silently-truncated',
    description:
      'Over-limit requests are answered with success after processing only the first orders (the profile refuses them whole).',
    requirement: 'PAGI-LIM-007',
    expectedCheck: 'batchOverLimitRefusedWhole',
    switches: { truncateOverLimit: true },
  },
  {
    kind: 'fault',
    name: 'empty-batch-500',
    description: 'A batch request with no orders is answered with HTTP 500.',
    requirement: 'PAGI-INV-008',
    expectedCheck: 'emptyBatchNoServerError',
    reply: (reply, ctx) => (listOf(reply, ctx, 'batch')?.list.length === 0 ? { ...reply, status: 500 } : reply),
  },
];

/** The variants of this file: status codes. */
export const STATUS_FAULTS: readonly FaultDefinition[] = [
  {
    kind: 'fault',
    name: 'payout-answered-201',
    description: 'A successful payout is answered with HTTP 201 instead of 200.',
    requirement: 'PAGI-GEN-007',
    expectedCheck: 'successAnsweredWith200',
    reply: (reply, ctx) => (succeeded(ctx, ['payout']) ? { ...reply, status: 201 } : reply),
  },
  {
    kind: 'fault',
    name: 'refund-search-unversioned-path',
    description: 'The refund search is served at its path without the /v1 prefix.',
    requirement: 'PAGI-GEN-001',
    expectedCheck: 'operationServedAtVersionedPath',
    switches: { unversionedPaths: 'batchResultSearch' },
  },
  {
    kind: 'fault',
    name: 'malformed-body-500',
    description: 'A malformed request body is answered with HTTP 500 instead of a 4xx.',
    requirement: 'PAGI-ERR-002',
    expectedCheck: 'malformedBodyRefused',
    reply: (reply, ctx) => (ctx.errorKind === 'malformedBody' ? { ...reply, status: 500 } : reply),
  },
  {
    kind: 'fault',
    name: 'invalid-input-accepted',
    description: 'Requests breaking their schema (a wrong format, a wrong type) are accepted and processed.',
    requirement: 'PAGI-ERR-002',
    expectedCheck: 'wrongFormatRefused',
    switches: { skipSchemaValidation: true },
  },
  {
    kind: 'fault',
    name: 'apm-unknown-method-400',
    description:
      'An APM payment for a payment_method the gateway does not offer (a record not found, as the profile says) is answered 400 instead of 404.',
    requirement: 'PAGI-APM-007',
    expectedCheck: 'apmUnknownRecordIs404',
    reply: (reply, ctx) =>
      reply.kind === 'xml' && ctx.errorKind === 'unknownRecord' && ctx.op?.key === 'authoriseApm'
        ? { ...reply, status: 400 }
        : reply,
  },
  {
    kind: 'fault',
    name: 'unknown-transaction-item-succeeds',
    description: 'Batch items naming an unknown transaction are answered as successes.',
    requirement: 'PAGI-BAT-010',
    expectedCheck: 'unknownTransactionItemFails',
    reply: items('batch', (item, ctx) => {
      const batch = ctx.op!.batch!;
      const failure = ctx.profile.batch.itemFailures.unknownTransaction;
      return item[batch.message] === `${failure.code}:${failure.message}`
        ? { ...item, [batch.status]: itemSuccess(ctx), [batch.message]: ctx.profile.batch.itemSuccess.errorMessage }
        : item;
    }),
  },
];
