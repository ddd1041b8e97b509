/**
 * Fixture builder for the suites' unit tests: a check context on the kit's spec and the reference profile, synthetic
 * exchanges (request as sent, decoded response, masked evidence) and observations, and conformant observations of
 * each probe built from the spec's examples and the profile — the cases mutate them to make one property fail.
 */
import { catalogueRequirement } from '../../core/check-context.js';
import { encodeForm } from '../../core/codecs/form.js';
import { maskText } from '../../core/mask.js';
import type {
  CheckContext,
  CheckoutFormModel,
  DecodedBody,
  Exchange,
  Observation,
  ObservationFacts,
  OperationKey,
  RunConfigView,
} from '../../core/model.js';
import { loadProfile, type Profile } from '../../core/profile/load.js';
import { kitSpec } from '../../core/spec/load.js';
import { exampleValue } from '../support/examples.js';
import { runConfig } from '../support/config.js';

export const spec = kitSpec();
export const profile: Profile = loadProfile('reference').profile;

/** The run configuration of the fixtures (the examples' merchant and base URL). */
export const config: RunConfigView = runConfig('https://gateway.example', {
  merchantId: 'M10001',
  accountId: 'A20001',
  orderPrefix: 'FX',
  seed: 7,
  cards: { approve: '4111111111111111', decline: '4000000000000002' },
  paymentMethods: { valid: ['BANK_TRANSFER'], unknown: 'NO_SUCH_METHOD' },
  unregisteredAddress: '127.0.0.2',
  notifyUrl: 'http://127.0.0.1:9/notify',
  notifyWaitMs: 50,
});

/** A check context over the kit's spec and (a copy of) the reference profile. */
export function context(
  overrides: { config?: Partial<RunConfigView>; profile?: (p: Profile) => void } = {},
): CheckContext {
  const p = structuredClone(profile);
  overrides.profile?.(p);
  return {
    spec,
    profile: p,
    config: { ...config, ...overrides.config },
    requirement: (id) => catalogueRequirement(spec, id),
  };
}

/** What a synthetic exchange holds. */
export interface ExchangeSpec {
  request?: Record<string, unknown>;
  encoding?: 'json' | 'form' | 'raw';
  rawBody?: string;
  method?: string;
  url?: string;
  requestHeaders?: Record<string, string>;
  status?: number;
  headers?: Record<string, string>;
  json?: unknown;
  xml?: Record<string, unknown>;
  xmlRoot?: string;
  form?: CheckoutFormModel;
  decoded?: DecodedBody;
  bodyText?: string;
  error?: Exchange['error'];
  startedAt?: string;
}

let counter = 0;

const CONTENT_TYPES = {
  json: 'application/json',
  xml: 'application/xml; charset=utf-8',
  html: 'text/html; charset=utf-8',
} as const;

/** A synthetic exchange of an operation (or `external`); evidence masked as the engine records it. */
export function exchange(operation: OperationKey | 'external', s: ExchangeSpec = {}): Exchange {
  const op = operation === 'external' ? undefined : spec.operations.get(operation);
  const request = s.request ?? {};
  const encoding = s.encoding ?? (operation === 'external' ? 'form' : profile.requestMedia.types[operation]);
  const bodyText = s.rawBody ?? (encoding === 'json' ? JSON.stringify(request) : encodeForm(request));
  const url = s.url ?? `${config.baseUrl}${op?.path ?? '/'}`;
  let decoded: DecodedBody = s.decoded ?? { kind: 'empty' };
  let text = s.bodyText ?? '';
  let type: string | undefined;
  if (s.json !== undefined)
    [decoded, text, type] = [{ kind: 'json', value: s.json }, JSON.stringify(s.json), CONTENT_TYPES.json];
  else if (s.xml)
    [decoded, text, type] = [
      { kind: 'xml', root: s.xmlRoot ?? 'respon', value: s.xml },
      `<respon>${JSON.stringify(s.xml)}</respon>`,
      CONTENT_TYPES.xml,
    ];
  else if (s.form)
    [decoded, text, type] = [
      { kind: 'html', form: s.form },
      `<html>${JSON.stringify(s.form.inputs)}</html>`,
      CONTENT_TYPES.html,
    ];
  const id = `${operation}#fx.${++counter}`;
  const x: Exchange = {
    id,
    operation,
    request: {
      method: s.method ?? 'POST',
      url,
      headers: s.requestHeaders ?? { 'content-type': 'application/json' },
      body: request,
      bodyText,
      encoding: s.rawBody ? 'raw' : encoding,
    },
    startedAt: s.startedAt ?? new Date(Date.UTC(2026, 10, 22, 12, 0, 0, counter)).toISOString(),
    durationMs: 1,
    evidence: {
      request: { method: 'POST', url, headers: {}, body: maskText(bodyText, { cards: Object.values(config.cards) }) },
      curl: `curl -X POST ${url}`,
    },
  };
  if (s.error) x.error = s.error;
  else
    x.response = {
      status: s.status ?? 200,
      headers: s.headers ?? (type ? { 'content-type': type } : {}),
      bodyText: s.bodyText ?? text,
      truncated: false,
      decoded,
    };
  return x;
}

