/**
 * The run's ledger (engine/ledger.ts) as the client fills it: every exchange with an operation, in answer order, with
 * whether its request authenticates (signed by the client or carrying a signature that verifies, the run's merchant
 * and account); a request sent to another path, or a raw body, is not an operation's; notifications once each.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProbeClient, type KitClient } from '../../engine/client.js';
import { LEDGER_MAX_ENTRIES, RunLedger } from '../../engine/ledger.js';
import type { Exchange } from '../../core/model.js';
import { loadProfile } from '../../core/profile/load.js';
import { sign } from '../../core/signing.js';
import { kitSpec } from '../../core/spec/load.js';
import { runConfig } from '../support/config.js';

const spec = kitSpec();
const { profile } = loadProfile('reference');
const SECRET = 'ledger-test-secret-0001';
let server: http.Server;
let client: KitClient;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end('{"return_status":"1"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const config = runConfig(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, {
    merchantId: 'M-L',
    accountId: 'A-L',
    orderPrefix: 'L',
  });
  client = createProbeClient({
    spec,
    profile,
    config,
    secret: SECRET,
    cardSecurityCode: '123',
    transport: { timeoutMs: 2000, maxResponseBytes: 64 * 1024, concurrency: 2, rate: 0 },
    tag: 'l1',
  });
});

afterAll(async () => {
  await client.close();
  await new Promise((resolve) => server.close(resolve));
});

const capture = (extra: Record<string, unknown> = {}) => ({
  merchant_id: 'M-L',
  account_id: 'A-L',
  capture_orders: [{ transaction_id: 'T1', order_no: 'O1', currency: 'EUR', amount: '1.00' }],
  ...extra,
});

describe("the run's ledger", () => {
  it('marks each request by whether it authenticates, and leaves out what is no operation', async () => {
    const signedByHand: Record<string, unknown> = capture();
    signedByHand.encryption_data = sign(profile.signature, 'request', 'capture', signedByHand, SECRET)!;
    const sent = [
      await client.send('capture', capture()),
      await client.send('capture', { ...capture(), encryption_data: 'f'.repeat(64) }, { sign: false }),
      await client.send('capture', capture(), { sign: false }),
      await client.send('capture', capture({ merchant_id: 'M-OTHER' })),
      await client.send('capture', capture({ account_id: undefined })),
      // signed over another body than the one sent (the fields the signature covers differ)
      await client.send('capture', capture(), { signedBody: capture({ account_id: 'A-OTHER' }) }),
      // altered where the signature does not look: it still verifies
      await client.send('capture', capture({ amount: '2.00' }), { signedBody: capture() }),
      await client.send('capture', signedByHand, { sign: false }),
    ];
    await client.send('capture', capture(), { path: '/capture' });
    await client.send('capture', {}, { rawBody: '{"not":' });
    const entries = client.ledger!().entries;
    expect(entries.map((e) => e.exchange.id)).toEqual(sent.map((x) => x.id));
    expect(entries.map((e) => e.authenticated)).toEqual([true, false, false, false, false, false, true, true]);
    for (const [i, e] of entries.entries()) {
      expect(e.operation).toBe('capture');
      expect(e.seq).toBe(i + 1);
      expect(e.answeredAt).toBeGreaterThanOrEqual(e.sentAt);
    }
  });

  it('holds each notification once, whoever asked for it, and stops at its bound', () => {
    const ledger = new RunLedger();
    const n = { id: 'notification#1', operation: 'external', incoming: true } as unknown as Exchange;
    ledger.addNotifications([n]);
    ledger.addNotifications([n]);
    expect(ledger.notifications).toHaveLength(1);
    const x = { id: 'capture#1', operation: 'capture', durationMs: 1 } as unknown as Exchange;
    for (let i = 0; i < LEDGER_MAX_ENTRIES + 3; i++) ledger.add(x, { authenticated: true, atOperation: true });
    expect(ledger.entries).toHaveLength(LEDGER_MAX_ENTRIES);
    expect(ledger.dropped).toBe(3);
  });
});
