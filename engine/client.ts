/**
 * The ProbeClient: builds sample requests from the spec's examples, encodes and signs them as the profile says,
 * sends them with undici (timeout, size cap, no redirects, optional source address, CA file and proxy), decodes
 * the responses and records every exchange with masked evidence.
 */
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { encodeForm } from '../core/codecs/form.js';
import { holdsSecret, maskText, noteSentCardValues, type MaskRules } from '../core/mask.js';
import type {
  DecodedBody,
  Exchange,
  ExchangeRecord,
  OperationKey,
  ProbeClient,
  ReceivedResponse,
  RunConfigView,
  SentRequest,
} from '../core/model.js';
import type { Profile } from '../core/profile/load.js';
import { sign, signedView, stringToSign, verify } from '../core/signing.js';
import type { SpecModel } from '../core/spec/load.js';
import { decodeBody, decodedValues, decodeExternal, formatOfMediaType, overLimitBody, readerOf } from './decode.js';
import {
  buildEvidence,
  cardFieldNames,
  curlVariablesFor,
  exchangeRecord,
  maskRulesFor,
  signatureCommand,
} from './evidence.js';
import { dispatcherPool } from './dispatch.js';
import { egressPolicy } from './egress.js';
import { chainRecorder, type ChainStep } from './chain.js';
import { createLimiter, type Limiter } from './limiter.js';
import type { NotificationSource } from './receiver.js';
import { sampleBody } from './sample.js';
import { replayWriter, type ReplayFile, type ReplayRequest } from './replay-file.js';
import { renderHeaderValue } from '../core/profile/template.js';
import { ifStated } from '../core/profile/reads.js';
import { attachSpool, readSpool } from './spool.js';
import { type LedgerMark, RunLedger } from './ledger.js';
import { type BodyRead, exchangeOnce } from './transport.js';
import { OffTargetError } from '../core/types/errors.js';

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
  /** Write the replay copies to this file (encrypted) instead of keeping them (a deep run's memory stays flat). */
  replayFile?: ReplayFile;
  /** `false`: HTML pages are not read into a form model (a client of the main thread, which starts no reader thread). */
  readPages?: boolean;
  /** True once the run is interrupted: no request is sent after that. */
  stopped?: () => boolean;
  /** Folder large bodies are spooled to (default: one of this thread's, removed at exit). */
  spoolDir?: string;
}

export type { ReplayRequest } from './replay-file.js';

/** A ProbeClient counting the exchanges made through it (one per probe run, so concurrent probes count apart). */
export interface ScopedClient extends ProbeClient {
  /**
   * Exchanges made through this client (count and printable records), and their replay copies when captured, with
   * the steps (requests and notification waits) in the order they completed and what each waited for (chain.ts).
   */
  usage(): { exchanges: number; records: ExchangeRecord[]; replay: ReplayRequest[]; chain?: ChainStep[] };
}

/** The engine's side of a ProbeClient. */
export interface KitClient extends ProbeClient {
  /** A client for one probe run, sharing this one's transport, counters and receiver. */
  scoped(): ScopedClient;
  readonly maskRules: MaskRules;
  /** Write the buffered replay copies to the replay file, if there is one. */
  flushReplay(): void;
  close(): Promise<void>;
}

type SendOptions = NonNullable<Parameters<ProbeClient['send']>[2]>;

const MEDIA_TYPES = { json: 'application/json', form: 'application/x-www-form-urlencoded' } as const;

/** A response header as one string (repeated ones joined), or undefined. */
function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

function headerRecord(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(headers)) {
    const v = headers[k];
    const name = k.toLowerCase();
    const value = Array.isArray(v) ? v.join(', ') : String(v ?? '');
    // A header named __proto__ stays a field, as Object.fromEntries made it.
    if (name === '__proto__')
      Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
    else out[name] = value;
  }
  return out;
}

/**
 * Fill a profile header template: `{request.<field>}` takes the top-level field's value, other placeholders are
 * empty. A character a header value cannot carry (a generated negative value's control or non-ASCII character) is
 * percent-encoded, so the request still goes out (and the target judges the mismatch).
 */
