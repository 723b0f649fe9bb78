import { describe, expect, it } from 'vitest';
import { coalesce } from '../../src/shared/coalesce.js';

/** Group commit (src/shared/coalesce.ts): concurrent calls leave in batches, each gets its own answer. */

const deferred = <T>() => {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

describe('coalesce', () => {
  it('calls made together leave as one batch, and each call gets the output at its position', async () => {
    const batches: number[][] = [];
    const double = coalesce(async (items: number[]) => {
      batches.push(items);
      return items.map((n) => n * 2);
    }, { maxBatch: 100, maxInFlight: 1 });
    expect(await Promise.all([1, 2, 3, 4].map(double))).toEqual([2, 4, 6, 8]);
    expect(batches).toEqual([[1, 2, 3, 4]]);
  });

  it('while maxInFlight batches run, later calls wait and leave together, at most maxBatch at a time', async () => {
    const running: { items: number[]; done: ReturnType<typeof deferred<number[]>> }[] = [];
    const run = coalesce((items: number[]) => {
      const done = deferred<number[]>();
      running.push({ items, done });
      return done.promise;
    }, { maxBatch: 3, maxInFlight: 2 });
    const first = [run(1), run(2)];
    await new Promise((r) => setImmediate(r));
    expect(running.map((b) => b.items)).toEqual([[1, 2]]);
    const rest = [3, 4, 5, 6, 7, 8].map(run);
    await new Promise((r) => setImmediate(r));
    // One more batch may start (two in flight); the remaining calls wait for a free slot.
    expect(running.map((b) => b.items)).toEqual([[1, 2], [3, 4, 5]]);
    running[0].done.resolve([10, 20]);
    expect(await Promise.all(first)).toEqual([10, 20]);
    await new Promise((r) => setImmediate(r));
    expect(running.map((b) => b.items)).toEqual([[1, 2], [3, 4, 5], [6, 7, 8]]);
    running[1].done.resolve([30, 40, 50]);
    running[2].done.resolve([60, 70, 80]);
    expect(await Promise.all(rest)).toEqual([30, 40, 50, 60, 70, 80]);
  });

  it('a failed batch rejects its own calls only; the next batch runs', async () => {
    const run = coalesce(async (items: string[]) => {
      if (items.includes('bad')) throw new Error('batch failed');
      return items.map((s) => s.toUpperCase());
    }, { maxBatch: 10, maxInFlight: 1 });
    const failed = await Promise.allSettled([run('a'), run('bad')]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect((failed[0] as PromiseRejectedResult).reason).toEqual(new Error('batch failed'));
    expect(await Promise.all([run('c'), run('d')])).toEqual(['C', 'D']);
  });
});
