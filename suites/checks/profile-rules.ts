/**
 * Checks of profile rules a single fault cannot show: the error a request with two faults gets (`errors.precedence`),
 * the failure of a batch item with two faults (`batch.checkOrder`), the order of selected results
 * (`selection.*.resultOrder`), how two selecting fields combine (`selection.*.combine`, `unmatched`), and a payout's fee, amounts and clearing system (`payout.fee`, `feePaidBy`,
 * `localClearingSystem`).
 */
import type { CheckContext, Exchange, Observation, OperationKey } from '../../core/model.js';
import { decodedText } from '../../engine/decode.js';
import { FIELD } from '../fields.js';
import { type Report, defineCheck, onlyWithSteps, outcomeOf, quote, quoted, succeeded, wrap } from '../findings.js';
import {
  batchResults,
  expectedCodeMessage,
  formatOfMediaType,
  headerOf,
  isObject,
  objectsIn,
  itemSucceeded,
  matchesCodeMessage,
  operationOf,
  queryRecords,
  responseObject,
  statusOf,
  statusValues,
} from '../observe.js';
import { errorKindSpec, precedenceOf } from '../../core/profile/choices.js';
import {
  type ErrorKind,
  checkErrorAnswer,
  errorKindOf,
  expectRefusal,
  firstItemFailure,
  refusalInBody,
} from './common.js';
import { happy } from '../probes/basic.js';
import { payoutLifecycle } from '../probes/lifecycle.js';
import {
  cardForms,
  fieldLength,
  itemFaults,
  outsideRequests,
  selectionCombined,
  selectionOrder,
  twoFaults,
} from '../probes/profile-rules.js';
import type { SelectingOperation } from '../../core/profile/operations.js';
import { recordSource, selectionDateField, selectionResults } from '../../core/spec/operations.js';

/** Of two names, the one a profile order lists first. */
function firstOf<T extends string>(order: readonly string[], a: T, b: T): T {
  return order.indexOf(a) <= order.indexOf(b) ? a : b;
}

export const requestFaultsResolvedInProfileOrder = defineCheck({
  id: 'requestFaultsResolvedInProfileOrder',
  family: 'status',
  probe: twoFaults,
  operations: { requirement: 'PAGI-PRF-001' },
  requirements: ['PAGI-PRF-001'],
  description:
    "A request with a wrong signature and an invalid field gets the error of whichever check the profile's errors.precedence runs first.",
  verify(o, ctx, report) {
    const expected: ErrorKind = firstOf(precedenceOf(ctx.profile, o.operation), 'badSignature', 'invalidInput');
    if (
      !expectRefusal(report, o.main, 'PAGI-PRF-001', 'a request with a wrong signature and an invalid field', {
        ctx,
        operation: o.operation,
      })
    )
      return;
    const got = errorKindOf(ctx, o.main, o.operation);
    if (got !== undefined && got !== expected) {
      report({
        code: 'ERROR_ANSWER',
        requirement: 'PAGI-PRF-001',
        expected: `the profile's ${expected} (it comes first in the check order of ${o.operation}: errors.precedence${ctx.profile.errors.precedenceByOperation?.[o.operation] ? 'ByOperation' : ''})`,
        received: `the profile's ${got}`,
      });
      return;
    }
    checkErrorAnswer(ctx, report, o.main, o.operation, expected, 'PAGI-PRF-001');
  },
});

