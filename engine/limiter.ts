/** Bounds the requests of one process: at most `concurrency` in flight and at most `rate` started per second. */
export interface Limiter {
  /**
   * Run `task` once a place is free. Waiting tasks of a higher `priority` go first (in the order they came within
   * one priority): the next step of a chain of dependent requests before a request that starts one.
   */
  run<T>(task: () => Promise<T>, priority?: number): Promise<T>;
}

/** A limiter; `rate` 0 means no rate limit. */
export function createLimiter(concurrency: number, rate: number): Limiter {
  const spacingMs = rate > 0 ? 1000 / rate : 0;
  let active = 0;
  let nextStart = 0;
  const waiting: { priority: number; resolve: () => void }[] = [];

  const acquire = async (priority: number): Promise<void> => {
    // A place freed while tasks wait passes straight to one of them (a newcomer never takes it first).
    if (active >= concurrency) await new Promise<void>((resolve) => waiting.push({ priority, resolve }));
    else active++;
    if (spacingMs > 0) {
      const now = Date.now();
      const start = Math.max(now, nextStart);
      nextStart = start + spacingMs;
      if (start > now) await new Promise((resolve) => setTimeout(resolve, start - now));
    }
  };
  const release = (): void => {
    if (!waiting.length) {
      active--;
      return;
    }
    let first = 0;
    for (let i = 1; i < waiting.length; i++) if (waiting[i]!.priority > waiting[first]!.priority) first = i;
    waiting.splice(first, 1)[0]!.resolve();
  };

  return {
    async run(task, priority = 0) {
      await acquire(priority);
      try {
        return await task();
      } finally {
        release();
      }
    },
  };
}