function transportError(e: unknown): NonNullable<Exchange['error']> {
  const err = e as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = err.code ?? err.cause?.code ?? err.name ?? 'Error';
  if (code === new OffTargetError().code)
    return { kind: 'off-target', message: `not requested: ${err.cause?.message ?? err.message}` };
  const timeout = /TimeoutError|AbortError|UND_ERR_(HEADERS|BODY|CONNECT)_TIMEOUT/.test(`${err.name} ${code}`);
  return {
    kind: timeout ? 'timeout' : 'network',
    message: `${code}: ${err.cause?.message ?? err.message ?? String(e)}`,
  };
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
async function decodeSafely(
  contentType: string | undefined,
  text: string,
  utf8: boolean,
  decode: () => Promise<DecodedBody>,
): Promise<DecodedBody> {
  const format = formatOfMediaType(contentType) ?? 'unknown';
  if (!utf8 && mustBeUtf8(contentType, text))
    return { kind: 'undecodable', format, problem: 'the body is not valid UTF-8' };
  try {
    return await decode();
  } catch (e) {
    return { kind: 'undecodable', format, problem: `the reader gave up: ${(e as Error).message ?? String(e)}` };
  }
}

/** Where a response carries the secret of the run (its body, a header name, a header value). */
function secretEchoes(
  body: string,
  headers: Record<string, string>,
  rules: MaskRules,
): NonNullable<ReceivedResponse['secretEchoed']> {
  const where: NonNullable<ReceivedResponse['secretEchoed']> = [];
  if (!rules.secrets?.length) return where;
  if (holdsSecret(body, rules)) where.push('body');
  if (Object.keys(headers).some((name) => holdsSecret(name, rules))) where.push('header name');
  if (Object.values(headers).some((value) => holdsSecret(value, rules))) where.push('header value');
  return where;
}

/** Whether a spooled body holds the secret, read back a piece at a time (never held whole). */
function spoolHoldsSecret(file: string, rules: MaskRules): boolean {
  if (!rules.secrets?.length) return false;
  // A written form of the secret is at most 6 times its length: kept from each piece into the next.
  const overlap = Math.max(...rules.secrets.map((x) => x.length * 6));
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const buffer = Buffer.alloc(1 << 20);
    let carry = '';
    for (let n = fs.readSync(fd, buffer); n > 0; n = fs.readSync(fd, buffer)) {
      const text = carry + buffer.toString('utf8', 0, n);
      if (holdsSecret(text, rules)) return true;
      carry = text.slice(-overlap);
    }
    return false;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * Rounds of timeouts in a row after which an operation's further requests are not sent (their exchanges fail at
 * once). Requests in flight together count as one round: a round is a timeout of a request sent after the previous
 * round's timeout, so a slow start that times out every request in flight counts once.
 */
const UNANSWERED_BEFORE_GIVING_UP = 2;

/** The last second `isoTime` printed, and its text up to the milliseconds. */
let isoSecond = Number.NaN;
let isoPrefix = '';

/**
 * `new Date(ms).toISOString()`, the date and time printed once per second (an exchange's start is printed for each
 * of a deep run's hundreds of thousands of requests, many in the same second).
 */
export function isoTime(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms >= 253_402_300_800_000) return new Date(ms).toISOString();
  const second = Math.floor(ms / 1000);
  if (second !== isoSecond) {
    isoSecond = second;
    isoPrefix = new Date(second * 1000).toISOString().slice(0, 20);
  }
  const milli = ms - second * 1000;
  return `${isoPrefix}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
}

/** An operation answered since its last timeout (the entries of `unanswered` are replaced, never changed). */
const NOT_UNANSWERED = Object.freeze({ rounds: 0, lastAt: 0 });

/** A sample's fresh values: its order number, and an idempotency key made only when the sample has one (payouts). */
class FreshValues {
  constructor(readonly orderNo: string) {}
  get requestId(): string {
    return randomUUID();
  }
}

/** What every exchange of one worker's client shares: its transport, counters, masking and receiver controls. */
interface ClientState {
  options: ClientOptions;
  limiter: Limiter;
  maskRules: MaskRules;
  curlVariables: ReturnType<typeof curlVariablesFor>;
  cardFields: string[];
  egress: ReturnType<typeof egressPolicy>;
  dispatchers: ReturnType<typeof dispatcherPool>;
  exchangeCount: number;
  /** Control calls to the receiver (refusals) complete before the next request leaves. */
  control: Promise<void>;
  /** Rounds of timeouts in a row per operation: a target that leaves an operation unanswered costs a few timeouts, not one per request. */
  unanswered: Map<string, Readonly<{ rounds: number; lastAt: number }>>;
  /** The run's ledger: every exchange with an operation, and the notifications received. */
  ledger: RunLedger;
}

/** A request's trip: when it left, and the answer's head and body reader, or why there is none. */
interface Trip {
  startedAt: number;
  t0: number;
  got?: { status: number; headers: Record<string, string>; read: BodyRead };
  error?: Exchange['error'];
}

/**
 * Send one request within the limiter (its place, the run's stop, an operation left unanswered too often), and note
 * a timeout against its operation. A URL the target handed over goes only where the run's egress policy allows.
 */
async function travel(
  state: ClientState,
  operation: OperationKey | 'external',
  sent: SentRequest,
  priority: number,
): Promise<Trip> {
  const { options, maskRules, unanswered } = state;
  const { spec, profile, transport } = options;
  // Timed from when the request leaves, not from when it joined the kit's own queue (the limiter).
  const trip: Trip = { startedAt: Date.now(), t0: performance.now() };
  const offTarget = operation === 'external' ? state.egress.refusal(sent.url) : undefined;
  if (offTarget) {
    trip.error = { kind: 'off-target', message: maskText(`not requested: ${offTarget}`, maskRules) };
    return trip;
  }
  await state.limiter.run(async () => {
    trip.startedAt = Date.now();
    trip.t0 = performance.now();
    const given = unanswered.get(operation) ?? NOT_UNANSWERED;
    if (options.stopped?.()) {
      trip.error = { kind: 'network', message: 'not sent: the run was interrupted' };
      return;
    }
    if (given.rounds >= UNANSWERED_BEFORE_GIVING_UP) {
      trip.error = {
        kind: 'timeout',
        message: `not sent: the target left ${operation} unanswered ${given.rounds} times in a row (${transport.timeoutMs} ms each)`,
      };
      return;
    }
    const sentAt = trip.t0;
    try {
      const res = await exchangeOnce(
        state.dispatchers.for(sent.localAddress),
        { url: sent.url, method: sent.method, headers: sent.headers, body: sent.bodyText },
        {
          timeoutMs: transport.timeoutMs,
          maxResponseBytes: transport.maxResponseBytes,
          spoolDir: options.spoolDir,
          readerOf: (status, headers) =>
            readerOf(
              spec,
              profile,
              operation,
              status,
              headerValue(headers['content-type']),
              headerValue(headers['content-encoding']),
            ),
        },
      );
      trip.got = { status: res.status, headers: headerRecord(res.headers), read: res.read };
    } catch (e) {
      trip.error = transportError(e);
      trip.error.message = maskText(trip.error.message, maskRules);
    }
    const now = unanswered.get(operation) ?? NOT_UNANSWERED;
    if (trip.error?.kind !== 'timeout') {
      if (now !== NOT_UNANSWERED) unanswered.set(operation, NOT_UNANSWERED);
    } else if (sentAt >= now.lastAt) unanswered.set(operation, { rounds: now.rounds + 1, lastAt: performance.now() });
  }, priority);
  return trip;
}

/** An answer read: the response as the checks see it, the head of a spooled body, what went wrong reading it. */
interface Answer {
  response?: ReceivedResponse;
  head?: string;
  error?: Exchange['error'];
}

/**
 * Read an answer that came (its place among the requests in flight already given to the next one): decode its body
 * within its reader's bounds, note where it echoes the secret, refuse a redirect and a body cut at the size cap.
 */
async function readAnswer(
  state: ClientState,
  operation: OperationKey | 'external',
  sent: SentRequest,
  got: NonNullable<Trip['got']>,
  readErrorPages: boolean,
): Promise<Answer> {
  const { options, maskRules } = state;
  const { spec, profile, transport } = options;
  const { headers, read } = got;
  const status = got.status;
  const answer: Answer = {};
  try {
    const { truncated, bytes } = read;
    const skipPage =
      (options.readPages === false || (readErrorPages === false && status >= 400)) &&
      formatOfMediaType(headers['content-type']) === 'html';
    // A body past its reader's bounds, found as it arrived, is not read back: refused as the reader would (an
    // XML body declaring a DOCTYPE goes the usual way: the reader refuses that first).
    const over = !truncated && read.utf8 && !skipPage && !read.over?.declares ? read.over : undefined;
    // A truncated body is not decoded (it is cut): a spooled one is read back only when it was whole.
    const text = read.text ?? (truncated || over ? read.head : readSpool(read.spool!));
    const decoded: DecodedBody = over
      ? overLimitBody(over.format, over.over)
      : skipPage
        ? { kind: 'undecodable', format: 'html', problem: 'page not read' }
        : await decodeSafely(headers['content-type'], text, read.utf8, () =>
            operation === 'external'
              ? decodeExternal(headers['content-type'], text, truncated, headers['content-encoding'])
              : decodeBody(
                  spec,
                  profile,
                  operation,
                  status,
                  headers['content-type'],
                  text,
                  truncated,
                  headers['content-encoding'],
                ),
          );
    const response: ReceivedResponse = { status, headers, bodyText: read.text ?? '', truncated, decoded, bytes };
    answer.response = response;
    const echoed = secretEchoes(text, headers, maskRules);
    // Decoded as well as raw: a secret written with escapes or character references is still the secret.
    if (!echoed.includes('body') && holdsSecret(decodedValues(decoded), maskRules)) echoed.unshift('body');
    if (over && !echoed.includes('body') && spoolHoldsSecret(read.spool!, maskRules)) echoed.unshift('body');
    if (echoed.length) response.secretEchoed = echoed;
    if (read.spool) {
      attachSpool(response, read.spool);
      answer.head = read.head;
    }
    if (truncated)
      answer.error = {
        kind: 'too-large',
        message: `response larger than ${transport.maxResponseBytes} bytes; cut at the cap`,
      };
    else if (status >= 300 && status < 400 && headers.location !== undefined)
      answer.error = redirectRefused(state, sent, headers.location);
  } catch (e) {
    answer.error = transportError(e);
    answer.error.message = maskText(answer.error.message, maskRules);
  }
  return answer;
}

/** A redirect is never followed: the error saying so, and whether its place is one the run may not request. */
function redirectRefused(state: ClientState, sent: SentRequest, location: string): NonNullable<Exchange['error']> {
  let elsewhere: string | undefined;
  try {
    elsewhere = state.egress.refusal(new URL(location, sent.url).href);
  } catch {
    elsewhere = 'not a URL';
  }
  return {
    kind: 'redirect',
    message: maskText(`redirect to ${location} not followed${elsewhere ? ` (${elsewhere})` : ''}`, state.maskRules),
  };
}

/**
 * One exchange: the request sent, its answer read, recorded with evidence masked and printed when first read (a
 * finding, a record for the reports): most generated exchanges pass and are never printed, so they never pay for
 * masking and curl lines.
 */
async function exchange(
  state: ClientState,
  operation: OperationKey | 'external',
  sent: SentRequest,
  signature?: () => string | undefined,
  priority = 0,
  readErrorPages = true,
): Promise<Exchange> {
  await state.control;
  const id = `${operation}#${state.options.tag}.${++state.exchangeCount}`;
  // Every value sent in a card field is card data from now on (mask.ts): the long ones masked wherever they
  // appear, the short ones where this exchange's answer holds them as a whole value.
  const body = sent.body;
  const echoes = body ? noteSentCardValues(state.cardFields.map((f) => body[f])) : [];
  const trip = await travel(state, operation, sent, priority);
  const answer = trip.got ? await readAnswer(state, operation, sent, trip.got, readErrorPages) : {};
  const error = answer.error ?? trip.error;
  let evidence: Exchange['evidence'] | undefined;
  const { response, head } = answer;
  const { maskRules, curlVariables } = state;
  const record = {
    id,
    operation,
    request: sent,
    startedAt: isoTime(trip.startedAt),
    durationMs: Math.round((performance.now() - trip.t0) * 10) / 10,
    get evidence(): Exchange['evidence'] {
      return (evidence ??= buildEvidence(sent, response, maskRules, head, curlVariables, signature?.(), echoes));
    },
    set evidence(value: Exchange['evidence']) {
      evidence = value;
    },
  } as Exchange;
  if (response) record.response = response;
  if (error) record.error = error;
  if (echoes.length) Object.defineProperty(record, 'sentCardEchoes', { value: echoes, enumerable: false });
  return record;
}

