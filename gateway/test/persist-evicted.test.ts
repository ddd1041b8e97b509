/**
 * Memory bounded, state kept: with a database (`serve --data`, `serve --database`) a record the store evicts from
 * memory (its caps, `store.maxMiB`) stays in the database and is read back when a request names it. One scenario
 * (payments, a shared order number, a stored card, payouts, an APM session; then, once the early ones are evicted,
 * queries, a capture, refunds up to and past the remainder, refund searches, payout replays, the stored card, the
 * issuer page) gives the same answers with a tiny cache as in memory without any eviction, and after a restart.
 * PostgreSQL: `PAGI_TEST_POSTGRES` (see shared.test.ts); without one that part is skipped, saying why.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayOptions, RunningGateway } from '../index.js';
import { tempDir } from '../../test/support/temp.js';
import * as h from './helpers.js';

const open: RunningGateway[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((gw) => gw.close().catch(() => undefined)));
});

async function start(options: GatewayOptions): Promise<RunningGateway> {
  const gw = await h.gateway({ ...options, config: { notifications: { enabled: false }, ...options.config } });
  open.push(gw);
  return gw;
}

/** A cache far smaller than the scenario: 5 payments, 2 payouts, 2 tokens, 2 sessions, and 20 KiB. */
const TINY = {
  store: { maxTransactions: 5, maxPayouts: 2, maxTokens: 2, maxMiB: 0.02 },
  sessions: { ttlSeconds: 1800, maxSessions: 2 },
};

const sv = h.profile.statusValues;
const PAYMENTS = 40;

/** What the early records (made first, evicted by the later ones) are. */
interface Early {
  paid: Awaited<ReturnType<typeof h.pay>>[];
  shared: Awaited<ReturnType<typeof h.pay>>[];
  tokenId: string;
  payouts: { body: Record<string, unknown>; text: string }[];
  issuerUrl: string;
}

/** Make the early records, then enough more to evict them from a tiny cache. */
async function fill(gw: RunningGateway): Promise<Early> {
  const orderNo = h.orderNo();
  const shared = [await h.pay(gw, { order_no: orderNo }), await h.pay(gw, { order_no: orderNo, amount: '3.00' })];
  const stored = await h.pay(gw, { token_flag: h.profile.payments.token.requestValue });
  const tokenId = String(stored.result.token_id);
  const payouts = [];
  for (let i = 0; i < 3; i++) {
    const body = h.payoutBody();
    const res = await h.call(gw, 'payout', body);
    expect(res.status).toBe(200);
    payouts.push({ body, text: res.text });
  }
  const apm = await h.call(gw, 'authoriseApm', h.apmBody());
  const issuerUrl = String(h.xmlBody(apm).issuer_url);
  for (let i = 0; i < 3; i++) await h.call(gw, 'authoriseApm', h.apmBody());
  const paid = [];
  for (let i = 0; i < PAYMENTS; i++) paid.push(await h.pay(gw, { amount: '10.00' }));
  for (let i = 0; i < 3; i++) await h.pay(gw, { token_flag: h.profile.payments.token.requestValue });
  for (let i = 0; i < 3; i++) expect((await h.call(gw, 'payout', h.payoutBody())).status).toBe(200);
  await new Promise((resolve) => setImmediate(resolve)); // the byte budget's trim runs after the request
  return { paid, shared, tokenId, payouts, issuerUrl };
}

/** A transaction id as its place in the scenario (the same in every run). */
function namer(e: Early): (id: unknown) => string {
  const names = new Map<string, string>();
  e.paid.forEach((p, i) => names.set(p.transactionId, `paid${i}`));
  e.shared.forEach((p, i) => names.set(p.transactionId, `shared${i}`));
  return (id) => {
    const text = String(id);
    const base = text.replace(/-\d\d$/, '');
    return names.has(base) ? text.replace(base, names.get(base)!) : text.length > 12 ? 'other' : text;
  };
}

