/**
 * Runs at most `max` pieces of work at once; the rest wait their turn, first come first
 * served. What waits holds only its closure, so a burst costs memory only for the `max`
 * pieces that run.
 */
export function concurrencyLimit(max: number): { run<T>(work: () => Promise<T>): Promise<T>; readonly running: number; readonly waiting: number } {
  if (!Number.isInteger(max) || max < 1) throw new Error(`concurrency limit must be a positive integer, got ${max}`);
  let running = 0;
  const queue: (() => void)[] = [];

  const release = () => {
    const next = queue.shift();
    // The slot passes straight to the next piece of work: `running` stays the same.
    if (next) next();
    else running--;
  };

  return {
    async run<T>(work: () => Promise<T>): Promise<T> {
      if (running < max) running++;
      else await new Promise<void>((resolve) => queue.push(resolve));
      try {
        return await work();
      } finally {
        release();
      }
    },
    get running() {
      return running;
    },
    get waiting() {
      return queue.length;
    },
  };
}
