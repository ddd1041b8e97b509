/** The HTTP side: read the body under the size cap, handle, apply the active fault's hooks, answer, log one line. */
import http from 'node:http';
import { maskText } from '../src/mask.js';
import { configSecrets } from './config.js';
import type { Gateway } from './context.js';
import type { FaultDefinition, ReplyContext } from './faults.js';
import { buildRoutes, handle, type Handled, type Incoming } from './pipeline.js';
import { serialise, type WireResponse } from './reply.js';

/** Bodies longer than this many times the cap are not even drained: the connection is closed. */
const DRAIN_FACTOR = 16;

/** Options of the HTTP server. */
export interface ServerOptions {
  fault?: FaultDefinition;
  /** Log one line per request (masked). */
  logRequests: boolean;
  /** Secrets and test cards masked in log lines. */
  mask: { secrets: string[]; cards: string[] };
}

function wireOf(gw: Gateway, handled: Handled, fault: FaultDefinition | undefined): WireResponse {
  const ctx: ReplyContext = { op: handled.op, errorKind: handled.errorKind, profile: gw.profile, secrets: configSecrets(gw.config) };
  const reply = fault?.reply ? fault.reply(handled.reply, ctx) : handled.reply;
  const wire = serialise(reply);
  return fault?.wire ? fault.wire(wire, ctx) : wire;
}

function internalError(): WireResponse {
  return { status: 500, headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{"error":"internal error"}' };
}

/** Create the gateway's HTTP server (not yet listening). */
export function createGatewayServer(gw: Gateway, options: ServerOptions): http.Server {
  const routes = buildRoutes(gw);
  const cap = gw.profile.limits.maxBodyBytes;
  const logLine = (incoming: Pick<Incoming, 'method' | 'path' | 'remoteAddress'>, url: string, handled: Handled | undefined, status: number, started: bigint) => {
    if (!options.logRequests) return;
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const b = handled?.body;
    const who = b && typeof b.merchant_id === 'string' ? ` merchant=${b.merchant_id}` : '';
    const order = b && typeof b.order_no === 'string' ? ` order=${b.order_no}` : '';
    const why = handled?.errorKind ? ` ${handled.errorKind}: ${handled.reason}` : '';
    const line = `${new Date().toISOString()} ${incoming.remoteAddress} ${incoming.method} ${url} ${handled?.op?.key ?? '-'} ${status} ${ms.toFixed(1)}ms${who}${order}${why}`;
    gw.log(maskText(line, options.mask));
  };

  return http.createServer({ requestTimeout: 30_000, headersTimeout: 15_000, keepAliveTimeout: 65_000 }, (req, res) => {
    const started = process.hrtime.bigint();
    const url = req.url ?? '/';
    // The path as sent, query string left out; anything else than an origin-form target is an unknown path.
    const path = url.startsWith('/') ? url.split('?')[0]! : '';
    const chunks: Buffer[] = [];
    let size = 0;
    let answered = false;
    const answer = (tooLarge: boolean) => {
      if (answered) return;
      answered = true;
      const incoming: Incoming = {
        method: req.method ?? 'GET',
        path,
        headers: req.headers,
        remoteAddress: req.socket.remoteAddress ?? '',
        body: tooLarge ? '' : Buffer.concat(chunks).toString('utf8'),
        tooLarge,
      };
      let handled: Handled | undefined;
      let wire: WireResponse;
      try {
        handled = handle(gw, routes, incoming);
        wire = wireOf(gw, handled, options.fault);
      } catch (error) {
        gw.log(`internal error: ${maskText((error as Error).stack ?? String(error), options.mask)}`);
        wire = internalError();
      }
      if (handled?.errorKind === 'methodNotAllowed') wire.headers.allow ??= 'POST';
      if (size > cap * DRAIN_FACTOR) wire.headers.connection = 'close';
      if (wire.chunked) {
        // Two chunks, no Content-Length: Node sends Transfer-Encoding: chunked.
        res.writeHead(wire.status, wire.headers);
        res.write(wire.body.slice(0, wire.body.length >> 1));
        res.end(wire.body.slice(wire.body.length >> 1));
      } else {
        res.writeHead(wire.status, { ...wire.headers, 'content-length': Buffer.byteLength(wire.body) });
        res.end(wire.body);
      }
      logLine(incoming, url, handled, wire.status, started);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= cap) chunks.push(chunk);
      else if (chunks.length) chunks.length = 0;
      if (size > cap * DRAIN_FACTOR && !answered) {
        answer(true);
        res.once('finish', () => req.destroy());
      }
    });
    req.on('end', () => answer(size > cap));
    req.on('error', () => {
      answered = true;
    });
  });
}