/** Every answer of the scenario on the early (evicted) records, in a form that does not depend on the run. */
async function answers(gw: RunningGateway, e: Early): Promise<unknown[]> {
  const name = namer(e);
  const out: unknown[] = [];
  const orders = (list: Record<string, string>[] = []) =>
    list.map((r) => [name(r.transaction_id), r.query_result, r.payment_status, r.amount]);
  const refunds = (list: Record<string, string>[] = []) =>
    list.map((r) => [name(r.refund_reference_id), r.refund_amount, r.payment_status, r.refund_reason]);
  const [first, second] = [e.paid[0]!, e.paid[1]!];
  // Queries by id (evicted, held, unknown), by a shared order number, and the latest.
  const ids = [first.transactionId, e.shared[0]!.transactionId, e.paid.at(-1)!.transactionId, 'T0000'];
  out.push(orders((await h.query(gw, { transaction_id: ids.join(',') })).json.orders_list));
  out.push(orders((await h.query(gw, { order_no: e.shared[0]!.body.order_no })).json.orders_list));
  out.push(orders((await h.query(gw)).json.orders_list));
  // Capture, then refunds of an evicted payment: 4.00, 6.01 refused (above the 6.00 left), 6.00, 0.01 refused.
  const results = async (op: 'capture' | 'refund', items: unknown[]) =>
    (await h.batch(gw, op, items)).results.map((r) => [
      r.capture_status ?? r.refund_status,
      name(r.refund_reference_id),
    ]);
  out.push(
    await results('capture', [h.item(first.transactionId, first.body), h.item(second.transactionId, second.body)]),
  );
  const refund = (amount: string, p = first) =>
    h.item(p.transactionId, p.body, { refund_amount: amount, refund_reason: amount });
  out.push(await results('refund', [refund('4.00')]));
  out.push(await results('refund', [refund('6.01')]));
  out.push(await results('refund', [refund('6.00'), refund('0.01'), refund('2.50', second)]));
  out.push(orders((await h.query(gw, { transaction_id: first.transactionId })).json.orders_list));
  // Refund searches: by the evicted payment, by its order number, and the latest refunds of the account.
  const search = async (selection: Record<string, string>) => {
    const res = await h.call(gw, 'retrievalRefund', { merchant_id: h.MERCHANT, account_id: h.ACCOUNT, ...selection });
    return refunds(JSON.parse(res.text).refund_orders);
  };
  out.push(await search({ transaction_id: first.transactionId }));
  out.push(await search({ order_no: second.body.order_no }));
  out.push(await search({}));
  // Payout replays: the same body gets the first answer, another body is refused.
  for (const p of e.payouts) out.push((await h.call(gw, 'payout', p.body)).text === p.text);
  const other = await h.call(gw, 'payout', { ...e.payouts[0]!.body, payment_amount: 999 });
  out.push(other.status);
  // The stored card of an evicted token pays; the issuer page of an evicted session is served.
  const byToken = await h.call(gw, 'authoriseDirect', byTokenBody(e.tokenId));
  out.push([byToken.status, h.xmlBody(byToken).order_status]);
  const page = await h.send(e.issuerUrl.replace(/^https?:\/\/[^/]+/, gw.baseUrl), { body: {}, encoding: 'form' });
  out.push(page.status);
  return out;
}

/** A payment by a stored card's token_id (no card fields). */
function byTokenBody(tokenId: string): Record<string, unknown> {
  const body = h.directBody({ token_id: tokenId, token_flag: h.profile.payments.token.noRequestValue });
  const c = h.profile.fields.card;
  for (const f of [c.number, c.expiryMonth, c.expiryYear, c.securityCode]) delete body[f];
  return body;
}

/** The answers of a gateway that never evicts (in memory, default caps). */
async function reference(): Promise<unknown[]> {
  const gw = await start({});
  const early = await fill(gw);
  expect(gw.evictions()).toEqual({ transactions: 0, payouts: 0, tokens: 0, sessions: 0 });
  return answers(gw, early);
}

type Rows = unknown[][];

/** The facts the scenario's answers must show, whatever the store (so that equal answers are also right ones). */
function expectRight(out: unknown[]): void {
  const [byId, byOrder, latest] = out as [unknown[][], unknown[][], unknown[][]];
  expect(byId.map((r) => r[1])).toEqual([
    sv.query_result.found,
    sv.query_result.found,
    sv.query_result.found,
    sv.query_result.notFound,
  ]);
  expect(byOrder.map((r) => r[0])).toEqual(['shared0', 'shared1']);
  expect(latest.length).toBeGreaterThan(PAYMENTS);
  const [capture, r1, r2, r3, after] = out.slice(3, 8) as [Rows, Rows, Rows, Rows, Rows];
  expect(capture.map((r) => r[0])).toEqual([sv.capture_status.success, sv.capture_status.success]);
  expect(r1).toEqual([[sv.refund_status.success, 'paid0-01']]);
  expect(r2.map((r) => r[0])).toEqual([sv.refund_status.failure]); // above the remainder
  expect(r3.map((r) => r[0])).toEqual([sv.refund_status.success, sv.refund_status.failure, sv.refund_status.success]);
  expect(after[0]![2]).toBe(sv.payment_status.refunded);
  const [byPayment, , latestRefunds] = out.slice(8, 11) as [Rows, Rows, Rows];
  expect(byPayment.map((r) => r[0]).sort()).toEqual(['paid0-01', 'paid0-02']);
  expect(latestRefunds.map((r) => r[0]).sort()).toEqual(['paid0-01', 'paid0-02', 'paid1-01']);
  expect(out.slice(11, 14)).toEqual([true, true, true]);
  expect(out[14]).toBe(h.profile.errors.kinds.invalidInput.status);
  expect(out[15]).toEqual([200, sv.order_status.approved]);
  expect(out[16]).toBe(200);
}

