/**
 * Sample bodies are built from a template prepared once per operation and run values: the same bodies, field for
 * field and in the same order, as the example adapted step by step for each request (the oracle below), for every
 * operation, profile and kind of override; each body its own objects.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cardFields, requestExamples, sampleBody, type SampleSettings } from '../../engine/sample.js';
import { sinkUrlOf } from '../../engine/sink.js';
import type { OperationKey } from '../../core/model.js';
import { loadProfile, type Profile } from '../../core/profile/load.js';
import { kitSpec } from '../../core/spec/load.js';
import { runConfig } from '../support/config.js';

const spec = kitSpec();

/** The sample as adapted step by step from a fresh parse of the example (the kit's earlier way, kept as the oracle). */
function oracle(
  profile: Profile,
  settings: SampleSettings,
  operation: OperationKey,
  fresh: { orderNo: string; requestId: string },
  overrides: Record<string, unknown>,
): Record<string, unknown> {
  const body = JSON.parse(JSON.stringify(requestExamples(spec).get(operation))) as Record<string, unknown>;
  const { config } = settings;
  delete body.encryption_data;
  body.merchant_id = config.merchantId;
  body.account_id = config.accountId;
  if ('order_no' in body) body.order_no = fresh.orderNo;
  if (profile.payout.idempotencyKey in body) {
    body[profile.payout.idempotencyKey] = fresh.requestId;
    if (profile.payout.currencyConversion === 'none') {
      if ('source_currency' in body) body.source_currency = body.payment_currency;
      if ('source_amount' in body) body.source_amount = body.payment_amount;
    }
  }
  if ('fee_paid_by' in body) body.fee_paid_by = profile.payout.feePaidBy.payer;
  if ('notify_url' in body && config.notifyUrl) body.notify_url = sinkUrlOf(config.notifyUrl);
  const docCookie = loadProfile('reference').profile.fields.antifraudTokenCookie;
  if (docCookie in body && docCookie !== profile.fields.antifraudTokenCookie) {
    body[profile.fields.antifraudTokenCookie] = body[docCookie];
    delete body[docCookie];
  }
  const method = spec.operations.get(operation)?.when?.present;
  if (method && config.paymentMethods.valid[0]) body[method] = config.paymentMethods.valid[0];
  if (operation === 'authoriseDirect')
    Object.assign(body, cardFields(profile, config.cards.approve!, settings.cardSecurityCode, settings.now));
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) delete body[name];
    else body[name] = value;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(body))
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: body[key], enumerable: true, writable: true, configurable: true });
    else out[key] = body[key];
  return out;
}

/** Every key of a value in order, with its path: equal lists mean the same fields in the same order everywhere. */
function shape(value: unknown, at = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => shape(v, `${at}/${i}`));
  if (value && typeof value === 'object')
    return Object.keys(value).flatMap((k) => [
      `${at}/${k}`,
      ...shape((value as Record<string, unknown>)[k], `${at}/${k}`),
    ]);
  return [];
}

const profiles = fs
  .readdirSync(path.join(spec.root, 'spec', 'profiles'))
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => f.replace(/\.yaml$/, ''));

describe('sample bodies', () => {
  const overrideSets = (body: Record<string, unknown>): Record<string, unknown>[] => {
    const [first, second] = Object.keys(body).filter((k) => k !== 'order_no');
    const proto = JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    return [
      {},
      { [first!]: undefined },
      { [first!]: 'replaced', [second!]: undefined, added: 'new', nested: { a: [1, { b: 2 }] } },
      { order_no: 'mine', never_there: undefined },
      { ...proto },
      { added: 1, [first!]: undefined, again: 'x', [second!]: 'y' },
    ];
  };

  for (const name of profiles)
    it(`match the example adapted step by step, for every operation (profile ${name})`, () => {
      const { profile } = loadProfile(name);
      const config = runConfig('http://127.0.0.1:1', { notifyUrl: 'http://127.0.0.1:2/notify' });
      for (const operation of spec.operations.keys()) {
        const plain = oracle(
          profile,
          { config, cardSecurityCode: '123' },
          operation,
          { orderNo: 'o', requestId: 'r' },
          {},
        );
        for (const overrides of overrideSets(plain)) {
          for (const now of [new Date('2026-12-31T23:59:59Z'), new Date('2027-01-01T00:00:00Z')]) {
            const settings = { config, cardSecurityCode: '123', now };
            const fresh = { orderNo: `o-${now.getTime()}`, requestId: `r-${now.getTime()}` };
            const expected = oracle(profile, settings, operation, fresh, overrides);
            const got = sampleBody(spec, profile, settings, operation, fresh, overrides);
            expect(got).toEqual(expected);
            expect(shape(got)).toEqual(shape(expected));
            expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
            expect(Object.hasOwn(got, '__proto__')).toBe(Object.hasOwn(expected, '__proto__'));
          }
        }
      }
    });

  it('gives every body objects of its own', () => {
    const { profile } = loadProfile('reference');
    const settings = { config: runConfig('http://127.0.0.1:1'), cardSecurityCode: '123' };
    for (const operation of spec.operations.keys()) {
      const a = sampleBody(spec, profile, settings, operation, { orderNo: 'a', requestId: 'a' });
      const before = JSON.stringify(a);
      const b = sampleBody(spec, profile, settings, operation, { orderNo: 'a', requestId: 'a' });
      // Change every object and array of the first body in place: the second and a third stay as they were.
      const mutate = (v: unknown): void => {
        if (Array.isArray(v)) {
          for (const x of v) mutate(x);
          v.push('changed');
        } else if (v && typeof v === 'object') {
          for (const x of Object.values(v)) mutate(x);
          (v as Record<string, unknown>).changed = true;
        }
      };
      mutate(a);
      expect(JSON.stringify(b)).toBe(before);
      expect(JSON.stringify(sampleBody(spec, profile, settings, operation, { orderNo: 'a', requestId: 'a' }))).toBe(
        before,
      );
    }
  });

  it('follow the run values: another merchant, account or card gives another body', () => {
    const { profile } = loadProfile('reference');
    const base = runConfig('http://127.0.0.1:1');
    const fresh = { orderNo: 'o', requestId: 'r' };
    const a = sampleBody(spec, profile, { config: base, cardSecurityCode: '123' }, 'authoriseDirect', fresh);
    const other = runConfig('http://127.0.0.1:1', {
      merchantId: 'M2',
      accountId: 'A2',
      cards: { approve: profile.payments.testCards.approve[1] ?? '5555555555554444' },
    });
    const b = sampleBody(spec, profile, { config: other, cardSecurityCode: '999' }, 'authoriseDirect', fresh);
    expect(b).toEqual(oracle(profile, { config: other, cardSecurityCode: '999' }, 'authoriseDirect', fresh, {}));
    expect(b).not.toEqual(a);
  });
});
