/**
 * Named variants of the reference gateway (`--fault NAME`), so reporters and the kit's self-test can run against a
 * broken target, and against conformant targets that differ from the reference where the document allows it.
 * - `kind: 'fault'`: one deviation from the interface, declared with the requirement it breaks and the check that
 *   should catch it;
 * - `kind: 'neutral'`: a change the document allows (another key order, extra markup, ...): it must still pass.
 *
 * A variant is data plus at most four small hooks:
 * - `switches`: behaviour switches the operations consult (e.g. skip the signature check);
 * - `refuse`: an extra reason to refuse a request as invalid input (a gateway stricter than the document);
 * - `reply`: rewrites a structured reply before it is serialised (e.g. rename the XML root);
 * - `wire`: rewrites the serialised response (status, headers, body text).
 * Adding a variant means adding one entry to `FAULTS`; operations only read `BehaviourSwitches`.
 */
import { XMLBuilder, XMLParser } from 'fast-xml-parser';
import {
  BATCH_OPS,
  type Body,
  succeeded,
  type BehaviourSwitches,
  type FaultDefinition,
  body,
  checkoutForm,
  checkoutInputs,
  checkoutPage,
  contentType,
  itemSuccess,
  items,
  list,
  listOf,
  reversedKeys,
  text,
  without,
  type WireHook,
} from './fault-hooks.js';
import { INTEGRITY_FAULTS } from './faults-integrity.js';

export type {
  BehaviourSwitches,
  DeviationDefinition,
  FaultDefinition,
  NeutralDefinition,
  ReplyContext,
  SignatureCheck,
} from './fault-hooks.js';
import { UnknownFaultError } from '../src/types/errors.js';

const XML_TREE = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  processEntities: false,
  parseTagValue: false,
  trimValues: true,
});
const XML_INDENTED = new XMLBuilder({
  preserveOrder: true,
  ignoreAttributes: false,
  processEntities: false,
  format: true,
  indentBy: '  ',
  suppressEmptyNode: false,
});