/** Report unless the one item of a batch answer failed with the profile's `failure`. */
function expectItemFailure(ctx: CheckContext, report: Report, exchange: Exchange, failure: string, what: string): void {
  const op = 'cancel';
  const batch = operationOf(ctx.spec, op).batch!;
  const result = batchResults(ctx.spec, op, responseObject(exchange, ctx.spec))?.[0];
  const pointer = `/${batch.orders}/0`;
  if (!succeeded(exchange) || !result) {
    report({
      code: 'ITEM_NOT_ANSWERED',
      requirement: 'PAGI-PRF-002',
      exchange,
      pointer,
      expected: `a failed result for ${what}`,
      received: outcomeOf(exchange),
    });
    return;
  }
  if (itemSucceeded(ctx, op, result)) {
    report({
      code: 'ITEM_STATUS',
      requirement: 'PAGI-PRF-002',
      exchange,
      pointer: `${pointer}/${batch.status}`,
      expected: `${what} failed`,
      received: quoted(result[batch.status], 'success '),
    });
    return;
  }
  const pair = (ctx.profile.batch.itemFailures as Record<string, { code: string; message: string; pinned?: boolean }>)[
    failure
  ]!;
  if (
    result[batch.status] !== statusValues(ctx, batch.status).failure ||
    !matchesCodeMessage(pair, result[batch.message])
  ) {
    report({
      code: 'ITEM_MESSAGE',
      requirement: 'PAGI-PRF-002',
      exchange,
      pointer: `${pointer}/${batch.message}`,
      expected: `the profile's ${failure} ${expectedCodeMessage(pair)} for ${what} (first in batch.checkOrder)`,
      received: `${batch.status} ${quote(ctx, result[batch.status])}, ${quote(ctx, result[batch.message])}`,
    });
  }
}

export const itemFaultsResolvedInProfileOrder = wrap(
  defineCheck({
    id: 'itemFaultsResolvedInProfileOrder',
    family: 'conventions',
    probe: itemFaults,
    operations: ['cancel'],
    requirements: ['PAGI-PRF-002'],
    description:
      "A batch item with two faults fails with whichever per-item failure the profile's batch.checkOrder checks first.",
    verify(o, ctx, report) {
      const order = ctx.profile.batch.checkOrder;
      // A cancel item's amount is the payment's original amount: both faults are checked.
      expectItemFailure(
        ctx,
        report,
        o.steps.currencyAmount!,
        firstOf(order, 'currencyMismatch', 'amountMismatch'),
        'an item with another currency and amount',
      );
      expectItemFailure(
        ctx,
        report,
        o.steps.unknownInvalid!,
        firstItemFailure(ctx, ['invalidItem', 'unknownTransaction']),
        'an item with an unknown transaction and a currency in a wrong form',
      );
    },
  }),
  onlyWithSteps('currencyAmount', 'unknownInvalid'),
);

export const selectionResultsInProfileOrder = defineCheck({
  id: 'selectionResultsInProfileOrder',
  family: 'conventions',
  probe: selectionOrder,
  operations: 'selecting',
  requirements: ['PAGI-PRF-003'],
  description:
    "Two records selected oldest first come back in the profile's result order: the order of the selecting values, or newest first.",
  verify(o, ctx, report) {
    const op = o.operation as SelectingOperation;
    const sent = (o.facts.records ?? []).map((r) => r[FIELD.transactionId]);
    const body = responseObject(o.main, ctx.spec);
    // The array the selection answers in (orders_list, refund_orders); a query's records without its not-found ones.
    const results = selectionResults(ctx.spec, op) ?? '';
    const list = recordSource(ctx.spec, op) === undefined ? queryRecords(ctx, body, {}) : objectsIn(body, results);
    const shown = list.filter((r) => sent.includes(r[FIELD.transactionId]));
    if (!succeeded(o.main) || shown.length !== sent.length) {
      return {
        notApplicable: `the answer does not show both selected records (${outcomeOf(o.main)}, ${shown.length} of ${sent.length}); selectionReturnsSelectedRecords judges the selection`,
      };
    }
    const rule = ctx.profile.selection[op].resultOrder;
    const got = shown.map((r) => r[FIELD.transactionId]);
    // The field dating a record (transaction_date, refund_date): the item's member in the document's date form.
    const dated = selectionDateField(ctx.spec, op);
    const dates = shown.map((r) => String((dated === undefined ? undefined : r[dated]) ?? ''));
    // Newest first: dates never increase down the list; records of the same second may come in either order.
    const wrong =
      rule === 'listOrder'
        ? got.join() !== sent.join()
        : dates.some((d, i) => i > 0 && d > dates[i - 1]!) || (dates[0] !== dates[1] && got[0] !== sent[1]);
    if (wrong) {
      report({
        code: 'RESULT_ORDER',
        requirement: 'PAGI-PRF-003',
        pointer: `/${results}`,
        expected:
          rule === 'listOrder'
            ? `${sent.join(', ')} (the order of the selecting values)`
            : `${[...sent].reverse().join(', ')} (newest first)`,
        received: got.map((id, i) => `${String(id)} (${dates[i]})`).join(', '),
      });
    }
  },
});

