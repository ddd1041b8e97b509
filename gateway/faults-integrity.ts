/**
 * Faults that break payment integrity, one per family of the catalogue's invariants (spec/requirements.yaml,
 * PAGI-INV-*): money (a refused operation reported as done), identity (a result of an accepted batch dropped),
 * availability (a server error), secrecy (the card's security code echoed). Each must fail the self-test's run
 * through the integrity verdict, whatever the document's levels say.
 */
import { covers } from '../core/spec/operations.js';
import { type DeviationDefinition, body, items, list, succeeded } from './fault-hooks.js';

export const INTEGRITY_FAULTS: readonly DeviationDefinition[] = [
  {
    kind: 'fault',
    name: 'refused-item-reported-done',
    description:
      'Batch items the gateway refused (and did not carry out) are answered as successes: a capture of a transaction it does not hold reported captured.',
    requirement: 'PAGI-INV-003',
    expectedCheck: 'unknownTransactionItemFails',
    reply: items('batch', (item, ctx) => {
      const batch = ctx.op?.batch;
      if (!batch) return item;
      const values = (ctx.profile.statusValues as unknown as Record<string, { success: string; failure: string }>)[
        batch.status
      ];
      if (!values || item[batch.status] !== values.failure) return item;
      const ok = ctx.profile.batch.itemSuccess;
      const message =
        batch.messageOnSuccess === 'codeMessage'
          ? `${ok.refundMessage.code}:${ok.refundMessage.message}`
          : ok.errorMessage;
      return { ...item, [batch.status]: values.success, [batch.message]: message };
    }),
  },
  {
    kind: 'fault',
    name: 'batch-drops-last-result',
    description:
      'A batch of several orders is carried out in full but answered without the result of its last order: the order vanishes from the answer.',
    requirement: 'PAGI-INV-007',
    expectedCheck: 'batchResultsEchoRequestIds',
    reply: list('batch', (all) => (all.length > 1 ? all.slice(0, -1) : all)),
  },
  {
    kind: 'fault',
    name: 'refund-search-500',
    description: 'Every refund search, valid or not, is answered HTTP 500.',
    requirement: 'PAGI-INV-008',
    expectedCheck: 'generatedInputNeverServerError',
    wire: (wire, ctx) =>
      ctx.op && covers(ctx.spec, 'batchResultSearch', ctx.op.key)
        ? {
            status: 500,
            headers: { 'content-type': 'application/json; charset=utf-8' },
            body: '{"error":"internal error"}',
          }
        : wire,
  },
  {
    kind: 'fault',
    name: 'security-code-echoed',
    description: "The direct payment's answer carries the card's security code the request sent.",
    requirement: 'PAGI-INV-010',
    expectedCheck: 'noFullCardNumberInResponse',
    reply: body(['authoriseDirect'], (b, ctx) => {
      const field = ctx.profile.fields.card.securityCode;
      const sent = ctx.request?.[field];
      return succeeded(ctx, ['authoriseDirect']) && typeof sent === 'string' ? { ...b, [field]: sent } : b;
    }),
  },
];
