/**
 * The validating proxy: a loopback HTTP server a merchant's application points its base URL at. Every request is
 * forwarded unchanged to the upstream gateway, and only there (its path appended to the upstream's base URL: a
 * request naming an absolute URL, or whatever a body says, is never followed), and every answer is passed back
 * unchanged; each exchange is judged once its answer is on its way (proxy/session.ts). With `notify`, a request's
 * notify_url is replaced by the proxy's own receiver where the original is one the proxy may forward to (loopback, or
 * a host of `notifyHosts`): each notification is judged, forwarded to the original URL, and the merchant's answer
 * passed back to the gateway.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { encodeForm } from '../core/codecs/form.js';
import type { Exchange, Finding, OperationKey } from '../core/model.js';
import { sign, stringToSign, verify } from '../core/signing.js';
import { egressPolicy, isLoopbackHost } from '../engine/egress.js';
import { FIELD } from '../suites/fields.js';
import { type SeenAnswer, type SeenRequest, operationOfRequest, readRequestBody, toExchange } from './exchange.js';
import { judgeNotification } from './notify.js';
import type { Judged, ProxySession } from './session.js';

/** Largest request body the proxy reads (bytes); past it the request is refused with 413, not forwarded. */
export const MAX_REQUEST_BYTES = 1024 * 1024;
/** Path prefix of the proxy's own notification receiver. */
export const NOTIFY_PATH = '/.pagi-proxy/notify/';
/** Rewritten notify_url addresses the proxy remembers (the oldest forgotten first). */
const MAX_NOTIFY_ROUTES = 10_000;

/** Headers that belong to one connection, never forwarded. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-authorization',
  'proxy-authenticate',
  'proxy-connection',
  'host',
  'content-length',
]);

/** Options of a proxy. */
export interface ProxyOptions {
  session: ProxySession;
  /** Base URL of the upstream gateway. */
  upstream: string;
  port: number;
  host?: string;
  timeoutMs: number;
  /** Answer bytes judged at most; a longer answer is forwarded whole and judged cut. */
  maxResponseBytes: number;
  notify: boolean;
  notifyHosts: readonly string[];
  /** Each exchange once judged (the console line). */
  onJudged?(judged: Judged): void;
  /** A notification once judged and forwarded (or not). */
  onNotification?(line: string, findings: readonly Finding[]): void;
  /** A request the proxy did not judge (not an operation of the interface, refused). */
  onNote?(line: string): void;
}

/** A running proxy. */
export interface RunningProxy {
  url: string;
  port: number;
  /** Stop listening; exchanges in flight are judged first. */
  close(): Promise<void>;
  /** Resolves once every exchange answered so far is judged. */
  idle(): Promise<void>;
}

/** Where a rewritten notify_url's notifications go, and what they are about. */
interface NotifyRoute {
  url: string;
  operation: OperationKey;
  payment: Exchange | undefined;
  key: string;
}

function flatHeaders(headers: http.IncomingHttpHeaders | Record<string, string | string[] | undefined>) {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function forwardable(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !HOP_BY_HOP.has(k.toLowerCase())));
}

