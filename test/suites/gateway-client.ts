/**
 * A minimal ProbeClient of the suites' own tests, talking HTTP to a gateway: samples from the spec's request
 * examples, signing by src/signing.ts, undici for transport (source address included), the kit's codecs for
 * decoding, page following with the default submit button, and a notification receiver. Not the engine's client:
 * it exists so the probes can be exercised against the reference gateway while the engine is written apart.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { JSDOM } from 'jsdom';
import { Agent, request } from 'undici';
import { parse as parseYaml } from 'yaml';
import { encodeForm, sniffBody } from '../../src/codecs/form.js';
import { readCheckoutForm } from '../../src/codecs/html.js';
import { readXml } from '../../src/codecs/xml.js';
import { maskText } from '../../src/mask.js';
import type { CheckoutFormModel, DecodedBody, Exchange, OperationKey, ProbeClient, RunConfigView, SentRequest } from '../../src/model.js';
import type { Profile } from '../../src/profile/load.js';
import { sign, verify } from '../../src/signing.js';
import type { SpecModel } from '../../src/spec/load.js';

/** The notification receiver of a test run. */
export interface Receiver {
  url: string;
  received: Map<string, Exchange[]>;
  refused: Set<string>;
  close(): Promise<void>;
}

/** Start a receiver on loopback: records every request by the order_no or request_id of its body. */
export async function startReceiver(): Promise<Receiver> {
  const received = new Map<string, Exchange[]>();
  const refused = new Set<string>();
  let n = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = sniffBody(text)?.value;
      const key = String(body?.order_no ?? body?.request_id ?? '');
      const status = refused.has(key) ? 503 : 200;
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      const url = `http://${req.headers.host}${req.url}`;
      const x: Exchange = {
        id: `notification#${++n}`,
        operation: 'external',
        request: { method: req.method ?? '', url, headers, body, bodyText: text, encoding: 'raw' },
        response: { status, headers: {}, bodyText: '', truncated: false, decoded: { kind: 'empty' } },
        startedAt: new Date().toISOString(),
        durationMs: 0,
        evidence: { request: { method: req.method ?? '', url, headers: {}, body: maskText(text) }, curl: '' },
      };
      received.set(key, [...(received.get(key) ?? []), x]);
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}/notify`, received, refused, close: () => new Promise((r) => server.close(() => r())) };
}

function examples(spec: SpecModel): Map<OperationKey, Record<string, unknown>> {
  const out = new Map<OperationKey, Record<string, unknown>>();
  for (const op of spec.operations.values()) {
    const content: Record<string, any> = spec.openapi.paths[op.path].post.requestBody.content;
    for (const media of Object.values(content)) {
      for (const ex of Object.values<any>(media.examples ?? {})) {
        const value = parseYaml(fs.readFileSync(path.join(spec.root, 'spec', ex.$ref), 'utf8')).value;
        const fits = (!op.when?.present || op.when.present in value) && (!op.when?.absent || !(op.when.absent in value));
        if (fits && !out.has(op.key)) out.set(op.key, value);
      }
    }
  }
  return out;
}

/** Submit buttons of the first form of a page (the kit's form model leaves them out). */
function buttons(html: string): { name: string; value: string }[] {
  const dom = new JSDOM(html);
  try {
    const form = dom.window.document.forms[0];
    return form ? [...form.querySelectorAll('button[type=submit][name], input[type=submit][name]')].map((b) => ({ name: b.getAttribute('name')!, value: b.getAttribute('value') ?? '' })) : [];
  } finally {
    dom.window.close();
  }
}

function decode(spec: SpecModel, profile: Profile, operation: OperationKey | 'external', status: number, type: string, text: string): DecodedBody {
  if (text === '') return { kind: 'empty' };
  const op = operation === 'external' ? undefined : spec.operations.get(operation)!;
  const ok = status >= 200 && status < 300;
  const format = op ? (ok ? (op.responseMedia[0]!.type.includes('xml') ? 'xml' : op.responseMedia[0]!.type.includes('html') ? 'html' : 'json') : profile.errors.formatByOperation[operation as OperationKey]) : type.includes('html') ? 'html' : 'json';
  if (format === 'json') {
    try {
      return { kind: 'json', value: JSON.parse(text) };
    } catch (e) {
      return { kind: 'undecodable', format: 'json', problem: String(e) };
    }
  }
  if (format === 'xml') {
    const r = readXml(text);
    return r.ok ? { kind: 'xml', root: r.root, value: r.value } : { kind: 'undecodable', format: 'xml', problem: r.problem.detail };
  }
  const form: CheckoutFormModel = { ...readCheckoutForm(text), buttons: buttons(text) };
  return { kind: 'html', form };
}

/** A ProbeClient against a gateway URL. */
export function gatewayClient(spec: SpecModel, profile: Profile, config: RunConfigView, secret: string, receiver: Receiver): ProbeClient {
  const ex = examples(spec);
  const agents = new Map<string, Agent>();
  let n = 0;
  const orderNo = () => `${config.orderPrefix}-${++n}-${randomUUID().slice(0, 6)}`;
  const exchange = async (operation: OperationKey | 'external', sent: SentRequest): Promise<Exchange> => {
    const key = sent.localAddress ?? '';
    if (!agents.has(key)) agents.set(key, new Agent(sent.localAddress ? { localAddress: sent.localAddress } : {}));
    const startedAt = new Date().toISOString();
    const base = { id: `${operation}#${++n}`, operation, request: sent, startedAt, durationMs: 0, evidence: { request: { method: sent.method, url: sent.url, headers: sent.headers, body: maskText(sent.bodyText) }, curl: '' } };
    try {
      const res = await request(sent.url, { method: sent.method as 'POST', headers: sent.headers, body: sent.method === 'GET' ? undefined : sent.bodyText, dispatcher: agents.get(key) });
      const text = await res.body.text();
      const headers = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, String(v)]));
      return { ...base, response: { status: res.statusCode, headers, bodyText: text, truncated: false, decoded: decode(spec, profile, operation, res.statusCode, headers['content-type'] ?? '', text) } };
    } catch (e) {
      return { ...base, error: { kind: 'network', message: String(e) } };
    }
  };
  return {
    orderNo,
    sample(operation, overrides = {}) {
      const body: Record<string, unknown> = structuredClone(ex.get(operation)!);
      delete body.encryption_data;
      Object.assign(body, { merchant_id: config.merchantId, account_id: config.accountId });
      if ('order_no' in body) body.order_no = orderNo();
      if ('request_id' in body) body.request_id = randomUUID();
      if ('notify_url' in body) body.notify_url = receiver.url;
      const selector = spec.operations.get(operation)!.when?.present;
      if (selector) body[selector] = config.paymentMethods.valid[0];
      // Without currency conversion (profile) a payout's source is its payment (the example converts EUR from USD).
      if (operation === 'payout' && profile.payout.currencyConversion === 'none') Object.assign(body, { source_currency: body.payment_currency, source_amount: body.payment_amount });
      if (operation === 'authoriseDirect') {
        const c = profile.fields.card;
        Object.assign(body, { [c.number]: config.cards.approve, [c.expiryMonth]: '12', [c.expiryYear]: '2030', [c.securityCode]: '123' });
      }
      for (const [k, v] of Object.entries(overrides)) {
        if (v === undefined) delete body[k];
        else body[k] = v;
      }
      return body;
    },
    async send(operation, body, o = {}) {
      const op = spec.operations.get(operation)!;
      const encoding = o.encoding ?? profile.requestMedia.types[operation];
      let sent = body;
      if (o.sign !== false && o.rawBody === undefined) {
        const s = sign(profile.signature, 'request', operation, body, secret);
        if (s) sent = { ...body, encryption_data: s };
      }
      const bodyText = o.rawBody ?? (encoding === 'json' ? JSON.stringify(sent) : encodeForm(sent));
      const req: SentRequest = {
        method: o.method ?? 'POST',
        url: config.baseUrl + (o.path ?? op.path),
        headers: { 'content-type': o.contentType ?? (encoding === 'json' ? 'application/json' : 'application/x-www-form-urlencoded') },
        body: sent,
        bodyText,
        encoding: o.rawBody !== undefined ? 'raw' : encoding,
        ...(o.localAddress ? { localAddress: o.localAddress } : {}),
      };
      return exchange(operation, req);
    },
    async notifications(key, ms) {
      const until = Date.now() + ms;
      while (!(receiver.received.get(key)?.length) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      return [...(receiver.received.get(key) ?? [])];
    },
    verifySignature(operation, direction, body) {
      return verify(profile.signature, direction, operation, body, secret);
    },
    async follow(url, r = {}) {
      const method = (r.method ?? 'GET').toUpperCase();
      const bodyText = method === 'GET' ? '' : new URLSearchParams(r.form ?? {}).toString();
      const target = method === 'GET' && r.form ? `${url}${url.includes('?') ? '&' : '?'}${new URLSearchParams(r.form)}` : url;
      return exchange('external', { method, url: target, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: r.form, bodyText, encoding: 'form' });
    },
    refuseNotifications(key) {
      receiver.refused.add(key);
    },
  };
}