/**
 * The media type a request of `operation` is sent in: the profile's, or JSON when the profile does not state it but
 * states that the gateway reads either media (`requestMedia.acceptOther`): a draft of a gateway reading both leaves
 * the per-operation type out (which one the gateway documents shows in no answer). Otherwise a read of a point not
 * stated throws, as any read does.
 */
function mediaTypeOf(profile: Profile, operation: OperationKey): 'json' | 'form' {
  return (
    ifStated(() => profile.requestMedia.types[operation]) ??
    (profile.requestMedia.acceptOther ? 'json' : profile.requestMedia.types[operation])
  );
}

/** A request of an operation as the profile has it sent: encoded, signed, with the profile's headers. */
function operationRequest(
  state: ClientState,
  operation: OperationKey,
  body: Record<string, unknown>,
  sendOptions: SendOptions,
): { sent: SentRequest; command?: () => string | undefined; mark: LedgerMark } {
  const { spec, profile, config, secret } = state.options;
  const { curlVariables } = state;
  const op = spec.operations.get(operation);
  if (!op) throw new Error(`no operation ${operation} in the spec`);
  const encoding = sendOptions.encoding ?? mediaTypeOf(profile, operation);
  let sentBody = body;
  let bodyText: string;
  let command: (() => string | undefined) | undefined;
  if (sendOptions.rawBody !== undefined) bodyText = sendOptions.rawBody;
  else {
    if (sendOptions.sign !== false) {
      // Signed as the gateway reads it: a form body's fields as their text (requestMedia.formNestedValues).
      const signed =
        sendOptions.signedBody ?? signedView(body, encoding, profile.requestMedia.formNestedValues ?? 'decoded');
      const signature = sign(profile.signature, 'request', operation, signed, secret);
      if (signature !== undefined) {
        sentBody = { ...body, encryption_data: signature };
        command = () => signatureCommand(profile.signature, operation, signed, curlVariables);
      }
    }
    bodyText = encoding === 'json' ? JSON.stringify(sentBody) : encodeForm(sentBody);
  }
  const headers: Record<string, string> = {
    'content-type': sendOptions.contentType ?? `${MEDIA_TYPES[encoding]}; charset=utf-8`,
  };
  if (sendOptions.profileHeaders !== false)
    for (const [name, template] of Object.entries(profile.requestHeaders.headers ?? {}))
      headers[name.toLowerCase()] = renderHeaderValue(template, sentBody);
  const sent: SentRequest = {
    method: (sendOptions.method ?? op.method).toUpperCase(),
    url: config.baseUrl + (sendOptions.path ?? op.path),
    headers,
    body: sentBody,
    bodyText,
    encoding: sendOptions.rawBody !== undefined ? 'raw' : encoding,
  };
  if (sendOptions.localAddress) sent.localAddress = sendOptions.localAddress;
  const mark = ledgerMark(state, operation, sentBody, sendOptions, sent);
  return command ? { sent, command, mark } : { sent, mark };
}

