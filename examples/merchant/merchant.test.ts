/**
 * The merchant example through `pagi-conform proxy` in front of the reference gateway: its whole integration
 * (payment, capture, partial refund, query, refund search, payout, the notification handler) gives no finding, the
 * notification makes the round trip (gateway, proxy, merchant, and the merchant's answer back), the reports and the
 * pact are written; each merchant mistake, one at a time, gives exactly one "your request" finding and nothing of the
 * gateway's answer.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProxyRun, openProxy } from '../../cli/proxy.js';
import { defaults, type RunOptions } from '../../core/config/options.js';
import type { Finding, RunResult } from '../../core/model.js';
import { type RunningGateway, startGateway } from '../../gateway/index.js';
import { checkPact, readPactFile } from '../../pact/check.js';
import { sandboxCredentials } from '../../pact/interactions.js';
import type { Judged } from '../../proxy/session.js';
import { Merchant, type Mistakes, type Payment } from './client.js';
import { type NotificationHandler, startNotificationHandler } from './notifications.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pagi-merchant-'));
const credentials = sandboxCredentials();
let gateway: RunningGateway;
let handler: NotificationHandler;

/** A proxy in front of the test's gateway, with every judged exchange collected. */
async function proxyFor(profile: string, extra: Partial<RunOptions> = {}) {
  const judged: Judged[] = [];
  const lines: string[] = [];
  const options = {
    ...defaults('proxy'),
    ...credentials,
    upstream: gateway.url,
    profile,
    proxyPort: 0,
    reporter: [],
    ...extra,
  } as RunOptions;
  const run = await openProxy(
    options,
    (l) => lines.push(l),
    ['pagi-conform', 'proxy'],
    (j) => judged.push(j),
  );
  return { run, judged, lines };
}

const merchantOf = (run: ProxyRun, mistakes: Mistakes = {}) =>
  new Merchant({ baseUrl: run.proxy.url, ...credentials }, mistakes);

const order = (tag: string) => `ORD-${tag}-${Date.now().toString(36)}`;

beforeAll(async () => {
  gateway = await startGateway();
  handler = await startNotificationHandler();
});
afterAll(async () => {
  await handler?.close();
  await gateway?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the merchant example through the proxy in front of the reference gateway', () => {
  let result: RunResult;
  let ledger: Finding[];
  let judged: Judged[];
  let files: string[];
  let payment: Payment;
  let notified: Record<string, unknown>[];
  const out = path.join(dir, 'clean');

  beforeAll(async () => {
    const p = await proxyFor('reference', {
      notify: true,
      reporter: ['json', 'junit', 'html', 'har'],
      out,
      proxyPact: path.join(out, 'observed.json'),
    });
    judged = p.judged;
    const merchant = merchantOf(p.run);
    payment = await merchant.pay(order('clean'), '25.00', handler.url);
    expect((await merchant.capture([payment])).status).toBe(200);
    expect((await merchant.refund(payment, '5.00', 'one item returned')).status).toBe(200);
    expect((await merchant.query([payment])).status).toBe(200);
    expect((await merchant.refundSearch([payment])).status).toBe(200);
    expect((await merchant.payout('1000', 'EUR', handler.url)).status).toBe(200);
    notified = await handler.waitFor(payment.orderNo, 5000);
    await p.run.proxy.idle();
    ({ result, ledger, files } = await p.run.stop());
  });

  it('gives no finding on any exchange, nor on the ledger of the traffic', () => {
    expect(payment.transactionId).not.toBe('');
    expect(judged.map((j) => j.operation)).toEqual([
      'authoriseDirect',
      'capture',
      'refund',
      'retrievalTrans',
      'retrievalRefund',
      'payout',
    ]);
    expect(judged.flatMap((j) => [...j.request, ...j.answer]).map((f) => f.message)).toEqual([]);
    expect(ledger).toEqual([]);
    expect(result.totals.byStatus.failed).toBe(0);
    expect(result.checks.some((c) => c.family === 'integrity' && c.status === 'passed')).toBe(true);
  });

  it('makes the notification round trip: judged by the proxy, forwarded to the merchant, acknowledged', () => {
    expect(notified.length).toBeGreaterThan(0);
    expect(notified[0]!.order_no).toBe(payment.orderNo);
    const check = result.checks.find((c) => c.checkId === 'notificationFollowsProfile');
    expect(check?.status).toBe('passed');
  });

  it('writes the reports and a pact that pact check accepts', () => {
    for (const f of ['results.json', 'junit.xml', 'report.html', 'exchanges.har'])
      expect(files.map((x) => path.basename(x))).toContain(f);
    const written = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'));
    expect(written.schemaVersion).toBe('1.8');
    const pact = readPactFile(path.join(out, 'observed.json'));
    expect(pact.interactions).toHaveLength(6);
    expect(JSON.stringify(pact)).not.toContain('4111111111111111');
    const checked = checkPact(pact);
    expect(checked.checks.flatMap((c) => c.findings)).toEqual([]);
    expect(checked.exitCode).toBe(0);
  });
});

