/**
 * Levels true to the interface document: each case is a point where the kit used to assert more than the document
 * says (a format narrower than the document, a single field required at `must`, a profile choice judged at `expected`)
 * or said less than it should (a listed field absent, reported nowhere).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CheckContext, Finding, Observation } from '../../core/model.js';
import { createAjv } from '../../core/spec/ajv.js';
import { KIT_ROOT } from '../../core/spec/paths.js';
import { readYamlFile } from '../../core/yaml.js';
import { checkOf } from '../../suites/registry.js';
import {
  batchExchange,
  context,
  errorExchange,
  exchange,
  happyObservation,
  item,
  observation,
  spec,
} from './fixtures.js';
import { exampleNames, exampleValue } from '../support/examples.js';

type Bodies = { request: Record<string, unknown>; response: Record<string, unknown> };

function findings(
  checkId: string,
  o: Observation,
  ctx: CheckContext = context(),
): Finding[] | { notApplicable: string } {
  return checkOf(checkId).run(o, ctx);
}
/** The failing findings of the checks on an observation. */
function failing(checkIds: string[], o: Observation, ctx: CheckContext = context()): Finding[] {
  return checkIds.flatMap((id) => {
    const out = findings(id, o, ctx);
    return Array.isArray(out) ? out.filter((f) => f.severity !== 'info') : [];
  });
}
const describeFindings = (fs: Finding[]) =>
  fs.map((f) => `${f.checkId} ${f.code} ${f.severity} ${f.location.pointer} ${f.requirementIds.join(',')}`);
const SHAPE_AND_FORMAT = ['responseMatchesSchema', 'fieldFormatsFollowConventions'];
const violations = (schema: string, body: unknown) =>
  spec.validate(`https://pagi-conformance.dev/schemas/${schema}.schema.json`, body);
const mustViolations = (schema: string, body: unknown) =>
  violations(schema, body).filter((v) => !v.requirementId || spec.requirements.get(v.requirementId)!.level === 'must');

describe('empty values are not format violations', () => {
  it('an empty value of a field with a format passes the format rules', () => {
    const o = happyObservation('authoriseDirect', (b) =>
      Object.assign(b.response, { recurring_deduction_time: '', result_info: '', currency: '' }),
    );
    expect(describeFindings(failing(SHAPE_AND_FORMAT, o).filter((f) => f.code === 'FIELD_FORMAT'))).toEqual([]);
    const payout = happyObservation('payout', (b) => Object.assign(b.response, { created_at: '' }));
    expect(describeFindings(failing(SHAPE_AND_FORMAT, payout))).toEqual([]);
  });

  it('an empty identifier or amount is reported at expected, never must', () => {
    const o = happyObservation('capture', (b) =>
      Object.assign((b.response.capture_orders as Record<string, unknown>[])[0]!, { amount: '' }),
    );
    const direct = happyObservation('authoriseDirect', (b) => Object.assign(b.response, { transaction_id: '' }));
    const found = [...failing(SHAPE_AND_FORMAT, o), ...failing(SHAPE_AND_FORMAT, direct)];
    expect(found.map((f) => f.severity).sort()).toEqual(['expected', 'expected']);
    expect(found.filter((f) => !f.requirementIds.includes('PAGI-GEN-012'))).toEqual([]);
  });
});

describe('anti-fraud results', () => {
  it('no single anti-fraud field is required; one of them present is enough', () => {
    const payment = happyObservation('authoriseDirect', (b) => {
      delete b.response.risk_action;
      delete b.response.risk_score;
    });
    expect(describeFindings(failing(['paymentReturnsRequestedResults'], payment))).toEqual([]);
    const query = happyObservation(
      'retrievalTrans',
      (b) => delete (b.response.orders_list as Record<string, unknown>[])[0]!.antifraud_provider,
    );
    expect(describeFindings(failing(['queryReturnsRequestedResults'], query))).toEqual([]);
  });

  it('no anti-fraud result at all is reported at must (What the service does 5 states they are returned)', () => {
    const payment = happyObservation('authoriseDirect', (b) => {
      for (const f of ['risk_action', 'risk_score', 'risk_reasons']) delete b.response[f];
    });
    const query = happyObservation('retrievalTrans', (b) => {
      const r = (b.response.orders_list as Record<string, unknown>[])[0]!;
      delete r.antifraud_provider;
      delete r.fraud_check_result;
    });
    const found = [
      ...failing(['paymentReturnsRequestedResults'], payment),
      ...failing(['queryReturnsRequestedResults'], query),
    ];
    expect(found.length).toBe(2);
    expect(found.map((f) => f.severity)).toEqual(['must', 'must']);
    expect(found.map((f) => f.requirementIds[0])).toEqual(['PAGI-PAY-005', 'PAGI-QRY-008']);
  });
});

