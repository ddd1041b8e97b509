/**
 * Never a 5xx: the negative cases the kit's `generatedNegative` probe generates, on every operation, for
 * PAGI_FUZZ_SEEDS run seeds (default 10,000) per operation, answered below 500: the first PAGI_FUZZ_CASES
 * (default 1; a run makes 8) cases of each seed, so 10,000 generated inputs per operation. The cases are built exactly as
 * a run builds them (the probe's own generator and mutation, a fresh sample per case, signed, encoded as the
 * profile says, through UTF-8) and answered through the server's own path without sockets (`gw.inject`: health
 * and admin endpoints, size cap, body caps, pipeline, fault hooks, reason header), so that 10,000 seeds of every
 * operation fit in a test. Over HTTP, the kit's own run covers the same cases (`generatedInputNeverServerError`).
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationKey } from '../../core/model.js';
import { sampleBody, type SampleSettings } from '../../engine/sample.js';
import { encodeForm } from '../../core/codecs/form.js';
import { sign } from '../../core/signing.js';
import { applyMutation, mutationArbitrary, NEGATIVE_CASES, type Mutation } from '../../suites/probes/basic.js';
import type { RunningGateway } from '../index.js';
import * as h from './helpers.js';

const SEEDS = Number(process.env.PAGI_FUZZ_SEEDS ?? 10_000);
const CASES_PER_SEED = Math.min(NEGATIVE_CASES, Number(process.env.PAGI_FUZZ_CASES ?? 1));
/** The seed of a run whose checkout case once answered 500 (a lone surrogate in an extra field). */
const KNOWN_SEED = 1534542880;

let gw: RunningGateway;
beforeAll(async () => {
  // No notification leaves the test: the samples keep the examples' notify_url.
  gw = await h.gateway({ config: { notifications: { enabled: false } } });
});
afterAll(() => gw.close());

const OPS = [...h.spec.operations.keys()];
const MEDIA = { json: 'application/json', form: 'application/x-www-form-urlencoded' } as const;
const settings = {
  config: {
    merchantId: h.MERCHANT,
    accountId: h.ACCOUNT,
    cards: { approve: h.APPROVE_CARD },
    paymentMethods: { valid: ['BANK_TRANSFER'] },
  },
  cardSecurityCode: '123',
} as unknown as SampleSettings;

let n = 0;
/** A valid body of the operation as the kit's client samples it (fresh order number and request id). */
function sample(op: OperationKey): Record<string, unknown> {
  n += 1;
  return sampleBody(h.spec, h.profile, settings, op, { orderNo: `FUZZ-${n}`, requestId: randomUUID() });
}

/** Send one case as the kit's client would: signed, encoded as the profile says, through UTF-8. */
function answer(op: OperationKey, body: Record<string, unknown>) {
  const signature = sign(h.profile.signature, 'request', op, body, h.SECRET);
  const sent = signature === undefined ? body : { ...body, encryption_data: signature };
  const encoding = h.profile.requestMedia.types[op];
  const text = encoding === 'json' ? JSON.stringify(sent) : encodeForm(sent);
  const wire = Buffer.from(text, 'utf8').toString('utf8');
  return gw.inject({
    path: h.pathOf(op),
    body: wire,
    headers: { 'content-type': `${MEDIA[encoding]}; charset=utf-8` },
  });
}

function describeCase(op: OperationKey, seed: number, i: number, m: Mutation): string {
  return `${op} seed ${seed} case ${i + 1}: ${m.kind} of ${m.field} = ${JSON.stringify(m.value)?.slice(0, 120)}`;
}

describe('generated negative cases of the kit, every operation', () => {
  it('the known crash: seed 1534542880 on checkout (a lone surrogate in an extra field) answers below 500', () => {
    const op: OperationKey = 'checkout';
    const seed = KNOWN_SEED + OPS.indexOf(op);
    const cases = fc.sample(mutationArbitrary(Object.keys(sample(op))), { seed, numRuns: NEGATIVE_CASES });
    expect(cases).toContainEqual(expect.objectContaining({ kind: 'extra', field: 'x_uhcenatdk' }));
    for (const [i, m] of cases.entries()) {
      const res = answer(op, applyMutation(sample(op), m));
      expect(res.status, describeCase(op, seed, i, m)).toBeLessThan(500);
      if (m.field === 'x_uhcenatdk') {
        expect(res.status).toBe(h.profile.errors.kinds.invalidInput.status);
        expect(res.headers['x-pagi-reason']).toMatch(
          /^invalidInput: \/x_uhcenatdk(\/\d+)? holds a lone UTF-16 surrogate/,
        );
      }
    }
  });

  for (const op of OPS) {
    it(`${op}: ${SEEDS} run seeds × ${CASES_PER_SEED} case${CASES_PER_SEED === 1 ? '' : 's'}, never a 5xx`, () => {
      const fields = Object.keys(sample(op));
      const arbitrary = mutationArbitrary(fields);
      const statuses = new Map<number, number>();
      const failures: string[] = [];
      for (let s = 0; s < SEEDS; s++) {
        // As `pagi-conform run --seed S` does: the operation's index is added to the run seed.
        const seed = KNOWN_SEED + s * 7919 + OPS.indexOf(op);
        const cases = fc.sample(arbitrary, { seed, numRuns: CASES_PER_SEED });
        for (const [i, m] of cases.entries()) {
          const res = answer(op, applyMutation(sample(op), m));
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status >= 500 && failures.length < 5)
            failures.push(`${describeCase(op, seed, i, m)} → ${res.status} ${res.body.slice(0, 200)}`);
        }
      }
      expect(failures).toEqual([]);
      const total = [...statuses.values()].reduce((a, b) => a + b, 0);
      expect(total).toBe(SEEDS * CASES_PER_SEED);
      // Refusals come with the profile's statuses, and some cases are refused (the generator is not toothless).
      const refused = [...statuses].filter(([status]) => status >= 400).reduce((a, [, count]) => a + count, 0);
      expect(refused).toBeGreaterThan(0);
    }, 600_000);
  }
});
