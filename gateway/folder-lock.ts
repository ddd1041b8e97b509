/**
 * One folder, one gateway: the lock file of `serve --data DIR` holds the process id of the gateway using the folder;
 * a second gateway refuses the folder while that process lives (a lock left by a killed process is taken over).
 */
import fs from 'node:fs';
import path from 'node:path';
import { JournalError } from '../core/types/errors.js';

/** The lock file's name in the folder. */
export const LOCK_FILE = 'lock';

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

/** Take the folder's lock (creating the folder when needed); returns the lock file. Throws JournalError. */
export function takeLock(dir: string): string {
  try {
    fs.mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw new JournalError(`cannot create ${dir}: ${(e as Error).message}`);
  }
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

/** Release a lock taken by `takeLock`. */
export function releaseLock(file: string): void {
  held.delete(file);
  fs.rmSync(file, { force: true });
}
