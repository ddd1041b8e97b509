import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { KIT_ROOT } from '../../core/spec/paths.js';
import { generatePact, pactFileName, pactText } from '../../pact/interactions.js';
import { kitSpec } from '../../core/spec/load.js';
import type { MatcherList } from '../../pact/pact-file.js';
import { firstDifference } from '../support/text.js';

const spec = kitSpec();
const committed = path.join(KIT_ROOT, 'pacts', pactFileName('reference'));

describe('generated pact', () => {
  const pact = generatePact();

  it('is the committed pacts/ file (regenerate with: npm run pact:generate)', () => {
    const text = fs.existsSync(committed) ? fs.readFileSync(committed, 'utf8') : '';
    expect(
      firstDifference(text, pactText(pact)),
      `${path.relative(KIT_ROOT, committed)} is stale: run 'npm run pact:generate' and commit the result`,
    ).toBeUndefined();
  });

  it('is a Pact V4 file between merchant and pagi-gateway with an interaction per operation and variant', () => {
    expect(pact.metadata.pactSpecification.version).toBe('4.0');
    expect(pact.consumer.name).toBe('merchant');
    expect(pact.provider.name).toBe('pagi-gateway');
    const operations = new Set(pact.interactions.map((i) => String(i.comments?.text?.[0]).replace('operation: ', '')));
    expect([...operations].sort()).toEqual([...spec.operations.keys()].sort());
    expect(pact.interactions.map((i) => i.response.status)).toContain(404);
    expect(pact.interactions.map((i) => i.response.status)).toContain(400);
    const types = pact.interactions.map((i) => i.response.body?.contentType).filter(Boolean);
    expect(new Set(types)).toEqual(new Set(['application/xml', 'text/html', 'application/json']));
  });

  it('names the provider states a request needs', () => {
    const states = Object.fromEntries(pact.interactions.map((i) => [i.key, i.providerStates?.map((s) => s.name)]));
    expect(states['capture-200']).toEqual(['a payment authorised']);
    expect(states['refund-200']).toEqual(['a payment captured']);
    expect(states['retrievalRefund-200']).toEqual(['a payment refunded']);
    expect(states['review-200']).toEqual(['a payment held for review']);
  });

  it('holds no full card number or security code, and signs every request for the profile', () => {
    const text = pactText(pact);
    expect(text).not.toMatch(/4111111111111111|4000000000000002/);
    for (const i of pact.interactions) {
      const content = i.request.body!.content;
      const sig =
        typeof content === 'string'
          ? new URLSearchParams(content).get('encryption_data')
          : (content as Record<string, unknown>).encryption_data;
      expect(sig, i.description).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('derives response matchers from the schemas: format regexes accept the example values, arrays carry minima', () => {
    const capture = pact.interactions.find((i) => i.key === 'capture-200')!;
    const rules = capture.response.matchingRules!.body!;
    expect(rules['$.capture_orders']).toEqual({ combine: 'AND', matchers: [{ match: 'type', min: 1 }] });
    expect(rules['$.encryption_data']!.matchers).toEqual([{ match: 'regex', regex: '^[0-9A-Fa-f]{64}$' }]);
    const direct = pact.interactions.find((i) => i.key === 'authoriseDirect-200')!;
    expect(Object.keys(direct.response.matchingRules!.body!)).toContain("$.respon.account_id['#text']");
    for (const i of pact.interactions) {
      const body = i.response.body;
      if (!body || typeof body.content !== 'object') continue;
      for (const [at, list] of Object.entries(i.response.matchingRules?.body ?? {}) as [string, MatcherList][]) {
        if (at.includes('[*]')) continue;
        const value = at
          .split('.')
          .slice(1)
          .reduce<any>((v, k) => v?.[k], body.content);
        for (const m of list.matchers)
          if (m.match === 'regex')
            expect(String(value), `${i.key} ${at}`).toMatch(new RegExp(String((m as { regex: string }).regex)));
      }
    }
  });
});
