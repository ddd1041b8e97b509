import { describe, expect, it } from 'vitest';
import { kitSpec } from '../../core/spec/load.js';

const JSON_ = 'application/json';
const FORM = 'application/x-www-form-urlencoded';
const XML = 'application/xml';
const HTML = 'text/html';

/**
 * Written from the interface document's Endpoints table and its rule 6, independently of the spec:
 * path, the content type the document (or, rule 6, its example requests) declares, the body those examples send
 * under it, and the response body format. The direct payment declares JSON; the other operations' examples declare
 * form-urlencoded while sending JSON (query and refund search: form fields declared).
 */
const DOCUMENT_TABLE = [
  { path: '/v1/authorise', declared: [JSON_], examples: [FORM], response: XML },
  { path: '/v1/checkout', declared: [FORM], examples: [JSON_], response: HTML },
  { path: '/v1/retrievalTrans', declared: [FORM], examples: [JSON_], response: JSON_ },
  { path: '/v1/capture', declared: [FORM], examples: [JSON_], response: JSON_ },
  { path: '/v1/review', declared: [FORM], examples: [JSON_], response: JSON_ },
  { path: '/v1/cancel', declared: [FORM], examples: [JSON_], response: JSON_ },
  { path: '/v1/refund', declared: [FORM], examples: [JSON_], response: JSON_ },
  { path: '/v1/retrievalRefund', declared: [FORM], examples: [JSON_], response: JSON_ },
  { path: '/v1/payout', declared: [FORM], examples: [JSON_], response: JSON_ },
];

const spec = kitSpec();

describe('paths and media types against the document', () => {
  it('has exactly the nine documented paths, each a POST only', () => {
    expect(Object.keys(spec.openapi.paths).sort()).toEqual(DOCUMENT_TABLE.map((r) => r.path).sort());
    for (const item of Object.values<Record<string, unknown>>(spec.openapi.paths)) {
      expect(Object.keys(item).filter((k) => !k.startsWith('x-'))).toEqual(['post']);
    }
  });

  it.each(DOCUMENT_TABLE)('$path lists the declared and example request media types and its response format', (row) => {
    const op = spec.openapi.paths[row.path].post;
    const content = op.requestBody.content as Record<string, { 'x-pagi-media': string }>;
    const declared = Object.entries(content)
      .filter(([, m]) => m['x-pagi-media'] === 'declared')
      .map(([t]) => t);
    const examples = Object.entries(content)
      .filter(([, m]) => m['x-pagi-media'] === 'examples')
      .map(([t]) => t);
    expect(declared).toEqual(row.declared);
    expect(examples).toEqual(row.examples);
    expect(Object.keys(op.responses['200'].content)).toEqual([row.response]);
    expect(op.responses['200'].content[row.response]['x-pagi-media']).toBe('conventional');
  });

  it('the authorise path has a direct and an APM variant, each tied to its own response schema; 400/404 only for APM', () => {
    const direct = spec.operations.get('authoriseDirect')!;
    const apm = spec.operations.get('authoriseApm')!;
    expect(direct.path).toBe('/v1/authorise');
    expect(apm.path).toBe('/v1/authorise');
    expect(direct.responseSchemaId).toMatch(/direct-payment-response/);
    expect(apm.responseSchemaId).toMatch(/apm-payment-response/);
    expect(apm.when).toEqual({ present: 'payment_method' });
    expect(direct.when).toEqual({ absent: 'payment_method' });
    expect(apm.errorStatuses).toEqual(['400', '404']);
    expect(direct.errorStatuses).toEqual([]);
    expect(spec.openapi.paths['/v1/authorise'].post.responses['200'].content[XML].schema.xml).toEqual({
      name: 'respon',
    });
  });

  it('batch limits come from the request schemas; query limits from the spec', () => {
    const limits = Object.fromEntries(
      [...spec.operations.values()].map((o) => [o.key, o.batch?.maxItems ?? o.selectionLimit?.maxOrders]),
    );
    expect(limits).toMatchObject({
      capture: 50,
      cancel: 50,
      refund: 50,
      review: 100,
      retrievalTrans: 100,
      retrievalRefund: 100,
    });
  });
});
