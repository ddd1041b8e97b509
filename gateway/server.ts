/**
 * The HTTP side: read the body under the size cap, handle, apply the active fault's hooks, answer, log one line.
 * Also what makes the gateway a long-running sandbox: a connection cap (the connection idle the longest makes
 * room), header, request and idle time-outs, the reason of every refusal in `x-pagi-reason`, `GET /healthz`, the
 * admin endpoints (`--admin`), and the drain on stop.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { maskText } from '../core/mask.js';
import { configSecrets } from './config.js';
import type { Gateway } from './context.js';
import type { FaultDefinition, ReplyContext } from './faults.js';
import { headerSafe } from './limits.js';
import { buildRoutes, handle, type Handled, type Incoming, readsOversizedBody, type Routes } from './pipeline.js';
import { serialise, type WireResponse } from './reply.js';
import { namedRecords } from './shared-names.js';

/** Bodies longer than this many times the cap are not even drained: the connection is closed. */
const DRAIN_FACTOR = 16;
/** File descriptors kept free under the open-file limit (listening socket, files, notification sockets). */
const FD_RESERVE = 64;
/** While draining, a connection with no request in progress is closed once it has been quiet this long. */
const DRAIN_QUIET_MS = 250;

/** The response header carrying the reason of a refusal (outside the interface's body). */
const REASON_HEADER = 'x-pagi-reason';

/** Options of the HTTP server. */
export interface ServerOptions {
  fault?: FaultDefinition;
  /** Log one line per request (masked). */
  logRequests: boolean;
  /** Secrets and test cards masked in log lines and reasons. */
  mask: { secrets: string[]; cards: string[] };
  /** Serve `POST /_admin/reset` and `GET /_admin/stats`. */
  admin?: boolean;
}

function wireOf(gw: Gateway, handled: Handled, fault: FaultDefinition | undefined): WireResponse {
  if (!fault?.reply && !fault?.wire) return serialise(handled.reply);
  const ctx: ReplyContext = {
    spec: gw.spec,
    op: handled.op,
    errorKind: handled.errorKind,
    profile: gw.profile,
    secrets: configSecrets(gw.config),
    ...(handled.body ? { request: handled.body } : {}),
  };
  const reply = fault.reply ? fault.reply(handled.reply, ctx) : handled.reply;
  const wire = serialise(reply);
  return fault.wire ? fault.wire(wire, ctx) : wire;
}

function internalError(): WireResponse {
  return {
    status: 500,
    headers: { 'content-type': 'application/json; charset=utf-8', [REASON_HEADER]: 'internal error' },
    body: '{"error":"internal error"}',
  };
}

/**
 * One request through the same path the server takes: pipeline, fault hooks, the reason header, and a 500 only
 * when something threw.
 */
function respond(
  gw: Gateway,
  routes: Routes,
  incoming: Incoming,
  options: Pick<ServerOptions, 'fault' | 'mask'>,
): { handled?: Handled; wire: WireResponse } {
  let handled: Handled | undefined;
  let wire: WireResponse;
  try {
    handled = handle(gw, routes, incoming);
    wire = wireOf(gw, handled, options.fault);
  } catch (error) {
    gw.log(`internal error: ${maskText((error as Error).stack ?? String(error), options.mask)}`);
    return { wire: internalError() };
  }
  if (handled.errorKind === 'methodNotAllowed') wire.headers.allow ??= 'POST';
  if (handled.errorKind)
    wire.headers[REASON_HEADER] = headerSafe(maskText(`${handled.errorKind}: ${handled.reason ?? ''}`, options.mask));
  return { handled, wire };
}

/** The answer when the database could not be written: the change may not survive a restart. */
function unsaved(error: Error): { wire: WireResponse } {
  return {
    wire: {
      status: 503,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        [REASON_HEADER]: headerSafe(`state not saved: ${error.message}`),
      },
      body: '{"error":"state not saved"}',
    },
  };
}