/** An observation of a probe. */
export function observation(
  probeId: string,
  operation: OperationKey,
  main: Exchange,
  steps: Record<string, Exchange> = {},
  facts: ObservationFacts = {},
): Observation {
  return { probeId, operation, main, steps, facts };
}

const clone = <T>(v: T): T => structuredClone(v);

/** The reference profile's card fields of a direct payment, with the approve test card. */
export const CARD_FIELDS = {
  [profile.fields.card.number]: config.cards.approve,
  [profile.fields.card.expiryMonth]: '12',
  [profile.fields.card.expiryYear]: '2029',
  [profile.fields.card.securityCode]: '123',
};

/** Request and conformant response bodies of each operation, from the spec's examples and the reference profile. */
export function bodies(op: OperationKey): { request: Record<string, unknown>; response: Record<string, unknown> } {
  switch (op) {
    case 'authoriseDirect': {
      const response = clone(exampleValue('authorise-direct-response.yaml'));
      response.result_info = `${profile.payments.resultInfo.approved.code}:${profile.payments.resultInfo.approved.message}`;
      return { request: { ...clone(exampleValue('authorise-direct-request.yaml')), ...CARD_FIELDS }, response };
    }
    case 'authoriseApm':
      return {
        request: clone(exampleValue('authorise-apm-request.yaml')),
        response: clone(exampleValue('authorise-apm-response.yaml')),
      };
    case 'checkout':
      return {
        request: clone(exampleValue('checkout-request.yaml')),
        response: checkoutForm() as unknown as Record<string, unknown>,
      };
    case 'retrievalTrans': {
      const response = clone(exampleValue('retrieval-trans-response.yaml'));
      response.orders_list = response.orders_list.slice(0, 1);
      return {
        request: { ...clone(exampleValue('retrieval-trans-request.yaml')), transaction_id: 'T202611220001' },
        response,
      };
    }
    case 'retrievalRefund': {
      const response = clone(exampleValue('retrieval-refund-response.yaml'));
      response.refund_orders = response.refund_orders.filter(
        (r: { transaction_id: string }) => r.transaction_id === 'T202611220001',
      );
      return {
        request: { ...clone(exampleValue('retrieval-refund-request.yaml')), transaction_id: 'T202611220001' },
        response,
      };
    }
    case 'payout': {
      const response = clone(exampleValue('payout-response.yaml'));
      response.failure_type = profile.payout.successFailureType;
      response.failure_reason = profile.payout.successFailureReason;
      return { request: clone(exampleValue('payout-request.yaml')), response };
    }
    default:
      return {
        request: clone(exampleValue(`${op}-request.yaml`)),
        response: clone(exampleValue(`${op}-response.yaml`)),
      };
  }
}

/** The example checkout form model, with the reference profile's gateway values, input order and no buttons. */
export function checkoutForm(): CheckoutFormModel {
  const form = clone(exampleValue('checkout-form.yaml')) as CheckoutFormModel;
  Object.assign(form.inputs, profile.checkout.gatewayFieldValues);
  form.inputOrder = Object.keys(form.inputs);
  return form;
}

/** The happy exchange of an operation (its response format from the spec). */
export function happyExchange(
  op: OperationKey,
  change?: (b: { request: Record<string, unknown>; response: Record<string, unknown> }) => void,
): Exchange {
  const b = bodies(op);
  change?.(b);
  if (op === 'authoriseDirect' || op === 'authoriseApm') return exchange(op, { request: b.request, xml: b.response });
  if (op === 'checkout') return exchange(op, { request: b.request, form: b.response as unknown as CheckoutFormModel });
  return exchange(op, { request: b.request, json: b.response });
}