/** A request's body, or undefined past `max` bytes (the rest is read and dropped, so the refusal can be answered). */
function readAll(req: http.IncomingMessage, max: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= max) chunks.push(c);
      else chunks.length = 0;
    });
    req.on('end', () => resolve(size > max ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Whether the proxy may send a notification to `url`: loopback, or a host `notifyHosts` lists (never another). */
export function mayForwardNotification(url: string, notifyHosts: readonly string[]): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
  if (isLoopbackHost(parsed.hostname)) return true;
  return egressPolicy('http://host.invalid', notifyHosts).refusal(url) === undefined;
}

/** One HTTP exchange with the upstream (or the merchant's receiver): the answer read whole, or why there is none. */
async function send(
  dispatcher: Agent,
  url: string,
  method: string,
  headers: Record<string, string>,
  body: Buffer,
  timeoutMs: number,
): Promise<{ status: number; headers: Record<string, string>; body: Buffer } | { error: string }> {
  try {
    const res = await request(url, {
      method: method as 'POST',
      headers: forwardable(headers),
      body: method === 'GET' || method === 'HEAD' ? undefined : body,
      dispatcher,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const bytes = Buffer.from(await res.body.arrayBuffer());
    return { status: res.statusCode, headers: flatHeaders(res.headers), body: bytes };
  } catch (e) {
    const err = e as Error & { code?: string };
    return { error: `${err.code ?? err.name}: ${err.message}` };
  }
}

/** The proxy's state and handlers: the upstream, the routes of rewritten notify_url addresses, the judging in flight. */
class ValidatingProxy {
  readonly upstream: string;
  readonly policy: ReturnType<typeof egressPolicy>;
  readonly dispatcher = new Agent({ keepAliveTimeout: 10_000, connections: 64 });
  readonly routes = new Map<string, NotifyRoute>();
  /** The route of each payment exchange whose notify_url was rewritten, until the exchange is judged. */
  readonly routeOf = new Map<string, string>();
  readonly pending = new Set<Promise<void>>();
  routeCount = 0;
  exchangeCount = 0;
  selfUrl = '';

  constructor(readonly options: ProxyOptions) {
    this.upstream = options.upstream.replace(/\/+$/, '');
    this.policy = egressPolicy(this.upstream);
  }

  /** The body forwarded: the merchant's, or with notify_url pointing at the proxy (re-signed if the profile signs it). */
  rewritten(op: OperationKey, seen: SeenRequest, exchangeId: string): Buffer {
    const { options } = this;
    if (!options.notify) return seen.body;
    const { body, encoding } = readRequestBody(seen.body.toString('utf8'));
    const original = body?.[FIELD.notifyUrl];
    if (!body || typeof original !== 'string' || !mayForwardNotification(original, options.notifyHosts))
      return seen.body;
    const id = String(++this.routeCount);
    if (this.routes.size >= MAX_NOTIFY_ROUTES) this.routes.delete(this.routes.keys().next().value!);
    const key = String(body[op === 'payout' ? FIELD.requestId : FIELD.orderNo] ?? '');
    this.routes.set(id, { url: original, operation: op, payment: undefined, key });
    this.routeOf.set(exchangeId, id);
    const { signature } = options.session.options.loaded.profile;
    const secret = options.session.options.secret;
    const signedBefore =
      secret !== undefined &&
      stringToSign(signature, 'request', op, body) !== undefined &&
      verify(signature, 'request', op, body, secret);
    const out: Record<string, unknown> = { ...body, [FIELD.notifyUrl]: `${this.selfUrl}${NOTIFY_PATH}${id}` };
    if (signedBefore && stringToSign(signature, 'request', op, out) !== stringToSign(signature, 'request', op, body))
      out[FIELD.signature] = sign(signature, 'request', op, out, secret!);
    return Buffer.from(encoding === 'form' ? encodeForm(out) : JSON.stringify(out));
  }

  /** Judge an exchange once its answer is on its way (`forwarded`: the body sent when it is not the merchant's). */
  judgeLater(x: Exchange, op: OperationKey, forwarded: string | undefined): void {
    const job = new Promise<void>((resolve) =>
      setImmediate(() => {
        try {
          const route = this.routes.get(this.routeOf.get(x.id) ?? '');
          this.routeOf.delete(x.id);
          if (route) route.payment = x;
          this.options.onJudged?.(this.options.session.judge(x, op, forwarded));
        } finally {
          resolve();
        }
      }),
    );
    this.pending.add(job);
    void job.then(() => this.pending.delete(job));
  }

  /** A notification to the proxy's receiver: forwarded to the merchant's URL, answered with the merchant's answer, judged. */
  async onNotification(req: http.IncomingMessage, res: http.ServerResponse, id: string): Promise<void> {
    const { options } = this;
    const body = (await readAll(req, MAX_REQUEST_BYTES)) ?? Buffer.alloc(0);
    const route = this.routes.get(id);
    const headers = flatHeaders(req.headers);
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('no such notify_url of this proxy\n');
      options.onNote?.(`notification to ${NOTIFY_PATH}${id}: no request of this session gave it; answered 404`);
      return;
    }
    const started = Date.now();
    const t0 = performance.now();
    const answer = await send(this.dispatcher, route.url, req.method ?? 'POST', headers, body, options.timeoutMs);
    if ('error' in answer) res.writeHead(502, { 'content-type': 'text/plain' }).end('the merchant did not answer\n');
    else res.writeHead(answer.status, forwardable(answer.headers)).end(answer.body);
    const { findings, line, check, exchange } = await judgeNotification(options.session, {
      route,
      method: req.method ?? 'POST',
      headers,
      body,
      answer,
      started,
      durationMs: performance.now() - t0,
      id: `notification#${id}.${++this.exchangeCount}`,
    });
    options.session.notification(exchange, findings, check, route.operation);
    options.onNotification?.(line, findings);
  }

  /** Refuse a request without forwarding it, and say why. */
  refuse(req: http.IncomingMessage, res: http.ServerResponse, status: number, why: string): void {
    res.writeHead(status, { 'content-type': 'text/plain' }).end(`pagi-conform proxy: not forwarded: ${why}\n`);
    this.options.onNote?.(`${req.method} ${(req.url ?? '').slice(0, 80)}: not forwarded (${why})`);
  }

  /** A merchant's request: forwarded to the upstream only, its answer passed back, then judged. */
  async onRequest(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const { options } = this;
    const { spec, loaded, rules } = options.session.options;
    const path = req.url ?? '/';
    if (path.startsWith(NOTIFY_PATH))
      return this.onNotification(req, res, path.slice(NOTIFY_PATH.length).split(/[/?]/)[0]!);
    const target = `${this.upstream}${path}`;
    const refusal = path.startsWith('/') ? this.policy.refusal(target) : 'the request names an absolute URL';
    if (refusal) return this.refuse(req, res, 400, refusal);
    const body = await readAll(req, MAX_REQUEST_BYTES);
    if (!body) return this.refuse(req, res, 413, `a body over ${MAX_REQUEST_BYTES} bytes`);
    const seen: SeenRequest = {
      method: req.method ?? 'GET',
      path,
      url: target,
      headers: flatHeaders(req.headers),
      body,
    };
    const op = operationOfRequest(spec, path, readRequestBody(body.toString('utf8')).body ?? {});
    const id = `${op ?? 'other'}#${++this.exchangeCount}`;
    const forwarded = op ? this.rewritten(op, seen, id) : body;
    const started = Date.now();
    const t0 = performance.now();
    const got = await send(this.dispatcher, target, seen.method, seen.headers, forwarded, options.timeoutMs);
    const durationMs = performance.now() - t0;
    if ('error' in got)
      res
        .writeHead(502, { 'content-type': 'text/plain' })
        .end(`pagi-conform proxy: the gateway did not answer (${got.error})\n`);
    else res.writeHead(got.status, forwardable(got.headers)).end(got.body);
    if (!op) {
      options.onNote?.(`${seen.method} ${path.slice(0, 80)}: forwarded, not judged (no operation of the interface)`);
      return;
    }
    const cut = 'status' in got && got.body.length > options.maxResponseBytes;
    const answer: SeenAnswer | { error: string } =
      'error' in got
        ? got
        : { ...got, body: cut ? got.body.subarray(0, options.maxResponseBytes) : got.body, truncated: cut };
    const x = await toExchange({ spec, profile: loaded.profile, rules }, id, op, seen, answer, started, durationMs);
    this.judgeLater(x, op, forwarded === body ? undefined : forwarded.toString('utf8'));
  }
}

/** Start a proxy in front of `upstream`. */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const proxy = new ValidatingProxy(options);
  const server = http.createServer({ keepAlive: true }, (req, res) => {
    proxy.onRequest(req, res).catch((e) => {
      if (!res.headersSent)
        res.writeHead(500, { 'content-type': 'text/plain' }).end('pagi-conform proxy: internal error\n');
      options.onNote?.(`the proxy failed on a request (${(e as Error).message}); please report it`);
    });
  });
  server.keepAliveTimeout = 10_000;
  const address = await new Promise<AddressInfo>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve(server.address() as AddressInfo));
  });
  proxy.selfUrl = `http://${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}`;
  return {
    url: proxy.selfUrl,
    port: address.port,
    idle: async () => {
      await Promise.all([...proxy.pending]);
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await Promise.all([...proxy.pending]);
      await proxy.dispatcher.close();
    },
  };
}
