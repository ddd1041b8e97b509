/**
 * A write-ahead journal in a folder (`serve --data DIR`): one file of records, one line each (`<crc32> <json>\n`),
 * appended with group commit and compacted into a snapshot of the whole state. Knows nothing of what the records
 * mean (gateway/persist.ts does).
 *
 * - **Group commit**: `append` queues a record; the records queued while the previous write was under way are written
 *   together, then `whenDurable` callbacks run. The server answers a request only once everything appended before
 *   its answer was made is written, so a crash of the gateway (a kill included) loses at most requests not yet
 *   answered. Written means handed to the operating system, which keeps it through a crash of the process; the file
 *   is synced to disk at least once a second besides (a crash of the machine loses at most that second). With
 *   `sync`, each write is on disk before its callbacks run (O_DSYNC, or fdatasync): slower, nothing answered lost.
 * - **Compaction**: the whole state, written by the caller's snapshot function as records, goes to a new file
 *   (synced), which then replaces the journal by a rename (the folder synced too). A crash before the rename leaves
 *   the old journal, whole.
 * - **Replay**: a line whose checksum or JSON fails (a record cut by a crash mid-write, or a damaged one) is skipped
 *   with a warning, never a crash.
 * - **Lock**: `lock` holds the process id of the gateway using the folder; a second gateway refuses the folder while
 *   that process lives (a lock left by a killed process is taken over).
 */
import fs from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { JournalError } from '../core/types/errors.js';

/** The journal's file name in the folder, and its lock file's. */
export const JOURNAL_FILE = 'journal.log';
export const LOCK_FILE = 'lock';

/**
 * Appends open the journal with O_DSYNC where the platform has it: each write returns once its data is on disk,
 * one system call instead of a write and an fdatasync (half the CPU per group commit). Elsewhere: fdatasync.
 */
const DSYNC = fs.constants.O_DSYNC;

function openForAppend(file: string, sync: boolean): number {
  const { O_WRONLY, O_APPEND, O_CREAT } = fs.constants;
  return sync && DSYNC
    ? fs.openSync(file, O_WRONLY | O_APPEND | O_CREAT | DSYNC, 0o600)
    : fs.openSync(file, 'a', 0o600);
}

export { JournalError };

/** One journal record: a JSON object with its kind in `k`. */
export type JournalRecord = { k: string } & Record<string, unknown>;

/** The line of a record: its CRC-32 (8 hex digits), a space, its JSON text, a newline. */
export function frame(record: JournalRecord): string {
  const json = JSON.stringify(record);
  return `${crc32(json).toString(16).padStart(8, '0')} ${json}\n`;
}

/** What reading a journal file found: the records in order, and one warning per line skipped. */
export interface ReadResult {
  records: JournalRecord[];
  warnings: string[];
  bytes: number;
}

/** Read the records of a journal file (none when it does not exist). */
export function readJournal(file: string): ReadResult {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], warnings: [], bytes: 0 };
    throw new JournalError(`cannot read ${file}: ${(e as Error).message}`);
  }
  const records: JournalRecord[] = [];
  const warnings: string[] = [];
  let start = 0;
  let line = 0;
  while (start < text.length) {
    line += 1;
    const end = text.indexOf('\n', start);
    const last = end === -1;
    const raw = text.slice(start, last ? text.length : end);
    start = last ? text.length : end + 1;
    const record = parseLine(raw, last);
    if (typeof record === 'string') warnings.push(`${path.basename(file)} line ${line}: ${record}; skipped`);
    else if (record) records.push(record);
  }
  return { records, warnings, bytes: Buffer.byteLength(text) };
}

/** A record, undefined for an empty line, or why the line is no record. */
function parseLine(raw: string, last: boolean): JournalRecord | string | undefined {
  if (raw === '') return undefined;
  if (last) return 'a record cut short (no end of line: the gateway stopped while writing it)';
  const space = raw.indexOf(' ');
  const json = raw.slice(space + 1);
  if (space !== 8 || !/^[0-9a-f]{8}$/.test(raw.slice(0, 8)) || Number.parseInt(raw.slice(0, 8), 16) !== crc32(json))
    return 'a damaged record (its checksum does not match)';
  try {
    const value = JSON.parse(json) as unknown;
    if (value && typeof value === 'object' && typeof (value as JournalRecord).k === 'string')
      return value as JournalRecord;
    return 'a record of no known form';
  } catch {
    return 'a damaged record (not JSON)';
  }
}

/** Whether a process with this id runs (a signal 0 reaches it, or it exists under another user). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Lock files this process holds (two gateways of one process may not share a folder either). */
const held = new Set<string>();

