/**
 * limits: each batch operation accepts exactly its limit with every item answered; the limit plus one is not
 * processed in full (must) and is answered as the profile says (profile): refused as a whole with nothing processed
 * and its over-limit error, or only its first orders up to the limit processed (`limits.overLimit.refuseWhole`); an
 * empty batch gets no server error; query and refund search at and over their limit.
 */
import type { CheckContext, Observation } from '../../core/model.js';
import { FIELD } from '../fields.js';
import { type Report, defineCheck, onlyWhen, outcomeOf, quote, succeeded, wrap } from '../findings.js';
import {
  batchResults,
  envelopeSucceeded,
  isObject,
  operationOf,
  queryRecords,
  responseObject,
  stateOfCode,
  statusOf,
} from '../observe.js';
import { checkErrorAnswer } from './common.js';
import { batchAccepted, checkItemsAnswered } from './conventions.js';
import { atLimit, emptyBatch, overLimit, selectionAtLimit, selectionOverLimit } from '../probes/limits.js';
import { SpecError } from '../../core/types/errors.js';

const LIMIT_REQUIREMENTS = ['PAGI-LIM-003', 'PAGI-LIM-004', 'PAGI-LIM-005', 'PAGI-LIM-006'];
const SELECTION_LIMIT_REQUIREMENTS = ['PAGI-LIM-001', 'PAGI-LIM-002'];

/** The requirement the operation's limit constraint carries (`maxItems` of its order array). */
function limitRequirement(ctx: CheckContext, o: Observation): string {
  const op = operationOf(ctx.spec, o.operation);
  const id = op.batch?.limitRequirement ?? op.selectionLimit?.requirement;
  if (!id) throw new SpecError(`spec: ${o.operation} has no limit requirement`);
  return id;
}

export const batchAtLimitAccepted = defineCheck({
  id: 'batchAtLimitAccepted',
  family: 'limits',
  probe: atLimit,
  operations: 'batch',
  requirements: [...LIMIT_REQUIREMENTS, 'PAGI-BAT-002', 'PAGI-INV-006', 'PAGI-INV-007'],
  description: 'A batch of exactly the limit is accepted and every item is answered, once.',
  verify(o, ctx, report) {
    const requirement = limitRequirement(ctx, o);
    const body = responseObject(o.main, ctx.spec);
    if (!succeeded(o.main) || !envelopeSucceeded(ctx, body)) {
      report({
        code: 'LIMIT_NOT_ACCEPTED',
        requirement,
        expected: `${o.facts.count} items (the limit) accepted`,
        received: `${outcomeOf(o.main)}, ${FIELD.returnStatus} ${quote(ctx, body?.[FIELD.returnStatus])}`,
      });
      return;
    }
    checkItemsAnswered(ctx, report, o.main, o.operation, { fields: false, answerRequirement: requirement });
  },
});

/** The follow-up query record of a prepared payment (`facts.first` / `facts.last`), if shown. */
function followUpRecord(ctx: CheckContext, o: Observation, which: 'first' | 'last') {
  const fact = o.facts[which];
  const [record] = queryRecords(ctx, responseObject(o.steps.followUp, ctx.spec), {
    [FIELD.transactionId]: fact?.[FIELD.transactionId],
  });
  return { fact, record };
}

/** Report a prepared payment of the over-limit batch whose state moved. Returns whether it moved. */
function reportMoved(
  ctx: CheckContext,
  o: Observation,
  report: Report,
  which: 'first' | 'last',
  requirement: string,
  code: 'LIMIT_EXCEEDED' | 'STATE_CHANGED',
): boolean {
  const { fact, record } = followUpRecord(ctx, o, which);
  const expected = o.facts.expectedCode;
  if (!record || expected === undefined || record[FIELD.paymentStatus] === expected) return false;
  report({
    code,
    requirement,
    exchange: o.steps.followUp,
    expected: `the ${which} item's payment ${String(fact?.[FIELD.transactionId])} still ${String(o.facts.state)} (${String(expected)})`,
    received: `${FIELD.paymentStatus} ${quote(ctx, record[FIELD.paymentStatus])} (${stateOfCode(ctx, record[FIELD.paymentStatus]) ?? 'unknown state'})`,
  });
  return true;
}

