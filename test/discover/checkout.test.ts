/** Gateway inputs the checkout page computes from the request (`checkout.derivedGatewayFields`), told from two pages. */
import { describe, expect, it } from 'vitest';
import { derivedTemplate } from '../../discover/discoverers/checkout.js';

const one = { order_no: 'O-12', website: 'https://shop.example/a', note: 'x' };
const two = { order_no: 'O-12X7Q', website: 'https://second-shop.example/store', note: 'y' };

describe('derivedTemplate', () => {
  it('finds a request field through one filter, between fixed texts', () => {
    expect(derivedTemplate(one, two, 'SHOP*O-12', 'SHOP*O-12X7Q')).toBe('SHOP*{request.order_no}');
    expect(derivedTemplate(one, two, '4', '7')).toBe('{request.order_no|length}');
    expect(derivedTemplate(one, two, 'shop.example', 'second-shop.example')).toBe('{request.website|host}');
    expect(derivedTemplate(one, two, 'ref-o-12', 'ref-o-12x7q')).toBe('ref-{request.order_no|lower}');
  });

  it('leaves plain copies, no-op filters and unrelated values alone', () => {
    expect(derivedTemplate(one, two, 'O-12', 'O-12X7Q')).toBeUndefined();
    expect(derivedTemplate({ a: 'abc' }, { a: 'abd' }, 'abc', 'abd')).toBeUndefined();
    expect(derivedTemplate(one, two, 'fixed-1', 'fixed-2')).toBeUndefined();
  });
});
