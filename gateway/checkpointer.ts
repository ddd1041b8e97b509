/**
 * The WAL checkpoints of `serve --data DIR`'s database, off the thread that answers requests. SQLite's automatic
 * checkpoint runs inside the commit that crosses 1,000 pages of WAL: it copies the WAL into the database file and
 * syncs both, which stalled the gateway's event loop for milliseconds every few hundred commits (the p99 of
 * `bench:gateway` with `--data`: a commit's p50 40 µs, its p99 7 ms, all in the checkpointing ones). Here the
 * gateway's connection has `wal_autocheckpoint = 0` and a worker thread, with a connection of its own to the same
 * file, runs a PASSIVE checkpoint every 100 ms (it never blocks the writer; the WAL starts over once a checkpoint
 * caught up with it). Past `RESTART_PAGES` of WAL (a writer too busy for a passive checkpoint ever to catch up), the
 * worker runs a RESTART checkpoint, which waits for the writer between two of its commits.
 *
 * Durability is unchanged: a commit is in the WAL before its answers, as before (`synchronous=NORMAL`, or FULL); a
 * checkpoint only copies committed pages into the database file, with the same syncs as SQLite's own.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** WAL pages (4 KiB) past which the worker waits for the writer to catch up (64 MiB). */
const RESTART_PAGES = 16_384;

/** The worker's code (CommonJS, evaluated): its connection, a checkpoint every `every` ms, stopped on a message. */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 1000');
db.pragma('synchronous = ' + workerData.synchronous);
const checkpoint = () => {
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)');
    if (r && r.log > workerData.restartPages) db.pragma('wal_checkpoint(RESTART)');
  } catch {
    // busy or closed: the next turn tries again
  }
};
const timer = setInterval(checkpoint, workerData.every);
parentPort.on('message', () => {
  clearInterval(timer);
  try { db.close(); } catch {}
  parentPort.close();
});
`;

/** A checkpointing worker on a database file; `stop` closes its connection and ends it. */
export class Checkpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;

  /**
   * Start the worker on `file`; `failed` is called if it cannot run (the gateway's connection then checkpoints
   * itself again, as SQLite does by default).
   */
  constructor(file: string, sync: boolean, failed: () => void, every = 100) {
    const module = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(WORKER, {
      eval: true,
      execArgv: [],
      workerData: { file, module, every, synchronous: sync ? 'FULL' : 'NORMAL', restartPages: RESTART_PAGES },
    });
    this.worker.unref();
    this.exited = new Promise((resolve) => {
      this.worker.once('exit', () => resolve());
      this.worker.once('error', () => failed());
    });
  }

  /** Close the worker's connection and wait for it to end (before the gateway's connection closes). */
  async stop(): Promise<void> {
    this.worker.ref(); // the stop is waited for: the process stays up until the worker ends
    this.worker.postMessage('stop');
    await this.exited;
  }
}
