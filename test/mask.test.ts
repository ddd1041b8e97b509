import { describe, expect, it } from 'vitest';
import { maskPan, maskText, maskValue } from '../src/mask.js';

const PAN = '4111111111111111';
const SECRET = 'k3y&v@l"ue 9';

describe('masking', () => {
  it('keeps at most the first six and last four digits of a card number', () => {
    expect(maskPan(PAN)).toBe('411111******1111');
    expect(maskText(`card ${PAN} and 4111 1111 1111 1111 and 4111-1111-1111-1111 and 4111+1111+1111+1111`)).not.toMatch(/\d{7,}|\d{4}[ +-]\d{4}[ +-]\d{4}/);
  });

  it('does not touch short numbers (amounts, dates, ids)', () => {
    expect(maskText('amount=10.36&date=20261122143015&id=T202611220001')).toBe('amount=10.36&date=20261122143015&id=T202611220001');
  });

  it('replaces a secret in every written form', () => {
    const forms = [SECRET, encodeURIComponent(SECRET), encodeURIComponent(SECRET).replace(/%20/g, '+'), JSON.stringify(SECRET).slice(1, -1)];
    for (const form of forms) expect(maskText(`x ${form} y`, { secrets: [SECRET] })).toBe('x [SECRET] y');
  });

  it('replaces security codes by field name in JSON, form and XML', () => {
    expect(maskText('{"security_code":"123","cvv": 456}')).toBe('{"security_code":"***","cvv": "***"}');
    expect(maskText('a=1&security_code=123&b=2')).toBe('a=1&security_code=***&b=2');
    expect(maskText('<security_code>123</security_code>')).toBe('<security_code>***</security_code>');
    expect(maskValue({ card_number: PAN, nested: { security_code: '123', note: `pan ${PAN}` } })).toEqual({
      card_number: '***',
      nested: { security_code: '***', note: 'pan 411111******1111' },
    });
  });
});
