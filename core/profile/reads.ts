/**
 * Which profile settings the kit reads: with `PAGI_PROFILE_READS=<file>` set, the profile the probes and checks see
 * is a read-recording proxy that appends each dotted path read (`batch.checkOrder`, `errors.kinds.badSignature.status`)
 * to that file, once per process. The kit's own test of the profile format uses it to find settings nothing reads.
 */
import fs from 'node:fs';

/** The environment variable naming the file read paths are appended to. */
export const PROFILE_READS_ENV = 'PAGI_PROFILE_READS';

/** `value` wrapped so that every property read below it calls `record` with its dotted path. */
function recordReads<T extends object>(value: T, record: (path: string) => void): T {
  const proxies = new Map<string, object>();
  const wrap = (target: object, path: string): object => {
    let proxy = proxies.get(path);
    if (!proxy) {
      proxy = new Proxy(target, {
        get(t, prop, receiver) {
          const v: unknown = Reflect.get(t, prop, receiver);
          if (typeof prop === 'symbol') return v;
          const at = path ? `${path}.${prop}` : prop;
          record(at);
          return v && typeof v === 'object' ? wrap(v, at) : v;
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
  return wrap(value, '') as T;
}

/** The profile as the kit should read it: recording when `PAGI_PROFILE_READS` names a file, else unchanged. */
export function kitProfile<T extends object>(profile: T): T {
  const file = process.env[PROFILE_READS_ENV];
  if (!file) return profile;
  const seen = new Set<string>();
  return recordReads(profile, (path) => {
    if (seen.has(path)) return;
    seen.add(path);
    fs.appendFileSync(file, `${path}\n`);
  });
}