/** Take the folder's lock: create the lock file with this process's id, or take over a dead process's lock. */
function takeLock(dir: string): string {
  const file = path.resolve(dir, LOCK_FILE);
  if (held.has(file)) throw new JournalError(`${dir} is in use by another gateway (process ${process.pid}, this one)`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
      held.add(file);
      return file;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new JournalError(`cannot lock ${dir}: ${(e as Error).message}`);
    }
    const pid = Number.parseInt(fs.readFileSync(file, 'utf8'), 10);
    if (Number.isInteger(pid) && pid > 0 && alive(pid) && pid !== process.pid)
      throw new JournalError(
        `${dir} is in use by another gateway (process ${pid}); stop it, or delete ${file} if that process is no gateway`,
      );
    fs.rmSync(file, { force: true }); // left by a gateway that was killed: taken over
  }
  throw new JournalError(`cannot lock ${dir}: another gateway took it at the same time`);
}

function releaseLock(file: string): void {
  held.delete(file);
  fs.rmSync(file, { force: true });
}

/** An open journal. */
export class Journal {
  private queue: string[] = [];
  private appended = 0;
  private durable = 0;
  private waiters: { upTo: number; done: (error?: Error) => void }[] = [];
  private writing = false;
  private compactWanted = false;
  private closed = false;
  /** Bytes of the journal file, and of its snapshot part when last compacted. */
  private size: number;
  private snapshotBytes: number;
  private idle: (() => void)[] = [];
  /** Without `sync`: the background sync under way, and when the last one started. */
  private background: Promise<void> | undefined;
  private lastSync = Date.now();
  private trailing: NodeJS.Timeout | undefined;

  private constructor(
    readonly dir: string,
    private fd: number,
    private readonly lockFile: string,
    size: number,
    /** The whole state as records, for compaction. */
    private readonly snapshot: () => Iterable<JournalRecord>,
    /** Compact when the records written since the last compaction pass this many bytes (and the snapshot's size). */
    private readonly compactAfterBytes: number,
    private readonly warn: (line: string) => void,
    /** Each group commit synced to disk (true), or handed to the operating system and synced once a second (false). */
    private readonly sync: boolean,
  ) {
    this.size = size;
    this.snapshotBytes = size;
  }

  /**
   * Lock the folder (creating it when needed) and read its journal. `open` returns the records to replay; the
   * caller replays them, then calls `start` with the snapshot function, which compacts the journal at once.
   */
  static read(dir: string): { records: JournalRecord[]; warnings: string[]; unlock: () => void; lockFile: string } {
    try {
      fs.mkdirSync(dir, { recursive: true });
    } catch (e) {
      throw new JournalError(`cannot create ${dir}: ${(e as Error).message}`);
    }
    const lockFile = takeLock(dir);
    try {
      const { records, warnings } = readJournal(path.join(dir, JOURNAL_FILE));
      return { records, warnings, lockFile, unlock: () => releaseLock(lockFile) };
    } catch (e) {
      releaseLock(lockFile);
      throw e;
    }
  }

  /** Start writing: the journal is first compacted (synchronously) into the snapshot of the replayed state. */
  static start(
    dir: string,
    lockFile: string,
    snapshot: () => Iterable<JournalRecord>,
    options: { compactAfterBytes: number; warn: (line: string) => void; sync: boolean },
  ): Journal {
    const size = writeSnapshotSync(dir, snapshot());
    const fd = openForAppend(path.join(dir, JOURNAL_FILE), options.sync);
    return new Journal(dir, fd, lockFile, size, snapshot, options.compactAfterBytes, options.warn, options.sync);
  }

  /** Queue a record; it is written with the others of this turn of the event loop. */
  append(record: JournalRecord): void {
    if (this.closed) return;
    this.queue.push(frame(record));
    this.appended += 1;
    this.kick();
  }

  /** Whether records were appended that are not yet durable. */
  pending(): boolean {
    return this.appended > this.durable;
  }

  /** Call `done` once every record appended so far is durable (at once when none is pending). */
  whenDurable(done: (error?: Error) => void): void {
    if (this.pending()) this.waiters.push({ upTo: this.appended, done });
    else done();
  }

  /** Write the whole state anew (after a reset, and on stop); resolves when the new file is in place. */
  compact(): Promise<void> {
    this.compactWanted = true;
    this.kick();
    return this.settled();
  }

  /** Compact, then release the folder (the gateway stops). Appending afterwards does nothing. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.compact();
    this.closed = true;
    clearTimeout(this.trailing);
    await this.background;
    fs.fdatasyncSync(this.fd);
    fs.closeSync(this.fd);
    releaseLock(this.lockFile);
  }

  /** Bytes in the journal file now. */
  bytes(): number {
    return this.size;
  }

  private settled(): Promise<void> {
    return this.writing || this.compactWanted || this.queue.length
      ? new Promise((resolve) => this.idle.push(resolve))
      : Promise.resolve();
  }

  private kick(): void {
    if (this.writing) return;
    this.writing = true;
    // After this turn's I/O callbacks: the records of every request handled in it go in one write.
    setImmediate(() => void this.loop());
  }

