import { describe, expect, it } from 'vitest';
import { decodeForm, encodeForm, sniffBody } from '../../core/codecs/form.js';

describe('form codec', () => {
  it('round-trips scalars and nested values (as JSON text)', () => {
    const body = { merchant_id: 'M1', note: 'a&b=c ü', capture_orders: [{ amount: '1.00' }] };
    expect(decodeForm(encodeForm(body))).toEqual(body);
  });

  it('keeps __proto__ a plain own field, never the prototype', () => {
    const out = decodeForm('__proto__=%7B%22polluted%22%3Atrue%7D&a=1');
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect((out as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.keys(out)).toEqual(['__proto__', 'a']);
  });

  it('sniffs JSON objects and form fields whatever the declared type; refuses the rest', () => {
    expect(sniffBody('{"a":"1"}')).toEqual({ encoding: 'json', value: { a: '1' } });
    expect(sniffBody('a=1&b=2')).toEqual({ encoding: 'form', value: { a: '1', b: '2' } });
    for (const bad of ['', '[1]', '"x"', '{"a":', 'null', 'plain text']) expect(sniffBody(bad), bad).toBeUndefined();
  });
});
