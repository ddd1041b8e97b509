/**
 * The kit's notification receiver (Events): a small node:http server recording every request it gets as an
 * Exchange with operation `external`, answered 200. Workers read what it received through a loopback control
 * endpoint guarded by a random token, so one receiver serves every suite worker.
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { sniffBody } from '../core/codecs/form.js';
import { jsonOverLimit } from '../core/codecs/limits.js';
import type { MaskRules } from '../core/mask.js';
import type { Exchange, SentRequest } from '../core/model.js';
import { buildEvidence } from './evidence.js';
import { isSinkRequest } from './sink.js';

/** Where probes get the notifications the kit received. */
export interface NotificationSource {
  /**
   * Requests received whose body has a top-level value equal to `key` (order_no, request_id), waiting up to `ms`
   * until there are `atLeast` of them (default 1).
   */
  notifications(key: string, ms: number, atLeast?: number): Promise<Exchange[]>;
  /** From now on, answer the notifications for `key` with a status that does not acknowledge them. */
  refuse?(key: string): Promise<void>;
  /** Requests the receiver refused so far for passing its bounds. */
  refusals?(): Promise<ReceiverRefusals>;
}

/** Bounds of the receiver: whatever a target sends to it, what the kit keeps is bounded. */
export interface ReceiverBounds {
  /** Largest body read (bytes); past it: 413 and the connection closed. */
  maxBodyBytes: number;
  /** Most requests recorded in a run; past it: 429, nothing recorded. */
  maxPerRun: number;
  /** Most requests accepted in any one second; past it: 429, nothing recorded. */
  maxPerSecond: number;
  /** Longest time a request may take to arrive whole (ms); past it the connection is closed. */
  requestTimeoutMs: number;
}

/** The receiver's bounds unless a test says otherwise: a notification is a payment result of a few kilobytes. */
const RECEIVER_BOUNDS: ReceiverBounds = {
  maxBodyBytes: 64 * 1024,
  maxPerRun: 500,
  maxPerSecond: 50,
  requestTimeoutMs: 10_000,
};

/** How many times the judged notifications' rate the sink accepts in a second. */
const SINK_RATE_FACTOR = 40;

/** Requests refused for passing a bound, by bound. */
export interface ReceiverRefusals {
  /** Bodies larger than `maxBodyBytes` (413). */
  tooLarge: number;
  /** Requests past `maxPerRun` (429). */
  overCount: number;
  /** Requests past `maxPerSecond` (429). */
  overRate: number;
}

/** One sentence on what the receiver refused, or undefined when it refused nothing. */
export function refusalSentence(r: ReceiverRefusals, bounds: ReceiverBounds = RECEIVER_BOUNDS): string | undefined {
  const parts = [
    r.tooLarge ? `${r.tooLarge} with a body over ${bounds.maxBodyBytes} bytes (413)` : '',
    r.overCount ? `${r.overCount} past ${bounds.maxPerRun} in the run (429)` : '',
    r.overRate ? `${r.overRate} past ${bounds.maxPerSecond} a second (429)` : '',
  ].filter(Boolean);
  return parts.length
    ? `the notification receiver refused ${r.tooLarge + r.overCount + r.overRate} request(s): ${parts.join(', ')}`
    : undefined;
}

/** A running receiver. */
export interface Receiver extends NotificationSource {
  /** URL to give gateways as `notify_url`. */
  notifyUrl: string;
  /** Loopback URL of the control endpoint (token included). */
  controlUrl: string;
  /** Every request received so far. */
  received(): readonly Exchange[];
  /** From now on, answer the notifications for `key` with `status` (profile discovery: the acknowledging range). */
  answerWith(key: string, status: number): void;
  /**
   * Leave the next `times` notifications for `key` unanswered until their sender gives up (profile discovery: the
   * sender's time-out); each is recorded when its connection closes, its duration the time the sender waited.
   */
  hold(key: string, times: number): void;
  close(): Promise<void>;
}

/**
 * Whether a notification body carries `key` as a value: at the top level, or nested (a body in the gateway's own
 * shape, `notifications.kinds.*.ownShape`, may hold the order number in an object), down to a few levels.
 */
function matchesBody(body: unknown, key: string, depth = 0): boolean {
  if (depth > 4 || body === null || typeof body !== 'object') return false;
  return Object.values(body).some((v) =>
    typeof v === 'string' || typeof v === 'number' ? String(v) === key : matchesBody(v, key, depth + 1),
  );
}