describe('an unknown payment_method', () => {
  it('answered with something else than 404 is a profile-level finding (which record is looked up is the profile’s)', () => {
    const main = errorExchange('authoriseApm', 'invalidInput');
    const found = failing(
      ['apmUnknownRecordIs404'],
      observation('unknownRecord', 'authoriseApm', main, { authoriseApm: main }),
    );
    expect(describeFindings(found)).toEqual([expect.stringMatching(/HTTP_STATUS profile/)]);
  });
});

describe('free text with markup (PAGI-SEC-002)', () => {
  const value = 'Leave"><script>alert(1)</script>';
  const injected = (op: 'authoriseDirect' | 'checkout', change: (b: Bodies) => void = () => {}) => {
    const o = happyObservation(op, (b) => {
      b.request.note = value;
      if (op === 'checkout') (b.response as unknown as { inputs: Record<string, string> }).inputs.note = value;
      else b.response.note = value;
      change(b);
    });
    return observation('injection', op, o.main, { [op]: o.main }, { injected: { note: value } });
  };

  it('a gateway refusing markup in free text is not failing', () => {
    const refused = errorExchange('authoriseDirect', 'invalidInput');
    const out = findings(
      'freeTextParsesBackExactly',
      observation('injection', 'authoriseDirect', refused, {}, { injected: { note: value } }),
    );
    expect(Array.isArray(out) ? describeFindings(out) : []).toEqual([]);
  });

  it('an unknown extra input is not markup injected unless it carries the markup', () => {
    const extra = injected('checkout', (b) => {
      const form = b.response as unknown as { inputs: Record<string, string>; inputOrder: string[] };
      form.inputs.tracking_ref = 'abc';
      form.inputOrder.push('tracking_ref');
    });
    expect(describeFindings(failing(['freeTextParsesBackExactly'], extra))).toEqual([]);
    const carrying = injected('checkout', (b) => {
      const form = b.response as unknown as { inputs: Record<string, string>; inputOrder: string[] };
      form.inputs.tracking_ref = 'alert(1)';
      form.inputOrder.push('tracking_ref');
    });
    expect(failing(['freeTextParsesBackExactly'], carrying).map((f) => f.code)).toContain('MARKUP_INJECTED');
  });

  it('a checkout page holding a form among others is not failing (the document says "a form")', () => {
    const two = happyObservation('checkout', (b) => ((b.response as unknown as { forms: number }).forms = 2));
    expect(describeFindings(failing(['checkoutPageHasOneForm'], two))).toEqual([]);
    const none = happyObservation('checkout', (b) => ((b.response as unknown as { forms: number }).forms = 0));
    expect(failing(['checkoutPageHasOneForm'], none).map((f) => f.code)).toEqual(['FORM_COUNT']);
  });
});

describe('payout echo', () => {
  const lowerSwift = () =>
    happyObservation('payout', (b) => {
      const bank = (b.response.beneficiary as Record<string, unknown>).bank_details as Record<string, string>;
      bank.swift_code = bank.swift_code!.toLowerCase();
      b.response.payment_amount = `${String(b.response.payment_amount)}.00`;
    });

  it('is strict by default', () => {
    expect(
      failing(['payoutEchoesRequest'], lowerSwift())
        .map((f) => f.location.pointer)
        .sort(),
    ).toEqual(['/beneficiary/bank_details/swift_code', '/payment_amount']);
  });

  it('accepts the normalisations the profile declares', () => {
    const ctx = context({
      profile: (p) =>
        (p.responseFields = {
          echoNormalised: [
            { field: '/beneficiary/bank_details/swift_code', as: 'caseInsensitive' },
            { field: '/payment_amount', as: 'number' },
          ],
        }),
    });
    expect(describeFindings(failing(['payoutEchoesRequest'], lowerSwift(), ctx))).toEqual([]);
  });
});