/** XML text re-written with a full declaration, one element per line, indented. */
function indentedXml(xml: string): string {
  const tree = (XML_TREE.parse(xml) as Body[]).filter((node) => !('?xml' in node));
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n${XML_INDENTED.build(tree) as string}`;
}

const UNESCAPE: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/** Checkout page text whose attribute values are written without HTML escaping. */
function unescapedHtml(html: string): string {
  return html.replace(
    /value="([^"]*)"/g,
    (_m, value: string) => `value="${value.replace(/&(amp|lt|gt|quot|#39);/g, (e) => UNESCAPE[e]!)}"`,
  );
}

/** A checkout page reply whose form is submitted by an inline script instead of `<body onload>`. */
function scriptSubmit(call: string): WireHook {
  return text('text/html', (html) =>
    /<body onload=/.test(html)
      ? html.replace(/<body onload="[^"]*">/, '<body>').replace('</form>', `</form>\n<script>${call}</script>`)
      : html,
  );
}

const COMPACT_TIMESTAMP = /^([0-9]{4})([0-9]{2})([0-9]{2})([0-9]{2})([0-9]{2})([0-9]{2})$/;

/** The variant registry: faults, then neutral variants. */
export const FAULTS: readonly FaultDefinition[] = [
  // ------------------------------------------------------------------ shape: missing, mistyped, mis-nested fields
  {
    kind: 'fault',
    name: 'direct-drops-account-id',
    description: 'Direct payment responses (XML) leave out account_id.',
    requirement: 'PAGI-GEN-004',
    expectedCheck: 'responseMatchesSchema',
    reply: body(['authoriseDirect'], (b) => without(b, 'account_id')),
  },
  {
    kind: 'fault',
    name: 'apm-issuer-url-nested',
    description: 'APM payment responses (XML) nest issuer_url inside a <redirect> element.',
    requirement: 'PAGI-APM-002',
    expectedCheck: 'responseMatchesSchema',
    reply: body(['authoriseApm'], (b) => ({ ...without(b, 'issuer_url'), redirect: { issuer_url: b.issuer_url } })),
  },
  {
    kind: 'fault',
    name: 'risk-reasons-flattened',
    description:
      'Direct payment responses (XML) write each risk_reasons entry as "name:status" text instead of name and status child elements.',
    requirement: 'PAGI-OBJ-011',
    expectedCheck: 'responseMatchesSchema',
    reply: body(['authoriseDirect'], (b) => ({
      ...b,
      risk_reasons: (b.risk_reasons as Body[] | undefined)?.map((r) => `${String(r.name)}:${String(r.status)}`),
    })),
  },
  {
    kind: 'fault',
    name: 'query-fraud-results-keyed',
    description:
      'Query records give fraud_check_result as one object keyed by check instead of an array of check objects.',
    requirement: 'PAGI-OBJ-009',
    expectedCheck: 'responseMatchesSchema',
    reply: items(['retrievalTrans'], (r) =>
      Array.isArray(r.fraud_check_result)
        ? {
            ...r,
            fraud_check_result: Object.fromEntries(
              (r.fraud_check_result as Body[]).map((c) => [String(c.check_items), c.status]),
            ),
          }
        : r,
    ),
  },
  {
    kind: 'fault',
    name: 'batch-amount-as-number',
    description: 'Batch results carry amount as a JSON number instead of a two-decimal string.',
    requirement: 'PAGI-FMT-001',
    expectedCheck: 'responseMatchesSchema',
    reply: items(BATCH_OPS, (item) =>
      typeof item.amount === 'string' ? { ...item, amount: Number(item.amount) } : item,
    ),
  },
  {
    kind: 'fault',
    name: 'payout-drops-fee-amount',
    description: 'Payout responses leave out fee_amount.',
    requirement: 'PAGI-PO-004',
    expectedCheck: 'responseAddsDocumentedFields',
    reply: body(['payout'], (b) => without(b, 'fee_amount')),
  },
  {
    kind: 'fault',
    name: 'refund-search-drops-processing-date',
    description: 'Refund-search items leave out refund_processing_date, a field the document lists for them.',
    requirement: 'PAGI-GEN-011',
    expectedCheck: 'responseHoldsListedFields',
    reply: items(['retrievalRefund'], (item) => without(item, 'refund_processing_date')),
  },
  {
    kind: 'fault',
    name: 'responses-unsigned',
    description: 'Successful responses carry no encryption_data.',
    requirement: 'PAGI-AUTH-002',
    expectedCheck: 'responseMatchesSchema',
    reply: body([], (b) => without(b, 'encryption_data')),
  },
  {
    kind: 'fault',
    name: 'birth-date-refused',
    description:
      'Payments whose birth_date has the documented DD-MM-YYYY form are refused as invalid input (the gateway wants YYYY-MM-DD).',
    requirement: 'PAGI-FMT-015',
    expectedCheck: 'documentedRequestAccepted',
    refuse: (_op, b) =>
      typeof b.birth_date === 'string' && !/^[0-9]{4}-/.test(b.birth_date) ? 'birth_date is not YYYY-MM-DD' : undefined,
  },
  {
    kind: 'fault',
    name: 'refund-json-refused',
    description: 'Refund requests with a JSON body are refused (the gateway reads form-encoded refunds only).',
    requirement: 'PAGI-MED-002',
    expectedCheck: 'documentedRequestAccepted',
    refuse: (op, _b, encoding) =>
      op === 'refund' && encoding === 'json' ? 'refund bodies must be form-encoded' : undefined,
  },
  {
    kind: 'fault',
    name: 'query-form-refused',
    description: 'Query and refund search requests sent as form fields are refused (the gateway reads JSON only).',
    requirement: 'PAGI-MED-003',
    expectedCheck: 'documentedRequestAccepted',
    refuse: (op, _b, encoding) =>
      (op === 'retrievalTrans' || op === 'retrievalRefund') && encoding === 'form'
        ? 'form bodies are not read'
        : undefined,
  },
  {
    kind: 'fault',
    name: 'apm-bank-code-refused',
    description: 'APM payments carrying the documented bank_code field are refused as invalid input.',
    requirement: 'PAGI-APM-001',
    expectedCheck: 'documentedRequestAccepted',
    refuse: (op, b) => (op === 'authoriseApm' && b.bank_code !== undefined ? 'bank_code is not accepted' : undefined),
  },
  {
    kind: 'fault',
    name: 'payout-integer-amount-refused',
    description:
      'Payouts whose payment_amount is the documented integer string are refused (the gateway wants two decimals).',
    requirement: 'PAGI-FMT-002',
    expectedCheck: 'documentedRequestAccepted',
    refuse: (op, b) =>
      op === 'payout' && typeof b.payment_amount === 'string' && !b.payment_amount.includes('.')
        ? 'payment_amount has no decimals'
        : undefined,
  },

  // ------------------------------------------------------------------ media: XML, content types, the checkout page
  {
    kind: 'fault',
    name: 'xml-root-wrong',
    description: 'XML payment responses use the root element <response> instead of <respon>.',
    requirement: 'PAGI-MED-006',
    expectedCheck: 'xmlRootIsRespon',
    reply: (reply) => (reply.kind === 'xml' && reply.root === 'respon' ? { ...reply, root: 'response' } : reply),
  },
  {
    kind: 'fault',
    name: 'xml-unclosed-root',
    description: 'XML responses end without the closing tag of their root element (not well-formed).',
    requirement: 'PAGI-MED-006',
    expectedCheck: 'responseBodyFormat',
    wire: text('application/xml', (xml) => xml.replace(/<\/[A-Za-z_][\w.-]*>\s*$/, '')),
  },
  {
    kind: 'fault',
    name: 'xml-content-type-json',
    description: 'XML responses declare Content-Type application/json.',
    requirement: 'PAGI-MED-009',
    expectedCheck: 'responseContentTypeConventional',
    wire: contentType('application/xml', 'application/json; charset=utf-8'),
  },
  {
    kind: 'fault',
    name: 'json-content-type-text',
    description: 'JSON responses declare Content-Type text/plain.',
    requirement: 'PAGI-MED-009',
    expectedCheck: 'responseContentTypeConventional',
    wire: contentType('application/json', 'text/plain; charset=utf-8'),
  },
  {
    kind: 'fault',
    name: 'refund-response-form-encoded',
    description: 'Refund responses are form-encoded text instead of JSON.',
    requirement: 'PAGI-MED-008',
    expectedCheck: 'responseBodyFormat',
    wire: (wire, ctx) =>
      succeeded(ctx, ['refund']) && wire.headers['content-type']?.startsWith('application/json')
        ? {
            ...wire,
            headers: { ...wire.headers, 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
            body: new URLSearchParams(
              Object.entries(JSON.parse(wire.body) as Body).map(([k, v]) => [
                k,
                typeof v === 'string' ? v : JSON.stringify(v),
              ]),
            ).toString(),
          }
        : wire,
  },
  {
    kind: 'fault',
    name: 'checkout-empty-page',
    description:
      'The hosted checkout is answered with an empty body and a Location header instead of the auto-submitting HTML page.',
    requirement: 'PAGI-MED-007',
    expectedCheck: 'responseBodyFormat',
    wire: (wire, ctx) =>
      succeeded(ctx, ['checkout']) && /<body onload=/.test(wire.body)
        ? { ...wire, headers: { ...wire.headers, location: /action="([^"]*)"/.exec(wire.body)?.[1] ?? '' }, body: '' }
        : wire,
  },
  {
    kind: 'fault',
    name: 'checkout-requires-card',
    description: 'A hosted checkout without the direct-only card field is refused as invalid input.',
    requirement: 'PAGI-CHK-001',
    expectedCheck: 'checkoutNeedsNoDirectOnlyField',
    refuse: (op, b) => (op === 'checkout' && b.card === undefined ? 'card is missing' : undefined),
  },
  {
    kind: 'fault',
    name: 'checkout-method-get',
    description: 'The hosted checkout page submits its form with method GET instead of POST.',
    requirement: 'PAGI-CHK-002',
    expectedCheck: 'checkoutFormPostsToBaseUrl',
    reply: checkoutForm((form) => ({ ...form, method: 'GET' })),
  },
  {
    kind: 'fault',
    name: 'checkout-action-unversioned',
    description: 'The checkout form posts to {base_url}/checkout, without the /v1 of the documented action.',
    requirement: 'PAGI-CHK-003',
    expectedCheck: 'checkoutFormPostsToBaseUrl',
    reply: checkoutForm((form) => ({ ...form, action: form.action.replace('/v1/', '/') })),
  },
  {
    kind: 'fault',
    name: 'checkout-no-auto-submit',
    description: 'The checkout page waits for the shopper to press a button instead of submitting the form on load.',
    requirement: 'PAGI-CHK-004',
    expectedCheck: 'checkoutFormSubmitsOnLoad',
    reply: checkoutPage((page) => ({
      ...page,
      autoSubmit: false,
      form: { ...page.form, buttons: [{ name: 'continue', value: '1', label: 'Continue' }] },
    })),
  },
  {
    kind: 'fault',
    name: 'checkout-field-not-hidden',
    description: 'The checkout form carries the submitted order_no in a visible text input instead of a hidden one.',
    requirement: 'PAGI-CHK-005',
    expectedCheck: 'checkoutFormEchoesSubmittedFields',
    reply: checkoutInputs((inputs) => inputs.map((i) => (i.name === 'order_no' ? { ...i, type: 'text' } : i))),
  },
  {
    kind: 'fault',
    name: 'checkout-drops-alias',
    description: 'The checkout form leaves out the first alias the document lists.',
    requirement: 'PAGI-CHK-006',
    expectedCheck: 'checkoutFormHasEveryAlias',
    reply: checkoutInputs((inputs, ctx) => inputs.filter((i) => i.name !== ctx.op?.checkoutForm?.aliasNames[0])),
  },
  {
    kind: 'fault',
    name: 'checkout-alias-amount-in-cents',
    description:
      'The checkout form writes the alias standing for amount (orderAmount in the reference profile) in minor units (1036 for 10.36).',
    requirement: 'PAGI-CHK-007',
    expectedCheck: 'checkoutAliasesEqualSources',
    reply: checkoutInputs((inputs, ctx) => {
      const alias = Object.entries(ctx.profile.checkout.aliases).find(([, source]) => source === 'amount')?.[0];
      return inputs.map((i) => (i.name === alias ? { ...i, value: i.value.replace('.', '') } : i));
    }),
  },
  {
    kind: 'fault',
    name: 'checkout-all-params-drops-field',
    description: 'The checkout form’s allParams leaves out the first submitted parameter.',
    requirement: 'PAGI-CHK-008',
    expectedCheck: 'checkoutAllParamsMatchSubmitted',
    reply: checkoutInputs((inputs, ctx) =>
      inputs.map((i) =>
        i.name === ctx.op?.checkoutForm?.allParamsName ? { ...i, value: i.value.split('&').slice(1).join('&') } : i,
      ),
    ),
  },
  {
    kind: 'fault',
    name: 'checkout-drops-gateway-field',
    description: 'The checkout form leaves out the last gateway-added field the document lists.',
    requirement: 'PAGI-CHK-009',
    expectedCheck: 'checkoutFormHasGatewayFields',
    reply: checkoutInputs((inputs, ctx) => inputs.filter((i) => i.name !== ctx.op?.checkoutForm?.gatewayFields.at(-1))),
  },

  // ------------------------------------------------------------------ conventions: written forms, echoes, masking
  {
    kind: 'fault',
    name: 'batch-amount-three-decimals',
    description: 'Batch results write amount with three decimals (10.360).',
    requirement: 'PAGI-FMT-001',
    expectedCheck: 'fieldFormatsFollowConventions',
    reply: items(BATCH_OPS, (item) =>
      typeof item.amount === 'string' ? { ...item, amount: `${item.amount}0` } : item,
    ),
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
    reply: items(['refund', 'retrievalRefund'], (item) =>
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
    reply: items(BATCH_OPS, (item) => without(item, 'order_no')),
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

  // ------------------------------------------------------------------ limits: too strict, too loose, truncating
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
    reply: (reply, ctx) => (listOf(reply, ctx, BATCH_OPS)?.list.length === 0 ? { ...reply, status: 500 } : reply),
  },

  // ------------------------------------------------------------------ status codes
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
    description: 'Refund search is served at /retrievalRefund instead of /v1/retrievalRefund.',
    requirement: 'PAGI-GEN-001',
    expectedCheck: 'operationServedAtVersionedPath',
    switches: { unversionedPaths: ['retrievalRefund'] },
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
    reply: items(BATCH_OPS, (item, ctx) => {
      const batch = ctx.op!.batch!;
      const failure = ctx.profile.batch.itemFailures.unknownTransaction;
      return item[batch.message] === `${failure.code}:${failure.message}`
        ? { ...item, [batch.status]: itemSuccess(ctx), [batch.message]: ctx.profile.batch.itemSuccess.errorMessage }
        : item;
    }),
  },

  // ------------------------------------------------------------------ security
  {
    kind: 'fault',
    name: 'signature-not-verified',
    description: 'Requests are accepted whatever their encryption_data, even without one.',
    requirement: 'PAGI-AUTH-006',
    expectedCheck: 'badSignatureRefusedPerProfile',
    switches: { signatureCheck: 'ignored' },
  },
  {
    kind: 'fault',
    name: 'missing-signature-accepted',
    description: 'Requests without encryption_data are accepted (a wrong one is still refused).',
    requirement: 'PAGI-AUTH-005',
    expectedCheck: 'missingSignatureRefused',
    switches: { signatureCheck: 'ignoredWhenMissing' },
  },
  {
    kind: 'fault',
    name: 'signature-checked-after-operation',
    description:
      'A request with a wrong encryption_data is refused only after the operation ran: the refusal changed the state.',
    requirement: 'PAGI-ERR-003',
    expectedCheck: 'badSignatureRefusedPerProfile',
    switches: { signatureCheck: 'afterOperation' },
  },
  {
    kind: 'fault',
    name: 'query-from-any-address',
    description: 'The query answers requests from source addresses the merchant never registered.',
    requirement: 'PAGI-AUTH-008',
    expectedCheck: 'queryRefusedFromUnregisteredAddress',
    switches: { skipAddressRestriction: true },
  },
  {
    kind: 'fault',
    name: 'response-signature-wrong',
    description: 'Responses carry an encryption_data that does not verify (the right digits in reverse order).',
    requirement: 'PAGI-AUTH-007',
    expectedCheck: 'responseSignatureVerifies',
    reply: body([], (b) =>
      typeof b.encryption_data === 'string' ? { ...b, encryption_data: [...b.encryption_data].reverse().join('') } : b,
    ),
  },
  {
    kind: 'fault',
    name: 'checkout-values-unescaped',
    description: 'The checkout page writes input values without HTML escaping.',
    requirement: 'PAGI-SEC-002',
    expectedCheck: 'freeTextParsesBackExactly',
    wire: text('text/html', unescapedHtml),
  },

  // ------------------------------------------------------------------ lifecycle
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
    reply: list(['retrievalRefund'], (all) =>
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

  // ------------------------------------------------------------------ events
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

  // ------------------------------------------------------------------ payment integrity: one fault per family of invariants
  ...INTEGRITY_FAULTS,
  // ------------------------------------------------------------------ deep: faults only generated requests reach
  {
    kind: 'fault',
    name: 'direct-crash-on-challenge-window',
    description:
      'Direct payments asking for 3-D Secure with any challenge window size but the one the document shows (01) crash the gateway (HTTP 500).',
    requirement: 'PAGI-ERR-002',
    expectedCheck: 'deepNeverServerError',
    deepOperation: 'authoriseDirect',
    refuse: (op, b) => {
      if (
        op === 'authoriseDirect' &&
        typeof b.challenge_window_size === 'string' &&
        b.challenge_window_size !== '01' &&
        b.open3d !== undefined
      ) {
        throw new Error(`no challenge window layout ${b.challenge_window_size}`);
      }
      return undefined;
    },
  },
  {
    kind: 'fault',
    name: 'direct-amount-unformatted-for-unlisted-currency',
    description:
      "Direct payment responses write amount without its two decimals (150 for 150.00) for a currency outside the gateway's minor-unit table (USD, EUR, BRL, GBP).",
    requirement: 'PAGI-FMT-001',
    expectedCheck: 'deepAnswersConform',
    deepOperation: 'authoriseDirect',
    reply: body(['authoriseDirect'], (b) =>
      typeof b.currency === 'string' &&
      !['USD', 'EUR', 'BRL', 'GBP'].includes(b.currency) &&
      typeof b.amount === 'string'
        ? { ...b, amount: String(Math.round(Number(b.amount))) }
        : b,
    ),
  },
  {
    kind: 'fault',
    name: 'direct-signature-ignores-currency',
    description:
      "The direct payment's signature check takes a well-formed currency from the account's default (USD), not from the request: a currency changed after signing passes.",
    requirement: 'PAGI-AUTH-006',
    expectedCheck: 'deepInvalidRequestRefused',
    deepOperation: 'authoriseDirect',
    switches: {
      signatureFieldFixed: { operation: 'authoriseDirect', field: 'currency', value: 'USD', pattern: '^[A-Z]{3}$' },
    },
  },

  // ------------------------------------------------------------------ neutral variants: conformant, must pass
  {
    kind: 'neutral',
    name: 'json-extra-fields',
    description: 'JSON responses (and their result items) carry an extra field the spec does not declare.',
    reply: (reply, ctx) => {
      if (reply.kind !== 'json') return reply;
      const withList = items([], (item) => ({ ...item, x_vendor_note: 'extra' }))(reply, ctx);
      return withList.kind === 'json'
        ? { ...withList, body: { ...withList.body, x_vendor_trace: 'neutral-0001' } }
        : withList;
    },
  },
  {
    kind: 'neutral',
    name: 'xml-extra-elements',
    description: 'XML responses carry an extra element the spec does not declare.',
    reply: (reply) =>
      reply.kind === 'xml' ? { ...reply, body: { ...reply.body, vendor_reference: 'neutral-0001' } } : reply,
  },
  {
    kind: 'neutral',
    name: 'json-keys-reversed',
    description: 'JSON responses list every object’s keys in reverse order.',
    reply: (reply) => (reply.kind === 'json' ? { ...reply, body: reversedKeys(reply.body) as Body } : reply),
  },
  {
    kind: 'neutral',
    name: 'xml-elements-reversed',
    description: 'XML responses list their elements in reverse order.',
    reply: (reply) => (reply.kind === 'xml' ? { ...reply, body: reversedKeys(reply.body) as Body } : reply),
  },
  {
    kind: 'neutral',
    name: 'xml-declared-and-indented',
    description: 'XML responses carry a full XML declaration (standalone) and one element per line, indented.',
    wire: text('application/xml', indentedXml),
  },
  {
    kind: 'neutral',
    name: 'xml-text-xml-charset',
    description: 'XML responses declare Content-Type text/xml with a charset parameter.',
    wire: contentType('application/xml', 'text/xml; charset=UTF-8'),
  },
  {
    kind: 'neutral',
    name: 'chunked-responses',
    description: 'Responses are sent with chunked transfer encoding, without Content-Length.',
    wire: (wire) => ({ ...wire, chunked: true }),
  },
  {
    kind: 'neutral',
    name: 'checkout-extra-markup',
    description:
      'The checkout page wraps the form in extra markup (a style sheet, a header, a wrapper element, a footer).',
    wire: text('text/html', (html) =>
      html
        .replace('</head>', '<style>body{font-family:sans-serif}</style>\n</head>')
        .replace(/(<body[^>]*>)/, '$1\n<header><p>Secure payment</p></header>\n<main><div class="wrapper">')
        .replace('</body>', '</div></main>\n<footer><p>&copy; Reference</p></footer>\n</body>'),
    ),
  },
  {
    kind: 'neutral',
    name: 'checkout-submit-by-script',
    description: 'The checkout page submits its form from an inline script instead of <body onload>.',
    wire: scriptSubmit('document.forms[0].submit();'),
  },
  {
    kind: 'neutral',
    name: 'checkout-request-submit',
    description: 'The checkout page submits its form with requestSubmit() from an inline script.',
    wire: scriptSubmit("document.forms['checkout'].requestSubmit();"),
  },
  {
    kind: 'neutral',
    name: 'signatures-upper-case',
    description:
      'Response encryption_data is written in upper-case hexadecimal (the reference profile compares case-insensitively).',
    reply: body([], (b) =>
      typeof b.encryption_data === 'string' ? { ...b, encryption_data: b.encryption_data.toUpperCase() } : b,
    ),
  },
  {
    kind: 'neutral',
    name: 'payout-timestamps-z',
    description: 'Payout timestamps end with Z instead of +00:00.',
    reply: body(['payout'], (b) => ({
      ...b,
      created_at: String(b.created_at).replace(/\+00:00$/, 'Z'),
      last_updated_at: String(b.last_updated_at).replace(/\+00:00$/, 'Z'),
    })),
  },
];

export { UnknownFaultError };

/** The variant of that name; throws UnknownFaultError naming the known ones. */
export function findFault(name: string): FaultDefinition {
  const fault = FAULTS.find((f) => f.name === name);
  if (!fault)
    throw new UnknownFaultError(`unknown fault '${name}'; known faults: ${FAULTS.map((f) => f.name).join(', ')}`);
  return fault;
}

const CONFORMANT: BehaviourSwitches = {
  signatureCheck: 'verified',
  skipAddressRestriction: false,
  skipRefundBound: false,
  skipCaptureBound: false,
  captureCancelled: false,
  suppressNotifications: false,
  unsignedNotifications: false,
  unmaskedCard: false,
  skipSchemaValidation: false,
  unversionedPaths: [],
  batchLimitDelta: 0,
  selectionLimitDelta: 0,
  truncateOverLimit: false,
};

/** The behaviour switches of a variant (all off without one). */
export function switchesOf(fault: FaultDefinition | undefined): BehaviourSwitches {
  return { ...CONFORMANT, ...fault?.switches };
}