export const selectionCombinedPerProfile = defineCheck({
  id: 'selectionCombinedPerProfile',
  family: 'conventions',
  probe: selectionCombined,
  operations: 'selecting',
  requirements: ['PAGI-PRF-009'],
  description:
    "A query or refund search giving two selecting fields, one value of which matches nothing, returns the records the profile's combine rule selects (union or intersection) and treats the unmatched value as the profile's unmatched rule says.",
  verify(o, ctx, report) {
    const op = o.operation as SelectingOperation;
    const sel = ctx.profile.selection[op];
    const [a, b] = (o.facts.records ?? []).map((r) => r[FIELD.transactionId]);
    const { first, second, unmatchedValue } = o.facts.selection!;
    // With one selecting field only the first is given: both records match it whatever the combine rule.
    const expected = second && sel.combine === 'intersection' ? [a] : [a, b];
    const what = second
      ? `${first} (both records and a value matching nothing) ${sel.combine} ${second} (the first record)`
      : `${first} (both records and a value matching nothing)`;
    if (!succeeded(o.main)) {
      report({
        code: 'RECORD_NOT_FOUND',
        requirement: 'PAGI-PRF-009',
        expected: `${expected.join(', ')} selected by ${what}; a value matching nothing ${sel.unmatched === 'unknownRecordIfNone' ? 'fails the request only when nothing matches' : 'does not fail the request'} (profile)`,
        received: outcomeOf(o.main),
      });
      return;
    }
    const body = responseObject(o.main, ctx.spec);
    const listName = op === 'retrievalTrans' ? FIELD.ordersList : FIELD.refundOrders;
    const all = objectsIn(body, listName);
    const records = op === 'retrievalTrans' ? queryRecords(ctx, body, {}) : all;
    const shown = new Set(records.map((r) => r[FIELD.transactionId]));
    for (const id of [a, b]) {
      const want = expected.includes(id);
      if (want !== shown.has(id)) {
        report({
          code: want ? 'RECORD_NOT_FOUND' : 'UNSELECTED_RECORD',
          requirement: 'PAGI-PRF-009',
          pointer: `/${listName}`,
          expected: `${expected.join(', ')} (selection ${what}, combine: ${sel.combine})`,
          received: `${[...shown].map(String).join(', ') || 'no record'}`,
        });
      }
    }
    const notFound = op === 'retrievalTrans' ? ctx.profile.statusValues.query_result.notFound : undefined;
    const failureItems = op === 'retrievalTrans' ? all.filter((r) => r[FIELD.queryResult] === notFound) : [];
    const reported = failureItems.some((r) => r[first] === unmatchedValue);
    if (sel.unmatched === 'failureItem' && op === 'retrievalTrans' && !reported) {
      report({
        code: 'RECORD_NOT_FOUND',
        requirement: 'PAGI-PRF-009',
        pointer: `/${listName}`,
        expected: `an item with ${first} ${unmatchedValue} and ${FIELD.queryResult} ${JSON.stringify(notFound)} for the value matching nothing (unmatched: failureItem)`,
        received: `${failureItems.length} failure item(s), none for it`,
      });
    } else if (sel.unmatched !== 'failureItem' && failureItems.length) {
      report({
        code: 'UNSELECTED_RECORD',
        requirement: 'PAGI-PRF-009',
        pointer: `/${listName}`,
        expected: `no item for the value matching nothing (unmatched: ${sel.unmatched})`,
        received: `${failureItems.length} item(s) with ${FIELD.queryResult} ${JSON.stringify(notFound)}`,
      });
    }
  },
});

/** `value` as an integer amount, or undefined. */
function integer(value: unknown): bigint | undefined {
  const s =
    typeof value === 'number' && Number.isInteger(value)
      ? String(value)
      : typeof value === 'string' && /^[0-9]+$/.test(value)
        ? value
        : undefined;
  return s === undefined ? undefined : BigInt(s);
}

