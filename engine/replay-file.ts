/**
 * The benchmark's replay copies on disk instead of in memory: a deep run sends hundreds of thousands of requests,
 * and holding a copy of each would make the run's memory grow with its depth. The copies hold test card data and
 * signatures, so the file holds them encrypted (AES-256-GCM) with a key that exists only in the process: frames of
 * `[length u32][iv 12][tag 16][ciphertext]`, each a batch of copies. A copy is a JSON line of everything but the
 * body, a line with the body's length (UTF-16 code units), then the body as it is (no escaping of a body's every
 * quote: the writer runs in the kit's process, beside the run it measures). Read back in order, a frame at a time.
 */
import fs from 'node:fs';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** A request as sent, for replay by a plain HTTP client (holds test card data: in memory, or in a replay file encrypted with a key held in memory only). */
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

/** Where replay copies go: a file, and the key (hex, 32 bytes) its frames are encrypted with. JSON only (vitest provide). */
export interface ReplayFile {
  file: string;
  key: string;
}

/** A new replay file target in `dir` with a fresh key. */
export function newReplayFile(file: string): ReplayFile {
  return { file, key: randomBytes(32).toString('hex') };
}

/** Plain text buffered before a frame is written. */
const FRAME_CHARS = 256 * 1024;

/** Appends replay copies to a replay file; `flush` writes what is buffered (frames are whole, so a reader never sees half of one). */
export interface ReplayWriter {
  add(request: ReplayRequest): void;
  flush(): void;
}

export function replayWriter(target: ReplayFile): ReplayWriter {
  const key = Buffer.from(target.key, 'hex');
  let lines: string[] = [];
  let chars = 0;
  const flush = (): void => {
    if (!lines.length) return;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const body = Buffer.concat([cipher.update(lines.join(''), 'utf8'), cipher.final()]);
    const head = Buffer.alloc(4);
    head.writeUInt32BE(body.length);
    fs.appendFileSync(target.file, Buffer.concat([head, iv, cipher.getAuthTag(), body]));
    lines = [];
    chars = 0;
  };
  return {
    add(request) {
      const { method, url, headers, localAddress, sentAt, durationMs, bodyText } = request;
      const head = JSON.stringify({ method, url, headers, localAddress, sentAt, durationMs });
      lines.push(head, `\n${bodyText.length}\n`, bodyText);
      chars += head.length + bodyText.length + 12;
      if (chars >= FRAME_CHARS) flush();
    },
    flush,
  };
}

/** The copies of a replay file, in the order they were written, one frame in memory at a time. */
export function* readReplayFile(target: ReplayFile): Generator<ReplayRequest> {
  const key = Buffer.from(target.key, 'hex');
  let fd: number;
  try {
    fd = fs.openSync(target.file, 'r');
  } catch {
    return; // nothing was sent
  }
  try {
    const head = Buffer.alloc(32);
    let position = 0;
    for (;;) {
      if (fs.readSync(fd, head, 0, 32, position) < 32) return;
      const length = head.readUInt32BE(0);
      const body = Buffer.alloc(length);
      fs.readSync(fd, body, 0, length, position + 32);
      position += 32 + length;
      const decipher = createDecipheriv('aes-256-gcm', key, head.subarray(4, 16));
      decipher.setAuthTag(head.subarray(16, 32));
      const text = Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
      for (let at = 0; at < text.length; ) {
        const headEnd = text.indexOf('\n', at);
        const lengthEnd = text.indexOf('\n', headEnd + 1);
        const bodyStart = lengthEnd + 1;
        const bodyEnd = bodyStart + Number(text.slice(headEnd + 1, lengthEnd));
        const { method, url, headers, ...rest } = JSON.parse(text.slice(at, headEnd)) as Omit<
          ReplayRequest,
          'bodyText'
        >;
        yield { method, url, headers, bodyText: text.slice(bodyStart, bodyEnd), ...rest };
        at = bodyEnd;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}