describe('serve --data with a tiny cache: evicted records are read back from the database', () => {
  it('query, capture, refunds (never past the remainder), refund search, payout replay, token and session: the same answers as without eviction, and after a restart', async () => {
    const expected = await reference();
    expectRight(expected);
    const dataDir = tempDir('pagi-evicted-');
    const gw = await start({ dataDir, config: TINY });
    const early = await fill(gw);
    const evicted = gw.evictions();
    expect(evicted.transactions).toBeGreaterThan(PAYMENTS - 5);
    expect(evicted.payouts).toBeGreaterThan(0);
    expect(evicted.tokens).toBeGreaterThan(0);
    expect(evicted.sessions).toBeGreaterThan(0);
    expect(gw.counts().transactions).toBeLessThanOrEqual(5);
    const got = await answers(gw, early);
    expect(got).toEqual(expected);
    // Restarted with the same tiny cache: every record is still there, the refunded payment refuses another cent.
    const rest = open.splice(open.indexOf(gw), 1)[0]!;
    await rest.drain(1000);
    const again = await start({ dataDir, config: TINY });
    expect(again.data?.restored.transactions).toBe(PAYMENTS + 7); // every payment made, the one by token included
    expect(again.counts().transactions).toBeLessThanOrEqual(5);
    const first = early.paid[0]!;
    const { json } = await h.query(again, { transaction_id: first.transactionId });
    expect(json.orders_list[0]).toMatchObject({
      query_result: sv.query_result.found,
      payment_status: sv.payment_status.refunded,
    });
    const { results } = await h.batch(again, 'refund', [
      h.item(first.transactionId, first.body, { refund_amount: '0.01', refund_reason: 'r' }),
    ]);
    expect(results[0]!.refund_status).toBe(sv.refund_status.failure);
    const replay = await h.call(again, 'payout', early.payouts[0]!.body);
    expect(replay.text).toBe(early.payouts[0]!.text);
  }, 120_000);
});

describe('serve --data with a tiny cache: concurrent refunds of an evicted payment', () => {
  it('30 refunds of 1.00 at once on a 10.00 capture evicted from memory: exactly 10 succeed, numbered -01 to -10', async () => {
    const gw = await start({ dataDir: tempDir('pagi-evicted-'), config: TINY });
    const { transactionId, body } = await h.pay(gw, { amount: '10.00' });
    await h.batch(gw, 'capture', [h.item(transactionId, body)]);
    for (let i = 0; i < 20; i++) await h.pay(gw);
    expect(gw.counts().transactions).toBeLessThanOrEqual(5); // the payment is no longer in memory
    const refund = () =>
      h.batch(gw, 'refund', [h.item(transactionId, body, { refund_amount: '1.00', refund_reason: 'r' })]);
    const results = (await Promise.all(Array.from({ length: 30 }, refund))).map((r) => r.results[0]!);
    const done = results.filter((r) => r.refund_status === sv.refund_status.success);
    expect(done.map((r) => r.refund_reference_id).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `${transactionId}-${String(i + 1).padStart(2, '0')}`),
    );
    const { json } = await h.query(gw, { transaction_id: transactionId });
    expect(json.orders_list[0].payment_status).toBe(sv.payment_status.refunded);
  }, 60_000);
});

const URL = process.env.PAGI_TEST_POSTGRES ?? 'postgres://pagi:pagi@127.0.0.1:5432/pagi_test';
/** The tables in a schema of their own: shared.test.ts, run beside this file, drops those of the default one. */
const SCHEMA = 'pagi_evicted';
const DATABASE = `${URL}${URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${SCHEMA}`)}`;

/** Why no PostgreSQL can be used (undefined: one can). */
async function unreachable(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: URL, connectionTimeoutMillis: 3000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE; CREATE SCHEMA ${SCHEMA}`);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const why = await unreachable();
if (why)
  console.warn(
    `gateway/test/persist-evicted.test.ts: PostgreSQL part skipped: no PostgreSQL at ${URL.replace(/:[^:@/]+@/, ':***@')} (${why}); .ci/run installs and starts one`,
  );

describe.skipIf(why !== undefined)(
  'serve --database with a tiny cache: evicted records are read back from PostgreSQL',
  () => {
    it('the same answers as without eviction, on the gateway that evicted them and on a second one', async () => {
      const expected = await reference();
      const gw = await start({ database: DATABASE, config: TINY });
      const early = await fill(gw);
      expect(gw.evictions().transactions).toBeGreaterThan(PAYMENTS - 5);
      expect(gw.counts().transactions).toBeLessThanOrEqual(5);
      expect(await answers(gw, early)).toEqual(expected);
      // A second gateway on the same database, with its own tiny cache, finds the same state.
      const other = await start({ database: DATABASE, config: TINY });
      expect(other.shared?.restored.transactions).toBe(PAYMENTS + 7); // every payment in the database
      expect(other.counts().transactions).toBeLessThanOrEqual(5); // the newest within its caps in its memory
      const first = early.paid[0]!;
      const { json } = await h.query(other, { transaction_id: first.transactionId });
      expect(json.orders_list[0]).toMatchObject({
        query_result: sv.query_result.found,
        payment_status: sv.payment_status.refunded,
      });
      const { results } = await h.batch(other, 'refund', [
        h.item(first.transactionId, first.body, { refund_amount: '0.01', refund_reason: 'r' }),
      ]);
      expect(results[0]!.refund_status).toBe(sv.refund_status.failure);
    }, 120_000);
  },
);
