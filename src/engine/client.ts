/**
 * The ProbeClient: builds sample requests from the spec's examples, encodes and signs them as the profile says,
 * sends them with undici (timeout, size cap, no redirects, optional source address, CA file and proxy), decodes
 * the responses and records every exchange with masked evidence.
 */
import { isUtf8 } from 'node:buffer';
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { request, type Dispatcher } from 'undici';
import { encodeForm } from '../codecs/form.js';
import { holdsSecret, maskText, type MaskRules } from '../mask.js';
import type { DecodedBody, Exchange, ExchangeRecord, OperationKey, ProbeClient, ReceivedResponse, RunConfigView, SentRequest } from '../model.js';
import type { Profile } from '../profile/load.js';
import { sign, stringToSign, verify } from '../signing.js';
import type { SpecModel } from '../spec/load.js';
import { decodeBody, decodeExternal, formatOfMediaType } from './decode.js';
import { buildEvidence, exchangeRecord, maskRulesFor } from './evidence.js';
import { dispatcherPool } from './dispatch.js';
import { egressPolicy } from './egress.js';
import { createLimiter, type Limiter } from './limiter.js';
import type { NotificationSource } from './receiver.js';
import { sampleBody } from './sample.js';

/** How requests travel. */
export interface TransportOptions {
  timeoutMs: number;
  maxResponseBytes: number;
  caFile?: string;
  proxy?: string;
  concurrency: number;
  /** Requests per second (0: no limit). */
  rate: number;
  /** Hosts besides the target's origin the kit may request (`allowedHosts`); see egress.ts. */
  allowedHosts?: string[];
}

/** Everything a client needs. */
export interface ClientOptions {
  spec: SpecModel;
  profile: Profile;
  config: RunConfigView;
  secret: string;
  cardSecurityCode: string;
  transport: TransportOptions;
  notifications?: NotificationSource;
  /** Short tag making exchange ids and order numbers unique across the run's workers. */
  tag: string;
  /** Keep a copy of every request as sent (unmasked, memory only) for the benchmark's replay. */
  captureReplay?: boolean;
  /** `false`: HTML pages are not read into a form model (a client of the main thread, which starts no reader thread). */
  readPages?: boolean;
}

/** A request as sent, for replay by a plain HTTP client (holds test card data: memory only, never written). */
export interface ReplayRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  bodyText: string;
  localAddress?: string;
  /** When it was sent (epoch ms) and how long the exchange took. */
  sentAt: number;
  durationMs: number;
}

/** A ProbeClient counting the exchanges made through it (one per probe run, so concurrent probes count apart). */
export interface ScopedClient extends ProbeClient {
  /** Exchanges made through this client (count and printable records), and their replay copies when captured. */
  usage(): { exchanges: number; records: ExchangeRecord[]; replay: ReplayRequest[] };
}

/** The engine's side of a ProbeClient. */
export interface KitClient extends ProbeClient {
  /** A client for one probe run, sharing this one's transport, counters and receiver. */
  scoped(): ScopedClient;
  readonly maskRules: MaskRules;
  close(): Promise<void>;
}

type SendOptions = NonNullable<Parameters<ProbeClient['send']>[2]>;

const MEDIA_TYPES = { json: 'application/json', form: 'application/x-www-form-urlencoded' } as const;

function headerRecord(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v.join(', ') : String(v ?? '')]));
}

/** Fill a profile header template: `{request.<field>}` takes the top-level field's value, other placeholders are empty. */
function fillTemplate(template: string, body: Record<string, unknown>): string {
  return template.replace(/\{([^}]*)\}/g, (_, name: string) => {
    const value = name.startsWith('request.') ? body[name.slice('request.'.length)] : undefined;
    return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
  });
}

function transportError(e: unknown): NonNullable<Exchange['error']> {
  const err = e as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = err.code ?? err.cause?.code ?? err.name ?? 'Error';
  if (code === 'PAGI_OFF_TARGET') return { kind: 'off-target', message: `not requested: ${err.cause?.message ?? err.message}` };
  const timeout = /TimeoutError|AbortError|UND_ERR_(HEADERS|BODY|CONNECT)_TIMEOUT/.test(`${err.name} ${code}`);
  return { kind: timeout ? 'timeout' : 'network', message: `${code}: ${err.cause?.message ?? err.message ?? String(e)}` };
}

