/**
 * Bad input, generated with fast-check across every operation: malformed JSON and form bodies, wrong types,
 * wrong formats, unknown paths and methods. Never a 5xx, always the 4xx of the profile, and the state unchanged.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationKey } from '../../core/model.js';
import type { RunningGateway } from '../index.js';
import * as h from './helpers.js';

let gw: RunningGateway;
let sent = 0;
beforeAll(async () => {
  gw = await h.gateway();
  // Some state for the bad requests to leave alone.
  const { transactionId, body } = await h.pay(gw);
  await h.batch(gw, 'capture', [h.item(transactionId, body)]);
  await h.batch(gw, 'refund', [h.item(transactionId, body, { refund_amount: '1.00', refund_reason: 'seed' })]);
});
afterAll(() => {
  expect(sent).toBeGreaterThanOrEqual(500);
  return gw.close();
});

const OPS = [...h.spec.operations.keys()];
const statuses = new Set(Object.values(h.profile.errors.kinds).map((k) => k.status));

/** A valid body of an operation, to be broken. */
function validBody(op: OperationKey): Record<string, unknown> {
  const envelope = { merchant_id: h.MERCHANT, account_id: h.ACCOUNT };
  if (op === 'authoriseDirect') return h.directBody();
  if (op === 'authoriseApm') return h.apmBody();
  if (op === 'checkout') return h.checkoutBody();
  if (op === 'payout') return h.payoutBody();
  const batch = h.spec.operations.get(op)!.batch;
  return batch ? { ...envelope, [batch.orders]: h.example(`${op}-request`)[batch.orders] } : envelope;
}

