/**
 * status: 200 for each successful operation at its POST /v1 path; malformed bodies and wrong formats refused (400
 * for the APM payment, the profile's refusal elsewhere) with nothing changed; an unknown APM record answered 404;
 * per-item failures for unknown transactions; no server error for any generated input.
 */
import type { CheckContext, Exchange, Observation, OperationKey } from '../../core/model.js';
import { batchTransition } from '../../core/spec/operations.js';
import { FIELD } from '../fields.js';
import { type Report, defineCheck, stepEntries, onlyWhen, outcomeOf, quoted, succeeded, wrap } from '../findings.js';
import {
  batchItems,
  batchResults,
  expectedCodeMessage,
  itemSucceeded,
  matchesCodeMessage,
  operationOf,
  resultsFor,
  responseObject,
  statusOf,
  statusValues,
} from '../observe.js';
import {
  type ErrorKind,
  checkErrorAnswer,
  checkFollowUp,
  expectRefusal,
  firstItemFailure,
  followUpReason,
  refusalInBody,
  sentBody,
} from './common.js';
import {
  generatedNegative,
  happy,
  malformedBody,
  unknownRecord,
  unknownTransaction,
  wrongFormat,
} from '../probes/basic.js';
import { SpecError } from '../../core/types/errors.js';

export const successAnsweredWith200 = defineCheck({
  id: 'successAnsweredWith200',
  family: 'status',
  probe: happy,
  operations: 'all',
  requirements: ['PAGI-GEN-007'],
  description: 'An operation is answered, a successful one with HTTP 200.',
  verify(o, _ctx, report) {
    if (statusOf(o.main) !== 200)
      report({ code: 'HTTP_STATUS', requirement: 'PAGI-GEN-007', expected: 'HTTP 200', received: outcomeOf(o.main) });
  },
});