/** The soft limit of open files of this process (Linux `/proc/self/limits`); undefined elsewhere. */
function openFileLimit(): number | undefined {
  try {
    const line = fs
      .readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    return soft && /^[0-9]+$/.test(soft) ? Number(soft) : undefined;
  } catch {
    return undefined;
  }
}

/** Per-connection bookkeeping. */
interface Conn {
  socket: Duplex;
  /** Requests received (headers read) and not yet answered. */
  inFlight: number;
  /** Last time a request started or an answer finished (or the connection opened), ms. */
  lastActive: number;
}

/** A request whose body is being read. */
interface Pending {
  res: http.ServerResponse;
  conn: Conn | undefined;
  /** The request target as sent, and its path. */
  url: string;
  path: string;
  /** The body's chunks while under the size cap, and its size so far. */
  chunks: Buffer[];
  size: number;
  answered: boolean;
  /** Answered before its body was read (over the size cap): the connection is closed once the answer is written. */
  closing?: boolean;
  /** When the request started (only when requests are logged). */
  started: bigint | undefined;
}

const PENDING = Symbol('pending');
type PendingRequest = http.IncomingMessage & { [PENDING]?: Pending };

/** Counters of the server since start. */
export interface ServerStats {
  /** Open connections, those with a request in progress, and the cap in force. */
  connections: { open: number; busy: number; cap: number; closedForRoom: number; refusedAtCap: number };
  requests: { answered: number; refused: number; inFlight: number };
  draining: boolean;
}

/** What a drain ended with. */
export interface DrainResult {
  /** Requests answered during the drain. */
  answered: number;
  /** Requests received but not answered by the deadline (their connections were closed). */
  cutOff: number;
}

