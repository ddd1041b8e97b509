/**
 * An example merchant consumer test (PactV4 + vitest) that starts from the interface's own interactions:
 * `interactions` gives each operation's request and provider state, `matchers` what the interface guarantees in
 * the answer. The pact it writes (under a temporary folder here; `pacts/` in a merchant's project) is what
 * `pagi-conform pact check` validates and `pagi-conform pact verify` replays against a gateway.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PactV4 } from '@pact-foundation/pact';
import { afterAll, describe, expect, it } from 'vitest';
import { interactions, matchers } from 'pagi-conformance/pact';
import { checkPact, findingsOf } from 'pagi-conformance/pact';
import { capturePayment, queryPayments } from './merchant.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'merchant-pact-'));
const provider = new PactV4({
  consumer: 'merchant',
  provider: 'pagi-gateway',
  dir,
  logLevel: (process.env.PACT_LOG as 'error') ?? 'error',
});
const account = { merchantId: 'M10001', accountId: 'A20001', secret: 'reference-secret-0001' };

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/**
 * Pact's mock server records a match after it has answered (pact-foundation/pact-core-mock-server#13, open; in
 * @pact-foundation/pact since 16.3.0): on a loaded machine `executeTest` can read "expected but not received" for a
 * request the mock server received, matched and answered. An interaction is retried twice for that race alone: a
 * real mismatch fails every attempt, and a failed attempt writes nothing to the pact.
 */
const UPSTREAM_RACE = { retry: 2 };

describe('merchant against the PAGI gateway (consumer side)', () => {
  it('captures an authorised payment', UPSTREAM_RACE, async () => {
    const capture = interactions().find((i) => i.key === 'capture-200')!;
    await provider
      .addInteraction()
      .given(capture.providerState!)
      .uponReceiving(capture.description)
      .withRequest(capture.request.method, capture.request.path, (b) =>
        b.headers({ 'Content-Type': capture.request.contentType }).jsonBody(capture.request.matchers),
      )
      .willRespondWith(capture.response.status, (b) =>
        b.headers({ 'Content-Type': capture.response.contentType! }).jsonBody(capture.response.matchers),
      )
      .executeTest(async (mock) => {
        const result = await capturePayment(
          { ...account, baseUrl: mock.url },
          { transactionId: 'T202611220001', orderNo: 'ORD-20261122-0001', currency: 'USD', amount: '10.36' },
        );
        expect(typeof result.captured).toBe('boolean');
      });
  });

  it('queries the authorised payment', UPSTREAM_RACE, async () => {
    const query = interactions().find((i) => i.key === 'retrievalTrans-200')!;
    await provider
      .addInteraction()
      .given(query.providerState!)
      .uponReceiving(query.description)
      // Pact V4 stores a form body given to .body() as binary and matches it by content sniffing, which fails for
      // form text; the merchant sends its query as JSON, as the document's examples do (rule 6).
      .withRequest('POST', query.request.path, (b) =>
        b.headers({ 'Content-Type': 'application/json; charset=utf-8' }).jsonBody(query.request.matchers),
      )
      .willRespondWith(200, (b) => b.jsonBody(matchers.response('retrievalTrans')))
      .executeTest(async (mock) => {
        const orders = await queryPayments({ ...account, baseUrl: mock.url }, 'ORD-20261124-0042');
        expect(orders.length).toBeGreaterThanOrEqual(1);
      });
  });

  it('writes a pact the interface guarantees (pact check finds nothing)', () => {
    const file = fs.readdirSync(dir).find((f) => f.endsWith('.json'))!;
    const pact = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    expect(pact.interactions).toHaveLength(2);
    expect(findingsOf(checkPact(pact))).toEqual([]);
    expect(matchers.format('currency', 'EUR')).toEqual({
      'pact:matcher:type': 'regex',
      regex: '^[A-Z]{3}$',
      value: 'EUR',
    });
  });
});