/**
 * Whether a request authenticates, as the gateway should find: signed by the client (or carrying a signature that
 * verifies), for the run's merchant and account, with the profile's credential headers; and whether it went to the
 * operation's own path and method.
 */
function ledgerMark(
  state: ClientState,
  operation: OperationKey,
  body: Record<string, unknown>,
  sendOptions: SendOptions,
  sent: SentRequest,
): LedgerMark {
  const { spec, profile, config, secret } = state.options;
  const op = spec.operations.get(operation)!;
  const atOperation =
    sendOptions.rawBody === undefined &&
    (sendOptions.path === undefined || sendOptions.path === op.path) &&
    sent.method === op.method.toUpperCase();
  const ours = body.merchant_id === config.merchantId && body.account_id === config.accountId;
  const headers = sendOptions.profileHeaders !== false || !Object.keys(profile.requestHeaders.headers ?? {}).length;
  let signed = sendOptions.sign !== false && !sendOptions.signedBody;
  if (!signed) {
    const encoding = sent.encoding === 'form' ? 'form' : 'json';
    const view = signedView(body, encoding, profile.requestMedia.formNestedValues ?? 'decoded');
    // A profile that signs no request of the operation authenticates by the merchant's fields alone.
    signed =
      stringToSign(profile.signature, 'request', operation, view) === undefined ||
      verify(profile.signature, 'request', operation, view, secret);
  }
  return { authenticated: ours && headers && signed, atOperation };
}