export const batchOverLimitNotProcessedInFull = defineCheck({
  id: 'batchOverLimitNotProcessedInFull',
  family: 'limits',
  probe: overLimit,
  operations: 'batch',
  requirements: [...LIMIT_REQUIREMENTS, 'PAGI-BAT-002', 'PAGI-INV-006', 'PAGI-INV-007'],
  description:
    'A batch of the limit plus one is not processed in full: its last item is neither answered nor applied; accepted, every item still gets exactly one result (none silently dropped).',
  verify(o, ctx, report) {
    const requirement = limitRequirement(ctx, o);
    const results = batchResults(ctx.spec, o.operation, responseObject(o.main, ctx.spec)) ?? [];
    const count = Number(o.facts.count);
    if (succeeded(o.main) && results.length >= count) {
      report({
        code: 'LIMIT_EXCEEDED',
        requirement,
        expected: `at most ${count - 1} items processed`,
        received: `${results.length} results for ${count} items`,
      });
    }
    reportMoved(ctx, o, report, 'last', requirement, 'LIMIT_EXCEEDED');
    // Whatever the profile says of over-limit batches, one it accepted answers every item: a dropped one is lost.
    if (batchAccepted(ctx, o.main, o.operation))
      checkItemsAnswered(ctx, report, o.main, o.operation, { fields: false });
  },
});

/** The profile refuses a request over its limit as a whole (`limits.overLimit.refuseWhole`); else it processes the first orders. */
const refusesWhole = onlyWhen(
  (_o, ctx) => ctx.profile.limits.overLimit.refuseWhole,
  'the profile processes the first orders of a request over its limit (limits.overLimit.refuseWhole: false); batchOverLimitAnsweredPerProfile judges that',
);

export const batchOverLimitRefusedWhole = wrap(
  defineCheck({
    id: 'batchOverLimitRefusedWhole',
    family: 'limits',
    probe: overLimit,
    operations: 'batch',
    requirements: ['PAGI-LIM-007'],
    description:
      'A batch over the limit is refused as a whole, with nothing processed (checked by a follow-up query), where the profile says so.',
    verify(o, ctx, report) {
      const body = responseObject(o.main, ctx.spec);
      if (succeeded(o.main) && envelopeSucceeded(ctx, body)) {
        report({
          code: 'LIMIT_NOT_REFUSED',
          requirement: 'PAGI-LIM-007',
          expected: 'the whole request refused (the profile: limits.overLimit.refuseWhole)',
          received: `${outcomeOf(o.main)} with ${FIELD.returnStatus} ${quote(ctx, body?.[FIELD.returnStatus])}`,
        });
      }
      if (!o.steps.followUp) return;
      reportMoved(ctx, o, report, 'first', 'PAGI-LIM-007', 'STATE_CHANGED');
      reportMoved(ctx, o, report, 'last', 'PAGI-LIM-007', 'STATE_CHANGED');
    },
  }),
  refusesWhole,
);

export const batchOverLimitAnsweredPerProfile = defineCheck({
  id: 'batchOverLimitAnsweredPerProfile',
  family: 'limits',
  probe: overLimit,
  operations: 'batch',
  requirements: ['PAGI-LIM-008', 'PAGI-ERR-004'],
  description:
    'A batch over the limit is answered as the profile says: its over-limit error, or only the first items processed.',
  verify(o, ctx, report) {
    if (ctx.profile.limits.overLimit.refuseWhole) {
      checkErrorAnswer(ctx, report, o.main, o.operation, 'overLimit', 'PAGI-LIM-008');
      return;
    }
    const results = batchResults(ctx.spec, o.operation, responseObject(o.main, ctx.spec)) ?? [];
    const limit = operationOf(ctx.spec, o.operation).batch!.maxItems;
    if (!succeeded(o.main) || results.length !== limit) {
      report({
        code: 'ERROR_ANSWER',
        requirement: 'PAGI-LIM-008',
        expected: `the first ${limit} items processed (profile)`,
        received: `${outcomeOf(o.main)} with ${results.length} results`,
      });
    }
  },
});

export const emptyBatchNoServerError = defineCheck({
  id: 'emptyBatchNoServerError',
  family: 'limits',
  probe: emptyBatch,
  operations: 'batch',
  requirements: ['PAGI-ERR-002', 'PAGI-INV-008'],
  description: 'A batch with no orders is answered without a server error.',
  verify(o, _ctx, report) {
    const status = statusOf(o.main);
    if (status === undefined || status >= 500) {
      report({
        code: status === undefined ? 'NO_RESPONSE' : 'SERVER_ERROR',
        requirement: status === undefined ? 'PAGI-ERR-002' : 'PAGI-INV-008',
        expected: 'an answer below 500 to an empty batch',
        received: outcomeOf(o.main),
      });
    }
  },
});