describe('one merchant mistake at a time gives one "your request" finding', () => {
  let p: Awaited<ReturnType<typeof proxyFor>>;
  let strict: Awaited<ReturnType<typeof proxyFor>>;

  beforeAll(async () => {
    p = await proxyFor('reference');
    // A profile taking each operation's own media type only (the reference takes both).
    const profile = path.join(dir, 'strict-media.yaml');
    fs.writeFileSync(
      profile,
      fs
        .readFileSync(path.resolve('spec/profiles/reference.yaml'), 'utf8')
        .replace(/acceptOther: true[^\n]*/, 'acceptOther: false'),
    );
    strict = await proxyFor(profile);
  });
  afterAll(async () => {
    await p?.run.stop();
    await strict?.run.stop();
  });

  /** The judged exchange of the last request, once judged. */
  async function last(of: typeof p): Promise<Judged> {
    await of.run.proxy.idle();
    return of.judged.at(-1)!;
  }

  /** Exactly one finding, on the merchant's request, of `code` by `checkId`; nothing on the answer. */
  function one(j: Judged, code: string, checkId: string): void {
    expect(j.request.map((f) => [f.side, f.code, f.checkId])).toEqual([['request', code, checkId]]);
    expect(j.answer).toEqual([]);
    expect(j.request[0]!.evidence?.request.url).toContain('/v1/');
  }

  it('a signature over the wrong fields', async () => {
    await merchantOf(p.run, { signatureOverWrongFields: true }).pay(order('sig'), '25.00', handler.url);
    one(await last(p), 'SIGNATURE_INVALID', 'requestSignatureVerifies');
  });

  it('an amount 10.5', async () => {
    await merchantOf(p.run, { amountWithOneDecimal: true }).pay(order('amt'), '10.50', handler.url);
    const j = await last(p);
    one(j, 'REQUEST_SCHEMA', 'pactRequestFollowsSpec');
    expect(j.request[0]!.location.pointer).toBe('/request/body/amount');
    expect(j.request[0]!.requirementIds).toEqual(['PAGI-FMT-001']);
  });

  it('51 capture items', async () => {
    const merchant = merchantOf(p.run);
    const payment = await merchant.pay(order('cap'), '25.00', handler.url);
    await merchant.capture(Array.from({ length: 51 }, () => payment));
    one(await last(p), 'REQUEST_OVER_LIMIT', 'pactRequestWithinLimits');
  });

  it('an order number reused for another payment', async () => {
    const merchant = merchantOf(p.run);
    const orderNo = order('reuse');
    await merchant.pay(orderNo, '25.00', handler.url);
    expect((await last(p)).request).toEqual([]);
    await merchant.pay(orderNo, '30.00', handler.url);
    const j = await last(p);
    one(j, 'IDENTIFIER_REUSED', 'orderNumberNamesOnePayment');
    expect(j.request[0]!.exchanges?.length).toBe(2);
  });

  it('a form body where the profile expects JSON', async () => {
    const merchant = merchantOf(strict.run);
    const payment = await merchant.pay(order('form'), '25.00', handler.url);
    expect((await last(strict)).request).toEqual([]);
    await merchantOf(strict.run, { formBody: true }).capture([payment]);
    const j = await last(strict);
    one(j, 'REQUEST_MEDIA', 'pactMediaTypesShown');
    expect(j.request[0]!.requirementIds).toEqual(['PAGI-MED-005']);
  });
});