export const operationServedAtVersionedPath = defineCheck({
  id: 'operationServedAtVersionedPath',
  family: 'status',
  probe: happy,
  operations: 'all',
  requirements: ['PAGI-GEN-001', 'PAGI-GEN-002'],
  description: 'The operation is served by POST at its /v1 path under the base URL.',
  verify(o, ctx, report) {
    const op = operationOf(ctx.spec, o.operation);
    const url = new URL(o.main.request.url);
    const base = new URL(ctx.config.baseUrl);
    const expectedPath = `${base.pathname.replace(/\/$/, '')}${op.path}`;
    if (o.main.request.method !== op.method.toUpperCase() || url.pathname !== expectedPath) {
      return {
        notApplicable: `the kit sent ${o.main.request.method} ${url.pathname}, not ${op.method.toUpperCase()} ${expectedPath}`,
      };
    }
    const status = statusOf(o.main);
    if (status === undefined || status === 404 || status === 405) {
      report({
        code: 'WRONG_PATH',
        requirement: 'PAGI-GEN-001',
        expected: `POST ${expectedPath} served`,
        received: outcomeOf(o.main),
      });
    }
    if (!/^\/v1\//.test(op.path)) throw new SpecError(`spec: ${o.operation} path ${op.path} is not under /v1`);
  },
});

/**
 * Verify an invalid-input answer: refused (ERR-002) with a 4xx or in a body form the profile declares for the
 * operation; HTTP 400 for the operation listing it (APM-004: any other answer, a 200 included, fails it); the
 * profile's answer (ERR-004).
 */
function verifyInvalid(o: Observation, ctx: CheckContext, report: Report, kind: ErrorKind, what: string): void {
  const op = operationOf(ctx.spec, o.operation);
  if (op.errorStatuses.includes('400') && statusOf(o.main) !== 400) {
    report({
      code: 'HTTP_STATUS',
      requirement: 'PAGI-APM-004',
      expected: `HTTP 400 for ${what}`,
      received: outcomeOf(o.main),
    });
  }
  if (!expectRefusal(report, o.main, 'PAGI-ERR-002', what, { ctx, operation: o.operation })) return;
  checkErrorAnswer(ctx, report, o.main, o.operation, kind, 'PAGI-ERR-004');
}

type ItemFailure = keyof CheckContext['profile']['batch']['itemFailures'];

/**
 * The per-item failure an item with one field in a wrong form gets: the first check of the profile's
 * `batch.checkOrder` the item fails. A wrong form always fails `invalidItem`; a wrong currency is also another currency
 * than the payment's, a wrong amount another amount (where the item's amount is compared), a wrong key field an
 * unknown transaction, so a profile checking those first refuses the item with that failure.
 */
export function expectedItemFailure(ctx: CheckContext, operation: OperationKey, pointer: string): ItemFailure {
  const field = pointer.split('/')[3];
  const op = operationOf(ctx.spec, operation);
  const failed = new Set<string>(['invalidItem']);
  if (field === FIELD.currency) failed.add('currencyMismatch');
  const capture = batchTransition(ctx.spec, operation) === 'capture';
  if (field === FIELD.amount && (!capture || ctx.profile.transitions.capture.itemAmount === 'original'))
    failed.add('amountMismatch');
  if (field !== undefined && (op.echoItems?.key ?? []).includes(field)) failed.add('unknownTransaction');
  return firstItemFailure(ctx, [...failed]) as ItemFailure;
}

/**
 * A wrong format inside a batch item answered with 2xx: the item must be refused on its own with the profile's
 * per-item failure (invalidItem, or the failure of a check the profile's batch.checkOrder runs before it that the
 * item fails too; a whole-request 4xx is the other accepted answer).
 */
function verifyItemRefused(o: Observation, ctx: CheckContext, report: Report, index: number, what: string): void {
  const batch = operationOf(ctx.spec, o.operation).batch!;
  const item = batchItems(ctx.spec, o.operation, sentBody(o.main))[index];
  const results = batchResults(ctx.spec, o.operation, responseObject(o.main, ctx.spec)) ?? [];
  const [result] = item ? resultsFor(ctx.spec, o.operation, results, item) : [];
  const pointer = `/${batch.orders}/${result ? results.indexOf(result) : index}`;
  if (!result || itemSucceeded(ctx, o.operation, result)) {
    report({
      code: 'NOT_REFUSED',
      requirement: 'PAGI-ERR-002',
      pointer,
      expected: `${what} refused (a 4xx, or the item failed)`,
      received: result
        ? `${outcomeOf(o.main)} with the item a success`
        : `${outcomeOf(o.main)} without a result for the item`,
    });
    return;
  }
  const failure = expectedItemFailure(ctx, o.operation, o.facts.mutated!.pointer);
  const expected = ctx.profile.batch.itemFailures[failure];
  if (!matchesCodeMessage(expected, result[batch.message])) {
    report({
      code: 'ERROR_ANSWER',
      requirement: 'PAGI-ERR-004',
      pointer: `${pointer}/${batch.message}`,
      expected: `${expectedCodeMessage(expected)} (the profile's ${failure}${failure === 'invalidItem' ? '' : ', checked before invalidItem in batch.checkOrder'})`,
      received: quoted(result[batch.message]),
    });
  }
}

export const malformedBodyRefused = defineCheck({
  id: 'malformedBodyRefused',
  family: 'status',
  probe: malformedBody,
  operations: 'all',
  requirements: ['PAGI-ERR-002', 'PAGI-APM-004', 'PAGI-ERR-004'],
  description:
    "A malformed body is refused (400 for the APM payment; elsewhere a 4xx or the profile's refusal form), as the profile's malformedBody error.",
  verify(o, ctx, report) {
    verifyInvalid(o, ctx, report, 'malformedBody', 'a malformed body');
  },
});

const hasMutation = onlyWhen(
  (o: Observation) => o.facts.noFormat === undefined,
  (o) => String(o.facts.noFormat),
);

export const wrongFormatRefused = wrap(
  defineCheck({
    id: 'wrongFormatRefused',
    family: 'status',
    probe: wrongFormat,
    operations: 'all',
    requirements: ['PAGI-ERR-002', 'PAGI-APM-004', 'PAGI-ERR-004'],
    description:
      "A value in a form its schema excludes is refused (400 for the APM payment; elsewhere a 4xx or the profile's refusal form), as the profile's invalidInput error.",
    verify(o, ctx, report) {
      const m = o.facts.mutated!;
      const what = `${m.pointer} = ${JSON.stringify(m.value)}`;
      const batch = operationOf(ctx.spec, o.operation).batch;
      if (
        batch &&
        m.pointer.startsWith(`/${batch.orders}/`) &&
        succeeded(o.main) &&
        !refusalInBody(ctx, o.main, o.operation)
      ) {
        verifyItemRefused(o, ctx, report, Number(m.pointer.split('/')[2]), what);
        return;
      }
      verifyInvalid(o, ctx, report, 'invalidInput', what);
    },
  }),
  hasMutation,
);

export const wrongFormatChangesNothing = wrap(
  defineCheck({
    id: 'wrongFormatChangesNothing',
    family: 'status',
    probe: wrongFormat,
    operations: 'all',
    requirements: ['PAGI-ERR-003'],
    description: 'A request refused for a wrong format changes nothing (no payment created, no state moved).',
    verify(o, ctx, report) {
      checkFollowUp(ctx, report, o, 'PAGI-ERR-003');
    },
  }),
  hasMutation,
  onlyWhen(
    (o) => followUpReason(o) === undefined,
    (o) => followUpReason(o)!,
  ),
);

export const apmUnknownRecordIs404 = defineCheck({
  id: 'apmUnknownRecordIs404',
  family: 'status',
  probe: unknownRecord,
  operations: ['authoriseApm'],
  requirements: ['PAGI-APM-005', 'PAGI-APM-007', 'PAGI-ERR-004'],
  description:
    'An APM payment for a record not found (the configured unknown payment method) is answered 404, as the profile says.',
  verify(o, ctx, report) {
    // Which record an APM payment looks up is not shown: an unknown payment_method is a record not found (PAGI-APM-005)
    // only because the profile says so, hence a profile-level finding.
    if (statusOf(o.main) !== 404) {
      report({
        code: 'HTTP_STATUS',
        requirement: 'PAGI-APM-007',
        expected: `HTTP 404 for payment method ${JSON.stringify(ctx.config.paymentMethods.unknown)}`,
        received: outcomeOf(o.main),
      });
      return;
    }
    checkErrorAnswer(ctx, report, o.main, o.operation, 'unknownRecord', 'PAGI-APM-007');
  },
});

export const unknownTransactionItemFails = defineCheck({
  id: 'unknownTransactionItemFails',
  family: 'status',
  probe: unknownTransaction,
  operations: 'batch',
  requirements: ['PAGI-BAT-010', 'PAGI-INV-003', 'PAGI-BAT-008', 'PAGI-ERR-005'],
  description:
    "An item naming an unknown transaction gets a failed result with a non-empty message: the profile's failure value and code.",
  verify(o, ctx, report) {
    const batch = operationOf(ctx.spec, o.operation).batch!;
    const results = batchResults(ctx.spec, o.operation, responseObject(o.main, ctx.spec));
    if (statusOf(o.main) !== 200 || !results) {
      report({
        code: 'ITEM_NOT_ANSWERED',
        requirement: 'PAGI-BAT-010',
        expected: 'a failed result for the unknown transaction',
        received: outcomeOf(o.main),
      });
      return;
    }
    const [result] = results;
    if (!result) {
      report({
        code: 'ITEM_NOT_ANSWERED',
        requirement: 'PAGI-BAT-010',
        pointer: `/${batch.orders}`,
        expected: 'a failed result for the unknown transaction',
        received: 'no result',
      });
      return;
    }
    const at = `/${batch.orders}/0`;
    // The envelope of a batch whose item failed: a success, or the failure value, as the profile says.
    const rs = ctx.profile.statusValues.return_status;
    const envelope = ctx.profile.batch.envelopeOnItemFailure === 'failure' ? rs.failure : rs.success;
    const got = responseObject(o.main, ctx.spec)?.[FIELD.returnStatus];
    if (got !== envelope) {
      report({
        code: 'ENVELOPE_STATUS',
        requirement: 'PAGI-BAT-008',
        pointer: `/${FIELD.returnStatus}`,
        expected: `${FIELD.returnStatus} ${JSON.stringify(envelope)} when an item fails (profile: ${ctx.profile.batch.envelopeOnItemFailure})`,
        received: quoted(got),
      });
    }
    if (itemSucceeded(ctx, o.operation, result)) {
      // A success for a transaction the gateway does not hold reports an operation it cannot have done.
      report({
        code: 'ITEM_STATUS',
        requirement: ['PAGI-BAT-010', 'PAGI-INV-003'],
        pointer: `${at}/${batch.status}`,
        expected: 'a failure for an unknown transaction',
        received: quoted(result[batch.status], 'success '),
      });
    } else if (result[batch.status] !== statusValues(ctx, batch.status).failure) {
      report({
        code: 'ITEM_STATUS',
        requirement: 'PAGI-ERR-005',
        pointer: `${at}/${batch.status}`,
        expected: `the profile's failure value ${JSON.stringify(statusValues(ctx, batch.status).failure)}`,
        received: quoted(result[batch.status]),
      });
    }
    const message = result[batch.message];
    const expected = ctx.profile.batch.itemFailures.unknownTransaction;
    if (typeof message !== 'string' || message === '') {
      report({
        code: 'ITEM_MESSAGE',
        requirement: 'PAGI-BAT-010',
        pointer: `${at}/${batch.message}`,
        expected: `a non-empty ${batch.message}`,
        received: quoted(message),
      });
    } else if (!matchesCodeMessage(expected, message)) {
      report({
        code: 'ITEM_MESSAGE',
        requirement: 'PAGI-BAT-008',
        pointer: `${at}/${batch.message}`,
        expected: expectedCodeMessage(expected),
        received: quoted(message),
      });
    }
  },
});

/** A generated case's description (`facts.cases[i]`) for a message. */
function caseLabel(o: Observation, index: number): string {
  const c = o.facts.cases?.[index];
  return c ? `${c.kind} of ${c.field} (seed ${String(o.facts.seed)}, case ${index + 1})` : `case ${index + 1}`;
}

export const generatedInputNeverServerError = defineCheck({
  id: 'generatedInputNeverServerError',
  family: 'status',
  probe: generatedNegative,
  operations: 'all',
  requirements: ['PAGI-ERR-002', 'PAGI-INV-008'],
  description:
    'No generated negative input (wrong types, odd text, missing or extra fields) gets a server error or no answer.',
  verify(o, _ctx, report) {
    const cases = stepEntries(o)
      .filter(([name]) => /^case[0-9]+$/.test(name))
      .sort(([a], [b]) => a.localeCompare(b));
    cases.forEach(([, exchange]: [string, Exchange], i) => {
      const status = statusOf(exchange);
      if (status === undefined || status >= 500) {
        const c = o.facts.cases?.[i];
        report({
          code: status === undefined ? 'NO_RESPONSE' : 'SERVER_ERROR',
          requirement: status === undefined ? 'PAGI-ERR-002' : ['PAGI-ERR-002', 'PAGI-INV-008'],
          exchange,
          pointer: c ? `/${c.field}` : '',
          expected: `an answer below 500 to ${caseLabel(o, i)}`,
          received: outcomeOf(exchange),
        });
      }
    });
  },
});
