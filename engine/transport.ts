/**
 * One HTTP exchange over undici's dispatcher API (`Dispatcher.dispatch` with a handler): the response body is taken
 * as its chunks arrive, capped, hashed and spooled to disk past SPOOL_BYTES, with no stream, async iterator or abort
 * signal in between. A deep run makes hundreds of thousands of exchanges; `request()` spends more CPU on its
 * response stream and signal plumbing than the kit spends reading the body.
 */
import { isUtf8 } from 'node:buffer';
import { createHash, hash } from 'node:crypto';
import { errors, type Dispatcher } from 'undici';
import { HTML_LIMITS, JsonScan, MarkupScan, XML_LIMITS } from '../core/codecs/limits.js';
import type { BodyFormat } from './decode.js';
import { openSpool, SPOOL_BYTES, type SpoolFile } from './spool.js';

/** A body as read: small ones as text, large ones spooled to disk (see spool.ts) with their first characters. */
export interface BodyRead {
  text?: string;
  spool?: string;
  head: string;
  truncated: boolean;
  /** A spooled body scanned for its reader as it arrived: the reader, and the first bound it passes, if any. */
  over?: { format: BodyFormat; over: string; declares: boolean };
  /** Whether the bytes read are valid UTF-8. */
  utf8: boolean;
  bytes: { length: number; sha256: string };
}

/** A response as received: status, headers (lower-case names) and the body read. */
export interface Received {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  read: BodyRead;
}

/** What one exchange sends. */
export interface Outgoing {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
}

/** Limits of one exchange. */
export interface ExchangeLimits {
  /** The whole exchange, body included; also undici's headers and body timeouts. */
  timeoutMs: number;
  maxResponseBytes: number;
  /** Folder large bodies are spooled to (spool.ts's default when undefined). */
  spoolDir: string | undefined;
  /**
   * The reader an answer's body goes to (decode.ts `readerOf`), given its status and headers: a body spooled to disk
   * is scanned for that reader's bounds as it arrives (JsonScan, MarkupScan), so one past them is refused without
   * being read back whole. Asked only of a body that reaches the spool (a small one is scanned as text by the reader).
   */
  readerOf?: (status: number, headers: Received['headers']) => BodyFormat | undefined;
}

/** The bounds scan of a reader, if it has one. */
function scanFor(format: BodyFormat | undefined): JsonScan | MarkupScan | undefined {
  if (format === 'json') return new JsonScan();
  if (format === 'xml') return new MarkupScan(XML_LIMITS);
  if (format === 'html') return new MarkupScan(HTML_LIMITS);
  return undefined;
}

/** Characters of a spooled body kept in memory for its evidence: the excerpt and the masking margin past it. */
const HEAD_BYTES = 16 * 1024;

/** A response body taken chunk by chunk: in memory up to SPOOL_BYTES, then on disk; cut at the cap. */
class BodyCollector {
  private chunks: Buffer[] = [];
  private size = 0;
  private spool: SpoolFile | undefined;
  private spoolHash: ReturnType<typeof createHash> | undefined;
  private head: Buffer | undefined;
  // A spooled body is checked for UTF-8 as it arrives (it is never held whole); a small one once, at the end.
  private spoolUtf8: TextDecoder | undefined;
  private utf8 = true;
  private format: BodyFormat | undefined;
  private scan: JsonScan | MarkupScan | undefined;
  truncated = false;

  /** `reader`: the reader the body goes to, asked when the body reaches the spool (see ExchangeLimits.readerOf). */
  constructor(
    private readonly cap: number,
    private readonly spoolDir: string | undefined,
    private readonly reader: (() => BodyFormat | undefined) | undefined,
  ) {}

  /** Scanned until a bound is passed (for XML, also until a declaration is seen: the reader refuses that first). */
  private scanning(): boolean {
    const { scan } = this;
    return scan !== undefined && (!scan.over || (scan instanceof MarkupScan && !scan.declares));
  }

  private checkUtf8(chunk: Buffer, stream: boolean): void {
    if (!this.utf8 || !this.spoolUtf8) return;
    try {
      this.spoolUtf8.decode(chunk, { stream });
    } catch {
      this.utf8 = false;
    }
  }

  /** Take a chunk; false once the cap is reached (the rest of the body is not read). */
  push(read: Buffer): boolean {
    let chunk = read;
    if (this.size + chunk.length > this.cap) {
      chunk = chunk.subarray(0, this.cap - this.size);
      this.truncated = true;
    }
    this.size += chunk.length;
    if (this.spool) {
      this.spoolHash!.update(chunk);
      this.spool.write(chunk);
      this.checkUtf8(chunk, true);
      if (this.scanning()) this.scan!.bytes(chunk);
    } else {
      this.chunks.push(chunk);
      if (this.size > SPOOL_BYTES) {
        // From here on the body goes to disk as it arrives; only its head stays in memory.
        const all = Buffer.concat(this.chunks);
        this.head = all.subarray(0, HEAD_BYTES);
        this.spool = openSpool(this.spoolDir);
        this.spoolHash = createHash('sha256').update(all);
        this.spool.write(all);
        this.spoolUtf8 = new TextDecoder('utf-8', { fatal: true });
        this.checkUtf8(all, true);
        // Only a spooled body is scanned as it arrives: a small one is scanned as text by the reader.
        this.format = this.reader?.();
        this.scan = scanFor(this.format);
        this.scan?.bytes(all);
        this.chunks.length = 0;
      }
    }
    return !this.truncated;
  }

