/** Test helpers: requests built from the spec's examples and the profile's test cards, signed with core/signing.ts. */
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { OperationKey } from '../../core/model.js';
import { kitSpec } from '../../core/spec/load.js';
import { loadProfile } from '../../core/profile/load.js';
import { sign } from '../../core/signing.js';
import { encodeForm } from '../../core/codecs/form.js';
import { normaliseArrays, readXml } from '../../core/codecs/xml.js';
import { defaultConfig } from '../config.js';
import { startGateway, type GatewayOptions, type RunningGateway } from '../index.js';
import { exampleValue } from '../../test/support/examples.js';
import { threadId } from 'node:worker_threads';

/** The kit's spec. */
export const spec = kitSpec();
/** The reference profile. */
export const profile = loadProfile('reference').profile;
const account = defaultConfig().merchants[0]!;
/** The default configuration's merchant, account and secret. */
export const MERCHANT = account.merchantId;
export const ACCOUNT = account.accounts[0]!.accountId;
export const SECRET = account.accounts[0]!.secret;
/** The profile's first approving and declining test cards. */
export const APPROVE_CARD = profile.payments.testCards.approve[0]!;
export const DECLINE_CARD = profile.payments.testCards.decline[0]!;

/** The example value of one file under spec/examples (a fresh copy). */
export const example: (name: string) => Record<string, any> = exampleValue;

let seq = 0;
/** A fresh order number. */
export function orderNo(): string {
  seq += 1;
  return `ORD-T${process.pid}-${threadId}-${Date.now().toString(36)}-${seq}`;
}

/** Card fields named by the profile, for a card that has not expired. */
export function cardFields(number = APPROVE_CARD): Record<string, string> {
  const c = profile.fields.card;
  return {
    [c.number]: number,
    [c.expiryMonth]: '12',
    [c.expiryYear]: String(new Date().getUTCFullYear() + 2),
    [c.securityCode]: '123',
  };
}

/** A loopback address nothing listens on: the requests carry notify_url (required) without reaching the example's host. */
export const SILENT_NOTIFY_URL = 'http://127.0.0.1:9/notify';

function withoutNotify<T extends Record<string, any>>(body: T): T {
  (body as Record<string, unknown>).notify_url = SILENT_NOTIFY_URL;
  return body;
}

/** A direct payment request (spec example, profile test card, fresh order_no, a notify_url nothing listens on). */
export function directBody(overrides: Record<string, unknown> = {}): Record<string, any> {
  return { ...withoutNotify(example('authorise-direct-request')), order_no: orderNo(), ...cardFields(), ...overrides };
}

/** An APM payment request. */
export function apmBody(overrides: Record<string, unknown> = {}): Record<string, any> {
  return { ...withoutNotify(example('authorise-apm-request')), order_no: orderNo(), ...overrides };
}

/** A hosted checkout request. */
export function checkoutBody(overrides: Record<string, unknown> = {}): Record<string, any> {
  return { ...withoutNotify(example('checkout-request')), order_no: orderNo(), ...overrides };
}

/** A payout request (no currency conversion, fresh request_id). */
export function payoutBody(overrides: Record<string, unknown> = {}): Record<string, any> {
  const body = withoutNotify(example('payout-request'));
  return {
    ...body,
    request_id: randomUUID(),
    source_currency: body.payment_currency,
    source_amount: body.payment_amount,
    ...overrides,
  };
}

/** The body with its `encryption_data` computed as the profile says. */
export function signed(op: OperationKey, body: Record<string, unknown>, secret = SECRET): Record<string, unknown> {
  const { encryption_data: _old, ...rest } = body;
  return { ...rest, encryption_data: sign(profile.signature, 'request', op, rest, secret) };
}