  private async loop(): Promise<void> {
    while (this.queue.length || this.compactWanted) {
      if (this.compactWanted) {
        this.compactWanted = false;
        // The snapshot holds every change made so far, those of the queued records too: they are durable with it.
        const upTo = this.appended;
        this.queue = [];
        await this.guard(upTo, () => this.rewrite());
        continue;
      }
      const upTo = this.appended;
      const text = this.queue.join('');
      this.queue = [];
      await this.guard(upTo, () => this.write(text));
      if (this.size - this.snapshotBytes > Math.max(this.compactAfterBytes, this.snapshotBytes))
        this.compactWanted = true;
    }
    this.writing = false;
    for (const resolve of this.idle.splice(0)) resolve();
  }

  /** Run one write step; then release the waiters it made durable (or tell them it failed). */
  private async guard(upTo: number, step: () => Promise<void>): Promise<void> {
    let error: Error | undefined;
    try {
      await step();
    } catch (e) {
      error = e as Error;
      this.warn(`journal: writing ${this.dir} failed (${error.message}); the requests waiting for it are refused`);
    }
    this.durable = upTo;
    const ready = this.waiters.filter((w) => w.upTo <= upTo);
    this.waiters = this.waiters.filter((w) => w.upTo > upTo);
    for (const w of ready) w.done(error);
  }

  private async write(text: string): Promise<void> {
    const buffer = Buffer.from(text);
    const before = this.size;
    try {
      let written = 0;
      while (written < buffer.length) written += await writeAsync(this.fd, buffer, written);
      if (this.sync && !DSYNC) await datasyncAsync(this.fd);
      this.size += buffer.length;
      if (!this.sync) this.syncInBackground();
    } catch (e) {
      // A record half written would glue the next one to it: cut the file back to where this write began.
      try {
        fs.ftruncateSync(this.fd, before);
      } catch {
        // the next replay skips what is left of it
      }
      throw e;
    }
  }

  /** Without `sync`: start an fdatasync when none ran for a second (it does not hold the writes back). */
  private syncInBackground(): void {
    if (this.closed) return;
    const wait = 1000 - (Date.now() - this.lastSync);
    if (this.background || wait > 0) {
      // The last writes are synced a second after the previous sync at the latest, even if no write follows.
      this.trailing ??= setTimeout(
        () => {
          this.trailing = undefined;
          this.syncInBackground();
        },
        Math.max(wait, 50),
      ).unref();
      return;
    }
    this.lastSync = Date.now();
    this.background = datasyncAsync(this.fd)
      .catch((e: Error) => this.warn(`journal: syncing ${this.dir} failed (${e.message})`))
      .finally(() => (this.background = undefined));
  }

  /**
   * Compaction: the snapshot, taken whole before anything is written (the state goes on changing while the file is
   * written), to a new file, synced, renamed over the journal; the folder synced.
   */
  private async rewrite(): Promise<void> {
    const chunks = serialise(this.snapshot());
    const tmp = path.join(this.dir, `${JOURNAL_FILE}.new`);
    const fd = fs.openSync(tmp, 'w', 0o600);
    let size = 0;
    try {
      for (const buffer of chunks) {
        let written = 0;
        while (written < buffer.length) written += await writeAsync(fd, buffer, written);
        size += buffer.length;
      }
      await datasyncAsync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, path.join(this.dir, JOURNAL_FILE));
    syncDir(this.dir);
    await this.background; // never close a file a background sync is using
    fs.closeSync(this.fd);
    this.fd = openForAppend(path.join(this.dir, JOURNAL_FILE), this.sync);
    this.size = this.snapshotBytes = size;
  }
}

/** Records as journal lines, in buffers of about 1 MiB. */
function serialise(records: Iterable<JournalRecord>): Buffer[] {
  const out: Buffer[] = [];
  let chunk: string[] = [];
  let bytes = 0;
  for (const record of records) {
    const line = frame(record);
    chunk.push(line);
    bytes += line.length;
    if (bytes >= 1 << 20) {
      out.push(Buffer.from(chunk.join('')));
      chunk = [];
      bytes = 0;
    }
  }
  if (chunk.length) out.push(Buffer.from(chunk.join('')));
  return out;
}

function writeAsync(fd: number, buffer: Buffer, offset: number): Promise<number> {
  return new Promise((resolve, reject) =>
    fs.write(fd, buffer, offset, buffer.length - offset, null, (e, n) => (e ? reject(e) : resolve(n))),
  );
}

function datasyncAsync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fs.fdatasync(fd, (e) => (e ? reject(e) : resolve())));
}

/** Make a rename in the folder durable (where the platform can open a folder). */
function syncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // not supported here (Windows): the rename is as durable as the platform makes it
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** The snapshot written synchronously as the journal (at start, after replay). */
function writeSnapshotSync(dir: string, records: Iterable<JournalRecord>): number {
  const tmp = path.join(dir, `${JOURNAL_FILE}.new`);
  const fd = fs.openSync(tmp, 'w', 0o600);
  let size = 0;
  try {
    for (const buffer of serialise(records)) {
      let written = 0;
      while (written < buffer.length) written += fs.writeSync(fd, buffer, written);
      size += buffer.length;
    }
    fs.fdatasyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, path.join(dir, JOURNAL_FILE));
  syncDir(dir);
  return size;
}