  /** The body read (the spool file closed). */
  finish(): BodyRead {
    const { size, truncated } = this;
    if (this.spool) {
      this.spool.close();
      if (!truncated) this.checkUtf8(Buffer.alloc(0), false);
      const bytes = { length: size, sha256: this.spoolHash!.digest('hex') };
      const { scan } = this;
      return {
        spool: this.spool.file,
        head: this.head!.toString('utf8'),
        truncated,
        utf8: truncated || this.utf8,
        bytes,
        ...(scan?.over
          ? { over: { format: this.format!, over: scan.over, declares: scan instanceof MarkupScan && scan.declares } }
          : {}),
      };
    }
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    const text = all.toString('utf8');
    const valid = isUtf8(all);
    // The digest is for the evidence, which most exchanges of a deep run never print: taken when first read, from
    // the text when it encodes back to the same bytes (valid UTF-8), else now, from the bytes.
    let sha256 = valid ? undefined : hash('sha256', all, 'hex');
    const bytes = {
      length: size,
      get sha256(): string {
        return (sha256 ??= hash('sha256', Buffer.from(text, 'utf8'), 'hex'));
      },
    };
    // A body cut at the cap may end inside a character: only a whole body is judged.
    return { text, head: text, truncated, utf8: truncated || valid, bytes };
  }

  /** The exchange failed: the spool file, if any, is closed. */
  abandon(): void {
    this.spool?.close();
  }
}

/** Origin and path of the URLs sent, parsed once each (an operation's URL is sent thousands of times). */
const targets = new Map<string, { origin: string; path: string }>();

/** `url` as undici's dispatcher takes it, refused as undici's `request()` refuses it. */
function targetOf(url: string): { origin: string; path: string } {
  let target = targets.get(url);
  if (!target) {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw new errors.InvalidArgumentError('Invalid URL protocol: the URL must start with `http:` or `https:`.');
    target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
    if (targets.size >= 256) targets.clear();
    targets.set(url, target);
  }
  return target;
}

/**
 * Send `out` through `dispatcher` and read the answer within `limits`. Rejects with the transport's error (a
 * `TimeoutError` DOMException when the exchange outlives its time-out, whether it is still queued, awaiting the
 * headers or reading the body); a body past the cap is cut there and the connection dropped.
 */
export function exchangeOnce(dispatcher: Dispatcher, out: Outgoing, limits: ExchangeLimits): Promise<Received> {
  return new Promise<Received>((resolve, reject) => {
    let status = 0;
    let headers: Received['headers'] = {};
    const { readerOf } = limits;
    const body = new BodyCollector(
      limits.maxResponseBytes,
      limits.spoolDir,
      readerOf ? () => readerOf(status, headers) : undefined,
    );
    let controller: Dispatcher.DispatchController | undefined;
    let reason: Error | undefined;
    let settled = false;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      clearTimeout(timer);
      return true;
    };
    const fail = (error: Error): void => {
      if (!settle()) return;
      body.abandon();
      reject(error);
    };
    const succeed = (): void => {
      if (!settle()) return;
      try {
        resolve({ status, headers, read: body.finish() });
      } catch (e) {
        reject(e);
      }
    };
    // The whole exchange, body included, within the time-out (a request still queued is aborted when it starts).
    const timer = setTimeout(() => {
      reason = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
      controller?.abort(reason);
    }, limits.timeoutMs);
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        if (reason) c.abort(reason);
      },
      onResponseStart(_c, statusCode, responseHeaders) {
        if (statusCode < 200) return; // an informational answer: the final one follows
        status = statusCode;
        headers = responseHeaders as Received['headers'];
      },
      onResponseData(c, chunk) {
        if (settled || body.push(chunk)) return;
        succeed();
        c.abort(new errors.RequestAbortedError()); // stop reading past the cap
      },
      onResponseEnd() {
        succeed();
      },
      onResponseError(_c, error) {
        fail(error);
      },
    };
    try {
      const { origin, path } = targetOf(out.url);
      dispatcher.dispatch(
        {
          origin,
          path,
          method: out.method as Dispatcher.HttpMethod,
          headers: out.headers,
          body: out.body,
          headersTimeout: limits.timeoutMs,
          bodyTimeout: limits.timeoutMs,
        },
        handler,
      );
    } catch (e) {
      fail(e as Error);
    }
  });
}