describe('formats no narrower than the document', () => {
  it('person.birth_date is free text (DD-MM-YYYY is stated for the payment request’s birth_date only)', () => {
    const body = exampleValue('authorise-apm-request.yaml');
    body.person.birth_date = '1990-04-21';
    expect(violations('apm-payment-request', body)).toEqual([]);
  });

  it('amounts: leading zeros are a decimal, a negative amount is at most expected; contract_amount an amount at expected', () => {
    const body = exampleValue('authorise-direct-request.yaml');
    body.shipping = '05.00';
    expect(violations('direct-payment-request', body)).toEqual([]);
    body.subscription.contract_amount = '19.9';
    expect(violations('direct-payment-request', body).map((v) => v.requirementId)).toEqual(['PAGI-FMT-026']);
    expect(mustViolations('direct-payment-request', body)).toEqual([]);
    body.subscription.contract_amount = '19.90';
    body.discount = '-1.00';
    expect(violations('direct-payment-request', body).length).toBeGreaterThan(0);
    expect(mustViolations('direct-payment-request', body)).toEqual([]);
  });

  it('payout timestamps accept every ISO 8601 offset form; computed amounts below 0 are at most expected', () => {
    const base = exampleValue('payout-response.yaml');
    for (const t of [
      '2026-11-22T14:30:15+01',
      '2026-11-22T14:30:15+0100',
      '2026-11-22T14:30+01:00',
      '2026-11-22T14:30:15.123456Z',
      '2026-11-22T14:30:15,5-03:30',
      '2026-11-22T14:30Z',
    ]) {
      expect(violations('payout-response', { ...base, created_at: t }), t).toEqual([]);
    }
    expect(violations('payout-response', { ...base, created_at: '2026-11-22T14:30:15' }).length).toBe(1);
    expect(mustViolations('payout-response', { ...base, fee_amount: -1 })).toEqual([]);
  });

  it('cookie data is any query-string-like text', () => {
    const body = exampleValue('checkout-request.yaml');
    body.cookie_new = 'sid=ab12; lang=en';
    body.cookie_old = 'flag&sid=1&';
    expect(violations('checkout-request', body)).toEqual([]);
  });
});

describe('status values the profile defines', () => {
  it('a value outside the shown ones that the profile defines is no expected failure', () => {
    const ctx = context({
      profile: (p) => {
        p.statusValues.capture_status.success = 'S';
        p.statusValues.return_status.success = 'SUCCESS';
        p.statusValues.order_status.approved = 'APPROVED';
        p.statusValues.payout_status.completed = 'PAID';
      },
    });
    const capture = happyObservation('capture', (b) => {
      b.response.return_status = 'SUCCESS';
      for (const r of b.response.capture_orders as Record<string, unknown>[]) r.capture_status = 'S';
    });
    const direct = happyObservation('authoriseDirect', (b) => (b.response.order_status = 'APPROVED'));
    const payout = happyObservation('payout', (b) => (b.response.status = 'PAID'));
    const found = [
      ...failing(['batchItemsSucceedWithShownValues', 'envelopeReturnsOk'], capture, ctx),
      ...failing(['paymentApprovedPerProfile'], direct, ctx),
      ...failing(['payoutCompletedWithShownStatus'], payout, ctx),
    ];
    expect(describeFindings(found)).toEqual([]);
  });

  it('capture-after-cancel style transitions and the selection limits are profile level', () => {
    for (const id of ['PAGI-CAP-002', 'PAGI-CNL-002', 'PAGI-LIM-001', 'PAGI-LIM-002'])
      expect(spec.requirements.get(id)!.level, id).toBe('profile');
  });
});

describe('request schemas and the authorise response', () => {
  it('payment and payout requests carry notify_url (required, PAGI-EVT-001)', () => {
    for (const [schema, example] of [
      ['direct-payment-request', 'authorise-direct-request.yaml'],
      ['apm-payment-request', 'authorise-apm-request.yaml'],
      ['checkout-request', 'checkout-request.yaml'],
      ['payout-request', 'payout-request.yaml'],
    ] as const) {
      const body = exampleValue(example);
      delete body.notify_url;
      expect(
        violations(schema, body).map((v) => [v.keyword, v.params.missingProperty, v.requirementId]),
        schema,
      ).toEqual([['required', 'notify_url', 'PAGI-EVT-001']]);
    }
  });

  it("/v1/authorise's 200 oneOf is exclusive: an APM response carrying encryption_data matches one branch", () => {
    const openapi = readYamlFile(path.join(KIT_ROOT, 'spec', 'openapi.yaml'));
    const ajv = createAjv();
    for (const [id, schema] of spec.schemas) if (!ajv.getSchema(id)) ajv.addSchema(schema, id);
    const resolve = (node: any): any => {
      if (Array.isArray(node)) return node.map(resolve);
      if (!node || typeof node !== 'object') return node;
      if (typeof node.$ref === 'string' && node.$ref.startsWith('#/components/schemas/')) {
        const file = openapi.components.schemas[node.$ref.split('/').pop()].$ref as string;
        return { $ref: `https://pagi-conformance.dev/schemas/${path.basename(file)}` };
      }
      return Object.fromEntries(
        Object.entries(node)
          .filter(([k]) => k !== 'xml')
          .map(([k, v]) => [k, resolve(v)]),
      );
    };
    const branches =
      openapi.paths['/v1/authorise'].post.responses['200'].content['application/xml'].schema.oneOf.map(resolve);
    const apm = { ...exampleValue('authorise-apm-response.yaml'), encryption_data: 'a'.repeat(64) };
    const direct = exampleValue('authorise-direct-response.yaml');
    expect(branches.map((b: object) => ajv.validate(b, apm))).toEqual([false, true]);
    expect(branches.map((b: object) => ajv.validate(b, direct))).toEqual([true, false]);
  });
});