/** Path of an operation. */
export function pathOf(op: OperationKey): string {
  return spec.operations.get(op)!.path;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** A response as the tests read it. */
export interface Res {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** Send a request: body as JSON (default), form fields, or raw text. */
export function send(
  url: string,
  opts: {
    method?: string;
    body?: Record<string, unknown> | string;
    encoding?: 'json' | 'form';
    contentType?: string;
    localAddress?: string;
    headers?: Record<string, string>;
  } = {},
): Promise<Res> {
  const text =
    typeof opts.body === 'string'
      ? opts.body
      : opts.body === undefined
        ? ''
        : opts.encoding === 'form'
          ? encodeForm(opts.body)
          : JSON.stringify(opts.body);
  const contentType =
    opts.contentType ??
    (opts.encoding === 'form' || typeof opts.body === 'string'
      ? 'application/x-www-form-urlencoded'
      : 'application/json');
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: opts.method ?? 'POST',
        agent: opts.localAddress ? undefined : agent,
        localAddress: opts.localAddress,
        headers: { 'content-type': contentType, 'content-length': Buffer.byteLength(text), ...opts.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

/** Sign and send an operation's request. */
export function call(
  gw: RunningGateway,
  op: OperationKey,
  body: Record<string, unknown>,
  opts: Parameters<typeof send>[1] = {},
): Promise<Res> {
  const encoding = opts.encoding ?? profile.requestMedia.types[op];
  return send(gw.url + pathOf(op), { body: signed(op, body), encoding, ...opts });
}

/** An XML `respon` body as the JSON object the schemas describe. */
export function xmlBody(res: Res, root = 'respon'): Record<string, unknown> {
  const read = readXml(res.text, root);
  if (!read.ok) throw new Error(`not XML ${root}: ${JSON.stringify(read.problem)} in ${res.text.slice(0, 200)}`);
  return normaliseArrays(read.value, ['risk_reasons']);
}

/** Schema violations of a response value against an operation's response schema (but the known conflict). */
export function violations(op: OperationKey, value: unknown) {
  return spec.validate(spec.operations.get(op)!.responseSchemaId, value);
}

/**
 * Violations of an error body against the operation's response schema, but for the fields the profile's error
 * body leaves out (`required`): every field an error body carries has the form the schema gives it. The
 * profile's templates write `merchant_id` and `account_id` as the request gave them, empty when the request was
 * unreadable (`unreadable`), which the schema's non-empty identifiers do not cover.
 */
export function errorBodyViolations(op: OperationKey, value: unknown, unreadable = false) {
  const body = value as Record<string, unknown>;
  // An error body gives the identifiers it cannot know (order_no of an unreadable request) as empty strings: at most
  // the expected-level PAGI-GEN-012, not a form the schema excludes.
  return violations(op, value).filter(
    (v) =>
      v.keyword !== 'required' &&
      !(
        unreadable &&
        ['/merchant_id', '/account_id'].includes(v.instancePath) &&
        body[v.instancePath.slice(1)] === ''
      ) &&
      !(v.requirementId === 'PAGI-GEN-012' && body[v.instancePath.slice(1)] === ''),
  );
}

/** Start a gateway for a test file (quiet, no log). */
export function gateway(options: GatewayOptions = {}): Promise<RunningGateway> {
  return startGateway(options);
}

/** A local notification receiver. `answer` gives the status of each delivery (200 by default). */
export async function receiver(answer: (n: number) => number = () => 200) {
  const received: { headers: http.IncomingHttpHeaders; text: string; status: number }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = answer(received.length + 1);
      received.push({ headers: req.headers, text: Buffer.concat(chunks).toString('utf8'), status });
      res.writeHead(status).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/notify`,
    received,
    /** Wait until `count` deliveries arrived (or fail after `ms`). */
    async waitFor(count: number, ms = 5000) {
      const until = Date.now() + ms;
      while (received.length < count) {
        if (Date.now() > until) throw new Error(`expected ${count} notifications, got ${received.length}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Make a payment and return its transaction_id (direct payment, approved card by default). */
export async function pay(
  gw: RunningGateway,
  overrides: Record<string, unknown> = {},
): Promise<{ transactionId: string; body: Record<string, any>; result: Record<string, unknown> }> {
  const body = directBody(overrides);
  const res = await call(gw, 'authoriseDirect', body);
  if (res.status !== 200) throw new Error(`payment refused: ${res.status} ${res.text}`);
  const result = xmlBody(res);
  return { transactionId: String(result.transaction_id), body, result };
}

/** A batch item for a transaction. */
export function item(
  transactionId: string,
  body: Record<string, any>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    transaction_id: transactionId,
    order_no: body.order_no,
    currency: body.currency,
    amount: body.amount,
    ...extra,
  };
}

/** Send a batch operation with these items; returns status, the parsed JSON body and its results. */
export async function batch(gw: RunningGateway, op: 'capture' | 'review' | 'cancel' | 'refund', items: unknown[]) {
  const orders = spec.operations.get(op)!.batch!.orders;
  const res = await call(gw, op, { merchant_id: MERCHANT, account_id: ACCOUNT, [orders]: items });
  const json = JSON.parse(res.text) as Record<string, any>;
  return { res, json, results: (json[orders] ?? []) as Record<string, any>[] };
}

/** A query (selection fields of the profile). */
export async function query(
  gw: RunningGateway,
  selection: Record<string, string> = {},
  opts: Parameters<typeof send>[1] = {},
) {
  const res = await call(gw, 'retrievalTrans', { merchant_id: MERCHANT, account_id: ACCOUNT, ...selection }, opts);
  return { res, json: JSON.parse(res.text) as Record<string, any> };
}
