/**
 * conventions: written forms of values (amounts, currencies, countries, timestamps, `<code>:<message>`, signatures),
 * echoes of the request, batch answers item by item, envelope and item success values, refund reference ids, card
 * masking, and the 3-D Secure, anti-fraud and subscription results the request asked for.
 */
import type { CheckContext, Exchange, Observation, OperationKey } from '../../core/model.js';
import { FIELD } from '../fields.js';
import { type Report, defineCheck, onlyOnSuccess, onlyWhen, quote, quoted, wrap } from '../findings.js';
import {
  batchItems,
  batchResults,
  envelopeSucceeded,
  expectedCodeMessage,
  isObject,
  objectsIn,
  matchesCodeMessage,
  operationOf,
  queryRecords,
  responseObject,
  sameValue,
  statusValues,
  text,
} from '../observe.js';
import { echoExcepted, echoNormalisation, pairedLeaves, sameNormalised } from '../../core/spec/echo.js';
import { shownValues } from '../../core/spec/schema-walk.js';
import { refusalInBody, requirementFor, sentBody } from './common.js';
import { inputText } from './media.js';
import { RESPONSE_FORMAT_REQUIREMENTS, reportResponseViolations } from './shape.js';
import { happy } from '../probes/basic.js';
import type { SelectingOperation } from '../../core/profile/operations.js';

const notDecodable = { notApplicable: 'the body could not be decoded; responseBodyFormat reports it' };

export const fieldFormatsFollowConventions = onlyOnSuccess(
  defineCheck({
    id: 'fieldFormatsFollowConventions',
    family: 'conventions',
    probe: happy,
    operations: 'all',
    requirements: RESPONSE_FORMAT_REQUIREMENTS,
    description:
      'Amounts, currencies, countries, timestamps, <code>:<message> values, URLs and signatures have their documented forms.',
    verify(o, ctx, report) {
      if (!reportResponseViolations(o, ctx, report, 'format')) return notDecodable;
    },
  }),
);

/** What a response says for a field: the body's field, or for a checkout page the form input of that name. */
function answered(ctx: CheckContext, exchange: Exchange, operation: OperationKey): Record<string, unknown> | undefined {
  const body = responseObject(exchange, ctx.spec);
  return operationOf(ctx.spec, operation).checkoutForm ? (body?.inputs as Record<string, unknown> | undefined) : body;
}

export const responseEchoesRequestFields = onlyOnSuccess(
  defineCheck({
    id: 'responseEchoesRequestFields',
    family: 'conventions',
    probe: happy,
    operations: 'all',
    requirements: ['PAGI-GEN-005', 'PAGI-PAY-007', 'PAGI-APM-006', 'PAGI-INV-006'],
    description:
      'Response fields the spec says echo the request (merchant_id, account_id, order_no, amount, currency) are equal to it; another value names another merchant, order or amount.',
    verify(o, ctx, report) {
      const response = answered(ctx, o.main, o.operation);
      if (!response) return notDecodable;
      const sent = sentBody(o.main);
      for (const rule of operationOf(ctx.spec, o.operation).echo) {
        for (const field of rule.fields) {
          if (sent[field] === undefined) continue;
          const want = inputText(sent[field]);
          if (response[field] !== want) {
            // Left out or written otherwise (`10.0`, `usd`): the document's rule; another value: another merchant's or order's.
            const differs = rule.integrity && given(response[field]) && !sameValue(field, response[field], want);
            report({
              code: 'ECHO_MISMATCH',
              requirement: differs ? [rule.requirement, rule.integrity!] : rule.requirement,
              pointer: `/${field}`,
              expected: `${field} as sent (${quote(ctx, sent[field])})`,
              received: quoted(response[field]),
            });
          }
        }
      }
    },
  }),
);