/** The gateway's HTTP server with its connection bookkeeping. */
export interface GatewayServer {
  server: http.Server;
  /** The connection cap in force (configuration, bounded by the open-file limit). */
  connectionCap: number;
  stats(): ServerStats;
  /**
   * Stop accepting; answer every request already received (with `Connection: close`) until `deadlineMs`; close
   * connections as they fall quiet; at the deadline close the rest. `abort` ends the wait at once.
   */
  drain(deadlineMs: number, abort?: AbortSignal): Promise<DrainResult>;
  /** Stop at once: stop listening and close every connection. */
  close(): Promise<void>;
  /**
   * Answer a request without a socket, the way the server answers one whose body has been read: health and
   * admin endpoints, size cap, pipeline, fault hooks, reason header (a 500 only when something threw).
   */
  inject(request: Omit<Incoming, 'tooLarge'>): WireResponse;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** What the server's stages share: the gateway and its routes, the options, the connections and the counters. */
interface ServerState {
  gw: Gateway;
  routes: Routes;
  options: ServerOptions;
  /** The body size cap, bytes. */
  cap: number;
  /** A body over the cap is kept (up to where the connection is closed) to be parsed: `readsOversizedBody`. */
  keepOversized: boolean;
  connectionCap: number;
  startedAt: number;
  /** Open connections, least recently active first (a connection moves to the end when a request starts). */
  conns: Map<Duplex, Conn>;
  counters: {
    answered: number;
    refused: number;
    closedForRoom: number;
    refusedAtCap: number;
    answeredWhileDraining: number;
  };
  draining: boolean;
}

/** The connection cap in force: the configuration's, bounded by the open-file limit less a reserve. */
function connectionCapOf(maxConnections: number): number {
  const fdLimit = openFileLimit();
  return Math.max(1, Math.min(maxConnections, fdLimit === undefined ? Number.POSITIVE_INFINITY : fdLimit - FD_RESERVE));
}

/** Log one masked line for an answered request (when requests are logged). */
function logLine(
  st: ServerState,
  incoming: Pick<Incoming, 'method' | 'path' | 'remoteAddress'>,
  url: string,
  handled: Handled | undefined,
  status: number,
  started: bigint,
): void {
  if (!st.options.logRequests) return;
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const b = handled?.body;
  const who = b && typeof b.merchant_id === 'string' ? ` merchant=${b.merchant_id}` : '';
  const order = b && typeof b.order_no === 'string' ? ` order=${b.order_no}` : '';
  const why = handled?.errorKind ? ` ${handled.errorKind}: ${handled.reason}` : '';
  const line = `${new Date().toISOString()} ${incoming.remoteAddress} ${incoming.method} ${url} ${handled?.op?.key ?? '-'} ${status} ${ms.toFixed(1)}ms${who}${order}${why}`;
  st.gw.log(maskText(line, st.options.mask));
}

/** The server's counters now. */
function serverStats(st: ServerState): ServerStats {
  let busy = 0;
  let inFlight = 0;
  for (const c of st.conns.values()) {
    if (c.inFlight) busy += 1;
    inFlight += c.inFlight;
  }
  return {
    connections: {
      open: st.conns.size,
      busy,
      cap: st.connectionCap,
      closedForRoom: st.counters.closedForRoom,
      refusedAtCap: st.counters.refusedAtCap,
    },
    requests: { answered: st.counters.answered, refused: st.counters.refused, inFlight },
    draining: st.draining,
  };
}

/** A JSON answer of an operational endpoint. */
function jsonWire(status: number, body: unknown, extra: Record<string, string> = {}): WireResponse {
  return { status, headers: { 'content-type': JSON_TYPE, ...extra }, body: JSON.stringify(body) };
}

/** The 405 of an operational endpoint asked with another method than `allowed`. */
function methodOnly(path: string, allowed: string): WireResponse {
  return jsonWire(
    405,
    { error: 'method not allowed' },
    { allow: allowed, [REASON_HEADER]: `methodNotAllowed: ${path} answers ${allowed} only` },
  );
}

/** `GET /healthz`: ready, or 503 while draining. */
function healthz(st: ServerState, method: string): WireResponse {
  if (method !== 'GET' && method !== 'HEAD') return methodOnly('/healthz', 'GET');
  return st.draining
    ? jsonWire(503, { status: 'draining' }, { [REASON_HEADER]: 'draining: the gateway is stopping' })
    : jsonWire(200, { status: 'ready' });
}

/** `POST /_admin/reset`: forget the whole state, answering what was cleared. */
function adminReset(st: ServerState, method: string): WireResponse {
  if (method !== 'POST') return methodOnly('/_admin/reset', 'POST');
  const cleared = st.gw.store.counts();
  st.gw.store.clear();
  st.gw.log('admin: state reset');
  return jsonWire(200, { reset: true, cleared });
}

/** `GET /_admin/stats`: state, evictions, caps, server counters and memory. */
function adminStats(st: ServerState, method: string): WireResponse {
  if (method !== 'GET') return methodOnly('/_admin/stats', 'GET');
  const { gw } = st;
  const m = process.memoryUsage();
  const mb = (n: number) => Math.round((n / 1048576) * 10) / 10;
  return jsonWire(200, {
    status: st.draining ? 'draining' : 'ready',
    uptimeSeconds: Math.round((Date.now() - st.startedAt) / 1000),
    state: gw.store.counts(),
    evicted: gw.store.evictions(),
    caps: { ...gw.store.caps, maxSessions: gw.config.sessions.maxSessions },
    server: serverStats(st),
    memoryMb: { rss: mb(m.rss), heapUsed: mb(m.heapUsed), heapTotal: mb(m.heapTotal), external: mb(m.external) },
  });
}

/** `GET /healthz`, and the admin endpoints when enabled; undefined for any other path. */
function operational(st: ServerState, method: string, path: string): WireResponse | undefined {
  if (path === '/healthz') return healthz(st, method);
  if (!(st.options.admin && path.startsWith('/_admin/'))) return undefined;
  if (path === '/_admin/reset') return adminReset(st, method);
  if (path === '/_admin/stats') return adminStats(st, method);
  return undefined;
}

/** The path of a base URL (`http://h:1/pay` → `/pay`), '' for none; remembered for the last base URL seen. */
let lastBase: { url: string; prefix: string } = { url: '', prefix: '' };
function basePrefix(baseUrl: string): string {
  if (lastBase.url !== baseUrl) {
    let prefix = '';
    try {
      prefix = new URL(baseUrl).pathname.replace(/\/+$/, '');
    } catch {
      // not a URL (a test's placeholder): no prefix
    }
    lastBase = { url: baseUrl, prefix };
  }
  return lastBase.prefix;
}

/**
 * The request's path as the routes know it: a base URL with a path (`baseUrl: http://h:1/pay`) puts the operations
 * and the gateway's pages under it (`/pay/v1/authorise`), so the prefix is taken off; a path without it is routed as
 * it is (a reverse proxy that strips the prefix reaches the same routes).
 */
function routedPath(gw: Gateway, path: string): string {
  const prefix = basePrefix(gw.baseUrl);
  return prefix && (path === prefix || path.startsWith(`${prefix}/`)) ? path.slice(prefix.length) || '/' : path;
}

/** The answer to a request whose body has been read (`size` bytes; the text is empty when over the cap). */
function answerOf(st: ServerState, incoming: Incoming): { handled?: Handled; wire: WireResponse } {
  const ops = operational(st, incoming.method, incoming.path);
  if (ops) return { wire: ops };
  const path = routedPath(st.gw, incoming.path);
  return respond(st.gw, st.routes, path === incoming.path ? incoming : { ...incoming, path }, st.options);
}

/** Sends the answer to a request once its body has been read (`size` bytes; the text is empty when over the cap). */
function answer(st: ServerState, req: PendingRequest, p: Pending, tooLarge: boolean): void {
  if (p.answered) return;
  p.answered = true;
  const incoming: Incoming = {
    method: req.method ?? 'GET',
    path: p.path,
    headers: req.headers,
    remoteAddress: req.socket.remoteAddress ?? '',
    body:
      tooLarge && !st.keepOversized
        ? ''
        : p.chunks.length === 1
          ? p.chunks[0]!.toString('utf8')
          : Buffer.concat(p.chunks).toString('utf8'),
    tooLarge,
  };
  if (st.gw.shared) {
    // A shared sandbox: handled once the state is up to date, answered once its changes are committed.
    st.gw.shared
      .run(() => answerOf(st, incoming), namedRecords(st.gw, incoming))
      .then(
        (answered) => send(st, p, incoming, answered),
        (error: Error) => send(st, p, incoming, unsaved(error)),
      );
    return;
  }
  const { handled, wire } = answerOf(st, incoming);
  // With a database (`serve --data`), the answer waits until every change made so far is committed (group commit:
  // one write and one sync for the changes of all the requests handled meanwhile). A read waits too: it may
  // show a change not yet durable.
  const durability = st.gw.durability;
  if (durability?.pending())
    durability.whenDurable((error) => send(st, p, incoming, error ? unsaved(error) : { handled, wire }));
  else send(st, p, incoming, { handled, wire });
}

/**
 * Answer a body over the cap before it is read, and close the connection once the answer is written: what the client
 * still sends is not read (the connection is reset). Past DRAIN_FACTOR times the cap, always; from the cap on, with
 * `server.earlyTooLarge`.
 */
function answerEarly(st: ServerState, req: PendingRequest, p: Pending): void {
  if (p.answered) return;
  p.closing = true;
  p.res.once('finish', () => req.destroy());
  // What was kept of an oversized body is only its start: never parsed.
  p.chunks.length = 0;
  answer(st, req, p, true);
}

/** Write an answer (and log its line). */
function send(
  st: ServerState,
  p: Pending,
  incoming: Incoming,
  { handled, wire }: { handled?: Handled; wire: WireResponse },
): void {
  if (p.closing || st.draining) wire.headers.connection = 'close';
  st.counters.answered += 1;
  if (wire.status >= 400) st.counters.refused += 1;
  if (st.draining) st.counters.answeredWhileDraining += 1;
  const res = p.res;
  if (wire.chunked) {
    // Two chunks, no Content-Length: Node sends Transfer-Encoding: chunked.
    res.writeHead(wire.status, wire.headers);
    res.write(wire.body.slice(0, wire.body.length >> 1));
    res.end(wire.body.slice(wire.body.length >> 1));
  } else {
    wire.headers['content-length'] = String(Buffer.byteLength(wire.body));
    res.writeHead(wire.status, wire.headers);
    res.end(wire.body);
  }
  if (p.started !== undefined) logLine(st, incoming, p.url, handled, wire.status, p.started);
}

/** The server's request listener, with the listeners it attaches to each request (made once per server). */
function requestListener(st: ServerState): (req: PendingRequest, res: http.ServerResponse) => void {
  const { cap, conns, options } = st;
  // With server.earlyTooLarge a body is answered as soon as it passes the cap, else once past DRAIN_FACTOR times it.
  const early = st.gw.config.server.earlyTooLarge === true;
  const answerPast = early ? cap : cap * DRAIN_FACTOR;
  // The listeners of every request are these functions (`this` is the request or the response): no closure is
  // made per request.
  function onData(this: PendingRequest, chunk: Buffer): void {
    const p = this[PENDING]!;
    p.size += chunk.length;
    if (p.size <= cap || (st.keepOversized && p.size <= answerPast)) p.chunks.push(chunk);
    else if (p.chunks.length) p.chunks.length = 0;
    if (p.size > answerPast) answerEarly(st, this, p);
  }
  function onEnd(this: PendingRequest): void {
    const p = this[PENDING]!;
    answer(st, this, p, p.size > cap);
  }
  function onError(this: PendingRequest): void {
    this[PENDING]!.answered = true;
  }
  function onClose(this: http.ServerResponse): void {
    const conn = (this.req as PendingRequest)[PENDING]?.conn;
    if (!conn) return;
    conn.inFlight -= 1;
    conn.lastActive = Date.now();
  }
  return (req, res) => {
    const conn = conns.get(req.socket);
    if (conn) {
      conn.inFlight += 1;
      conn.lastActive = Date.now();
      // Most recently active last: the first idle connection of the map is the one idle the longest.
      conns.delete(req.socket);
      conns.set(req.socket, conn);
    }
    const url = req.url ?? '/';
    // The path as sent, query string left out; anything else than an origin-form target is an unknown path.
    const q = url.indexOf('?');
    const path = url.startsWith('/') ? (q === -1 ? url : url.slice(0, q)) : '';
    req[PENDING] = {
      res,
      conn,
      url,
      path,
      chunks: [],
      size: 0,
      answered: false,
      started: options.logRequests ? process.hrtime.bigint() : undefined,
    };
    res.once('close', onClose);
    req.on('error', onError);
    // A declared length over the cap, with server.earlyTooLarge: answered at once, the body never read.
    if (early && Number(req.headers['content-length']) > cap) return answerEarly(st, req, req[PENDING]);
    req.on('data', onData);
    req.on('end', onEnd);
  };
}

/** Track a new connection; over the cap, the connection idle the longest makes room, else the new one goes. */
function admitConnection(st: ServerState, socket: net.Socket): void {
  const { conns, counters } = st;
  const conn: Conn = { socket, inFlight: 0, lastActive: Date.now() };
  conns.set(socket, conn);
  socket.once('close', () => conns.delete(socket));
  if (conns.size <= st.connectionCap) return;
  for (const other of conns.values()) {
    if (other.inFlight === 0 && other.socket !== socket) {
      conns.delete(other.socket);
      other.socket.destroy();
      counters.closedForRoom += 1;
      return;
    }
  }
  conns.delete(socket);
  socket.destroy();
  counters.refusedAtCap += 1;
}

/** Answer a request Node refused before the gateway saw it, with its reason; close the connection. */
function refuseClientError(st: ServerState, error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const sc = st.gw.config.server;
  const [status, text, reason] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [
          408,
          'Request Timeout',
          `request not received within ${sc.requestTimeoutSeconds} s (headers: ${sc.headersTimeoutSeconds} s)`,
        ]
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'request headers too large']
        : [400, 'Bad Request', `not a readable HTTP request (${error.code ?? 'parse error'})`];
  st.counters.refused += 1;
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nconnection: close\r\ncontent-length: 0\r\n${REASON_HEADER}: ${headerSafe(reason)}\r\n\r\n`,
  );
}

/** The HTTP server with its time-outs, request listener and connection bookkeeping. */
function createHttpServer(st: ServerState): http.Server {
  const sc = st.gw.config.server;
  const server = http.createServer(
    {
      headersTimeout: sc.headersTimeoutSeconds * 1000,
      requestTimeout: sc.requestTimeoutSeconds * 1000,
      keepAliveTimeout: sc.idleTimeoutSeconds * 1000,
      // How often Node checks the header and request time-outs (default 30 s: too coarse for a 10 s time-out).
      connectionsCheckingInterval: 1000,
    },
    requestListener(st),
  );
  // No traffic for this long on a connection (never used, or kept alive between requests): closed.
  server.timeout = sc.idleTimeoutSeconds * 1000;
  server.on('connection', (socket: net.Socket) => admitConnection(st, socket));
  // Requests Node refuses before the gateway sees them (unparsable HTTP, headers too large, time-outs): answered
  // here so that the reason travels too.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => refuseClientError(st, error, socket));
  return server;
}

/** The drain of `GatewayServer.drain`. */
async function drainServer(
  st: ServerState,
  server: http.Server,
  deadlineMs: number,
  abort: AbortSignal | undefined,
): Promise<DrainResult> {
  st.draining = true;
  const before = st.counters.answeredWhileDraining;
  // Stop accepting but keep the open connections: http.Server#close would also close the idle ones at once,
  // among them connections just accepted whose request is still in the socket's buffer.
  net.Server.prototype.close.call(server);
  const start = Date.now();
  const until = start + deadlineMs;
  const quietMs = Math.min(DRAIN_QUIET_MS, deadlineMs);
  for (;;) {
    // Wait first: requests already in a socket's buffer are read and started before any connection is judged.
    await new Promise((resolve) => setTimeout(resolve, 10));
    const now = Date.now();
    // Quiet since the drain began at the earliest: each idle connection has the same grace.
    for (const c of st.conns.values())
      if (c.inFlight === 0 && now - Math.max(c.lastActive, start) >= quietMs) c.socket.destroy();
    if (st.conns.size === 0 || now >= until || abort?.aborted) break;
  }
  let cutOff = 0;
  for (const c of st.conns.values()) {
    cutOff += c.inFlight;
    c.socket.destroy();
  }
  return { answered: st.counters.answeredWhileDraining - before, cutOff };
}

/** Create the gateway's HTTP server (not yet listening). */
export function createGatewayServer(gw: Gateway, options: ServerOptions): GatewayServer {
  const st: ServerState = {
    gw,
    routes: buildRoutes(gw),
    options,
    cap: gw.profile.limits.maxBodyBytes,
    keepOversized: readsOversizedBody(gw.profile),
    connectionCap: connectionCapOf(gw.config.server.maxConnections),
    startedAt: Date.now(),
    conns: new Map<Duplex, Conn>(),
    counters: { answered: 0, refused: 0, closedForRoom: 0, refusedAtCap: 0, answeredWhileDraining: 0 },
    draining: false,
  };
  const server = createHttpServer(st);
  return {
    server,
    connectionCap: st.connectionCap,
    stats: () => serverStats(st),
    inject(request) {
      const tooLarge = Buffer.byteLength(request.body) > st.cap;
      return answerOf(st, { ...request, body: tooLarge && !st.keepOversized ? '' : request.body, tooLarge }).wire;
    },
    drain: (deadlineMs, abort) => drainServer(st, server, deadlineMs, abort),
    close: () =>
      new Promise<void>((resolve) => {
        st.draining = true;
        server.close(() => resolve());
        server.closeAllConnections();
        for (const c of st.conns.values()) c.socket.destroy();
      }),
  };
}
