/**
 * The profile as checks and probes read it. With `PAGI_PROFILE_READS=<file>` set, it is a read-recording proxy that
 * appends each dotted path read (`batch.checkOrder`, `errors.kinds.badSignature.status`) to that file, once per
 * process: the kit's own test of the profile format uses it to find settings nothing reads. When the profile leaves
 * points out (format 6: not stated), a read of one throws ProfilePointNotStated naming its JSON pointer, which the
 * engine turns into a not-applicable result (core/profile/stated.ts).
 */
import fs from 'node:fs';
import { ProfilePointNotStated } from '../types/errors.js';

/** The environment variable naming the file read paths are appended to. */
export const PROFILE_READS_ENV = 'PAGI_PROFILE_READS';

/**
 * `value` wrapped so that every property read below it calls `record` with its dotted path, and a read of a pointer
 * of `unstated` throws ProfilePointNotStated.
 */
function recordReads<T extends object>(
  value: T,
  record: (path: string) => void,
  unstated: ReadonlySet<string> = new Set(),
): T {
  const proxies = new Map<string, object>();
  const wrap = (target: object, path: string, pointer: string): object => {
    let proxy = proxies.get(path);
    if (!proxy) {
      proxy = new Proxy(target, {
        get(t, prop, receiver) {
          const v: unknown = Reflect.get(t, prop, receiver);
          if (typeof prop === 'symbol') return v;
          const at = path ? `${path}.${prop}` : prop;
          record(at);
          const pointed = `${pointer}/${prop.replace(/~/g, '~0').replace(/\//g, '~1')}`;
          if (unstated.has(pointed)) throw new ProfilePointNotStated(pointed);
          return v && typeof v === 'object' ? wrap(v, at, pointed) : v;
        },
        has(t, prop) {
          if (typeof prop !== 'symbol') record(path ? `${path}.${prop}` : prop);
          return Reflect.has(t, prop);
        },
      });
      proxies.set(path, proxy);
    }
    return proxy;
  };
  return wrap(value, '', '') as T;
}

/**
 * The profile as the kit should read it: recording when `PAGI_PROFILE_READS` names a file, refusing a read of a point
 * of `unstated` (JSON pointers), else unchanged.
 */
export function kitProfile<T extends object>(profile: T, unstated: readonly string[] = []): T {
  const file = process.env[PROFILE_READS_ENV];
  if (!file && !unstated.length) return profile;
  const seen = new Set<string>();
  const record = (path: string) => {
    if (!file || seen.has(path)) return;
    seen.add(path);
    fs.appendFileSync(file, `${path}\n`);
  };
  return recordReads(profile, record, new Set(unstated));
}

/**
 * The value `read` returns, or undefined when it reads a point the profile does not state: for a value the kit can do
 * without (a request field it then leaves out rather than send under a name the profile does not give).
 */
export function ifStated<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch (e) {
    if (e instanceof ProfilePointNotStated) return undefined;
    throw e;
  }
}
