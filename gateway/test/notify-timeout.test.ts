/**
 * A notification attempt nobody answers is given up after `notifications.retry.timeoutMs`, even while the garbage
 * collector runs: the attempt's timer is its own (an `AbortSignal.timeout` inside `AbortSignal.any` could be collected
 * before it fired, leaving the attempt waiting for ever: Node.js issue 57736).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Notifier } from '../notify.js';
import * as h from './helpers.js';

let server: http.Server;
let url: string;
beforeAll(async () => {
  server = http.createServer(() => {}); // never answers
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/notify`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

describe('an unanswered notification attempt', () => {
  it('is given up after the profile’s time-out while the garbage collector runs', { timeout: 20_000 }, async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const profile = structuredClone(h.profile);
    profile.notifications.retry = { ...profile.notifications.retry, maxAttempts: 1, timeoutMs: 300 };
    const notifier = new Notifier(profile, () => {}, true);
    const collecting = setInterval(gc, 20);
    try {
      for (let i = 0; i < 4; i++)
        notifier.send({ kind: 'payment', key: `ORD-${i}`, url, body: { order_no: `ORD-${i}` }, secret: h.SECRET });
      const settled = await Promise.race([
        notifier.idle().then(() => true),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), 5000)),
      ]);
      expect(settled, 'every attempt given up within 5 s').toBe(true);
      expect(notifier.attempts().map((a) => a.error)).toEqual(Array(4).fill('timed out'));
    } finally {
      clearInterval(collecting);
      notifier.close();
    }
  });
});
