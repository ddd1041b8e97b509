/** Faults of the shape family: missing, mistyped and mis-nested fields, and documented requests refused. */
import { type Body, type FaultDefinition, body, items, text, without } from './fault-hooks.js';

/** JSON text whose top-level object names its first member twice: an empty value first, then the real one. */
function firstMemberTwice(json: string): string {
  const value: unknown = JSON.parse(json);
  const first = value && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value)[0] : undefined;
  return first === undefined ? json : `{${JSON.stringify(first)}:"",${json.slice(json.indexOf('{') + 1)}`;
}

/** The variants of this file: shape: missing, mistyped, mis-nested fields. */
export const SHAPE_FAULTS: readonly FaultDefinition[] = [
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
    reply: items('batch', (item) =>
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
    reply: items('batchResultSearch', (item) => without(item, 'refund_processing_date')),
  },
  {
    kind: 'fault',
    name: 'responses-unsigned',
    description: 'Successful responses carry no encryption_data.',
    requirement: 'PAGI-AUTH-002',
    expectedCheck: 'responseMatchesSchema',
    reply: body('all', (b) => without(b, 'encryption_data')),
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
    refuse: (_op, _b, encoding, model) =>
      model.selectionLimit !== undefined && encoding === 'form' ? 'form bodies are not read' : undefined,
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
  {
    kind: 'fault',
    name: 'json-member-named-twice',
    description:
      'JSON answers name the first member of their object twice, an empty value before the real one (JSON.parse keeps the last; a reader keeping the first sees the empty one).',
    requirement: 'PAGI-MED-010',
    expectedCheck: 'jsonMembersNamedOnce',
    wire: text('application/json', firstMemberTwice),
  },
];
