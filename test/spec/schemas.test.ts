import { describe, expect, it } from 'vitest';
import { createAjv } from '../../core/spec/ajv.js';
import { kitSpec } from '../../core/spec/load.js';
import { SCHEMA_BASE } from '../../core/spec/paths.js';
import { exampleValue } from '../support/examples.js';
import { specExamples } from './helpers.js';

const spec = kitSpec();
const id = (name: string) => `${SCHEMA_BASE}${name}.schema.json`;
const clone = <T>(v: T): T => structuredClone(v);

describe('schemas', () => {
  it('every schema file compiles in Ajv2020 strict mode and every $ref resolves', () => {
    expect(spec.schemas.size).toBeGreaterThan(40);
    for (const schemaId of spec.schemas.keys()) expect(() => spec.validator(schemaId), schemaId).not.toThrow();
  });

  it('every schema has a title and a description, and every property a description', () => {
    const missing: string[] = [];
    const walk = (node: any, where: string) => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${where}/${i}`));
      if (!node || typeof node !== 'object') return;
      for (const [name, prop] of Object.entries<any>(node.properties ?? {})) {
        if (prop !== true && !prop.description) missing.push(`${where}/properties/${name}`);
      }
      for (const [k, v] of Object.entries(node)) if (k !== 'examples') walk(v, `${where}/${k}`);
    };
    for (const [schemaId, schema] of spec.schemas) {
      if (!schema.title || !schema.description) missing.push(`${schemaId} (title/description)`);
      walk(schema, schemaId);
    }
    expect(missing).toEqual([]);
  });

  const examples = specExamples(spec);
  it('there is an example for every request and 200 response of every path', () => {
    for (const p of Object.keys(spec.openapi.paths)) {
      expect(
        examples.map((e) => e.where),
        p,
      ).toContainEqual(expect.stringMatching(new RegExp(`^${p} request`)));
      expect(
        examples.map((e) => e.where),
        p,
      ).toContainEqual(expect.stringMatching(new RegExp(`^${p} response 200`)));
    }
  });

  it.each(examples)('example validates: $where', ({ schema, value }) => {
    const ajv = createAjv();
    for (const s of spec.schemas.values()) ajv.addSchema(s);
    const validate = ajv.compile(schema as object);
    expect(validate(value), JSON.stringify(validate.errors?.slice(0, 5), null, 1)).toBe(true);
  });

  it('each variant example validates against its own variant schema', () => {
    const pairs: [string, string][] = [
      ['direct-payment-request', 'authorise-direct-request.yaml'],
      ['apm-payment-request', 'authorise-apm-request.yaml'],
      ['direct-payment-response', 'authorise-direct-response.yaml'],
      ['apm-payment-response', 'authorise-apm-response.yaml'],
      ['checkout-form', 'checkout-form.yaml'],
    ];
    for (const [schema, file] of pairs) expect(spec.validate(id(schema), exampleValue(file)), file).toEqual([]);
  });
});

/** Requirement ids of the violations of `instance` against `schema`. */
function violatedIds(schema: string, instance: unknown): string[] {
  return [...new Set(spec.validate(id(schema), instance).map((v) => v.requirementId ?? '(none)'))];
}

describe('wrong instances are rejected by the constraint carrying the expected requirement', () => {
  const capture = exampleValue('capture-request.yaml');
  const review = exampleValue('review-request.yaml');
  const direct = exampleValue('authorise-direct-request.yaml');

  it('amount 10.3 -> PAGI-FMT-001', () => {
    const bad = clone(capture);
    bad.capture_orders[0].amount = '10.3';
    expect(violatedIds('capture-request', bad)).toEqual(['PAGI-FMT-001']);
  });

  it('currency US -> PAGI-FMT-003', () => {
    const bad = clone(capture);
    bad.capture_orders[0].currency = 'US';
    expect(violatedIds('capture-request', bad)).toContain('PAGI-FMT-003');
  });

  it('lower-case currency -> PAGI-FMT-004 only (expected level)', () => {
    const bad = clone(capture);
    bad.capture_orders[0].currency = 'usd';
    expect(violatedIds('capture-request', bad)).toEqual(['PAGI-FMT-004']);
    expect(spec.requirements.get('PAGI-FMT-004')!.level).toBe('expected');
  });

  it('country USA -> PAGI-FMT-005', () => {
    const bad = clone(direct);
    bad.billing_country = 'USA';
    expect(violatedIds('direct-payment-request', bad)).toContain('PAGI-FMT-005');
  });

  it('51 capture orders -> PAGI-LIM-004; 50 pass', () => {
    const ok = clone(capture);
    ok.capture_orders = Array.from({ length: 50 }, (_, i) => ({ ...capture.capture_orders[0], order_no: `O${i}` }));
    expect(violatedIds('capture-request', ok)).toEqual([]);
    ok.capture_orders.push({ ...capture.capture_orders[0], order_no: 'O50' });
    expect(violatedIds('capture-request', ok)).toEqual(['PAGI-LIM-004']);
  });

  it('101 review orders -> PAGI-LIM-003; 100 pass', () => {
    const ok = clone(review);
    ok.review_orders = Array.from({ length: 100 }, (_, i) => ({ ...review.review_orders[0], order_no: `O${i}` }));
    expect(violatedIds('review-request', ok)).toEqual([]);
    ok.review_orders.push({ ...review.review_orders[0], order_no: 'O100' });
    expect(violatedIds('review-request', ok)).toEqual(['PAGI-LIM-003']);
  });

  it('a 40-hex encryption_data -> PAGI-AUTH-003, at expected level only', () => {
    const bad = clone(capture);
    bad.encryption_data = 'a'.repeat(40);
    expect(violatedIds('capture-request', bad)).toEqual(['PAGI-AUTH-003']);
    expect(spec.requirements.get('PAGI-AUTH-003')!.level).toBe('expected');
  });

  it('refund_reference_id T1_01 -> PAGI-FMT-013', () => {
    const bad = clone(exampleValue('refund-response.yaml'));
    bad.refund_orders[0].refund_reference_id = 'T1_01';
    expect(violatedIds('refund-response', bad)).toEqual(['PAGI-FMT-013']);
  });

  it('payout created_at without offset -> PAGI-FMT-008; Z and +hh:mm both pass', () => {
    const good = exampleValue('payout-response.yaml');
    for (const v of ['2026-11-22T10:00:00Z', '2026-11-22T10:00:00+00:00', '2026-11-22T10:00:00-03:00']) {
      expect(violatedIds('payout-response', { ...good, created_at: v })).toEqual([]);
    }
    expect(violatedIds('payout-response', { ...good, created_at: '2026-11-22T10:00:00' })).toEqual(['PAGI-FMT-008']);
  });

  it('query transaction_date in ISO form -> PAGI-FMT-007', () => {
    const bad = clone(exampleValue('retrieval-trans-response.yaml'));
    bad.orders_list[0].transaction_date = '2026-11-22T10:00:00Z';
    expect(violatedIds('query-response', bad)).toEqual(['PAGI-FMT-007']);
  });

  it('an APM response checked as a direct one fails; the spec ties the APM variant to the APM schema', () => {
    const apm = exampleValue('authorise-apm-response.yaml');
    expect(violatedIds('apm-payment-response', apm)).toEqual([]);
    expect(violatedIds('direct-payment-response', apm)).not.toEqual([]);
    expect(spec.operations.get('authoriseApm')!.responseSchemaId).toBe(id('apm-payment-response'));
  });

  it('a missing batch result key -> PAGI-BAT-002; a missing envelope field -> PAGI-BAT-001', () => {
    const resp = clone(exampleValue('capture-response.yaml'));
    delete resp.capture_orders[0].order_no;
    expect(violatedIds('capture-response', resp)).toEqual(['PAGI-BAT-002']);
    const env = clone(exampleValue('capture-response.yaml'));
    delete env.return_status;
    expect(violatedIds('capture-response', env)).toEqual(['PAGI-BAT-001']);
  });

  it('a full card number in the direct response -> PAGI-PAY-003', () => {
    const resp = clone(exampleValue('authorise-direct-response.yaml'));
    resp.card = '4111111111111111';
    expect(violatedIds('direct-payment-response', resp)).toEqual(['PAGI-PAY-003']);
  });

  it('payout response bank_details with bank_code -> PAGI-PO-003', () => {
    const resp = clone(exampleValue('payout-response.yaml'));
    resp.beneficiary.bank_details.bank_code = '001';
    expect(violatedIds('payout-response', resp)).toEqual(['PAGI-PO-003']);
  });

  it('unknown response properties are tolerated', () => {
    expect(violatedIds('capture-response', { ...exampleValue('capture-response.yaml'), extra_field: 'x' })).toEqual([]);
    expect(
      violatedIds('direct-payment-response', { ...exampleValue('authorise-direct-response.yaml'), extra: 'x' }),
    ).toEqual([]);
  });
});