/** Send and check: a 4xx the profile defines, nothing changed. */
async function expectRefused(send: () => Promise<h.Res>, what: string) {
  const before = gw.stateDigest();
  const res = await send();
  sent += 1;
  expect(res.status, `${what}: ${res.text.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
  expect(res.status, what).toBeLessThan(500);
  expect([...statuses], what).toContain(res.status);
  expect(gw.stateDigest(), what).toBe(before);
}

const wrongType = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string(), { maxKeys: 2 }),
);
const notAString = wrongType.filter((v) => typeof v !== 'string');
const COMMON = h.spec.schemas.get('https://pagi-conformance.dev/schemas/common.schema.json')!;

/** Strings outside a format's must-level pattern (`$defs` of common.schema.json), which the gateway must refuse. */
function notInForm(format: 'amount' | 'integerAmount' | 'currency'): fc.Arbitrary<string> {
  const form = new RegExp(COMMON.$defs[format].pattern);
  return fc.string({ maxLength: 12 }).filter((s) => !form.test(s));
}

describe('malformed bodies', () => {
  it('raw bodies that are neither a JSON object nor form fields, under any content type', async () => {
    const raw = fc.oneof(
      fc.string({ maxLength: 200 }).filter((s) => !s.includes('=')),
      fc.json().filter((j) => !j.trimStart().startsWith('{')),
      fc.string({ maxLength: 100 }).map((s) => `{${s}`),
      fc.constant('{"merchant_id": "M10001", "account_id": "A20001",'),
      fc.constant('merchant_id=M10001&capture_orders={"broken"'),
    );
    const contentType = fc.constantFrom(
      'application/json',
      'application/x-www-form-urlencoded',
      'text/plain',
      'application/xml',
      '',
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...OPS), raw, contentType, (op, body, type) =>
        expectRefused(() => h.send(gw.url + h.pathOf(op), { body, contentType: type }), `${op} raw`),
      ),
      { numRuns: 150 },
    );
  });

  it('random JSON objects and form fields (no valid signature)', async () => {
    const obj = fc.dictionary(
      fc.oneof(
        fc.constantFrom(
          'merchant_id',
          'account_id',
          'encryption_data',
          'order_no',
          'amount',
          '__proto__',
          'constructor',
        ),
        fc.string({ maxLength: 8 }),
      ),
      fc.jsonValue(),
      { maxKeys: 6 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...OPS),
        obj,
        fc.constantFrom<'json' | 'form'>('json', 'form'),
        (op, body, encoding) =>
          expectRefused(
            () => h.send(gw.url + h.pathOf(op), { body: body as Record<string, unknown>, encoding }),
            `${op} object`,
          ),
      ),
      { numRuns: 110 },
    );
  });
});

describe('wrong types and formats in signed requests', () => {
  it('a top-level field of a valid request replaced by a value of the wrong type', async () => {
    const mutation = fc.constantFrom(...OPS).chain((op) => {
      const body = validBody(op);
      const fields = Object.keys(body).filter((f) => f !== 'encryption_data');
      return fc.tuple(fc.constant(op), fc.constantFrom(...fields), notAString);
    });
    await fc.assert(
      fc.asyncProperty(mutation, ([op, field, value]) => {
        const body = validBody(op);
        // A string field gets a non-string; any other field (integer, object, array) gets a string.
        const broken = { ...body, [field]: typeof body[field] === 'string' ? value : 'not of the documented type' };
        return expectRefused(() => h.call(gw, op, broken, { encoding: 'json' }), `${op}.${field}`);
      }),
      { numRuns: 150 },
    );
  });

  it('amounts and currencies not in the document forms', async () => {
    const target = fc.constantFrom<[OperationKey, string, 'amount' | 'integerAmount' | 'currency']>(
      ['authoriseDirect', 'amount', 'amount'],
      ['authoriseDirect', 'currency', 'currency'],
      ['authoriseApm', 'amount', 'amount'],
      ['checkout', 'amount', 'amount'],
      ['checkout', 'currency', 'currency'],
      ['payout', 'payment_amount', 'integerAmount'],
    );
    const cases = target.chain(([op, field, format]) => notInForm(format).map((value) => ({ op, field, value })));
    await fc.assert(
      fc.asyncProperty(cases, ({ op, field, value }) =>
        expectRefused(
          () => h.call(gw, op, { ...validBody(op), [field]: value }, { encoding: 'json' }),
          `${op}.${field}=${value}`,
        ),
      ),
      { numRuns: 50 },
    );
  });

  it('unknown paths and methods', async () => {
    const path = fc.oneof(
      fc.webPath(),
      fc.constantFrom(...OPS.map(h.pathOf)).map((p) => `${p}/x`),
      fc.constantFrom('/v1', '/v1/', '/V1/capture', '/v2/capture'),
    );
    await fc.assert(
      fc.asyncProperty(path, fc.constantFrom('POST', 'GET', 'PUT', 'DELETE', 'PATCH'), (p, method) =>
        expectRefused(
          () =>
            h.send(`${gw.url}${p.startsWith('/') ? p : `/${p}`}`, {
              method,
              body: method === 'GET' ? undefined : '{}',
            }),
          `${method} ${p}`,
        ),
      ),
      { numRuns: 40 },
    );
  });
});

describe('batch items', () => {
  it('junk items are answered one by one as failures, without a server error and without changing anything', async () => {
    const junk = fc.array(
      fc.oneof(
        fc.jsonValue(),
        fc.record({ transaction_id: fc.string(), order_no: fc.string(), currency: fc.string(), amount: fc.string() }),
      ),
      { maxLength: 5 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<'capture' | 'review' | 'cancel' | 'refund'>('capture', 'review', 'cancel', 'refund'),
        junk,
        async (op, items) => {
          const before = gw.stateDigest();
          const out = await h.batch(gw, op, items);
          sent += 1;
          expect(out.res.status).toBe(200);
          expect(out.results).toHaveLength(items.length);
          const failure = h.profile.statusValues[h.spec.operations.get(op)!.batch!.status as 'capture_status'].failure;
          expect(out.results.filter((r) => r[h.spec.operations.get(op)!.batch!.status] !== failure)).toEqual([]);
          // Junk items have no identifier or amount to echo: empty ones are at most PAGI-GEN-012 (expected).
          expect(h.violations(op, out.json).filter((v) => v.requirementId !== 'PAGI-GEN-012')).toEqual([]);
          expect(gw.stateDigest()).toBe(before);
        },
      ),
      { numRuns: 40 },
    );
  });
});