/**
 * An answered amount (a JSON number, or its text) in units of 10^-decimals; undefined when it is not one or has
 * more fractional digits (12.345 is no amount to two decimals; 12.5 is 1250 hundredths).
 */
function scaledAmount(value: unknown, decimals: number): bigint | undefined {
  if (decimals === 0) return integer(value);
  const text =
    typeof value === 'number' && Number.isFinite(value) ? String(value) : typeof value === 'string' ? value : '';
  const m = /^([0-9]+)(?:\.([0-9]+))?$/.exec(text);
  if (!m || (m[2] ?? '').length > decimals) return undefined;
  return BigInt(m[1]!) * 10n ** BigInt(decimals) + BigInt((m[2] ?? '').padEnd(decimals, '0'));
}

/** Units of 10^-decimals as a decimal text (1250, 2 → `12.50`). */
function decimalText(value: bigint, decimals: number): string {
  if (decimals === 0) return String(value);
  const scale = 10n ** BigInt(decimals);
  return `${value / scale}.${String(value % scale).padStart(decimals, '0')}`;
}

/** The fractional digits the profile's fee keeps (`payout.fee.decimals`; whole units by default and for a fixed fee). */
function feeDecimals(ctx: CheckContext): number {
  const fee = ctx.profile.payout.fee;
  return fee.type === 'percentage' ? (fee.decimals ?? 0) : 0;
}

/**
 * The fee of a payment amount under the profile's fee rule, in units of 10^-decimals of the payment currency
 * (`payout.fee.decimals`; whole units by default).
 */
export function profileFee(ctx: CheckContext, amount: bigint): bigint {
  const fee = ctx.profile.payout.fee;
  if (fee.type === 'fixed') return BigInt(fee.amount);
  const [whole, fraction = ''] = fee.percent.split('.');
  const denominator = 100n * 10n ** BigInt(fraction.length);
  const product = amount * BigInt(`${whole}${fraction}`) * 10n ** BigInt(feeDecimals(ctx));
  const quotient = product / denominator;
  const remainder = product % denominator;
  if (remainder === 0n || fee.rounding === 'down') return quotient;
  if (fee.rounding === 'up') return quotient + 1n;
  return remainder * 2n >= denominator ? quotient + 1n : quotient;
}

/** Report where a payout answer's fee, amounts or clearing system differ from the profile's for who pays the fee. */
function checkPayout(ctx: CheckContext, report: Report, exchange: Exchange, payer: 'payer' | 'beneficiary'): void {
  const body = responseObject(exchange, ctx.spec);
  const request = exchange.request.body ?? {};
  const amount = integer(request[FIELD.paymentAmount]);
  if (!succeeded(exchange) || !body || amount === undefined) {
    report({
      code: 'PAYOUT_AMOUNTS',
      requirement: 'PAGI-PRF-004',
      exchange,
      expected: `a payout answered (fee paid by the ${payer})`,
      received: outcomeOf(exchange),
    });
    return;
  }
  const decimals = feeDecimals(ctx);
  const scaled = amount * 10n ** BigInt(decimals);
  const fee = profileFee(ctx, amount);
  const expected: [string, bigint][] = [
    [FIELD.feeAmount, fee],
    [FIELD.amountPayerPays, payer === 'payer' ? scaled + fee : scaled],
    [FIELD.amountBeneficiaryReceives, payer === 'payer' ? scaled : scaled - fee],
  ];
  for (const [field, value] of expected) {
    if (scaledAmount(body[field], decimals) !== value) {
      report({
        code: 'PAYOUT_AMOUNTS',
        requirement: 'PAGI-PRF-004',
        exchange,
        pointer: `/${field}`,
        expected: `${field} ${decimalText(value, decimals)} (fee rule of the profile${decimals ? `, to ${decimals} decimals` : ''}, ${FIELD.feePaidBy} ${JSON.stringify(request[FIELD.feePaidBy])})`,
        received: quoted(body[field]),
      });
    }
  }
  const beneficiary = body[FIELD.beneficiary];
  const details = isObject(beneficiary) ? beneficiary[FIELD.bankDetails] : undefined;
  const clearing = isObject(details) ? details[FIELD.localClearingSystem] : undefined;
  if (clearing !== ctx.profile.payout.localClearingSystem) {
    report({
      code: 'PAYOUT_AMOUNTS',
      requirement: 'PAGI-PRF-004',
      exchange,
      pointer: `/${FIELD.beneficiary}/${FIELD.bankDetails}/${FIELD.localClearingSystem}`,
      expected: `${FIELD.localClearingSystem} ${JSON.stringify(ctx.profile.payout.localClearingSystem)}`,
      received: quoted(clearing),
    });
  }
}