export const payoutEchoesRequest = onlyOnSuccess(
  defineCheck({
    id: 'payoutEchoesRequest',
    family: 'conventions',
    probe: happy,
    operations: ['payout'],
    requirements: ['PAGI-PO-002', 'PAGI-INV-006'],
    description:
      'The payout response echoes every request field unchanged (or as the profile says it normalises it), but for those the spec excepts; another merchant, request id, amount or currency is an integrity failure.',
    verify(o, ctx, report) {
      const rule = operationOf(ctx.spec, o.operation).echoDeep;
      if (!rule) return { notApplicable: 'the spec gives the operation no deep echo rule' };
      const response = responseObject(o.main, ctx.spec);
      if (!response) return notDecodable;
      const sent = sentBody(o.main);
      // Read once, before the walk: the profile's setting applies whether or not a field differs.
      const rules = ctx.profile.responseFields?.echoNormalised;
      for (const { pointer, value: expected, other: got } of pairedLeaves(sent, response)) {
        if (got === expected || echoExcepted(rule.except, pointer)) continue;
        const normalised = echoNormalisation(rules, pointer);
        if (!(normalised && sameNormalised(normalised, expected, got))) {
          const how = normalised ? ` (compared ${normalised}, as the profile says)` : '';
          const field = pointer.split('/').pop() ?? '';
          const differs = rule.integrity?.fields.includes(pointer) && given(got) && !sameValue(field, got, expected);
          report({
            code: 'ECHO_MISMATCH',
            requirement: differs ? [rule.requirement, rule.integrity!.requirement] : rule.requirement,
            pointer,
            expected: `the request's value ${quote(ctx, expected)}${how}`,
            received: quoted(got),
          });
        }
      }
    },
  }),
);

