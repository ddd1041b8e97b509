/**
 * The own shape of notification bodies (`notifications.kinds.*.ownShape`) as discovery infers it from the bodies
 * and the answers that produced them: the template maps each value to the answer field holding it in every body,
 * literals stay literals; the schema states what the bodies show, and a member carrying an answer field carries the
 * document's format of that field (minLength, the strictest pattern every value meets); the signature is never empty.
 */
import { describe, expect, it } from 'vitest';
import { documentFormat, inferOwnShape } from '../../discover/discoverers/notification-shape.js';
import { kitSpec } from '../../core/spec/load.js';
import { notificationSchemaValidator } from '../../core/profile/notification-shape.js';

const answer = (n: number) => ({
  merchant_id: 'M1',
  order_no: `O-${n}`,
  transaction_id: `T-${n}`,
  amount: `${n}.00`,
  order_status: 'approved',
  risk_action: '',
  encryption_data: 'x',
});
const body = (n: number) => ({
  event: 'payment.result',
  merchant_id: 'M1',
  payment: { order_no: `O-${n}`, id: `T-${n}`, amount: `${n}.00`, status: 'approved', risk: '' },
  encryption_data: 'sig',
});

describe('inferOwnShape', () => {
  it('a body of the answer’s own fields is the documented shape: no own shape', () => {
    const r = answer(1);
    const { encryption_data: _, ...fields } = r;
    expect(inferOwnShape([{ body: { ...fields, encryption_data: 'sig' }, response: r }])).toBeUndefined();
    expect(inferOwnShape([])).toBeUndefined();
  });

  it('template from the answer fields, literals kept, empty values left out; a schema the bodies validate under', () => {
    const pairs = [1, 2, 3].map((n) => ({ body: body(n), response: answer(n) }));
    const shape = inferOwnShape(pairs)!;
    expect(shape.template).toEqual({
      event: 'payment.result',
      merchant_id: '{response.merchant_id}',
      payment: {
        order_no: '{response.order_no}',
        id: '{response.transaction_id}',
        amount: '{response.amount}',
        status: '{response.order_status}',
      },
    });
    expect(shape.notes.join()).toMatch(/payment\.risk: empty in every body/);
    expect(shape.schema).toMatchObject({
      type: 'object',
      required: ['event', 'merchant_id', 'payment', 'encryption_data'],
      additionalProperties: false,
      properties: { event: { const: 'payment.result' }, merchant_id: { type: 'string' } },
    });
    const validate = notificationSchemaValidator(shape.schema);
    if (validate instanceof Error) throw validate;
    for (const p of pairs) expect(validate(p.body)).toBe(true);
    expect(validate({ ...body(4), extra: 1 })).toBe(false);
  });

  it('a member carrying an answer field takes the document’s format of that field; the signature is never empty', () => {
    const pairs = [1, 2].map((n) => ({
      body: { ...body(n), payment: { ...body(n).payment, currency: 'EUR' } },
      response: { ...answer(n), currency: 'EUR' },
    }));
    const shape = inferOwnShape(pairs, documentFormat(kitSpec(), 'authoriseDirect', pairs[0]!.response))!;
    const props = shape.schema.properties as Record<string, any>;
    expect(props.merchant_id).toEqual({ type: 'string', minLength: 1 });
    expect(props.encryption_data).toEqual({ type: 'string', minLength: 1 });
    expect(props.payment.properties.order_no).toEqual({ type: 'string', minLength: 1 });
    expect(props.payment.properties.id).toEqual({ type: 'string', minLength: 1 });
    // Of the document's two currency patterns (letters, upper case), the stricter one every value meets.
    expect(props.payment.properties.currency).toEqual({ type: 'string', pattern: '^[A-Z]{3}$' });
    expect(props.payment.properties.amount).toMatchObject({ type: 'string', minLength: 1 });
    // A field the document gives no format keeps its type only; without the spec nothing is added.
    expect(props.payment.properties.status).toEqual({ type: 'string' });
    expect(inferOwnShape(pairs)!.schema.properties).toMatchObject({ merchant_id: { type: 'string' } });
    expect((inferOwnShape(pairs)!.schema.properties as any).merchant_id.minLength).toBeUndefined();
  });

  it('a pattern some value seen does not meet is left out (the gateway’s values decide, not the document alone)', () => {
    const pairs = [1, 2].map((n) => ({
      body: { ...body(n), payment: { ...body(n).payment, currency: 'eur' } },
      response: { ...answer(n), currency: 'eur' },
    }));
    const shape = inferOwnShape(pairs, documentFormat(kitSpec(), 'authoriseDirect', pairs[0]!.response))!;
    const props = shape.schema.properties as Record<string, any>;
    expect(props.payment.properties.currency).toEqual({ type: 'string', pattern: '^[A-Za-z]{3}$' });
  });
});
