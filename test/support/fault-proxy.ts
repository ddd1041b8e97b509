/**
 * A fault-injecting proxy for the kit's end-to-end tests: a loopback server in front of the reference gateway (started
 * in-process, its `{base_url}` the proxy's, so pages and `issuer_url` lead back through it) that passes every request
 * on from the kit's own source address (the query's address rule still applies) and rewrites what one named fault
 * says: a request before the gateway sees it (the 51st item of a batch dropped), an answer's decoded body (another
 * amount, a result twice, a refused item reported as done), or its status (HTTP 500). An answer whose body was edited
 * is written again (JSON, or XML under its root) and signed again as the gateway's profile signs it, so the fault is
 * the only thing wrong with it. Without a fault the proxy changes nothing (the identity pass-through).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startGateway, type RunningGateway } from '../../gateway/index.js';
import { decodeForm, encodeForm } from '../../core/codecs/form.js';
import { readXml, writeXml } from '../../core/codecs/xml.js';
import type { OperationKey } from '../../core/model.js';
import type { Profile } from '../../core/profile/load.js';
import { sign } from '../../core/signing.js';
import { kitSpec, type SpecModel } from '../../core/spec/load.js';

/** An answer as the fault sees it: status, headers, the text, and the decoded top-level object of a JSON or XML body. */
export interface ProxyAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The decoded body (JSON object, or the XML root's fields): edit it in place and return true to have it rewritten. */
  body?: Record<string, unknown>;
  /** The XML root element, for an XML body. */
  root?: string;
}

/** What a fault knows of the exchange it may rewrite. */
export interface ProxyContext {
  /** The operation of the interface the request is for (by path, and `payment_method` on `/v1/authorise`). */
  operation?: OperationKey;
  method: string;
  path: string;
  /** The request body as the kit sent it (JSON or form fields). */
  request: Record<string, unknown>;
  spec: SpecModel;
  profile: Profile;
  /** State a fault keeps across the run's exchanges. */
  state: Map<string, unknown>;
}

/** One way a gateway misbehaves, as a rewrite of what passes through the proxy. */
export interface ProxyFault {
  name: string;
  description: string;
  /** A request body to send the gateway instead of the kit's, or undefined to send it as it is. */
  request?(ctx: ProxyContext): Record<string, unknown> | undefined;
  /**
   * Rewrite an answer: edit `answer.body` in place (the proxy writes and signs it again) or set `status`/`text`, and
   * return true; false leaves the answer as the gateway gave it.
   */
  answer?(ctx: ProxyContext, answer: ProxyAnswer): boolean;
}

/** A started proxy with the gateway behind it. */
export interface FaultProxy {
  /** The URL the kit targets. */
  url: string;
  merchantId: string;
  accountId: string;
  secret: string;
  gateway: RunningGateway;
  /** Requests and answers the fault rewrote so far (a case whose fault never applied proves nothing). */
  rewrites(): number;
  close(): Promise<void>;
}

function readAll(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The request body as fields, and how it was written (JSON, or form fields). */
function parseRequest(text: string): { body: Record<string, unknown>; json: boolean } {
  try {
    const value = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) return { body: value, json: true };
  } catch {
    // form fields
  }
  return { body: decodeForm(text), json: false };
}

/** The operation a request is for, read from its path (and `payment_method` on the shared authorise path). */
function operationOf(spec: SpecModel, path: string, body: Record<string, unknown>): OperationKey | undefined {
  const pathname = path.split('?')[0];
  const ops = [...spec.operations.values()].filter((op) => op.path === pathname);
  if (ops.length <= 1) return ops[0]?.key;
  return ops.find((op) =>
    op.when?.present ? body[op.when.present] !== undefined : body[op.when?.absent ?? ''] === undefined,
  )?.key;
}