export const payoutFeesPerProfile = wrap(
  defineCheck({
    id: 'payoutFeesPerProfile',
    family: 'conventions',
    probe: payoutLifecycle,
    operations: ['payout'],
    requirements: ['PAGI-PRF-004'],
    description:
      "A payout's fee_amount, amount_payer_pays and amount_beneficiary_receives follow the profile's fee rule for either fee_paid_by value, and its local_clearing_system is the profile's.",
    verify(o: Observation, ctx, report) {
      checkPayout(ctx, report, o.steps.first!, 'payer');
      checkPayout(ctx, report, o.steps.beneficiaryPays!, 'beneficiary');
    },
  }),
  onlyWithSteps('first', 'beneficiaryPays'),
);

/** Report a field whose value, where present, is not one of the profile's `allowed` values. */
function expectValue(
  _ctx: CheckContext,
  report: Report,
  exchange: Exchange,
  pointer: string,
  value: unknown,
  allowed: readonly string[],
  what: string,
): void {
  if (value !== undefined && !allowed.includes(value as string)) {
    report({
      code: 'STATUS_VALUE',
      requirement: 'PAGI-PRF-005',
      exchange,
      pointer,
      expected: `${allowed.map((v) => JSON.stringify(v)).join(' or ')} (${what})`,
      received: quoted(value),
    });
  }
}

export const resultValuesPerProfile = defineCheck({
  id: 'resultValuesPerProfile',
  family: 'conventions',
  probe: happy,
  operations: { requirement: 'PAGI-PRF-005' },
  requirements: ['PAGI-PRF-005'],
  description:
    "Anti-fraud, 3-D Secure and query result values, where present, are the profile's: risk action, check statuses, provider, threeds_result, is3ds, query_result, recurring_status.",
  verify(o, ctx, report) {
    const { payments, statusValues } = ctx.profile;
    const checkStatuses = [payments.risk.checkStatus.pass, payments.risk.checkStatus.fail];
    const body = responseObject(o.main, ctx.spec);
    if (!succeeded(o.main) || !body)
      return { notApplicable: `the answer is not a readable success (${outcomeOf(o.main)})` };
    if (o.operation === 'authoriseDirect') {
      expectValue(
        ctx,
        report,
        o.main,
        '/risk_action',
        body.risk_action,
        [payments.risk.action.approved],
        "the profile's risk action of an approved payment",
      );
      const reasons = Array.isArray(body.risk_reasons) ? body.risk_reasons.filter(isObject) : [];
      reasons.forEach((r, i) =>
        expectValue(
          ctx,
          report,
          o.main,
          `/risk_reasons/${i}/status`,
          r.status,
          checkStatuses,
          "the profile's check statuses",
        ),
      );
      const { requestValue, resultWhenRequested, resultWhenNotRequested } = payments.threeDS;
      const asked = o.main.request.body?.[FIELD.threeDsRequest] === requestValue;
      const expected = asked ? resultWhenRequested : resultWhenNotRequested;
      if (expected !== '' || body.threeds_result !== undefined)
        expectValue(
          ctx,
          report,
          o.main,
          '/threeds_result',
          body.threeds_result ?? '',
          [expected],
          `3-D Secure ${asked ? '' : 'not '}requested`,
        );
      return;
    }
    for (const [i, record] of queryRecords(ctx, body, {}).entries()) {
      const at = `/${FIELD.ordersList}/${i}`;
      expectValue(
        ctx,
        report,
        o.main,
        `${at}/antifraud_provider`,
        record.antifraud_provider,
        [payments.risk.provider],
        "the profile's anti-fraud provider",
      );
      const checks = Array.isArray(record.fraud_check_result) ? record.fraud_check_result.filter(isObject) : [];
      checks.forEach((c, j) =>
        expectValue(
          ctx,
          report,
          o.main,
          `${at}/fraud_check_result/${j}/status`,
          c.status,
          checkStatuses,
          "the profile's check statuses",
        ),
      );
      expectValue(
        ctx,
        report,
        o.main,
        `${at}/is3ds`,
        record.is3ds,
        [statusValues.is3ds.with3ds, statusValues.is3ds.without3ds],
        "the profile's is3ds values",
      );
      expectValue(
        ctx,
        report,
        o.main,
        `${at}/${FIELD.queryResult}`,
        record[FIELD.queryResult],
        [statusValues.query_result.found],
        'a found record',
      );
      const sub = record.subscription_result;
      if (isObject(sub))
        expectValue(
          ctx,
          report,
          o.main,
          `${at}/subscription_result/recurring_status`,
          sub.recurring_status,
          [statusValues.recurring_status.success, statusValues.recurring_status.failure],
          "the profile's recurring_status values",
        );
    }
  },
});