type FollowPage = Parameters<NonNullable<ProbeClient['follow']>>[1];

/** A request to a URL a page handed over (a form submitted, a link followed): never signed, no profile headers. */
function followRequest(url: string, page: FollowPage = {}): SentRequest {
  const method = (page.method ?? 'GET').toUpperCase();
  const target = new URL(url);
  const headers: Record<string, string> = {};
  let bodyText = '';
  if (page.form && method === 'GET') target.search = new URLSearchParams(page.form).toString();
  else if (page.form) {
    bodyText = new URLSearchParams(page.form).toString();
    headers['content-type'] = MEDIA_TYPES.form;
  }
  return { method, url: target.href, headers, body: page.form, bodyText, encoding: page.form ? 'form' : 'raw' };
}

/** `send` and `follow` given the limiter priority of their request (the scoped clients' chain steps). */
type Prioritised = {
  send(
    operation: OperationKey,
    body: Record<string, unknown>,
    sendOptions: SendOptions | undefined,
    priority: number,
  ): Promise<Exchange>;
  follow(url: string, page: FollowPage, priority: number): Promise<Exchange>;
};

/** Create the client of one worker. */
export function createProbeClient(options: ClientOptions): KitClient {
  const { spec, profile, config, secret, transport } = options;
  const ca = transport.caFile ? fs.readFileSync(transport.caFile) : undefined;
  const egress = egressPolicy(config.baseUrl, transport.allowedHosts);
  const state: ClientState = {
    options,
    limiter: createLimiter(transport.concurrency, transport.rate),
    maskRules: maskRulesFor(profile, secret, Object.values(config.cards)),
    curlVariables: curlVariablesFor(profile),
    cardFields: cardFieldNames(profile),
    egress,
    dispatchers: dispatcherPool({ ...transport, lookup: egress.lookup }, ca),
    exchangeCount: 0,
    control: Promise.resolve(),
    unanswered: new Map(),
    ledger: new RunLedger(),
  };
  let orderCount = 0;
  const replayOut = options.replayFile ? replayWriter(options.replayFile) : undefined;
  const orderNo = (): string => `${config.orderPrefix}-${options.tag}-${++orderCount}`;
  const receiver = options.notifications;

  const client: KitClient & Prioritised = {
    maskRules: state.maskRules,
    orderNo,
    sample(operation, overrides) {
      return sampleBody(
        spec,
        profile,
        { config, cardSecurityCode: options.cardSecurityCode },
        operation,
        new FreshValues(orderNo()),
        overrides,
      );
    },
    async send(
      operation: OperationKey,
      body: Record<string, unknown>,
      sendOptions: SendOptions = {},
      priority: number = 0,
    ) {
      const { sent, command, mark } = operationRequest(state, operation, body, sendOptions);
      const done = await exchange(state, operation, sent, command, priority, sendOptions.readErrorPages);
      state.ledger.add(done, mark);
      return done;
    },
    async notifications(key, ms, atLeast) {
      await state.control;
      const received = receiver ? await receiver.notifications(key, ms, atLeast) : [];
      state.ledger.addNotifications(received);
      return received;
    },
    ledger: () => state.ledger,
    verifySignature(operation, direction, body) {
      if (stringToSign(profile.signature, direction, operation, body) === undefined) return undefined;
      return verify(profile.signature, direction, operation, body, secret);
    },
    follow(url: string, page: FollowPage = {}, priority: number = 0) {
      return exchange(state, 'external', followRequest(url, page), undefined, priority);
    },
    ...(receiver?.refusals ? { notificationRefusals: () => receiver.refusals!() } : {}),
    ...(receiver?.refuse
      ? {
          refuseNotifications(key: string) {
            const refuse = receiver.refuse!.bind(receiver);
            state.control = state.control.then(() => refuse(key));
          },
        }
      : {}),
    scoped: () => scopedClient(client, options, replayOut),
    flushReplay() {
      replayOut?.flush();
    },
    async close() {
      replayOut?.flush();
      await state.dispatchers.close();
    },
  };
  return client;
}

