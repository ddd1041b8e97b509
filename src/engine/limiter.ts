/** Bounds the requests of one process: at most `concurrency` in flight and at most `rate` started per second. */
export interface Limiter {
  run<T>(task: () => Promise<T>): Promise<T>;
}

/** A limiter; `rate` 0 means no rate limit. */
export function createLimiter(concurrency: number, rate: number): Limiter {
  const spacingMs = rate > 0 ? 1000 / rate : 0;
  let active = 0;
  let nextStart = 0;
  const waiting: (() => void)[] = [];

  const acquire = async (): Promise<void> => {
    if (active >= concurrency) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    if (spacingMs > 0) {
      const now = Date.now();
      const start = Math.max(now, nextStart);
      nextStart = start + spacingMs;
      if (start > now) await new Promise((resolve) => setTimeout(resolve, start - now));
    }
  };
  const release = (): void => {
    active--;
    waiting.shift()?.();
  };

  return {
    async run(task) {
      await acquire();
      try {
        return await task();
      } finally {
        release();
      }
    },
  };
}
