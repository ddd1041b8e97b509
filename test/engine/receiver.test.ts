import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { remoteNotifications, startReceiver, type Receiver } from '../../engine/receiver.js';

const PAN = '4111111111111111';
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver({ listenOn: '127.0.0.1:0', rules: { secrets: ['notify-secret'], cards: [PAN] } });
});
afterAll(() => receiver.close());

const post = (body: string, type = 'application/json') =>
  request(receiver.notifyUrl, { method: 'POST', body, headers: { 'content-type': type } }).then(async (r) => {
    await r.body.dump();
    return r.statusCode;
  });

describe('notification receiver', () => {
  it('acknowledges every request and records it as an external exchange with masked evidence', async () => {
    expect(await post(JSON.stringify({ order_no: 'ORD-1', card: PAN, encryption_data: 'notify-secret' }))).toBe(200);
    const [x] = await receiver.notifications('ORD-1', 0);
    expect(x).toMatchObject({
      operation: 'external',
      incoming: true,
      request: { method: 'POST', encoding: 'json', body: { order_no: 'ORD-1' } },
      response: { status: 200 },
    });
    expect(JSON.stringify(x!.evidence)).not.toContain(PAN);
    expect(JSON.stringify(x!.evidence)).not.toContain('notify-secret');
  });

  it('matches by any top-level value (order_no, request_id), form bodies included', async () => {
    await post('request_id=REQ-9&status=COMPLETED', 'application/x-www-form-urlencoded');
    expect(await receiver.notifications('REQ-9', 0)).toHaveLength(1);
    expect(await receiver.notifications('nothing', 0)).toEqual([]);
  });

  it('waits up to the given time for a notification to arrive', async () => {
    const started = Date.now();
    const waiting = receiver.notifications('LATE-1', 2000);
    setTimeout(() => void post(JSON.stringify({ order_no: 'LATE-1' })), 150);
    expect(await waiting).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(1500);
    const t0 = Date.now();
    expect(await receiver.notifications('NEVER', 200)).toEqual([]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
  });

  it('waits, when asked, until a number of notifications have arrived (here and through the control URL)', async () => {
    for (const source of [receiver, remoteNotifications(receiver.controlUrl)]) {
      const key = `MANY-${Math.random().toString(36).slice(2)}`;
      const started = Date.now();
      const waiting = source.notifications(key, 3000, 3);
      for (const ms of [50, 100, 150]) setTimeout(() => void post(JSON.stringify({ order_no: key })), ms);
      expect(await waiting).toHaveLength(3);
      expect(Date.now() - started).toBeLessThan(2000);
      expect(await source.notifications(key, 100, 4)).toHaveLength(3); // fewer than asked: the wait ends at its time
    }
  });

  it('serves other threads through the control URL, and nothing without its token', async () => {
    const remote = remoteNotifications(receiver.controlUrl);
    const waiting = remote.notifications('REMOTE-1', 2000);
    setTimeout(() => void post(JSON.stringify({ order_no: 'REMOTE-1' })), 100);
    expect((await waiting)[0]?.request.body).toEqual({ order_no: 'REMOTE-1' });
    const bare = new URL(receiver.controlUrl);
    const res = await request(`${bare.origin}/notifications?key=REMOTE-1`);
    await res.body.dump();
    expect(res.statusCode).toBe(404);
  });

  it('refuses bodies over its size limit', async () => {
    expect(await post('x'.repeat(1024 * 1024 + 10))).toBe(413);
  });
});