/**
 * A client for one probe run: it counts and records its exchanges, keeps their replay copies (a benchmark's), and
 * sends a request made after one of its answers came first (the next step of a chain, see limiter.ts).
 */
function scopedClient(
  client: KitClient & Prioritised,
  options: ClientOptions,
  replayOut: ReturnType<typeof replayWriter> | undefined,
): ScopedClient {
  let exchanges = 0;
  const records: ExchangeRecord[] = [];
  const replay: ReplayRequest[] = [];
  // Kept with the replay copies (a benchmark's): which of this probe's steps waited for which.
  const chain = options.captureReplay ? chainRecorder() : undefined;
  const tracked = <T>(work: () => Promise<T>, wait = false): Promise<T> => (chain ? chain.track(work, wait) : work());
  let answered = 0;
  const counted = async (send: (priority: number) => Promise<Exchange>, record = true): Promise<Exchange> => {
    const priority = answered > 0 ? 1 : 0;
    const done = await tracked(() => send(priority)).finally(() => void answered++);
    exchanges++;
    if (record) records.push(exchangeRecord(done));
    if (options.captureReplay || replayOut) {
      const copy = replayCopy(done);
      if (replayOut) replayOut.add(copy);
      else replay.push(copy);
    }
    return done;
  };
  return {
    sample: client.sample,
    orderNo: client.orderNo,
    notifications: (key, ms, atLeast) => tracked(() => client.notifications(key, ms, atLeast), true),
    verifySignature: client.verifySignature,
    ledger: client.ledger,
    ...(client.refuseNotifications ? { refuseNotifications: client.refuseNotifications } : {}),
    ...(client.notificationRefusals ? { notificationRefusals: client.notificationRefusals } : {}),
    send: (operation, body, sendOptions) =>
      counted((priority) => client.send(operation, body, sendOptions, priority), sendOptions?.record !== false),
    follow: (url, page) => counted((priority) => client.follow(url, page, priority)),
    usage: () => ({ exchanges, records, replay, ...(chain ? { chain: chain.steps } : {}) }),
  };
}

/** The replay copy of an exchange's request (unmasked, for the benchmark's bare client). */
function replayCopy(done: Exchange): ReplayRequest {
  const r = done.request;
  const copy: ReplayRequest = {
    method: r.method,
    url: r.url,
    headers: r.headers,
    bodyText: r.bodyText,
    // `startedAt` prints the whole milliseconds Date.now() gave: read back, it is that number.
    sentAt: Date.parse(done.startedAt),
    durationMs: done.durationMs,
  };
  if (r.localAddress) copy.localAddress = r.localAddress;
  return copy;
}
