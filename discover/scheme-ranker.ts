/**
 * Response schemes ranked on a thread of their own (`rankResponseSchemes`, discover/scheme.ts): the search digests
 * hundreds of thousands of candidate texts, seconds of CPU that on the calling thread would hold every timer of the
 * process, the receiver's notification waits (their silences counted as the gateway's) and, where the gateway runs
 * in the same process (the neighbourhood bench), its own sender's timers. On the thread they run beside them, and an
 * early ranking leaves a later one only the samples it did not see (the thread's memo). When the thread cannot start,
 * or stops, the ranking is made in the calling thread: the result is the same.
 */
import { threadClient } from '../core/thread-client.js';
import { rankResponseSchemes, type ResponseScheme, type SchemeMemo, type SignedSample } from './scheme.js';

/** A ranker of response schemes. */
export interface SchemeRanker {
  rank(samples: readonly SignedSample[], secret: string): Promise<ResponseScheme[]>;
  /** Whether rankings run on the thread (false once it failed to start, stopped or was closed). */
  readonly onThread: boolean;
  close(): Promise<void>;
}

/** The fields of a sample the ranking reads (a sample of the session also carries its exchange). */
const bare = (x: SignedSample): SignedSample => ({
  operation: x.operation,
  body: x.body,
  signature: x.signature,
  ...(x.documented ? { documented: x.documented } : {}),
});

type Input = { samples: SignedSample[]; secret: string };

/** Start a ranker thread. */
export function createSchemeRanker(): SchemeRanker {
  const local: SchemeMemo = new Map();
  const thread = threadClient<Input, ResponseScheme[]>(
    new URL('./scheme-thread.mjs', import.meta.url),
    ({ samples, secret }) => rankResponseSchemes(samples, secret, local),
  );
  return {
    rank: (samples, secret) => thread.call({ samples: samples.map(bare), secret }),
    get onThread() {
      return thread.onThread;
    },
    close: () => thread.close(),
  };
}

let shared: SchemeRanker | undefined;

/** The ranker of this process, started on first use (call early to have the thread ready before the first ranking). */
export function schemeRanker(): SchemeRanker {
  shared ??= createSchemeRanker();
  return shared;
}
