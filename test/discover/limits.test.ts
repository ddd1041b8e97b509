/**
 * The size limit (`limits.maxBodyBytes`) is stated to the byte or not at all: a neighbour of the reference with
 * another limit is found exactly, and a connection lost without an answer (a proxy dropping every large body before
 * the gateway sees it) is no refusal: the limit is left undecided rather than stated at the size the proxy drops.
 * The longest field value (`limits.maxFieldLength`) likewise: found to the character, or left unstated where every
 * length discovery sends is taken.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { type RunningGateway, startGateway } from '../../gateway/index.js';
import { SPEC_DIR } from '../../core/spec/paths.js';
import { discoverProfile } from '../../discover/index.js';
import { errorsDiscoverer } from '../../discover/discoverers/errors.js';
import { fieldLengthDiscoverer } from '../../discover/discoverers/field-length.js';
import { paymentsDiscoverer } from '../../discover/discoverers/payments.js';
import { limitsDiscoverer } from '../../discover/discoverers/limits.js';
import { catalogueDiscoverer } from '../../discover/discoverers/catalogue.js';
import { signatureDiscoverer } from '../../discover/discoverers/signature.js';
import { tempDir } from '../support/temp.js';

const dir = tempDir('pagi-discover-limits-');
const closing: (() => Promise<unknown>)[] = [];
let gateways = 0;
afterAll(async () => {
  await Promise.all(closing.map((c) => c()));
});

async function gatewayWithLimit(
  bytes: number,
  fieldLength?: number,
  change: (p: Record<string, any>) => void = () => {},
): Promise<RunningGateway> {
  const p = parse(fs.readFileSync(path.join(SPEC_DIR, 'profiles', 'reference.yaml'), 'utf8'));
  p.name = 'limit-neighbour';
  p.limits.maxBodyBytes = bytes;
  if (fieldLength) p.limits.maxFieldLength = fieldLength;
  change(p);
  const file = path.join(dir, `limit-${bytes}-${fieldLength}-${++gateways}.yaml`);
  fs.writeFileSync(file, stringify(p));
  const gw = await startGateway({ port: 0, host: '127.0.0.1', profile: file });
  closing.push(() => gw.close());
  return gw;
}

/** A proxy in front of the gateway closing, unanswered, every connection whose body is over `drop` bytes. */
async function droppingProxy(target: string, drop: number): Promise<string> {
  const server = http.createServer((req, res) => {
    if (Number(req.headers['content-length'] ?? 0) > drop) {
      req.socket.destroy();
      return;
    }
    const up = http.request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closing.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function discover(gw: RunningGateway, baseUrl: string, fields = false, catalogue = false) {
  const account = gw.config.merchants[0]!.accounts[0]!;
  return discoverProfile({
    baseUrl,
    merchantId: gw.config.merchants[0]!.merchantId,
    accountId: account.accountId,
    secret: account.secret,
    transport: { timeoutMs: 10_000, maxResponseBytes: 8 * 1024 * 1024, concurrency: 2, rate: 0 },
    cardSecurityCode: '123',
    orderPrefix: 'LIM',
    paymentMethods: { valid: gw.config.apm.paymentMethods, unknown: 'PAGI_KIT_UNKNOWN' },
    budget: 1000,
    log: () => {},
    table: [
      signatureDiscoverer,
      errorsDiscoverer,
      limitsDiscoverer,
      ...(fields ? [paymentsDiscoverer, fieldLengthDiscoverer] : []),
      ...(catalogue ? [catalogueDiscoverer] : []),
    ],
  });
}

describe('the size limit', () => {
  it('another limit (300,001 bytes) is found to the byte, the same on a second discovery', {
    timeout: 120_000,
  }, async () => {
    const gw = await gatewayWithLimit(300_001);
    for (let i = 0; i < 2; i++) {
      const found = await discover(gw, gw.baseUrl);
      const limit = found.points.find((p) => p.path === 'limits.maxBodyBytes')!;
      expect(limit.unknown).toBeUndefined();
      expect(limit.value).toBe(300_001);
    }
  });

  it('a connection lost without an answer is no refusal: the limit is left undecided', {
    timeout: 120_000,
  }, async () => {
    const gw = await gatewayWithLimit(1 << 20);
    const found = await discover(gw, await droppingProxy(gw.baseUrl, 200_000));
    const limit = found.points.find((p) => p.path === 'limits.maxBodyBytes')!;
    expect(limit.unknown).toMatch(/lost without an answer/);
    expect(limit.value).toBeUndefined();
    expect(found.points.find((p) => p.path === 'errors.kinds.bodyTooLarge.status' && !p.unknown)).toBeUndefined();
  });
});

describe('the HTTP status of a body too large where the capture refuses in an HTTP 200 body', () => {
  const inBody = (ops: readonly string[]) => (p: Record<string, any>) => {
    for (const op of ops) p.errors.refusalForms[op] = ['statusInBody'];
  };
  const status = (found: Awaited<ReturnType<typeof discover>>) =>
    found.points.find((p) => p.path === 'errors.kinds.bodyTooLarge.status');

  it('is read from the first operation refusing as an HTTP error, sent a body of a size the capture refused', {
    timeout: 120_000,
  }, async () => {
    const gw = await gatewayWithLimit(300_001, undefined, (p) => {
      inBody(['capture', 'review', 'cancel', 'refund'])(p);
      p.errors.kinds.bodyTooLarge.status = 431;
    });
    const point = status(await discover(gw, gw.baseUrl, false, true));
    expect(point?.unknown).toBeUndefined();
    expect(point?.value).toBe(431);
    expect(point?.evidence).toMatch(/POST \/v1\/authorise .*HTTP 431/);
  });

  it('is left unstated where the operation refusing as an HTTP error answers with another code', {
    timeout: 120_000,
  }, async () => {
    // The payment path refuses an unreadable body as an HTTP error (the interface's rule): here under a code of its own.
    const gw = await gatewayWithLimit(300_001, undefined, (p) => {
      for (const op of Object.keys(p.errors.refusalForms))
        p.errors.refusalForms[op] =
          op === 'authoriseApm'
            ? ['httpError']
            : op === 'authoriseDirect'
              ? ['statusInBody', 'httpError']
              : op === 'payout'
                ? ['failureType']
                : ['statusInBody'];
      const own = { bodyTooLarge: { code: 'A413', message: 'Too large for a payment' } };
      p.errors.byOperation = { authoriseDirect: own, authoriseApm: own };
    });
    const point = status(await discover(gw, gw.baseUrl, false, true));
    expect(point?.unknown).toMatch(/HTTP 200 body/);
  });
});

describe('the longest field value', () => {
  it('another length (3,001 characters) is found to the character, the same on a second discovery', {
    timeout: 120_000,
  }, async () => {
    const gw = await gatewayWithLimit(1 << 20, 3001);
    for (let i = 0; i < 2; i++) {
      const found = await discover(gw, gw.baseUrl, true);
      const limit = found.points.find((p) => p.path === 'limits.maxFieldLength')!;
      expect(limit.unknown).toBeUndefined();
      expect(limit.value).toBe(3001);
    }
  });

  it('a length over the largest body is left unstated: every note discovery sends is taken', {
    timeout: 120_000,
  }, async () => {
    const gw = await gatewayWithLimit(1 << 20, 4 << 20);
    const found = await discover(gw, gw.baseUrl, true);
    const limit = found.points.find((p) => p.path === 'limits.maxFieldLength')!;
    expect(limit.unknown).toMatch(/524288 characters was taken/);
    expect(limit.value).toBeUndefined();
  });
});
