/**
 * Large response bodies kept on disk instead of in memory. A check may read any body in full while its exchange is
 * alive, but a run holds hundreds of exchanges (memoised scenarios keep theirs for the whole run): a body past
 * SPOOL_BYTES is written, as its bytes arrive from the socket, to a file of the run's spool folder, never held whole
 * as text, and `bodyText` reads it back when a check asks. The file is removed when its exchange is collected, and
 * the folder when the run ends.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { ReceivedResponse } from '../core/model.js';

/** Bodies longer than this many bytes are spooled. */
export const SPOOL_BYTES = 256 * 1024;

let ownDir: string | undefined;

/** The spool folder of this thread when a run gives none: removed when the process exits. */
function defaultSpoolDir(): string {
  if (!ownDir) {
    const dir = path.join(os.tmpdir(), `pagi-bodies-${process.pid}-${randomBytes(4).toString('hex')}`);
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    ownDir = dir;
  }
  return ownDir;
}

let count = 0;
const unlink = new FinalizationRegistry<string>((file) => fs.rmSync(file, { force: true }));
const prefix = randomBytes(4).toString('hex');

/** A body being written to the spool. */
export interface SpoolFile {
  file: string;
  write(chunk: Buffer): void;
  close(): void;
}

/** Open a spool file for one body in `dir`. */
export function openSpool(dir: string = defaultSpoolDir()): SpoolFile {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${prefix}-${++count}.body`);
  const fd = fs.openSync(file, 'w');
  return {
    file,
    write: (chunk) => void fs.writeSync(fd, chunk),
    close: () => fs.closeSync(fd),
  };
}

/** Read a spooled body back as text ('' once the run has removed the spool). */
export function readSpool(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** Make `bodyText` of a response read its spooled file; the file goes when the response is collected. */
export function attachSpool(response: ReceivedResponse, file: string): void {
  Object.defineProperty(response, 'bodyText', { enumerable: true, configurable: true, get: () => readSpool(file) });
  unlink.register(response, file);
}

/** Remove a run's spool folder (when the run ends). */
export function clearSpool(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}
