/**
 * The document's field names that checks and probes reason about one at a time (the refunded amount, the
 * reference id, the issuer URL, ...). Field *lists*, limits, formats, echo rules and alias names are never written
 * here: they are read from the spec and the profile. Every name below is verified at load against the schemas
 * (`verifyFields`), so a renamed field breaks loudly instead of being silently ignored.
 */
import type { SpecModel } from '../core/spec/load.js';
import { TOKEN_FIELDS } from '../core/spec/terms.js';
import { declaredNames, expand, schemasAt, schemaRoot } from '../core/spec/schema-walk.js';

/** Single fields, each with the operation whose request or response schema declares it. */
export const FIELD = {
  signature: 'encryption_data',
  merchantId: 'merchant_id',
  accountId: 'account_id',
  orderNo: 'order_no',
  transactionId: 'transaction_id',
  amount: 'amount',
  currency: 'currency',
  card: 'card',
  orderStatus: 'order_status',
  resultInfo: 'result_info',
  threeDsRequest: 'open3d',
  threeDsResult: 'threeds_result',
  is3ds: 'is3ds',
  tokenFlag: TOKEN_FIELDS.flag,
  tokenId: TOKEN_FIELDS.id,
  subscription: 'subscription',
  shopperEmail: 'shopper_email',
  notifyUrl: 'notify_url',
  issuerUrl: 'issuer_url',
  ordersList: 'orders_list',
  paymentStatus: 'payment_status',
  queryResult: 'query_result',
  returnStatus: 'return_status',
  returnMessage: 'return_message',
  refundAmount: 'refund_amount',
  refundReferenceId: 'refund_reference_id',
  refundOrders: 'refund_orders',
  reviewFlag: 'review_flag',
  requestId: 'request_id',
  payoutStatus: 'status',
  failureType: 'failure_type',
  failureReason: 'failure_reason',
  transactionDate: 'transaction_date',
  refundReference: 'refund_reference',
  feePaidBy: 'fee_paid_by',
  paymentAmount: 'payment_amount',
  paymentCurrency: 'payment_currency',
  sourceAmount: 'source_amount',
  sourceCurrency: 'source_currency',
  feeAmount: 'fee_amount',
  amountPayerPays: 'amount_payer_pays',
  amountBeneficiaryReceives: 'amount_beneficiary_receives',
  beneficiary: 'beneficiary',
  bankDetails: 'bank_details',
  localClearingSystem: 'local_clearing_system',
} as const;

function namesOf(spec: SpecModel, schemaId: string, pointer = ''): Set<string> {
  const ats = pointer ? schemasAt(spec, schemaId, pointer) : expand(spec, schemaRoot(spec, schemaId));
  return declaredNames(ats) ?? new Set();
}

/** Every property name declared anywhere in the spec's schemas. */
function allNames(spec: SpecModel): Set<string> {
  const names = new Set<string>();
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) {
        if (k === 'properties' && v && typeof v === 'object') for (const name of Object.keys(v)) names.add(name);
        walk(v);
      }
    }
  };
  for (const schema of spec.schemas.values()) walk(schema);
  return names;
}

/** Problems of FIELD and the spec's result groups (`x-pagi.results`) against the schemas: names no schema declares. */
export function fieldProblems(spec: SpecModel): string[] {
  const problems: string[] = [];
  const known = allNames(spec);
  for (const [key, name] of Object.entries(FIELD))
    if (!known.has(name)) problems.push(`FIELD.${key} (${name}) is declared by no schema`);
  const direct = spec.operations.get('authoriseDirect');
  const query = spec.operations.get('retrievalTrans');
  if (direct && query) {
    const payment = namesOf(spec, direct.responseSchemaId);
    const request = namesOf(spec, direct.requestSchemaId);
    const record = namesOf(spec, query.responseSchemaId, `/${FIELD.ordersList}/0`);
    for (const [group, g] of Object.entries(spec.results)) {
      for (const name of g.payment)
        if (!payment.has(name))
          problems.push(`x-pagi.results.${group}: ${name} is not a direct payment response field`);
      for (const name of g.query)
        if (!record.has(name)) problems.push(`x-pagi.results.${group}: ${name} is not a query order-record field`);
      if (g.asks && !request.has(g.asks))
        problems.push(`x-pagi.results.${group}: ${g.asks} is not a direct payment request field`);
    }
  }
  return problems;
}