/** A conformant observation of the `happy` probe for an operation. */
export function happyObservation(
  op: OperationKey,
  change?: (b: { request: Record<string, unknown>; response: Record<string, unknown> }) => void,
): Observation {
  const steps: Record<string, Exchange> = {};
  if (op === 'retrievalTrans') steps.authorise = happyExchange('authoriseDirect');
  const main = happyExchange(op, change);
  const signed =
    profile.signature.response.signed &&
    'fields' in profile.signature.response &&
    op in profile.signature.response.fields;
  return observation('happy', op, main, { ...steps, [op]: main }, signed ? { signatureValid: true } : {});
}

/** An error answer of the reference profile for an operation and error kind. */
export function errorExchange(
  op: OperationKey,
  kind: keyof Profile['errors']['kinds'],
  request: Record<string, unknown> = {},
): Exchange {
  const k = profile.errors.kinds[kind]!;
  const format = profile.errors.formatByOperation[op];
  const message = `${k.code}:${k.message}`;
  if (format === 'json') {
    return exchange(op, {
      request,
      status: k.status,
      json: {
        merchant_id: request.merchant_id ?? '',
        account_id: request.account_id ?? '',
        return_status: '0',
        return_message: message,
      },
    });
  }
  if (format === 'xml') {
    return exchange(op, {
      request,
      status: k.status,
      xml: {
        merchant_id: String(request.merchant_id ?? ''),
        account_id: String(request.account_id ?? ''),
        order_no: String(request.order_no ?? ''),
        order_status: '0',
        result_info: message,
      },
    });
  }
  return exchange(op, {
    request,
    status: k.status,
    headers: { 'content-type': 'text/html' },
    bodyText: `<html><title>Error ${k.code}</title><p id="error">${message}</p></html>`,
  });
}

/** An order record of the query for a payment, in a state of the reference profile. */
export function orderRecord(
  fields: { transaction_id: string; order_no: string; amount: string; currency: string },
  state: string,
): Record<string, unknown> {
  const base = clone(exampleValue('retrieval-trans-response.yaml').orders_list[0]);
  return { ...base, ...fields, payment_status: (profile.statusValues.payment_status as Record<string, string>)[state] };
}

/** A query answer listing records. */
export function queryExchange(
  records: Record<string, unknown>[],
  request: Record<string, unknown> = { merchant_id: 'M10001', account_id: 'A20001' },
): Exchange {
  return exchange('retrievalTrans', {
    request,
    json: {
      merchant_id: 'M10001',
      account_id: 'A20001',
      return_status: '1',
      return_message: 'OK',
      orders_list: records,
    },
  });
}

/** A batch answer with one result per item, each a success or the profile's failure of a kind. */
export function batchExchange(
  op: 'capture' | 'review' | 'cancel' | 'refund',
  items: Record<string, unknown>[],
  outcome: (item: Record<string, unknown>, i: number) => 'success' | keyof Profile['batch']['itemFailures'] = () =>
    'success',
  status = 200,
): Exchange {
  const batch = spec.operations.get(op)!.batch!;
  const values = (profile.statusValues as unknown as Record<string, { success: string; failure: string }>)[
    batch.status
  ]!;
  const results = items.map((item, i) => {
    const o = outcome(item, i);
    const failure = o === 'success' ? undefined : profile.batch.itemFailures[o];
    const message =
      batch.messageOnSuccess === 'empty'
        ? failure
          ? `${failure.code}:${failure.message}`
          : profile.batch.itemSuccess.errorMessage
        : failure
          ? `${failure.code}:${failure.message}`
          : `${profile.batch.itemSuccess.refundMessage.code}:${profile.batch.itemSuccess.refundMessage.message}`;
    // The reference profile: a failed refund item carries no reference; refund_reference is the reference id.
    const id = `${String(item.transaction_id)}-0${i + 1}`;
    const extra = op === 'refund' && !failure ? { refund_reference: id, refund_reference_id: id } : {};
    return { ...item, ...extra, [batch.status]: failure ? values.failure : values.success, [batch.message]: message };
  });
  const request = { merchant_id: 'M10001', account_id: 'A20001', [batch.orders]: items };
  return exchange(op, {
    request,
    status,
    json: {
      merchant_id: 'M10001',
      account_id: 'A20001',
      return_status: '1',
      return_message: 'OK',
      encryption_data: 'a'.repeat(64),
      [batch.orders]: results,
    },
  });
}

/** A batch request item for a payment. */
export function item(
  transactionId: string,
  orderNo: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { transaction_id: transactionId, order_no: orderNo, currency: 'USD', amount: '10.36', ...extra };
}
