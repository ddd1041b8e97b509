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
import { UsageError } from '../core/types/errors.js';

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

/** Options of `startReceiver`. */
interface ReceiverOptions {
  listenOn: string;
  publicUrl?: string;
  rules: MaskRules;
  acknowledgement?: { statusMin: number; statusMax: number };
  bounds?: Partial<ReceiverBounds>;
}

/** What a running receiver keeps between requests: its bounds and counters, what it recorded, what it was asked. */
interface ReceiverState {
  bounds: ReceiverBounds;
  rules: MaskRules;
  ack: { statusMin: number; statusMax: number };
  /** The status answering a refused key's notifications: one outside the acknowledging range. */
  refuseStatus: number;
  refusals: ReceiverRefusals;
  accepted: number;
  sinkSecond: number;
  sinkInSecond: number;
  second: number;
  inSecond: number;
  records: Exchange[];
  waiters: Set<() => void>;
  refused: Set<string>;
  answers: Map<string, number>;
  holds: Map<string, number>;
}

/** The state of a receiver just started. */
function receiverState(options: ReceiverOptions): ReceiverState {
  const ack = options.acknowledgement ?? { statusMin: 200, statusMax: 299 };
  return {
    bounds: { ...RECEIVER_BOUNDS, ...options.bounds },
    rules: options.rules,
    ack,
    refuseStatus: [503, 500, 400].find((s) => s < ack.statusMin || s > ack.statusMax)!,
    refusals: { tooLarge: 0, overCount: 0, overRate: 0 },
    accepted: 0,
    sinkSecond: 0,
    sinkInSecond: 0,
    second: 0,
    inSecond: 0,
    records: [],
    waiters: new Set(),
    refused: new Set(),
    answers: new Map(),
    holds: new Map(),
  };
}

/** Answer without reading (more of) the body, then close the connection. */
function refuseRequest(req: http.IncomingMessage, res: http.ServerResponse, status: 413 | 429): void {
  res
    .writeHead(status, { connection: 'close', ...(status === 429 ? { 'retry-after': '1' } : {}) })
    .end(() => req.socket.destroy());
}

/** Wake every probe waiting for a notification. */
function wakeWaiters(state: ReceiverState): void {
  for (const wake of state.waiters) wake();
}

/**
 * Answer a set-up payment's notification, never kept. Its count is not the judged ones' (a run's set-up payments
 * cause hundreds), but its body size and a rate a gateway cannot reach by notifying once per payment still bound it,
 * and refusals are reported like the judged ones'.
 */
async function answerSink(
  state: ReceiverState,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  started: number,
): Promise<void> {
  const { bounds, refusals } = state;
  const now = Math.floor(started / 1000);
  if (now !== state.sinkSecond) [state.sinkSecond, state.sinkInSecond] = [now, 0];
  if (++state.sinkInSecond > bounds.maxPerSecond * SINK_RATE_FACTOR) {
    refusals.overRate++;
    return refuseRequest(req, res, 429);
  }
  const bytes = await readBody(req, bounds.maxBodyBytes).catch(() => undefined);
  if (!bytes) {
    refusals.tooLarge++;
    return refuseRequest(req, res, 413);
  }
  res.writeHead(state.ack.statusMin).end();
}

/** Whether a judged notification is within the run's count and the second's rate; refused (429) when not. */
function admitted(state: ReceiverState, req: http.IncomingMessage, res: http.ServerResponse, started: number): boolean {
  const { bounds, refusals } = state;
  const now = Math.floor(started / 1000);
  if (now !== state.second) [state.second, state.inSecond] = [now, 0];
  if (state.accepted >= bounds.maxPerRun) {
    refusals.overCount++;
    refuseRequest(req, res, 429);
    return false;
  }
  if (++state.inSecond > bounds.maxPerSecond) {
    refusals.overRate++;
    refuseRequest(req, res, 429);
    return false;
  }
  state.accepted++;
  return true;
}

/** A received request as the kit records it, its body decoded when it reads as one. */
function sentRequest(req: http.IncomingMessage, bytes: Buffer): SentRequest {
  const bodyText = bytes.toString('utf8');
  // A body past the JSON reader's bounds is kept as text only (a notification that is not a readable object).
  const sniffed = jsonOverLimit(bodyText) ? undefined : sniffBody(bodyText);
  return {
    method: req.method ?? 'POST',
    url: req.url ?? '/',
    headers: headerRecord(req.headers),
    body: sniffed?.value,
    bodyText,
    encoding: sniffed?.encoding ?? 'raw',
  };
}

/** Leave a notification for a held key unanswered, recorded when its sender gives up; false when no key holds it. */
function holdNotification(
  state: ReceiverState,
  req: http.IncomingMessage,
  sent: SentRequest,
  started: number,
): boolean {
  const { holds, records } = state;
  const held = [...holds].find(([key, left]) => left > 0 && matchesBody(sent.body, key))?.[0];
  if (held === undefined) return false;
  holds.set(held, holds.get(held)! - 1);
  req.socket.once('close', () => {
    records.push({
      id: `notification#${records.length + 1}`,
      operation: 'external',
      request: sent,
      startedAt: new Date(started).toISOString(),
      durationMs: Date.now() - started,
      error: { kind: 'timeout', message: 'held unanswered until the sender gave up' },
      evidence: buildEvidence(sent, undefined, state.rules),
      incoming: true,
    });
    wakeWaiters(state);
  });
  return true;
}

