/**
 * The gateway as a long-running sandbox, in-process: body caps refused before parsing, deep nesting and lone
 * surrogates refused on every path, the reason of every refusal kind in `x-pagi-reason` (masked), eviction of
 * the oldest records past the store's caps, the connection cap, `/healthz` and the admin endpoints.
 */
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { OperationKey } from '../../core/model.js';
import { encodeForm } from '../../core/codecs/form.js';
import type { RunningGateway } from '../index.js';
import * as h from './helpers.js';

const kinds = h.profile.errors.kinds;
const REASON = 'x-pagi-reason';
const QUIET = { notifications: { enabled: false } };

let gw: RunningGateway;
let admin: RunningGateway;
beforeAll(async () => {
  gw = await h.gateway({ config: QUIET });
  admin = await h.gateway({
    admin: true,
    config: { ...QUIET, store: { maxTransactions: 5, maxPayouts: 2, maxTokens: 2 } },
  });
});
afterAll(async () => {
  await gw.close();
  await admin.close();
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const OPS = [...h.spec.operations.keys()];

/** A valid, signed request body of an operation. */
function validBody(op: OperationKey): Record<string, unknown> {
  const envelope = { merchant_id: h.MERCHANT, account_id: h.ACCOUNT };
  const body =
    op === 'authoriseDirect'
      ? h.directBody()
      : op === 'authoriseApm'
        ? h.apmBody()
        : op === 'checkout'
          ? h.checkoutBody()
          : op === 'payout'
            ? h.payoutBody()
            : h.spec.operations.get(op)!.batch
              ? {
                  ...envelope,
                  [h.spec.operations.get(op)!.batch!.orders]: h.example(`${op}-request`)[
                    h.spec.operations.get(op)!.batch!.orders
                  ],
                }
              : envelope;
  return h.signed(op, body);
}

/** JSON text of a body with one more member whose JSON text is given as is. */
function withMember(body: Record<string, unknown>, name: string, json: string): string {
  return `${JSON.stringify(body).slice(0, -1)},${JSON.stringify(name)}:${json}}`;
}

const DEEP = 5000;
const deepJson = '['.repeat(DEEP) + ']'.repeat(DEEP);

/** Every path a request can reach: each operation, the checkout form posted back, the two pages. */
const PAGE_PATHS = ['/pay/unknown-token', '/issuer/unknown-token'];

function expectRefusal(res: h.Res, kind: keyof typeof kinds, what: string, reason?: RegExp) {
  expect(res.status, `${what}: ${res.text.slice(0, 200)}`).toBe(kinds[kind]!.status);
  expect(res.headers[REASON], what).toMatch(new RegExp(`^${kind}: `));
  if (reason) expect(res.headers[REASON], what).toMatch(reason);
}

describe('caps checked before a body is parsed', () => {
  it('a form of 100,000 distinct fields is refused as invalid input without being decoded', async () => {
    const form = Array.from({ length: 100_000 }, (_, i) => `${i.toString(36)}=1`).join('&');
    expect(Buffer.byteLength(form)).toBeLessThan(h.profile.limits.maxBodyBytes);
    let decoded = 0;
    const Real = URLSearchParams;
    vi.stubGlobal(
      'URLSearchParams',
      class extends Real {
        constructor(...args: ConstructorParameters<typeof URLSearchParams>) {
          super(...args);
          decoded += 1;
        }
      },
    );
    const parse = vi.spyOn(JSON, 'parse');
    for (const op of ['retrievalTrans', 'capture', 'checkout'] as const) {
      // How fast the refusal is, is a bench:gateway figure; here, that nothing was decoded to reach it.
      const res = gw.inject({
        path: h.pathOf(op),
        body: form,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(res.status, op).toBe(kinds.invalidInput.status);
      expect(res.headers[REASON]).toBe('invalidInput: form body with more than 1000 fields');
    }
    expect(decoded).toBe(0);
    expect(parse).not.toHaveBeenCalled();
    vi.unstubAllGlobals();
    // Over HTTP too.
    const res = await h.send(gw.url + h.pathOf('retrievalTrans'), { body: form });
    expectRefusal(res, 'invalidInput', 'HTTP', /more than 1000 fields/);
  });

  it('a JSON body of 100,000 keys is refused without JSON.parse', () => {
    const json = `{${Array.from({ length: 100_000 }, (_, i) => `"${i.toString(36)}":1`).join(',')}}`;
    const parse = vi.spyOn(JSON, 'parse');
    const res = gw.inject({ path: h.pathOf('capture'), body: json, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(kinds.invalidInput.status);
    expect(res.headers[REASON]).toBe('invalidInput: JSON body more than 10000 keys');
    expect(parse).not.toHaveBeenCalled();
  });

  it('a JSON array of 300,000 elements is refused without JSON.parse (schema validation of each would cost seconds)', () => {
    const capture = JSON.stringify(validBody('capture'));
    const body = capture.replace(
      /"capture_orders":\[.*?\](?=,"encryption_data")/,
      `"capture_orders":[${Array(300_000).fill(1).join(',')}]`,
    );
    expect(body.length).toBeGreaterThan(600_000);
    const parse = vi.spyOn(JSON, 'parse');
    const res = gw.inject({ path: h.pathOf('capture'), body, headers: { 'content-type': 'application/json' } });
    expect(res.headers[REASON]).toBe('invalidInput: JSON body more than 1000 array elements');
    expect(parse).not.toHaveBeenCalled();
    const form = `${encodeForm({ merchant_id: h.MERCHANT, account_id: h.ACCOUNT })}&capture_orders=${encodeURIComponent(`[${Array(2000).fill('{}').join(',')}]`)}`;
    expect(gw.inject({ path: h.pathOf('capture'), body: form }).headers[REASON]).toBe(
      'invalidInput: form field capture_orders: JSON text more than 1000 array elements',
    );
  });

  it('bodies at the caps are read; one past them refused', () => {
    const at = (depth: number) => withMember(validBody('capture'), 'x', '['.repeat(depth - 1) + ']'.repeat(depth - 1));
    const ok = gw.inject({ path: h.pathOf('capture'), body: at(32), headers: { 'content-type': 'application/json' } });
    expect(ok.headers[REASON] ?? '').not.toMatch(/deeper/);
    const over = gw.inject({
      path: h.pathOf('capture'),
      body: at(33),
      headers: { 'content-type': 'application/json' },
    });
    expect(over.headers[REASON]).toBe('invalidInput: JSON body nested deeper than 32 levels');
    const fields = (n: number) => Array.from({ length: n }, (_, i) => `f${i}=1`).join('&');
    expect(gw.inject({ path: h.pathOf('retrievalTrans'), body: fields(1000) }).headers[REASON] ?? '').not.toMatch(
      /fields/,
    );
    expect(gw.inject({ path: h.pathOf('retrievalTrans'), body: fields(1001) }).headers[REASON]).toMatch(
      /more than 1000 fields/,
    );
    const items = (n: number) => withMember(validBody('capture'), 'x', `[${Array(n).fill(0).join(',')}]`);
    // The batch's own orders are elements too: the capture example holds one.
    const own = (JSON.parse(JSON.stringify(validBody('capture'))).capture_orders as unknown[]).length;
    expect(
      gw.inject({ path: h.pathOf('capture'), body: items(1000 - own), headers: { 'content-type': 'application/json' } })
        .headers[REASON] ?? '',
    ).not.toMatch(/elements/);
    expect(
      gw.inject({ path: h.pathOf('capture'), body: items(1001 - own), headers: { 'content-type': 'application/json' } })
        .headers[REASON],
    ).toMatch(/more than 1000 array elements/);
  });
});

describe('deep nesting and lone surrogates on every path: a 4xx', () => {
  it(`a member nested ${DEEP} deep, as JSON and as JSON text in a form field`, async () => {
    for (const op of OPS) {
      const body = validBody(op);
      const before = gw.stateDigest();
      expectRefusal(
        await h.send(gw.url + h.pathOf(op), {
          body: withMember(body, 'x_deep', deepJson),
          contentType: 'application/json',
        }),
        'invalidInput',
        `${op} json`,
        /nested deeper than 32/,
      );
      const nestedName = h.spec.operations.get(op)!.batch?.orders ?? 'x_deep';
      expectRefusal(
        await h.send(gw.url + h.pathOf(op), {
          body: `${encodeForm(body)}&${nestedName}=${encodeURIComponent(deepJson)}`,
        }),
        'invalidInput',
        `${op} form`,
        /nested deeper than 32/,
      );
      expect(gw.stateDigest(), op).toBe(before);
    }
    const postBack = withMember({ ...validBody('checkout'), gbc_id: 'x' }, 'x_deep', deepJson);
    expectRefusal(
      await h.send(gw.url + h.pathOf('checkout'), { body: postBack, contentType: 'application/json' }),
      'invalidInput',
      'post-back',
      /nested deeper/,
    );
    for (const path of PAGE_PATHS) {
      expectRefusal(
        await h.send(gw.url + path, {
          body: withMember({ action: 'pay' }, 'x_deep', deepJson),
          contentType: 'application/json',
        }),
        'invalidInput',
        path,
        /nested deeper/,
      );
    }
  });

  it('a lone UTF-16 surrogate in an extra field, a nested value or a key', async () => {
    const places: [string, (body: Record<string, unknown>) => Record<string, unknown>, RegExp][] = [
      ['extra field', (b) => ({ ...b, x_uhcenatdk: 'a\uD800b' }), /\/x_uhcenatdk holds a lone UTF-16 surrogate/],
      ['nested value', (b) => ({ ...b, x_nested: [{ name: '\uDC00' }] }), /\/x_nested\/0\/name holds/],
      ['key', (b) => ({ ...b, 'k\uDBFF': '1' }), /\/k\\udbff holds/],
    ];
    for (const op of OPS) {
      for (const [where, add, reason] of places) {
        const before = gw.stateDigest();
        const res = await h.send(gw.url + h.pathOf(op), {
          body: JSON.stringify(add(validBody(op))),
          contentType: 'application/json',
        });
        expectRefusal(res, 'invalidInput', `${op} ${where}`, reason);
        expect(gw.stateDigest()).toBe(before);
      }
    }
    // JSON text of a batch's orders in a form body carries an escape too.
    const capture = validBody('capture');
    const form = `${encodeForm({ ...capture, capture_orders: undefined })}&capture_orders=${encodeURIComponent('[{"order_no":"\\ud800"}]')}`;
    expectRefusal(
      await h.send(gw.url + h.pathOf('capture'), { body: form }),
      'invalidInput',
      'capture form',
      /\/capture_orders\/0\/order_no holds/,
    );
    const postBack = { ...validBody('checkout'), gbc_id: 'x', x_extra: '\uD800' };
    expectRefusal(
      await h.send(gw.url + h.pathOf('checkout'), { body: JSON.stringify(postBack), contentType: 'application/json' }),
      'invalidInput',
      'post-back',
    );
    for (const path of PAGE_PATHS) {
      expectRefusal(
        await h.send(gw.url + path, {
          body: JSON.stringify({ action: 'pay', x: '\uDFFF' }),
          contentType: 'application/json',
        }),
        'invalidInput',
        path,
        /lone/,
      );
    }
  });
});

describe('x-pagi-reason on every refusal kind, outside the interface body', () => {
  it('names the kind and why, with schema path and message for invalid input', async () => {
    const url = gw.url;
    expectRefusal(
      await h.send(`${url}/v1/nothing`, { body: '{}' }),
      'unknownPath',
      'unknown path',
      /no operation at this path/,
    );
    expectRefusal(await h.send(`${url}/v1/capture`, { method: 'GET' }), 'methodNotAllowed', 'GET', /method GET/);
    expectRefusal(
      await h.send(`${url}/v1/capture`, { body: 'x'.repeat(h.profile.limits.maxBodyBytes + 1) }),
      'bodyTooLarge',
      'large',
      /size cap/,
    );
    expectRefusal(
      await h.send(`${url}/v1/capture`, { body: '{"merchant_id":', contentType: 'application/json' }),
      'malformedBody',
      'malformed',
      /not a readable/,
    );
    expectRefusal(
      await h.query(gw, {}, { localAddress: '127.0.0.2' }).then((q) => q.res),
      'refusedAddress',
      'address',
      /not registered/,
    );
    const unsigned = { ...validBody('capture'), encryption_data: '0'.repeat(64) };
    expectRefusal(
      await h.send(url + h.pathOf('capture'), { body: unsigned }),
      'badSignature',
      'signature',
      /encryption_data/,
    );
    const payout = await h.call(gw, 'payout', h.payoutBody({ payment_amount: '12.50' }));
    expectRefusal(payout, 'invalidInput', 'payout amount', /^invalidInput: \/payment_amount must match pattern/);
    const item = { transaction_id: 'T1', order_no: 'O1', currency: 'USD', amount: '1.00' };
    expectRefusal(
      await h.call(gw, 'capture', {
        merchant_id: h.MERCHANT,
        account_id: h.ACCOUNT,
        capture_orders: Array(51).fill(item),
      }),
      'overLimit',
      'over limit',
      /too many orders/,
    );
    expectRefusal(
      await h.call(gw, 'authoriseApm', h.apmBody({ payment_method: 'NO_SUCH_METHOD' })),
      'unknownRecord',
      'apm method',
    );
    expectRefusal(
      await h.send(`${url}/pay/unknown-token`, { method: 'GET' }),
      'unknownRecord',
      'pay page',
      /hosted payment page/,
    );
    // The interface body stays the profile's: the reason is in the header only.
    expect(payout.text).not.toContain('must match pattern');
  });

  it('masks card numbers and secrets in the reason', async () => {
    const body = { ...validBody('capture'), [h.APPROVE_CARD]: '\uD800', [h.SECRET]: '\uD800' };
    const res = await h.send(gw.url + h.pathOf('capture'), {
      body: JSON.stringify(body),
      contentType: 'application/json',
    });
    expect(res.status).toBe(kinds.invalidInput.status);
    expect(res.headers[REASON]).toMatch(/holds a lone/);
    expect(res.headers[REASON]).not.toContain(h.APPROVE_CARD);
    expect(res.headers[REASON]).not.toContain(h.SECRET);
  });

  it('requests Node refuses itself carry a reason too: unreadable HTTP, header time-out', async () => {
    const slow = await h.gateway({ config: { ...QUIET, server: { headersTimeoutSeconds: 1 } } });
    try {
      const raw = (text: string, waitMs: number) =>
        new Promise<string>((resolve, reject) => {
          const socket = net.connect(slow.port, '127.0.0.1', () => socket.write(text));
          let got = '';
          socket.on('data', (c) => (got += c.toString()));
          socket.on('close', () => resolve(got));
          socket.on('error', reject);
          setTimeout(() => socket.destroy(), waitMs);
        });
      const garbage = await raw('NOT HTTP AT ALL\r\n\r\n', 3000);
      expect(garbage).toMatch(/^HTTP\/1\.1 400 /);
      expect(garbage).toMatch(/x-pagi-reason: not a readable HTTP request/);
      const partial = await raw('POST /v1/capture HTTP/1.1\r\nHost: x\r\n', 5000);
      expect(partial).toMatch(/^HTTP\/1\.1 408 /);
      expect(partial).toMatch(/x-pagi-reason: request not received within/);
    } finally {
      await slow.close();
    }
  });
});

describe('server.earlyTooLarge: a body over the size cap answered before it is read', () => {
  const cap = h.profile.limits.maxBodyBytes;
  /**
   * A capture whose head declares `length` bytes (none sent), or without a length sends `sent` bytes in one chunk of
   * a chunked body: what came back, once closed.
   */
  const raw = (port: number, length: number | undefined, sent = 0) =>
    new Promise<string>((resolve) => {
      const head = 'POST /v1/capture HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n';
      const socket = net.connect(port, '127.0.0.1', () => {
        if (length !== undefined) socket.write(`${head}content-length: ${length}\r\n\r\n`);
        else socket.write(`${head}transfer-encoding: chunked\r\n\r\n${sent.toString(16)}\r\n${'a'.repeat(sent)}\r\n`);
      });
      let got = '';
      socket.on('data', (c) => (got += c.toString()));
      socket.on('error', () => {});
      socket.on('close', () => resolve(got));
    });

  it('answers bodyTooLarge at the declared length or once the bytes received pass the cap, and closes', async () => {
    const early = await h.gateway({ config: { ...QUIET, server: { earlyTooLarge: true } } });
    try {
      // Not a byte of the body sent: answered at the head.
      const declared = await raw(early.port, 16 * cap);
      expect(declared).toMatch(new RegExp(`^HTTP/1\\.1 ${kinds.bodyTooLarge!.status} `));
      expect(declared).toMatch(/\r\nconnection: close\r\n/);
      expect(declared).toMatch(/x-pagi-reason: bodyTooLarge: /);
      expect(declared).toContain(kinds.bodyTooLarge!.code);
      // No declared length (chunked): answered once the bytes received passed the cap, the body unfinished.
      const passed = await raw(early.port, undefined, cap + 4096);
      expect(passed).toMatch(new RegExp(`^HTTP/1\\.1 ${kinds.bodyTooLarge!.status} `));
    } finally {
      await early.close();
    }
  });

  it('is off by default: a declared length over the cap waits for its body', async () => {
    const got = await Promise.race([
      raw(gw.port, 2 * cap),
      new Promise<string>((resolve) => setTimeout(() => resolve('no answer yet'), 500)),
    ]);
    expect(got).toBe('no answer yet');
  });
});

describe('store caps: the oldest records are evicted', () => {
  it('past maxTransactions the oldest payment is unknown to queries, batch operations and refund search', async () => {
    await h.send(`${admin.url}/_admin/reset`, { body: '' });
    const paid = [];
    for (let i = 0; i < 7; i++) paid.push(await h.pay(admin));
    expect(admin.counts().transactions).toBe(5);
    expect(admin.evictions().transactions).toBe(2);
    const { json } = await h.query(admin, {
      transaction_id: [paid[0]!.transactionId, paid[1]!.transactionId, paid[6]!.transactionId].join(','),
    });
    const notFound = h.profile.statusValues.query_result.notFound;
    expect(json.orders_list.map((r: Record<string, string>) => r.query_result)).toEqual([
      notFound,
      notFound,
      h.profile.statusValues.query_result.found,
    ]);
    const byOrder = await h.query(admin, { order_no: paid[0]!.body.order_no });
    expect(byOrder.json.orders_list[0].query_result).toBe(notFound);
    const latest = await h.query(admin);
    expect(latest.json.orders_list).toHaveLength(5);
    const capture = await h.batch(admin, 'capture', [
      h.item(paid[0]!.transactionId, paid[0]!.body),
      h.item(paid[6]!.transactionId, paid[6]!.body),
    ]);
    const status = h.profile.statusValues.capture_status;
    expect(capture.results.map((r) => r.capture_status)).toEqual([status.failure, status.success]);
    await h.batch(admin, 'refund', [
      h.item(paid[6]!.transactionId, paid[6]!.body, { refund_amount: '1.00', refund_reason: 'r' }),
    ]);
    // Five more payments evict the refunded one: its refund leaves the refund search with it.
    for (let i = 0; i < 5; i++) await h.pay(admin);
    const search = await h.call(admin, 'retrievalRefund', { merchant_id: h.MERCHANT, account_id: h.ACCOUNT });
    expect(JSON.parse(search.text).refund_orders ?? []).toEqual([]);
    expect(admin.counts().transactions).toBe(5);
  });

  it('past maxPayouts and maxTokens the oldest go', async () => {
    for (let i = 0; i < 3; i++) expect((await h.call(admin, 'payout', h.payoutBody())).status).toBe(200);
    for (let i = 0; i < 3; i++) await h.pay(admin, { token_flag: h.profile.payments.token.requestValue });
    expect(admin.counts().payouts).toBe(2);
    expect(admin.counts().tokens).toBe(2);
    expect(admin.evictions()).toMatchObject({ payouts: 1, tokens: 1 });
  });
});

describe('connection cap', () => {
  it('past the cap, the connection idle the longest makes room: a new client is answered', async () => {
    const capped = await h.gateway({ config: { ...QUIET, server: { maxConnections: 20 } } });
    const sockets: net.Socket[] = [];
    try {
      expect(capped.connectionCap).toBe(20);
      let closed = 0;
      for (let i = 0; i < 60; i++) {
        const s = net.connect(capped.port, '127.0.0.1');
        s.on('close', () => (closed += 1));
        s.on('error', () => undefined);
        sockets.push(s);
      }
      await Promise.all(
        sockets.map(
          (s) => new Promise((r) => (s.readyState === 'open' ? r(null) : s.once('connect', r).once('close', r))),
        ),
      );
      for (let i = 0; i < 100 && closed < 40; i++) await new Promise((r) => setTimeout(r, 20));
      expect(closed).toBeGreaterThanOrEqual(40);
      const res = await h.send(`${capped.url}/healthz`, { method: 'GET' });
      expect(res.status).toBe(200);
      const stats = capped.serverStats();
      expect(stats.connections.open).toBeLessThanOrEqual(20);
      expect(stats.connections.closedForRoom).toBeGreaterThanOrEqual(40);
    } finally {
      for (const s of sockets) s.destroy();
      await capped.close();
    }
  });
});

describe('health and admin endpoints', () => {
  it('GET /healthz answers ready, and draining once a drain started', async () => {
    const res = await h.send(`${gw.url}/healthz`, { method: 'GET' });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({ status: 'ready' });
    expect((await h.send(`${gw.url}/healthz`, { body: '{}' })).status).toBe(405);
    const other = await h.gateway({ config: QUIET });
    const drained = other.drain(1000);
    const during = other.inject({ method: 'GET', path: '/healthz', body: '' });
    expect(during.status).toBe(503);
    expect(JSON.parse(during.body)).toEqual({ status: 'draining' });
    expect(await drained).toEqual({ answered: 0, cutOff: 0 });
    await other.close();
  });

  it('without --admin, /_admin/* is an unknown path', async () => {
    expectRefusal(await h.send(`${gw.url}/_admin/reset`, { body: '' }), 'unknownPath', 'reset');
    expectRefusal(await h.send(`${gw.url}/_admin/stats`, { method: 'GET' }), 'unknownPath', 'stats');
  });

  it('with --admin: GET /_admin/stats gives counts, evictions, connections and memory; POST /_admin/reset clears the state', async () => {
    const { transactionId } = await h.pay(admin);
    const stats = JSON.parse((await h.send(`${admin.url}/_admin/stats`, { method: 'GET' })).text);
    expect(stats.status).toBe('ready');
    expect(stats.state.transactions).toBeGreaterThan(0);
    expect(stats.caps.maxTransactions).toBe(5);
    expect(stats.server.connections.cap).toBe(admin.connectionCap);
    expect(stats.memoryMb.rss).toBeGreaterThan(0);
    expect(Object.keys(stats.evicted)).toEqual(['transactions', 'payouts', 'tokens', 'sessions']);
    expect((await h.send(`${admin.url}/_admin/reset`, { method: 'GET' })).status).toBe(405);
    const reset = await h.send(`${admin.url}/_admin/reset`, { body: '' });
    expect(reset.status).toBe(200);
    expect(admin.counts()).toEqual({ transactions: 0, refunds: 0, tokens: 0, payouts: 0, sessions: 0 });
    const { json } = await h.query(admin, { transaction_id: transactionId });
    expect(json.orders_list[0].query_result).toBe(h.profile.statusValues.query_result.notFound);
  });
});
