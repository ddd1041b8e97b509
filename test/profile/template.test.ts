/** The one renderer of the profile's templates: its rules for each kind of value, and header values on the wire. */
import { describe, expect, it } from 'vitest';
import { renderHeaderValue, renderTemplate, templateParts } from '../../core/profile/template.js';

const request = { merchant_id: 'M-1', amount: 10.5, token_flag: true, card: { number: '4111' }, list: [1], none: null };

describe('renderTemplate', () => {
  it('renders strings as they are, numbers and booleans as String(value)', () => {
    expect(renderTemplate('{request.merchant_id}/{request.amount}/{request.token_flag}', request)).toBe(
      'M-1/10.5/true',
    );
  });

  it('renders an absent field, null, an object or an array as the empty string', () => {
    expect(renderTemplate('[{request.missing}][{request.none}][{request.card}][{request.list}]', request)).toBe(
      '[][][][]',
    );
  });

  it('fills named values and leaves any other placeholder as written', () => {
    expect(
      renderTemplate('{code}:{message} ({httpStatus}) {other}', {}, { code: 'E1', message: 'bad', httpStatus: '400' }),
    ).toBe('E1:bad (400) {other}');
    expect(renderTemplate('{code}', {})).toBe('{code}');
  });

  it('computes values from a request field through one filter (checkout.derivedGatewayFields)', () => {
    const order = { order_no: 'ord-7x', website: 'https://Shop.Example/path', note: 'café' };
    expect(renderTemplate('SHOP*{request.order_no|upper}', order)).toBe('SHOP*ORD-7X');
    expect(renderTemplate('{request.note|length}/{request.missing|length}', order)).toBe('4/0');
    expect(renderTemplate('{request.website|host}|{request.note|host}', order)).toBe('shop.example|');
    expect(renderTemplate('{request.ORDER_NO|lower}', { ORDER_NO: 'AB' })).toBe('ab');
    // An unknown filter is no filter: the whole name is the field (absent, so empty).
    expect(renderTemplate('[{request.order_no|constructor}]', order)).toBe('[]');
  });

  it('splits a template into text and placeholders', () => {
    expect(templateParts('a{request.x}b{code}')).toEqual([
      { text: 'a' },
      { placeholder: 'request.x' },
      { text: 'b' },
      { placeholder: 'code' },
    ]);
    expect(templateParts('')).toEqual([]);
  });
});

describe('renderHeaderValue', () => {
  it('percent-encodes non-ASCII bytes and % as UTF-8, under the same value rules', () => {
    expect(renderHeaderValue('id={request.merchant_id};ok={request.token_flag};x={request.card}', request)).toBe(
      'id=M-1;ok=true;x=',
    );
    expect(renderHeaderValue('{request.name}', { name: 'Zoë 100%' })).toBe('Zo%C3%AB 100%25');
  });
});