/** Answer a notification with the status asked for its key (acknowledging by default) and record it. */
function answerNotification(state: ReceiverState, res: http.ServerResponse, sent: SentRequest, started: number): void {
  const { records } = state;
  const answered = [...state.answers].find(([key]) => matchesBody(sent.body, key))?.[1];
  const status =
    answered ??
    ([...state.refused].some((key) => matchesBody(sent.body, key)) ? state.refuseStatus : state.ack.statusMin);
  const response = { status, headers: {}, bodyText: '', truncated: false, decoded: { kind: 'empty' as const } };
  records.push({
    id: `notification#${records.length + 1}`,
    operation: 'external',
    request: sent,
    response,
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    evidence: buildEvidence(sent, response, state.rules),
    incoming: true,
  });
  res.writeHead(status).end();
  wakeWaiters(state);
}

/** Handle one request to the notification URL: a set-up payment's, or a judged notification within the bounds. */
async function handleNotification(
  state: ReceiverState,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  const started = Date.now();
  if (isSinkRequest(req.url)) return answerSink(state, req, res, started);
  if (!admitted(state, req, res, started)) return;
  const bytes = await readBody(req, state.bounds.maxBodyBytes).catch(() => undefined);
  if (!bytes) {
    state.refusals.tooLarge++;
    return refuseRequest(req, res, 413);
  }
  const sent = sentRequest(req, bytes);
  if (!holdNotification(state, req, sent, started)) answerNotification(state, res, sent, started);
}

/** The notifications recorded for `key`, waiting up to `ms` until there are `atLeast` of them. */
async function findNotifications(state: ReceiverState, key: string, ms: number, atLeast = 1): Promise<Exchange[]> {
  const { records, waiters } = state;
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
}

/** Handle one request to the control endpoint (`/<token>/refusals`, `/<token>/refuse`, `/<token>/notifications`). */
async function handleControl(
  state: ReceiverState,
  token: string,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://control');
  const key = url.searchParams.get('key') ?? '';
  if (url.pathname === `/${token}/refusals`) {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(state.refusals));
  } else if (url.pathname === `/${token}/refuse` && req.method === 'POST') {
    state.refused.add(key);
    res.writeHead(204).end();
  } else if (url.pathname === `/${token}/notifications`) {
    const found = await findNotifications(
      state,
      key,
      Math.max(0, Number(url.searchParams.get('wait')) || 0),
      Math.max(1, Number(url.searchParams.get('atLeast')) || 1),
    );
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(found));
  } else res.writeHead(404).end();
}

/** Close both servers, waking the waiting probes first and cutting the connections left open. */
async function closeReceiver(state: ReceiverState, servers: http.Server[]): Promise<void> {
  wakeWaiters(state);
  // Keep-alive and half-sent requests are cut: closing must not wait on what a target keeps open.
  const closing = servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())));
  for (const s of servers) s.closeAllConnections();
  await Promise.all(closing);
}

/**
 * Start a receiver on `listenOn` (`host:port`, port 0 = ephemeral). `publicUrl` is the URL gateways reach it at;
 * by default its own address.
 */
export async function startReceiver(options: ReceiverOptions): Promise<Receiver> {
  const state = receiverState(options);
  const server = http.createServer((req, res) => handleNotification(state, req, res));
  const token = randomBytes(16).toString('hex');
  const control = http.createServer((req, res) => handleControl(state, token, req, res));

  server.requestTimeout = state.bounds.requestTimeoutMs;
  server.headersTimeout = Math.min(state.bounds.requestTimeoutMs, 60_000);
  const [host, portText] = splitHostPort(options.listenOn);
  const address = await listen(server, host, Number(portText));
  const controlAddress = await listen(control, '127.0.0.1', 0);
  const ownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    notifyUrl: options.publicUrl ?? `http://${ownHost}:${address.port}/notify`,
    controlUrl: `http://127.0.0.1:${controlAddress.port}/${token}`,
    notifications: (key, ms, atLeast) => findNotifications(state, key, ms, atLeast),
    async refuse(key) {
      state.refused.add(key);
    },
    async refusals() {
      return { ...state.refusals };
    },
    received: () => state.records,
    answerWith(key, status) {
      state.answers.set(key, status);
    },
    hold(key, times) {
      state.holds.set(key, times);
    },
    close: () => closeReceiver(state, [server, control]),
  };
}

/** Split `host:port` (IPv6 in brackets). */
function splitHostPort(value: string): [string, string] {
  const m = /^\[?([^\]]*?)\]?:([0-9]+)$/.exec(value);
  if (!m) throw new UsageError(`not host:port: ${value}`);
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