/** Report unless an answer is the refusal of `kind` in a form the profile declares (or, with `operation` undefined, the catalogue's HTTP error in `unknownOperationFormat`). */
function expectKind(
  ctx: CheckContext,
  report: Report,
  exchange: Exchange,
  operation: OperationKey | undefined,
  kind: ErrorKind,
  what: string,
): void {
  if (operation) {
    if (expectRefusal(report, exchange, 'PAGI-PRF-006', what, { ctx, operation }))
      checkErrorAnswer(ctx, report, exchange, operation, kind, 'PAGI-PRF-006');
    return;
  }
  const spec = errorKindSpec(ctx.profile, kind);
  const format = ctx.profile.errors.unknownOperationFormat;
  const type = headerOf(exchange.response?.headers, 'content-type');
  if (
    statusOf(exchange) !== spec.status ||
    formatOfMediaType(type) !== formatOfMediaType(ctx.profile.errors.bodies[format].contentType) ||
    !decodedText(exchange.response).includes(spec.code)
  ) {
    report({
      code: 'ERROR_ANSWER',
      requirement: 'PAGI-PRF-006',
      exchange,
      expected: `HTTP ${spec.status} with a ${format} body carrying ${JSON.stringify(spec.code)} (the profile's ${kind}) for ${what}`,
      received: `${outcomeOf(exchange)}, content type ${quote(ctx, type)}`,
    });
  }
}

/** Report unless an answer accepts a request (a 2xx that is no refusal the profile declares). */
function expectAccepted(
  ctx: CheckContext,
  report: Report,
  exchange: Exchange,
  operation: OperationKey,
  what: string,
): void {
  if (!succeeded(exchange) || refusalInBody(ctx, exchange, operation)) {
    report({
      code: 'REQUEST_REFUSED',
      requirement: 'PAGI-PRF-006',
      exchange,
      expected: `${what} accepted (profile)`,
      received: outcomeOf(exchange),
    });
  }
}