/** Records a query or refund search answered with. */
function selectedRecords(ctx: CheckContext, o: Observation): Record<string, unknown>[] {
  const body = responseObject(o.main, ctx.spec);
  if (o.operation === 'retrievalTrans') return queryRecords(ctx, body, {});
  const list = body?.[FIELD.refundOrders];
  return Array.isArray(list) ? list.filter(isObject) : [];
}

/** Whether the answer shows a prepared record (`facts.first` / `facts.last`). */
function shows(ctx: CheckContext, o: Observation, which: 'first' | 'last'): boolean {
  const fact = o.facts[which];
  return selectedRecords(ctx, o).some((r) => r[FIELD.transactionId] === fact?.[FIELD.transactionId]);
}

export const selectionAtLimitAccepted = defineCheck({
  id: 'selectionAtLimitAccepted',
  family: 'limits',
  probe: selectionAtLimit,
  operations: 'selecting',
  requirements: SELECTION_LIMIT_REQUIREMENTS,
  description:
    "A query or refund search selecting exactly the limit of orders (profile's selection fields) is answered and shows the record.",
  verify(o, ctx, report) {
    const requirement = limitRequirement(ctx, o);
    const body = responseObject(o.main, ctx.spec);
    if (!succeeded(o.main) || !envelopeSucceeded(ctx, body)) {
      report({
        code: 'LIMIT_NOT_ACCEPTED',
        requirement,
        expected: `${o.facts.count} selected orders (the limit) answered`,
        received: `${outcomeOf(o.main)}, ${FIELD.returnStatus} ${quote(ctx, body?.[FIELD.returnStatus])}`,
      });
    } else if (!shows(ctx, o, 'first')) {
      report({
        code: 'RECORD_NOT_FOUND',
        requirement,
        expected: 'the selected real record among the results',
        received: `${selectedRecords(ctx, o).length} records without it`,
      });
    }
  },
});

export const selectionOverLimitNotServed = defineCheck({
  id: 'selectionOverLimitNotServed',
  family: 'limits',
  probe: selectionOverLimit,
  operations: 'selecting',
  requirements: SELECTION_LIMIT_REQUIREMENTS,
  description: 'A query or refund search selecting the limit plus one orders does not cover them all.',
  verify(o, ctx, report) {
    if (!succeeded(o.main)) return;
    const requirement = limitRequirement(ctx, o);
    const limit = operationOf(ctx.spec, o.operation).selectionLimit!.maxOrders;
    const records = selectedRecords(ctx, o);
    if (records.length > limit || shows(ctx, o, 'last')) {
      report({
        code: 'LIMIT_EXCEEDED',
        requirement,
        expected: `at most ${limit} orders covered`,
        received: `${records.length} records, the ${Number(o.facts.count)}th selected order among them: ${shows(ctx, o, 'last')}`,
      });
    }
  },
});

export const selectionOverLimitRefused = defineCheck({
  id: 'selectionOverLimitRefused',
  family: 'limits',
  probe: selectionOverLimit,
  operations: 'selecting',
  requirements: ['PAGI-LIM-008', 'PAGI-ERR-004'],
  description:
    "A query or refund search over the limit (counted in the profile's selection fields) is answered as the profile says: refused as a whole with its over-limit error, or its first orders up to the limit answered.",
  verify(o, ctx, report) {
    const body = responseObject(o.main, ctx.spec);
    // A request of 101 orders exists only through the profile's selection fields: a profile-level finding.
    if (!ctx.profile.limits.overLimit.refuseWhole) {
      const limit = operationOf(ctx.spec, o.operation).selectionLimit!.maxOrders;
      if (!succeeded(o.main) || !envelopeSucceeded(ctx, body) || !shows(ctx, o, 'first')) {
        report({
          code: 'ERROR_ANSWER',
          requirement: 'PAGI-LIM-008',
          expected: `the first ${limit} selected orders answered, the first record among them (profile: limits.overLimit.refuseWhole false)`,
          received: `${outcomeOf(o.main)} with ${FIELD.returnStatus} ${quote(ctx, body?.[FIELD.returnStatus])} and ${selectedRecords(ctx, o).length} records${shows(ctx, o, 'first') ? '' : ', not the first'}`,
        });
      }
      return;
    }
    if (succeeded(o.main) && envelopeSucceeded(ctx, body)) {
      report({
        code: 'LIMIT_NOT_REFUSED',
        requirement: 'PAGI-LIM-008',
        expected: 'the whole request refused',
        received: `${outcomeOf(o.main)} with ${selectedRecords(ctx, o).length} records`,
      });
      return;
    }
    if (ctx.profile.limits.overLimit.refuseWhole)
      checkErrorAnswer(ctx, report, o.main, o.operation, 'overLimit', 'PAGI-LIM-008');
  },
});
