import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { kitSpec, loadSpec } from '../../core/spec/load.js';
import { ajvForSet, compiledIds, readSchemaSet, validatorSource } from '../../core/spec/validators.js';
import { toViolations } from '../../core/spec/ajv.js';
import { exampleValue } from '../support/examples.js';
import { editJson, specCopy } from '../support/temp.js';

/** A copy of the kit's spec and schemas in a temporary folder, with `edit` applied to one schema. */
function copyWith(file: string, edit: (schema: any) => void): string {
  return specCopy((root) => editJson(root, path.join('schemas', file), edit));
}

describe('precompiled validators (core/spec/validators.ts)', () => {
  it("the kit's own spec uses the generated standalone code", () => {
    expect(kitSpec().precompiled).toBe(true);
  });

  it('give the same violations, with the same requirement ids, as Ajv compiling the schemas at run time', () => {
    const set = readSchemaSet();
    const generated = validatorSource(set);
    const ajv = ajvForSet(set.documents);
    const instances: [string, unknown][] = [
      [
        'direct-payment-response.schema.json',
        { ...exampleValue('authorise-direct-response.yaml'), amount: '10.3', currency: 'US', created_at: 'yesterday' },
      ],
      [
        'capture-request.schema.json',
        { merchant_id: 1, capture_orders: Array.from({ length: 51 }, () => ({ transaction_id: 'T1_01' })) },
      ],
      ['payout-response.schema.json', { amount: 'x', bank_details: { bank_code: 3 } }],
      ['profile.schema.json', { name: 7 }],
    ];
    for (const [file, instance] of instances) {
      const id = `https://pagi-conformance.dev/schemas/${file}`;
      const a = generated.validator(id);
      const b = ajv.getSchema(id)!;
      expect(a(instance)).toBe(false);
      expect(b(instance)).toBe(false);
      const key = (v: ReturnType<typeof toViolations>[number]) =>
        `${v.requirementId} ${v.keyword} ${v.instancePath} ${v.schemaPath}`;
      expect(toViolations(a.errors).map(key).sort()).toEqual(toViolations(b.errors).map(key).sort());
      if (file !== 'profile.schema.json')
        expect(
          toViolations(a.errors)
            .map((v) => v.requirementId)
            .filter(Boolean),
          file,
        ).not.toEqual([]);
    }
  });

  it('cover every document and the field and item subschemas the gateway validates', () => {
    const set = readSchemaSet();
    const ids = new Set(compiledIds(set.documents));
    expect([...set.documents.keys()].filter((id) => !ids.has(id))).toEqual([]);
    expect([...ids]).toContain(
      'https://pagi-conformance.dev/schemas/capture-request.schema.json#/properties/capture_orders/items',
    );
  });

  it('a changed schema is compiled at run time, so results never depend on a stale generated file', () => {
    const root = copyWith('capture-request.schema.json', (schema) => {
      schema.properties.capture_orders.maxItems = 49;
    });
    const spec = loadSpec(root);
    expect(spec.precompiled).toBe(false);
    expect(spec.operations.get('capture')?.batch?.maxItems).toBe(49);
    const items = Array.from({ length: 50 }, (_, i) => ({
      transaction_id: `T${i}`,
      order_no: `O${i}`,
      currency: 'EUR',
      amount: '1.00',
    }));
    expect(
      spec.validate(spec.operations.get('capture')!.requestSchemaId, { capture_orders: items }).map((v) => v.keyword),
    ).toContain('maxItems');
    expect(
      kitSpec()
        .validate(spec.operations.get('capture')!.requestSchemaId, { capture_orders: items })
        .map((v) => v.keyword),
    ).not.toContain('maxItems');
  });
});