export const outsideRequestsAnsweredPerProfile = wrap(
  defineCheck({
    id: 'outsideRequestsAnsweredPerProfile',
    family: 'status',
    probe: outsideRequests,
    operations: ['retrievalTrans'],
    requirements: ['PAGI-PRF-006'],
    description:
      "An unknown path, a wrong method and a body over the profile's size limit get the profile's errors; the other media type, a JSON body declared as form fields and missing extra headers are accepted or refused as the profile's requestMedia and requestHeaders say.",
    verify(o, ctx, report) {
      const op = o.operation;
      expectKind(ctx, report, o.steps.unknownPath!, undefined, 'unknownPath', 'an unknown path');
      // A wrong method at an operation's path is that operation's error (its format and refusal forms).
      expectKind(ctx, report, o.steps.wrongMethod!, op, 'methodNotAllowed', 'a PUT');
      expectKind(
        ctx,
        report,
        o.steps.tooLarge!,
        op,
        'bodyTooLarge',
        `a body of more than ${ctx.profile.limits.maxBodyBytes} bytes`,
      );
      const media = ctx.profile.requestMedia;
      const own = media.types[op];
      if (media.acceptOther)
        expectAccepted(
          ctx,
          report,
          o.steps.otherMedia!,
          op,
          `a ${own === 'json' ? 'form' : 'json'} body (acceptOther)`,
        );
      else
        expectKind(
          ctx,
          report,
          o.steps.otherMedia!,
          op,
          'malformedBody',
          'a body in the other media type (acceptOther false)',
        );
      // A JSON body declared as form fields reads as JSON only when the gateway sniffs the body.
      const readable = media.detection === 'sniffed' && (own === 'json' || media.acceptOther);
      if (readable)
        expectAccepted(
          ctx,
          report,
          o.steps.jsonDeclaredForm!,
          op,
          'a JSON body declared as form fields (detection sniffed)',
        );
      else
        expectKind(
          ctx,
          report,
          o.steps.jsonDeclaredForm!,
          op,
          'malformedBody',
          `a JSON body declared as form fields (detection ${media.detection})`,
        );
      if (o.steps.noHeaders)
        expectKind(
          ctx,
          report,
          o.steps.noHeaders,
          op,
          ctx.profile.requestHeaders.onMissing,
          "a request without the profile's extra headers",
        );
    },
  }),
  onlyWithSteps('unknownPath', 'wrongMethod', 'tooLarge', 'otherMedia', 'jsonDeclaredForm'),
);

export const cardFieldsPerProfile = wrap(
  defineCheck({
    id: 'cardFieldsPerProfile',
    family: 'status',
    probe: cardForms,
    operations: ['authoriseDirect'],
    requirements: ['PAGI-PRF-006'],
    description:
      "A card number failing the Luhn check and a one-digit expiry month are refused or accepted as the profile's card rules say; an unknown token_id gets the profile's error.",
    verify(o, ctx, report) {
      const card = ctx.profile.fields.card;
      if (card.luhnCheck)
        expectKind(ctx, report, o.steps.notLuhn!, o.operation, 'invalidInput', 'a card number failing the Luhn check');
      else
        expectAccepted(
          ctx,
          report,
          o.steps.notLuhn!,
          o.operation,
          'a card number failing the Luhn check (no Luhn check)',
        );
      if (card.expiryMonthFormat === 'MM')
        expectKind(
          ctx,
          report,
          o.steps.oneDigitMonth!,
          o.operation,
          'invalidInput',
          'an expiry month of one digit (form MM)',
        );
      else expectAccepted(ctx, report, o.steps.oneDigitMonth!, o.operation, 'an expiry month of one digit (form M)');
      expectKind(
        ctx,
        report,
        o.steps.unknownToken!,
        o.operation,
        ctx.profile.payments.token.unknownToken,
        'an unknown token_id',
      );
    },
  }),
  onlyWithSteps('notLuhn', 'oneDigitMonth', 'unknownToken'),
);

export const fieldLengthPerProfile = wrap(
  defineCheck({
    id: 'fieldLengthPerProfile',
    family: 'status',
    probe: fieldLength,
    operations: ['authoriseDirect'],
    requirements: ['PAGI-PRF-006'],
    description:
      "A field value exactly as long as the profile's limits.maxFieldLength is accepted; one character longer gets the profile's invalidInput answer. Not judged when the profile does not state the length.",
    verify(o, ctx, report) {
      const max = ctx.profile.limits.maxFieldLength;
      expectAccepted(
        ctx,
        report,
        o.steps.atLength!,
        o.operation,
        `a note of ${max} characters (limits.maxFieldLength)`,
      );
      expectKind(
        ctx,
        report,
        o.steps.overLength!,
        o.operation,
        'invalidInput',
        `a note of ${max + 1} characters (over limits.maxFieldLength ${max})`,
      );
    },
  }),
  onlyWithSteps('atLength', 'overLength'),
);