function matches(exchange: Exchange, key: string): boolean {
  return matchesBody(exchange.request.body, key);
}

function listen(server: http.Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server.address() as AddressInfo));
  });
}

/** The body, or undefined as soon as it passes `max` bytes (nothing more is read). */
function readBody(req: http.IncomingMessage, max: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    if (Number(req.headers['content-length']) > max) return resolve(undefined);
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        chunks.length = 0;
        req.pause();
        resolve(undefined);
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function headerRecord(headers: http.IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v ?? '')]),
  );
}

/**
 * Start a receiver on `listenOn` (`host:port`, port 0 = ephemeral). `publicUrl` is the URL gateways reach it at;
 * by default its own address.
 */
export async function startReceiver(options: {
  listenOn: string;
  publicUrl?: string;
  rules: MaskRules;
  acknowledgement?: { statusMin: number; statusMax: number };
  bounds?: Partial<ReceiverBounds>;
}): Promise<Receiver> {
  const bounds: ReceiverBounds = { ...RECEIVER_BOUNDS, ...options.bounds };
  const refusals: ReceiverRefusals = { tooLarge: 0, overCount: 0, overRate: 0 };
  let accepted = 0;
  let sinkSecond = 0;
  let sinkInSecond = 0;
  let second = 0;
  let inSecond = 0;
  const records: Exchange[] = [];
  const waiters = new Set<() => void>();
  const refused = new Set<string>();
  const answers = new Map<string, number>();
  const holds = new Map<string, number>();
  const ack = options.acknowledgement ?? { statusMin: 200, statusMax: 299 };
  const refuseStatus = [503, 500, 400].find((s) => s < ack.statusMin || s > ack.statusMax)!;

  /** Answer without reading (more of) the body, then close the connection. */
  const refuse = (req: http.IncomingMessage, res: http.ServerResponse, status: 413 | 429): void => {
    res
      .writeHead(status, { connection: 'close', ...(status === 429 ? { 'retry-after': '1' } : {}) })
      .end(() => req.socket.destroy());
  };

  const server = http.createServer(async (req, res) => {
    const started = Date.now();
    if (isSinkRequest(req.url)) {
      // A set-up payment's notification: answered and never kept. Its count is not the judged ones' (a run's set-up
      // payments cause hundreds), but its body size and a rate a gateway cannot reach by notifying once per payment
      // still bound it, and refusals are reported like the judged ones'.
      const now = Math.floor(started / 1000);
      if (now !== sinkSecond) [sinkSecond, sinkInSecond] = [now, 0];
      if (++sinkInSecond > bounds.maxPerSecond * SINK_RATE_FACTOR) {
        refusals.overRate++;
        return refuse(req, res, 429);
      }
      const bytes = await readBody(req, bounds.maxBodyBytes).catch(() => undefined);
      if (!bytes) {
        refusals.tooLarge++;
        return refuse(req, res, 413);
      }
      return void res.writeHead(ack.statusMin).end();
    }
    const now = Math.floor(started / 1000);
    if (now !== second) [second, inSecond] = [now, 0];
    if (accepted >= bounds.maxPerRun) {
      refusals.overCount++;
      return refuse(req, res, 429);
    }
    if (++inSecond > bounds.maxPerSecond) {
      refusals.overRate++;
      return refuse(req, res, 429);
    }
    accepted++;
    const bytes = await readBody(req, bounds.maxBodyBytes).catch(() => undefined);
    if (!bytes) {
      refusals.tooLarge++;
      return refuse(req, res, 413);
    }
    const bodyText = bytes.toString('utf8');
    // A body past the JSON reader's bounds is kept as text only (a notification that is not a readable object).
    const sniffed = jsonOverLimit(bodyText) ? undefined : sniffBody(bodyText);
    const sent: SentRequest = {
      method: req.method ?? 'POST',
      url: req.url ?? '/',
      headers: headerRecord(req.headers),
      body: sniffed?.value,
      bodyText,
      encoding: sniffed?.encoding ?? 'raw',
    };
    const held = [...holds].find(([key, left]) => left > 0 && matchesBody(sent.body, key))?.[0];
    if (held !== undefined) {
      holds.set(held, holds.get(held)! - 1);
      req.socket.once('close', () => {
        records.push({
          id: `notification#${records.length + 1}`,
          operation: 'external',
          request: sent,
          startedAt: new Date(started).toISOString(),
          durationMs: Date.now() - started,
          error: { kind: 'timeout', message: 'held unanswered until the sender gave up' },
          evidence: buildEvidence(sent, undefined, options.rules),
          incoming: true,
        });
        for (const wake of waiters) wake();
      });
      return;
    }
    const answered = [...answers].find(([key]) => matchesBody(sent.body, key))?.[1];
    const status = answered ?? ([...refused].some((key) => matchesBody(sent.body, key)) ? refuseStatus : ack.statusMin);
    const response = { status, headers: {}, bodyText: '', truncated: false, decoded: { kind: 'empty' as const } };
    records.push({
      id: `notification#${records.length + 1}`,
      operation: 'external',
      request: sent,
      response,
      startedAt: new Date(started).toISOString(),
      durationMs: Date.now() - started,
      evidence: buildEvidence(sent, response, options.rules),
      incoming: true,
    });
    res.writeHead(status).end();
    for (const wake of waiters) wake();
  });

  const find = async (key: string, ms: number, atLeast = 1): Promise<Exchange[]> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = records.filter((r) => matches(r, key));
      const left = deadline - Date.now();
      if (found.length >= atLeast || left <= 0) return found;
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, left);
        waiters.add(wake);
      });
    }
  };

  const token = randomBytes(16).toString('hex');
  const control = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://control');
    const key = url.searchParams.get('key') ?? '';
    if (url.pathname === `/${token}/refusals`) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(refusals));
    } else if (url.pathname === `/${token}/refuse` && req.method === 'POST') {
      refused.add(key);
      res.writeHead(204).end();
    } else if (url.pathname === `/${token}/notifications`) {
      const found = await find(
        key,
        Math.max(0, Number(url.searchParams.get('wait')) || 0),
        Math.max(1, Number(url.searchParams.get('atLeast')) || 1),
      );
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(found));
    } else res.writeHead(404).end();
  });

  server.requestTimeout = bounds.requestTimeoutMs;
  server.headersTimeout = Math.min(bounds.requestTimeoutMs, 60_000);
  const [host, portText] = splitHostPort(options.listenOn);
  const address = await listen(server, host, Number(portText));
  const controlAddress = await listen(control, '127.0.0.1', 0);
  const ownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    notifyUrl: options.publicUrl ?? `http://${ownHost}:${address.port}/notify`,
    controlUrl: `http://127.0.0.1:${controlAddress.port}/${token}`,
    notifications: find,
    async refuse(key) {
      refused.add(key);
    },
    async refusals() {
      return { ...refusals };
    },
    received: () => records,
    answerWith(key, status) {
      answers.set(key, status);
    },
    hold(key, times) {
      holds.set(key, times);
    },
    async close() {
      for (const wake of waiters) wake();
      // Keep-alive and half-sent requests are cut: closing must not wait on what a target keeps open.
      const closing = [server, control].map((s) => new Promise<void>((resolve) => s.close(() => resolve())));
      for (const s of [server, control]) s.closeAllConnections();
      await Promise.all(closing);
    },
  };
}

/** Split `host:port` (IPv6 in brackets). */
function splitHostPort(value: string): [string, string] {
  const m = /^\[?([^\]]*?)\]?:([0-9]+)$/.exec(value);
  if (!m) throw new Error(`not host:port: ${value}`);
  return [m[1]!, m[2]!];
}

/** A notification source reading a receiver of another thread or process through its control URL. */
export function remoteNotifications(controlUrl: string): NotificationSource {
  return {
    async notifications(key, ms, atLeast = 1) {
      const url = `${controlUrl}/notifications?key=${encodeURIComponent(key)}&wait=${ms}&atLeast=${atLeast}`;
      const res = await request(url, { headersTimeout: ms + 10_000, bodyTimeout: ms + 10_000 });
      return (await res.body.json()) as Exchange[];
    },
    async refuse(key) {
      const res = await request(`${controlUrl}/refuse?key=${encodeURIComponent(key)}`, { method: 'POST' });
      await res.body.dump();
    },
    async refusals() {
      const res = await request(`${controlUrl}/refusals`);
      return (await res.body.json()) as ReceiverRefusals;
    },
  };
}