describe('listed fields absent from an answer', () => {
  it('are reported at expected (LISTED_FIELD_ABSENT), never must', () => {
    const search = happyObservation(
      'retrievalRefund',
      (b) => delete (b.response.refund_orders as Record<string, unknown>[])[0]!.refund_processing_date,
    );
    const payout = happyObservation('payout', (b) => {
      delete ((b.response.beneficiary as Record<string, unknown>).bank_details as Record<string, unknown>)
        .local_clearing_system;
      delete b.response.fee_amount;
    });
    const direct = happyObservation('authoriseDirect', (b) => delete b.response.transaction_id);
    const found = [search, payout, direct].flatMap((o) =>
      failing(['responseHoldsListedFields', 'responseAddsDocumentedFields', 'responseMatchesSchema'], o),
    );
    expect(found.map((f) => [f.code, f.severity, f.location.pointer]).sort()).toEqual(
      [
        ['LISTED_FIELD_ABSENT', 'expected', '/refund_orders/0/refund_processing_date'],
        ['LISTED_FIELD_ABSENT', 'expected', '/beneficiary/bank_details/local_clearing_system'],
        ['LISTED_FIELD_ABSENT', 'expected', '/fee_amount'],
        ['LISTED_FIELD_ABSENT', 'expected', '/transaction_id'],
      ].sort(),
    );
  });

  it('are not reported where the profile declares them omitted', () => {
    const search = happyObservation(
      'retrievalRefund',
      (b) => delete (b.response.refund_orders as Record<string, unknown>[])[0]!.refund_processing_date,
    );
    const ctx = context({
      profile: (p) => (p.responseFields = { omitted: { retrievalRefund: ['/refund_orders/refund_processing_date'] } }),
    });
    expect(describeFindings(failing(['responseHoldsListedFields'], search, ctx))).toEqual([]);
  });
});

describe('cosmetic points of the audit', () => {
  const openapi = () => readYamlFile(path.join(KIT_ROOT, 'spec', 'openapi.yaml'));

  it('x-pagi-media: the form type is the one the examples declare, JSON the one they send', () => {
    const doc = openapi();
    for (const p of ['/v1/checkout', '/v1/capture', '/v1/review', '/v1/cancel', '/v1/refund', '/v1/payout']) {
      const content = doc.paths[p].post.requestBody.content;
      expect(
        [content['application/x-www-form-urlencoded']['x-pagi-media'], content['application/json']['x-pagi-media']],
        p,
      ).toEqual(['declared', 'examples']);
    }
  });

  it("the payout response's encryption_data is its own signature, not an echo", () => {
    const schema = spec.schemas.get('https://pagi-conformance.dev/schemas/payout-response.schema.json') as any;
    expect(JSON.stringify(schema)).not.toMatch(/encryption_data[^"]*echoe?s? the request|echoes the request's\)/);
    expect(schema.properties.encryption_data.description).not.toMatch(/echo/);
  });

  it('a non-empty identifier is tagged with the non-empty requirement, not a type requirement', () => {
    const common = spec.schemas.get('https://pagi-conformance.dev/schemas/common.schema.json') as any;
    for (const [name, def] of Object.entries(common.$defs) as [string, any][]) {
      const nodes = [def, ...(def.allOf ?? [])].filter((n) => n.minLength !== undefined);
      for (const n of nodes) expect(n['x-requirement'], name).toBe('PAGI-GEN-012');
    }
  });

  it('examples never give one order two amounts or currencies', () => {
    const seen = new Map<string, string>();
    const problems: string[] = [];
    const walk = (v: unknown, file: string) => {
      if (Array.isArray(v)) v.forEach((x) => walk(x, file));
      else if (v && typeof v === 'object') {
        const o = v as Record<string, unknown>;
        if (typeof o.order_no === 'string' && typeof o.amount === 'string' && o.amount !== 'hidden') {
          const key = `${String(o.amount)} ${String(o.currency)}`;
          const before = seen.get(o.order_no);
          if (before && before !== key) problems.push(`${file}: ${o.order_no} ${key}, elsewhere ${before}`);
          seen.set(o.order_no, before ?? key);
        }
        Object.values(o).forEach((x) => walk(x, file));
      }
    };
    for (const file of exampleNames()) walk(exampleValue(file), file);
    expect(problems).toEqual([]);
  });
});

// keep the batch fixtures referenced for future cases
void batchExchange;
void item;
void exchange;