async function readCapped(body: Dispatcher.ResponseData['body'], cap: number): Promise<{ text: string; truncated: boolean; utf8: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (size + chunk.length > cap) {
      chunks.push(chunk.subarray(0, cap - size));
      body.destroy(); // stop reading past the cap
      return { text: Buffer.concat(chunks).toString('utf8'), truncated: true, utf8: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  const bytes = Buffer.concat(chunks);
  return { text: bytes.toString('utf8'), truncated: false, utf8: isUtf8(bytes) };
}

const UTF8 = /^utf-?8$/i;

/**
 * Whether a body must be UTF-8: JSON always (RFC 8259), XML unless its charset or its declaration names another
 * encoding. HTML may be in any encoding its page declares: not judged here.
 */
function mustBeUtf8(contentType: string | undefined, text: string): boolean {
  const format = formatOfMediaType(contentType);
  if (format === 'json') return true;
  if (format !== 'xml') return false;
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1];
  const declared = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([^"']+)["']/.exec(text)?.[1];
  return [charset, declared].every((name) => name === undefined || UTF8.test(name));
}

/**
 * Decode a body; a reader that gives up (bytes that are not UTF-8, nesting past a parser's limit, anything it throws)
 * makes the body undecodable, which the checks report, never a transport failure.
 */
async function decodeSafely(contentType: string | undefined, text: string, utf8: boolean, decode: () => Promise<DecodedBody>): Promise<DecodedBody> {
  const format = formatOfMediaType(contentType) ?? 'unknown';
  if (!utf8 && mustBeUtf8(contentType, text)) return { kind: 'undecodable', format, problem: 'the body is not valid UTF-8' };
  try {
    return await decode();
  } catch (e) {
    return { kind: 'undecodable', format, problem: `the reader gave up: ${(e as Error).message ?? String(e)}` };
  }
}

/** Where a response carries the secret of the run (its body, a header name, a header value). */
function secretEchoes(body: string, headers: Record<string, string>, rules: MaskRules): NonNullable<ReceivedResponse['secretEchoed']> {
  const where: NonNullable<ReceivedResponse['secretEchoed']> = [];
  if (!rules.secrets?.length) return where;
  if (holdsSecret(body, rules)) where.push('body');
  if (Object.keys(headers).some((name) => holdsSecret(name, rules))) where.push('header name');
  if (Object.values(headers).some((value) => holdsSecret(value, rules))) where.push('header value');
  return where;
}

/** Create the client of one worker. */
export function createProbeClient(options: ClientOptions): KitClient {
  const { spec, profile, config, secret, transport } = options;
  const limiter: Limiter = createLimiter(transport.concurrency, transport.rate);
  const maskRules = maskRulesFor(profile, secret, Object.values(config.cards));
  const ca = transport.caFile ? fs.readFileSync(transport.caFile) : undefined;
  const egress = egressPolicy(config.baseUrl, transport.allowedHosts);
  const dispatchers = dispatcherPool({ ...transport, lookup: egress.lookup }, ca);
  let exchangeCount = 0;
  let orderCount = 0;

  const orderNo = (): string => `${config.orderPrefix}-${options.tag}-${++orderCount}`;

  // Control calls to the receiver (refusals) complete before the next request leaves.
  let control: Promise<void> = Promise.resolve();

  const exchange = async (operation: OperationKey | 'external', sent: SentRequest): Promise<Exchange> => {
    await control;
    const id = `${operation}#${options.tag}.${++exchangeCount}`;
    const startedAt = new Date();
    const t0 = performance.now();
    let response: ReceivedResponse | undefined;
    let error: Exchange['error'];
    // A URL the target handed over is requested only when the run's egress policy allows it.
    const offTarget = operation === 'external' ? egress.refusal(sent.url) : undefined;
    if (offTarget) error = { kind: 'off-target', message: maskText(`not requested: ${offTarget}`, maskRules) };
    else await limiter.run(async () => {
      try {
        const res = await request(sent.url, {
          method: sent.method as Dispatcher.HttpMethod,
          headers: sent.headers,
          body: sent.bodyText,
          dispatcher: dispatchers.for(sent.localAddress),
          headersTimeout: transport.timeoutMs,
          bodyTimeout: transport.timeoutMs,
          signal: AbortSignal.timeout(transport.timeoutMs),
        });
        const headers = headerRecord(res.headers);
        const { text, truncated, utf8 } = await readCapped(res.body, transport.maxResponseBytes);
        const decoded: DecodedBody =
          options.readPages === false && formatOfMediaType(headers['content-type']) === 'html'
            ? { kind: 'undecodable', format: 'html', problem: 'page not read' }
            : await decodeSafely(headers['content-type'], text, utf8, () =>
                operation === 'external'
                  ? decodeExternal(headers['content-type'], text, truncated)
                  : decodeBody(spec, profile, operation, res.statusCode, headers['content-type'], text, truncated),
              );
        response = { status: res.statusCode, headers, bodyText: text, truncated, decoded };
        const echoed = secretEchoes(text, headers, maskRules);
        if (echoed.length) response.secretEchoed = echoed;
        if (truncated) error = { kind: 'too-large', message: `response larger than ${transport.maxResponseBytes} bytes; cut at the cap` };
        else if (res.statusCode >= 300 && res.statusCode < 400 && headers.location !== undefined) {
          let elsewhere: string | undefined;
          try {
            elsewhere = egress.refusal(new URL(headers.location, sent.url).href);
          } catch {
            elsewhere = 'not a URL';
          }
          error = { kind: 'redirect', message: maskText(`redirect to ${headers.location} not followed${elsewhere ? ` (${elsewhere})` : ''}`, maskRules) };
        }
      } catch (e) {
        error = transportError(e);
        error.message = maskText(error.message, maskRules);
      }
    });
    const record: Exchange = {
      id,
      operation,
      request: sent,
      startedAt: startedAt.toISOString(),
      durationMs: Math.round((performance.now() - t0) * 10) / 10,
      evidence: buildEvidence(sent, response, maskRules),
    };
    if (response) record.response = response;
    if (error) record.error = error;
    return record;
  };

  const client: KitClient = {
    maskRules,
    orderNo,
    sample(operation, overrides) {
      return sampleBody(spec, profile, { config, cardSecurityCode: options.cardSecurityCode }, operation, { orderNo: orderNo(), requestId: randomUUID() }, overrides);
    },
    async send(operation, body, sendOptions: SendOptions = {}) {
      const op = spec.operations.get(operation);
      if (!op) throw new Error(`no operation ${operation} in the spec`);
      const encoding = sendOptions.encoding ?? profile.requestMedia.types[operation];
      let sentBody = body;
      let bodyText: string;
      if (sendOptions.rawBody !== undefined) bodyText = sendOptions.rawBody;
      else {
        if (sendOptions.sign !== false) {
          const signature = sign(profile.signature, 'request', operation, sendOptions.signedBody ?? body, secret);
          if (signature !== undefined) sentBody = { ...body, encryption_data: signature };
        }
        bodyText = encoding === 'json' ? JSON.stringify(sentBody) : encodeForm(sentBody);
      }
      const headers: Record<string, string> = { 'content-type': sendOptions.contentType ?? `${MEDIA_TYPES[encoding]}; charset=${profile.requestMedia.charset}` };
      for (const [name, template] of Object.entries(profile.requestHeaders.headers ?? {})) headers[name.toLowerCase()] = fillTemplate(template, sentBody);
      const sent: SentRequest = {
        method: (sendOptions.method ?? op.method).toUpperCase(),
        url: config.baseUrl + (sendOptions.path ?? op.path),
        headers,
        body: sentBody,
        bodyText,
        encoding: sendOptions.rawBody !== undefined ? 'raw' : encoding,
      };
      const localAddress = sendOptions.localAddress;
      if (localAddress) sent.localAddress = localAddress;
      return exchange(operation, sent);
    },
    async notifications(key, ms, atLeast) {
      await control;
      return options.notifications ? options.notifications.notifications(key, ms, atLeast) : [];
    },
    verifySignature(operation, direction, body) {
      if (stringToSign(profile.signature, direction, operation, body) === undefined) return undefined;
      return verify(profile.signature, direction, operation, body, secret);
    },
    follow(url, page = {}) {
      const method = (page.method ?? 'GET').toUpperCase();
      const target = new URL(url);
      const headers: Record<string, string> = {};
      let bodyText = '';
      if (page.form && method === 'GET') target.search = new URLSearchParams(page.form).toString();
      else if (page.form) {
        bodyText = new URLSearchParams(page.form).toString();
        headers['content-type'] = MEDIA_TYPES.form;
      }
      return exchange('external', { method, url: target.href, headers, body: page.form, bodyText, encoding: page.form ? 'form' : 'raw' });
    },
    ...(options.notifications?.refuse
      ? {
          refuseNotifications(key: string) {
            const refuse = options.notifications!.refuse!.bind(options.notifications);
            control = control.then(() => refuse(key));
          },
        }
      : {}),
    scoped() {
      let exchanges = 0;
      const records: ExchangeRecord[] = [];
      const replay: ReplayRequest[] = [];
      const counted = async (x: Promise<Exchange>, record = true): Promise<Exchange> => {
        const done = await x;
        exchanges++;
        if (record) records.push(exchangeRecord(done));
        if (options.captureReplay) {
          const r = done.request;
          const timing = { sentAt: Date.parse(done.startedAt), durationMs: done.durationMs };
          replay.push({ method: r.method, url: r.url, headers: r.headers, bodyText: r.bodyText, ...timing, ...(r.localAddress ? { localAddress: r.localAddress } : {}) });
        }
        return done;
      };
      return {
        sample: client.sample,
        orderNo: client.orderNo,
        notifications: client.notifications,
        verifySignature: client.verifySignature,
        ...(client.refuseNotifications ? { refuseNotifications: client.refuseNotifications } : {}),
        send: (operation, body, sendOptions) => counted(client.send(operation, body, sendOptions), sendOptions?.record !== false),
        follow: (url, page) => counted(client.follow!(url, page)),
        usage: () => ({ exchanges, records, replay }),
      };
    },
    async close() {
      await dispatchers.close();
    },
  };
  return client;
}