/** The decoded object of a JSON or XML answer, undefined for anything else. */
function decodeAnswer(answer: ProxyAnswer): void {
  const type = answer.headers['content-type'] ?? '';
  if (/json/.test(type)) {
    try {
      const value = JSON.parse(answer.text);
      if (value && typeof value === 'object' && !Array.isArray(value)) answer.body = value;
    } catch {
      // not JSON after all: left as text
    }
  } else if (/xml/.test(type)) {
    const read = readXml(answer.text);
    if (read.ok) {
      answer.body = read.value;
      answer.root = read.root;
    }
  }
}

/** Start the reference gateway behind a proxy applying `fault` (none: the identity pass-through). */
export async function startFaultProxy(fault?: ProxyFault, options: { profile?: string } = {}): Promise<FaultProxy> {
  const spec = kitSpec();
  const state = new Map<string, unknown>();
  let rewrites = 0;
  let gateway: RunningGateway | undefined;
  let secret = '';

  const forward = (
    req: http.IncomingMessage,
    body: Buffer,
  ): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer } | undefined> =>
    new Promise((resolve) => {
      // From the kit's own source address, so the gateway's address rule for queries sees the kit.
      const local = req.socket.remoteAddress?.replace(/^::ffff:/, '');
      const headers = { ...req.headers, host: new URL(gateway!.url).host };
      delete headers['content-length'];
      const out = http.request(
        `${gateway!.url}${req.url}`,
        {
          method: req.method,
          headers: { ...headers, 'content-length': String(body.length) },
          ...(local && /^127\./.test(local) ? { localAddress: local } : {}),
        },
        (r) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => resolve({ status: r.statusCode ?? 502, headers: r.headers, body: Buffer.concat(chunks) }));
          r.on('error', () => resolve(undefined));
        },
      );
      out.on('error', () => resolve(undefined));
      out.end(body);
    });

  const server = http.createServer(async (req, res) => {
    try {
      let raw = await readAll(req);
      const { body: request, json } = parseRequest(raw.toString('utf8'));
      const ctx: ProxyContext = {
        operation: operationOf(spec, req.url ?? '/', request),
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        request,
        spec,
        profile: gateway!.profile,
        state,
      };
      const instead = fault?.request?.(ctx);
      if (instead) {
        rewrites++;
        raw = Buffer.from(json ? JSON.stringify(instead) : encodeForm(instead));
        ctx.request = instead;
      }
      const upstream = await forward(req, raw);
      if (!upstream) {
        res.writeHead(502).end();
        return;
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(upstream.headers))
        if (v !== undefined && k !== 'content-length' && k !== 'transfer-encoding' && k !== 'connection')
          headers[k] = Array.isArray(v) ? v.join(', ') : v;
      const answer: ProxyAnswer = { status: upstream.status, headers, text: upstream.body.toString('utf8') };
      if (fault?.answer) {
        decodeAnswer(answer);
        const before = answer.body ? JSON.stringify(answer.body) : undefined;
        const text = answer.text;
        if (fault.answer(ctx, answer)) {
          rewrites++;
          if (answer.body && answer.text === text && JSON.stringify(answer.body) !== before) {
            // Signed again as the gateway signs its answers: the fault is the only thing wrong with the answer.
            if (ctx.operation && typeof answer.body.encryption_data === 'string') {
              const signature = sign(gateway!.profile.signature, 'response', ctx.operation, answer.body, secret);
              if (signature !== undefined) answer.body.encryption_data = signature;
            }
            answer.text = answer.root ? writeXml(answer.root, answer.body) : JSON.stringify(answer.body);
          }
        }
      }
      res.writeHead(answer.status, answer.headers).end(answer.text);
    } catch (e) {
      res.writeHead(599, { 'content-type': 'text/plain' }).end(`proxy error: ${(e as Error).message}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  gateway = await startGateway({
    port: 0,
    host: '127.0.0.1',
    baseUrl: url,
    ...(options.profile ? { profile: options.profile } : {}),
  });
  const merchant = gateway.config.merchants[0]!;
  const account = merchant.accounts[0]!;
  secret = account.secret ?? merchant.secret!;
  return {
    url,
    merchantId: merchant.merchantId,
    accountId: account.accountId,
    secret,
    gateway,
    rewrites: () => rewrites,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await gateway?.close();
    },
  };
}
