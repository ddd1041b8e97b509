/** Notifications to notify_url: body, signature, retries with backoff until acknowledged, bounded attempts, logged. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { verify } from '../../core/signing.js';
import type { RunningGateway } from '../index.js';
import * as h from './helpers.js';
import { tempDir } from '../../test/support/temp.js';

const p = h.profile;
const lines: string[] = [];
let gw: RunningGateway;
beforeAll(async () => {
  gw = await h.gateway({ log: (line) => lines.push(line) });
});
afterAll(() => gw.close());

describe('payment notifications (reference profile)', () => {
  it('sends the direct payment result, signed as the response, as soon as the payment is made', async () => {
    const rx = await h.receiver();
    try {
      const { body, result } = await h.pay(gw, { notify_url: rx.url });
      const [note] = await rx.waitFor(1);
      expect(note!.headers['content-type']).toMatch(
        p.notifications.mediaType === 'json' ? /^application\/json/ : /^application\/x-www-form-urlencoded/,
      );
      const sent = JSON.parse(note!.text);
      expect(sent).toEqual(result);
      expect(sent.order_no).toBe(body.order_no);
      expect(verify(p.signature, 'response', p.notifications.kinds.payment.bodyFrom, sent, h.SECRET)).toBe(true);
    } finally {
      await rx.close();
    }
  });

  it('retries with the profile backoff until a 2xx, and logs every attempt', async () => {
    const rx = await h.receiver((n) => (n < 3 ? 500 : 200));
    try {
      lines.length = 0;
      const started = Date.now();
      const { body } = await h.pay(gw, { notify_url: rx.url });
      await rx.waitFor(3, 5000);
      const { initialDelayMs, factor } = p.notifications.retry;
      expect(Date.now() - started).toBeGreaterThanOrEqual(initialDelayMs + initialDelayMs * factor - 20);
      await gw.notificationsIdle();
      expect(rx.received.map((r) => r.status)).toEqual([500, 500, 200]);
      const attempts = lines.filter((l) => l.startsWith(`notify payment ${body.order_no}`));
      expect(attempts).toHaveLength(3);
      expect(attempts[2]).toMatch(/attempt 3\/\d+ -> 200 delivered/);
    } finally {
      await rx.close();
    }
  });

  it('sends the payout result after a payout', async () => {
    const rx = await h.receiver();
    try {
      const body = h.payoutBody({ notify_url: rx.url });
      const res = await h.call(gw, 'payout', body);
      const [note] = await rx.waitFor(1);
      expect(JSON.parse(note!.text)).toEqual(JSON.parse(res.text));
      await h.call(gw, 'payout', body); // a replay sends nothing more
      await gw.notificationsIdle();
      expect(rx.received).toHaveLength(1);
    } finally {
      await rx.close();
    }
  });
});

describe('bounded attempts (a profile with short delays)', () => {
  let fast: RunningGateway;
  const fastLines: string[] = [];
  beforeAll(async () => {
    const file = path.join(tempDir('pagi-gw-'), 'fast-retry.yaml');
    fs.writeFileSync(
      file,
      stringify({
        ...p,
        notifications: { ...p.notifications, retry: { maxAttempts: 3, initialDelayMs: 10, factor: 2, timeoutMs: 300 } },
      }),
    );
    fast = await h.gateway({ profile: file, log: (line) => fastLines.push(line) });
  });
  afterAll(() => fast.close());

  it('gives up after maxAttempts unacknowledged deliveries, never blocking the response', async () => {
    const rx = await h.receiver(() => 503);
    try {
      const started = Date.now();
      await h.pay(fast, { notify_url: rx.url });
      expect(Date.now() - started).toBeLessThan(1000);
      await fast.notificationsIdle();
      expect(rx.received).toHaveLength(3);
      expect(
        fast
          .notifications()
          .filter((a) => a.url === rx.url)
          .map((a) => a.delivered),
      ).toEqual([false, false, false]);
    } finally {
      await rx.close();
    }
  });

  it('counts a receiver that does not answer in time as a failed attempt', async () => {
    const http = await import('node:http');
    const silent = http.createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(silent.address() as { port: number }).port}/slow`;
    try {
      await h.pay(fast, { notify_url: url });
      await fast.notificationsIdle();
      const attempts = fast.notifications().filter((a) => a.url === url);
      expect(attempts.map((a) => a.error)).toEqual(['timed out', 'timed out', 'timed out']);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});