/** Whether a value is given (not absent, not empty). */
function given(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

/**
 * Whether a batch answer was accepted: a 2xx that is no refusal in the profile's body form and that either holds
 * results or says the envelope succeeded. A batch refused as a whole owes its items no result.
 */
export function batchAccepted(ctx: CheckContext, exchange: Exchange, operation: OperationKey): boolean {
  const status = exchange.response?.status ?? 0;
  if (status < 200 || status >= 300 || refusalInBody(ctx, exchange, operation)) return false;
  const body = responseObject(exchange, ctx.spec);
  return (batchResults(ctx.spec, operation, body)?.length ?? 0) > 0 || envelopeSucceeded(ctx, body);
}

/** What `checkItemsAnswered` reports besides how items are answered. */
export interface ItemsAnsweredOptions {
  /** Compare the echoed item fields (amount, currency, …) too. */
  fields: boolean;
  /** A document requirement an item left unanswered also breaks (the limit a batch at its limit is processed within). */
  answerRequirement?: string;
}

/**
 * Report how a batch answers its request items. Each result answers the item it shares the most key fields with
 * (transaction_id, order_no); a key field it leaves out breaks the document's rule, another value in it names
 * another transaction or order (an integrity failure). In an accepted batch every item gets exactly one result
 * (none dropped, none answered twice); a result sharing no key field with any item answers nothing asked. With
 * `fields`, every echoed field (amount, currency, refund_reason, review_flag: those the item and result share) is
 * compared: another value (not another writing of the same amount or currency) is an integrity failure. Returns the number of items answered.
 */
export function checkItemsAnswered(
  ctx: CheckContext,
  report: Report,
  exchange: Exchange,
  operation: OperationKey,
  options: ItemsAnsweredOptions,
): number {
  const op = operationOf(ctx.spec, operation);
  const rule = op.echoItems;
  const items = batchItems(ctx.spec, operation, sentBody(exchange));
  const results = batchResults(ctx.spec, operation, responseObject(exchange, ctx.spec)) ?? [];
  const key = rule?.key ?? [FIELD.transactionId, FIELD.orderNo];
  const orders = op.batch?.orders ?? '';
  const idRequirement = rule?.requirement ?? 'PAGI-BAT-002';
  const other = (documentRule: string) => (rule?.integrity ? [documentRule, rule.integrity] : documentRule);
  const answerRule = (id: string) => [...(options.answerRequirement ? [options.answerRequirement] : []), id];
  // The item each result answers: the one it shares the most key fields with (the first among equals).
  const owner = results.map((r) => {
    let best = -1;
    let shared = 0;
    items.forEach((item, i) => {
      const n = key.filter((k) => given(r[k]) && r[k] === item[k]).length;
      if (n > shared) [best, shared] = [i, n];
    });
    return best;
  });
  const accepted = batchAccepted(ctx, exchange, operation);
  let answeredCount = 0;
  items.forEach((item, i) => {
    const mine = results.filter((_, at) => owner[at] === i);
    const label = key.map((k) => `${k} ${String(item[k])}`).join(', ');
    if (mine.length === 0) {
      if (accepted)
        report({
          code: 'ITEM_NOT_ANSWERED',
          requirement: answerRule('PAGI-INV-007'),
          exchange,
          pointer: `/${orders}`,
          expected: `one result for item ${i + 1} (${label}) of the accepted batch`,
          received: `none among ${results.length} result(s) for ${items.length} item(s)`,
        });
      return;
    }
    answeredCount++;
    if (mine.length > 1) {
      report({
        code: 'ITEM_ANSWERED_TWICE',
        requirement: 'PAGI-INV-007',
        exchange,
        pointer: `/${orders}`,
        expected: `one result for item ${i + 1} (${label})`,
        received: `${mine.length} results`,
      });
    }
    const result = mine[0]!;
    const at = results.indexOf(result);
    for (const k of key) {
      if (result[k] === item[k] || item[k] === undefined) continue;
      report({
        code: 'ECHO_MISMATCH',
        requirement: given(result[k]) ? other(idRequirement) : idRequirement,
        exchange,
        pointer: `/${orders}/${at}/${k}`,
        expected: `${k} of item ${i + 1} (${quote(ctx, item[k])})`,
        received: quoted(result[k]),
      });
    }
    if (!options.fields) return;
    for (const field of rule?.fields ?? []) {
      if (item[field] === undefined || result[field] === item[field]) continue;
      // Another value (not another writing of the same amount or currency) answers another item than the one sent:
      // another payment's money, another reason, a review settled the other way.
      const differs = given(result[field]) && !sameValue(field, result[field], item[field]);
      report({
        code: 'ECHO_MISMATCH',
        requirement: differs ? other(rule!.fieldsRequirement) : rule!.fieldsRequirement,
        exchange,
        pointer: `/${orders}/${at}/${field}`,
        expected: `${field} as in item ${i + 1} (${quote(ctx, item[field])})`,
        received: quoted(result[field]),
      });
    }
  });
  results.forEach((result, at) => {
    if (owner[at] !== -1) return;
    report({
      code: 'UNREQUESTED_RESULT',
      // A result naming a transaction or order no item named is another payment's; one naming none only breaks the rule.
      requirement: key.some((k) => given(result[k])) ? other(idRequirement) : idRequirement,
      exchange,
      pointer: `/${orders}/${at}`,
      expected: `results carrying the ${key.join(' and ')} of a request item`,
      received: key.map((k) => `${k} ${quote(ctx, result[k])}`).join(', '),
    });
  });
  return answeredCount;
}

export const batchResultsEchoRequestIds = onlyOnSuccess(
  defineCheck({
    id: 'batchResultsEchoRequestIds',
    family: 'conventions',
    probe: happy,
    operations: 'batch',
    requirements: ['PAGI-BAT-002', 'PAGI-BAT-009', 'PAGI-INV-006', 'PAGI-INV-007'],
    description:
      'Every request item of an accepted batch is answered by exactly one result carrying its transaction_id and order_no (any order), with its amount and currency.',
    verify(o, ctx, report) {
      if (!batchResults(ctx.spec, o.operation, responseObject(o.main, ctx.spec)))
        return { notApplicable: 'the answer holds no result array; responseMatchesSchema reports it' };
      checkItemsAnswered(ctx, report, o.main, o.operation, { fields: true });
    },
  }),
);

export const batchItemsSucceedWithShownValues = onlyOnSuccess(
  defineCheck({
    id: 'batchItemsSucceedWithShownValues',
    family: 'conventions',
    probe: happy,
    operations: 'batch',
    requirements: ['PAGI-BAT-006', 'PAGI-BAT-007', 'PAGI-ST-002'],
    description: 'A successful item has status 1 and an empty error_message (refund: the profile’s <code>:<message>).',
    verify(o, ctx, report) {
      const op = operationOf(ctx.spec, o.operation);
      const batch = op.batch!;
      const results = batchResults(ctx.spec, o.operation, responseObject(o.main, ctx.spec));
      if (!results) return { notApplicable: 'the answer holds no result array; responseMatchesSchema reports it' };
      const shown = shownValues(ctx.spec, op.responseSchemaId, `/${batch.orders}/0/${batch.status}`);
      const profileSuccess = statusValues(ctx, batch.status).success;
      const success = ctx.profile.batch.itemSuccess;
      results.forEach((r, i) => {
        const at = `/${batch.orders}/${i}`;
        if (r[batch.status] === undefined || r[batch.message] === undefined) {
          report({
            code: 'SCHEMA_VIOLATION',
            requirement: 'PAGI-BAT-006',
            pointer: at,
            expected: `${batch.status} and ${batch.message} in every result`,
            received: `a result without ${r[batch.status] === undefined ? batch.status : batch.message}`,
          });
          return;
        }
        // A value outside the shown ones is an expected-level failure only when the profile does not define it.
        if (shown.length && !shown.includes(r[batch.status]) && r[batch.status] !== profileSuccess) {
          report({
            code: 'ITEM_STATUS',
            requirement: 'PAGI-BAT-007',
            pointer: `${at}/${batch.status}`,
            expected: `${batch.status} ${shown.map((v) => JSON.stringify(v)).join(' or ')} (success)`,
            received: quoted(r[batch.status]),
          });
        } else if (r[batch.status] !== profileSuccess) {
          report({
            code: 'STATUS_VALUE',
            requirement: 'PAGI-ST-002',
            pointer: `${at}/${batch.status}`,
            expected: `the profile's success value ${JSON.stringify(profileSuccess)}`,
            received: quoted(r[batch.status]),
          });
        }
        if (batch.messageOnSuccess === 'empty' && r[batch.message] !== success.errorMessage) {
          report({
            code: 'ITEM_MESSAGE',
            requirement: 'PAGI-BAT-007',
            pointer: `${at}/${batch.message}`,
            expected: `an empty ${batch.message} on success`,
            received: quoted(r[batch.message]),
          });
        } else if (
          batch.messageOnSuccess === 'codeMessage' &&
          !matchesCodeMessage(success.refundMessage, r[batch.message])
        ) {
          report({
            code: 'ITEM_MESSAGE',
            requirement: 'PAGI-ST-002',
            pointer: `${at}/${batch.message}`,
            expected: `the profile's success message ${expectedCodeMessage(success.refundMessage)}`,
            received: quoted(r[batch.message]),
          });
        }
      });
    },
  }),
);

export const envelopeReturnsOk = onlyOnSuccess(
  defineCheck({
    id: 'envelopeReturnsOk',
    family: 'conventions',
    probe: happy,
    operations: 'envelope',
    requirements: ['PAGI-BAT-004', 'PAGI-BAT-005', 'PAGI-ST-002'],
    description: 'The envelope reports the outcome in return_status and return_message: 1 and OK on success.',
    verify(o, ctx, report) {
      const op = operationOf(ctx.spec, o.operation);
      const body = responseObject(o.main, ctx.spec);
      if (!body) return notDecodable;
      const profile = ctx.profile.statusValues.return_status;
      const fields: [string, string][] = [
        [FIELD.returnStatus, profile.success],
        [FIELD.returnMessage, profile.successMessage],
      ];
      for (const [field, profileValue] of fields) {
        const got = body[field];
        if (got === undefined) {
          report({
            code: 'ENVELOPE_STATUS',
            requirement: 'PAGI-BAT-004',
            pointer: `/${field}`,
            expected: `field ${field}`,
            received: 'no such field',
          });
          continue;
        }
        const shown = shownValues(ctx.spec, op.responseSchemaId, `/${field}`);
        if (shown.length && !shown.includes(got) && got !== profileValue) {
          report({
            code: 'ENVELOPE_STATUS',
            requirement: 'PAGI-BAT-005',
            pointer: `/${field}`,
            expected: `${field} ${shown.map((v) => JSON.stringify(v)).join(' or ')}`,
            received: quoted(got),
          });
        } else if (got !== profileValue) {
          report({
            code: 'STATUS_VALUE',
            requirement: 'PAGI-ST-002',
            pointer: `/${field}`,
            expected: `the profile's ${JSON.stringify(profileValue)}`,
            received: quoted(got),
          });
        }
      }
    },
  }),
);

/** The refund items of a refund answer or a refund search. */
function refundItems(ctx: CheckContext, o: Observation): Record<string, unknown>[] {
  const body = responseObject(o.main, ctx.spec);
  const list = batchResults(ctx.spec, o.operation, body) ?? body?.[FIELD.refundOrders];
  return Array.isArray(list) ? list.filter(isObject) : [];
}

export const refundReferenceIdExtendsTransactionId = onlyOnSuccess(
  defineCheck({
    id: 'refundReferenceIdExtendsTransactionId',
    family: 'conventions',
    probe: happy,
    operations: { requirement: 'PAGI-FMT-013' },
    requirements: ['PAGI-FMT-013'],
    description: 'refund_reference_id is the refunded transaction_id followed by - and two digits.',
    verify(o, ctx, report) {
      const items = refundItems(ctx, o);
      items.forEach((item, i) => {
        const id = item[FIELD.refundReferenceId];
        const tx = item[FIELD.transactionId];
        if (typeof id !== 'string' || typeof tx !== 'string' || id === '') return;
        if (!new RegExp(`^${tx.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-[0-9]{2}$`).test(id)) {
          report({
            code: 'REFERENCE_ID_FORM',
            requirement: 'PAGI-FMT-013',
            pointer: `/${i}/${FIELD.refundReferenceId}`,
            expected: `${tx}-NN`,
            received: quoted(id),
          });
        }
      });
    },
  }),
);

/** Whether a payment request asked for a result group (`asks` field present; 3-D Secure: the profile's request value). */
function asked(ctx: CheckContext, request: Record<string, unknown>, group: string): boolean {
  const field = ctx.spec.results[group]?.asks;
  if (field === undefined) return true;
  // open3d asks for 3-D Secure only with the value that requests it (the document shows do3DS).
  if (group === 'threeDs') return request[field] === ctx.profile.payments.threeDS.requestValue;
  return request[field] !== undefined && request[field] !== '';
}

/** Report the result fields missing from `answer` for each group the request asked for. */
function checkGroups(
  ctx: CheckContext,
  report: Report,
  request: Record<string, unknown>,
  answer: Record<string, unknown>,
  where: 'payment' | 'query',
  exchange: Exchange,
  prefix: string,
): boolean {
  let judged = false;
  for (const [group, spec] of Object.entries(ctx.spec.results)) {
    if (!asked(ctx, request, group)) continue;
    judged = true;
    if (spec.presence === 'any') {
      if (spec[where].every((field) => answer[field] === undefined)) {
        report({
          code: 'RESULT_MISSING',
          requirement: spec[`${where}Requirement`],
          exchange,
          pointer: prefix,
          expected: `one of ${spec[where].join(', ')} (the ${group} result)`,
          received: 'none of them',
        });
      }
      continue;
    }
    for (const field of spec[where]) {
      if (answer[field] === undefined) {
        report({
          code: 'RESULT_MISSING',
          requirement: spec[`${where}Requirement`],
          exchange,
          pointer: `${prefix}/${field}`,
          expected: `${field} (the ${group} result the request asked for)`,
          received: 'no such field',
        });
      }
    }
  }
  return judged;
}

export const paymentReturnsRequestedResults = onlyOnSuccess(
  defineCheck({
    id: 'paymentReturnsRequestedResults',
    family: 'conventions',
    probe: happy,
    operations: ['authoriseDirect'],
    requirements: ['PAGI-PAY-004', 'PAGI-PAY-005', 'PAGI-PAY-006'],
    description:
      'The payment answer carries the 3-D Secure, anti-fraud and subscription results the request asked for.',
    verify(o, ctx, report) {
      const body = responseObject(o.main, ctx.spec);
      if (!body) return notDecodable;
      checkGroups(ctx, report, sentBody(o.main), body, 'payment', o.main, '');
    },
  }),
);

export const queryReturnsRequestedResults = wrap(
  defineCheck({
    id: 'queryReturnsRequestedResults',
    family: 'conventions',
    probe: happy,
    operations: ['retrievalTrans'],
    requirements: ['PAGI-QRY-003', 'PAGI-QRY-004', 'PAGI-QRY-008'],
    description:
      'The query record of a payment carries its 3-D Secure and subscription results and an anti-fraud result.',
    verify(o, ctx, report) {
      const payment = o.steps.authorise!;
      const tx = text(responseObject(payment, ctx.spec), FIELD.transactionId);
      const body = responseObject(o.main, ctx.spec);
      const [record] = queryRecords(ctx, body, { [FIELD.transactionId]: tx });
      if (!record)
        return { notApplicable: 'the query does not show the payment; selectionReturnsSelectedRecords reports it' };
      const list = body?.[FIELD.ordersList] as unknown[];
      checkGroups(
        ctx,
        report,
        sentBody(payment),
        record,
        'query',
        o.main,
        `/${FIELD.ordersList}/${list.indexOf(record)}`,
      );
    },
  }),
  onlyOnSuccess,
  onlyWhen((o) => o.steps.authorise !== undefined, 'the probe made no payment to query'),
);

export const paymentApprovedPerProfile = onlyOnSuccess(
  defineCheck({
    id: 'paymentApprovedPerProfile',
    family: 'conventions',
    probe: happy,
    operations: ['authoriseDirect'],
    requirements: ['PAGI-PAY-008', 'PAGI-PAY-009', 'PAGI-ST-002'],
    description:
      "A payment with the approve test card in the profile's card fields is approved: order_status 1 and the profile's result_info.",
    verify(o, ctx, report) {
      const body = responseObject(o.main, ctx.spec);
      if (!body) return notDecodable;
      const op = operationOf(ctx.spec, o.operation);
      const status = body[FIELD.orderStatus];
      const shown = shownValues(ctx.spec, op.responseSchemaId, `/${FIELD.orderStatus}`);
      const approved = ctx.profile.statusValues.order_status.approved;
      if (shown.length && !shown.includes(status) && status !== approved) {
        report({
          code: 'STATUS_VALUE',
          requirement: 'PAGI-PAY-008',
          pointer: `/${FIELD.orderStatus}`,
          expected: `${FIELD.orderStatus} ${shown.join(' or ')} (approved)`,
          received: quoted(status),
        });
      } else if (status !== approved) {
        report({
          code: 'STATUS_VALUE',
          requirement: 'PAGI-PAY-009',
          pointer: `/${FIELD.orderStatus}`,
          expected: `the profile's approved value ${JSON.stringify(approved)}`,
          received: quoted(status),
        });
      }
      const info = ctx.profile.payments.resultInfo.approved;
      if (!matchesCodeMessage(info, body[FIELD.resultInfo])) {
        report({
          code: 'STATUS_VALUE',
          requirement: 'PAGI-ST-002',
          pointer: `/${FIELD.resultInfo}`,
          expected: `${FIELD.resultInfo} ${expectedCodeMessage(info)}`,
          received: quoted(body[FIELD.resultInfo]),
        });
      }
    },
  }),
);

export const payoutCompletedWithShownStatus = onlyOnSuccess(
  defineCheck({
    id: 'payoutCompletedWithShownStatus',
    family: 'conventions',
    probe: happy,
    operations: ['payout'],
    requirements: ['PAGI-PO-006', 'PAGI-ST-002'],
    description: 'A successful payout has status COMPLETED and the profile’s empty failure fields.',
    verify(o, ctx, report) {
      const body = responseObject(o.main, ctx.spec);
      if (!body) return notDecodable;
      const shown = shownValues(
        ctx.spec,
        operationOf(ctx.spec, o.operation).responseSchemaId,
        `/${FIELD.payoutStatus}`,
      );
      const status = body[FIELD.payoutStatus];
      if (shown.length && !shown.includes(status) && status !== ctx.profile.statusValues.payout_status.completed) {
        report({
          code: 'STATUS_VALUE',
          requirement: 'PAGI-PO-006',
          pointer: `/${FIELD.payoutStatus}`,
          expected: `${FIELD.payoutStatus} ${shown.join(' or ')}`,
          received: quoted(status),
        });
      } else if (status !== ctx.profile.statusValues.payout_status.completed) {
        report({
          code: 'STATUS_VALUE',
          requirement: 'PAGI-ST-002',
          pointer: `/${FIELD.payoutStatus}`,
          expected: `the profile's ${ctx.profile.statusValues.payout_status.completed}`,
          received: quoted(status),
        });
      }
      const expected: [string, string][] = [
        [FIELD.failureType, ctx.profile.payout.successFailureType],
        [FIELD.failureReason, ctx.profile.payout.successFailureReason],
      ];
      for (const [field, value] of expected) {
        if (body[field] !== undefined && body[field] !== value) {
          report({
            code: 'STATUS_VALUE',
            requirement: 'PAGI-ST-002',
            pointer: `/${field}`,
            expected: `${field} ${JSON.stringify(value)} on success (profile)`,
            received: quoted(body[field]),
          });
        }
      }
    },
  }),
);

export const selectionReturnsSelectedRecords = onlyOnSuccess(
  defineCheck({
    id: 'selectionReturnsSelectedRecords',
    family: 'conventions',
    probe: happy,
    operations: 'selecting',
    requirements: ['PAGI-QRY-006', 'PAGI-RFS-004'],
    description:
      "A query or refund search selects by the profile's selection fields: the selected records, and only them.",
    verify(o, ctx, report) {
      const requirement = requirementFor(ctx, o.operation, ['PAGI-QRY-006', 'PAGI-RFS-004']);
      const selection = ctx.profile.selection[o.operation as SelectingOperation];
      const sent = sentBody(o.main);
      const field = selection.fields.find((f) => typeof sent[f] === 'string' && sent[f] !== '');
      if (!field) return { notApplicable: 'the request selected nothing' };
      const values = String(sent[field]).split(selection.listSeparator);
      const body = responseObject(o.main, ctx.spec);
      const list = o.operation === 'retrievalTrans' ? queryRecords(ctx, body, {}) : objectsIn(body, FIELD.refundOrders);
      for (const value of values) {
        if (!list.some((r) => r[field] === value)) {
          report({
            code: 'RECORD_NOT_FOUND',
            requirement,
            expected: `a record with ${field} ${value}`,
            received: `${list.length} record(s), none of it`,
          });
        }
      }
      list.forEach((r, i) => {
        if (!values.includes(String(r[field]))) {
          report({
            code: 'UNSELECTED_RECORD',
            requirement,
            pointer: `/${i}/${field}`,
            expected: `only records with ${field} in the selection`,
            received: quoted(r[field]),
          });
        }
      });
    },
  }),
);

export const antifraudCookieUnderProfileName = onlyOnSuccess(
  defineCheck({
    id: 'antifraudCookieUnderProfileName',
    family: 'conventions',
    probe: happy,
    operations: { requirement: 'PAGI-PAY-011' },
    requirements: ['PAGI-PAY-011'],
    description:
      "The anti-fraud cookie, sent under the profile's field name, is accepted (and echoed by the checkout form).",
    verify(o, ctx, report) {
      const name = ctx.profile.fields.antifraudTokenCookie;
      const sent = sentBody(o.main);
      if (sent[name] === undefined) return { notApplicable: `the request carried no ${name}` };
      if (operationOf(ctx.spec, o.operation).checkoutForm) {
        const inputs = answered(ctx, o.main, o.operation);
        if (inputs?.[name] !== inputText(sent[name])) {
          report({
            code: 'FORM_INPUT_VALUE',
            requirement: 'PAGI-PAY-011',
            pointer: `/inputs/${name}`,
            expected: `input ${name} with the sent value`,
            received: quoted(inputs?.[name]),
          });
        }
      }
    },
  }),
);
