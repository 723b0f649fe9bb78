import { describe, expect, it } from 'vitest';
import { ResultCache } from '../../src/modules/contents/result-cache.js';

/** The per-process list cache (result-cache.ts): one load per result and version, however many ask at once. */

const query = { text: 'select count(*) from contents where table_id = $1', values: ['t1'] };

function counter<T>(value: T) {
  let calls = 0;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return {
    load: async () => {
      calls++;
      await gate;
      return value;
    },
    calls: () => calls,
    release: () => release(),
  };
}

describe('ResultCache.getOrLoad', () => {
  it('concurrent misses of one result share one load; later calls are served from the cache', async () => {
    const cache = new ResultCache();
    const count = counter(42);
    const waiting = Array.from({ length: 20 }, () => cache.getOrLoad('count', query, 's', 'v1', count.load));
    count.release();
    expect(await Promise.all(waiting)).toEqual(Array(20).fill(42));
    expect(count.calls()).toBe(1);
    expect(await cache.getOrLoad('count', query, 's', 'v1', count.load)).toBe(42);
    expect(count.calls()).toBe(1);
  });

  it('a new version, another schema or another statement loads again', async () => {
    const cache = new ResultCache();
    const first = counter(1);
    first.release();
    await cache.getOrLoad('count', query, 's', 'v1', first.load);
    const again = counter(2);
    again.release();
    expect(await cache.getOrLoad('count', query, 's', 'v2', again.load)).toBe(2);
    expect(await cache.getOrLoad('count', query, 's2', 'v2', again.load)).toBe(2);
    expect(await cache.getOrLoad('count', { ...query, values: ['t2'] }, 's', 'v2', again.load)).toBe(2);
    expect(await cache.getOrLoad('page', query, 's', 'v2', again.load)).toBe(2);
    expect(again.calls()).toBe(4);
  });

  it('a failed load fails everyone who waited for it and is not kept: the next call loads again', async () => {
    const cache = new ResultCache();
    let calls = 0;
    const failing = async () => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 5));
      throw new Error('database gone');
    };
    const results = await Promise.allSettled([1, 2, 3].map(() => cache.getOrLoad('count', query, 's', 'v1', failing)));
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(calls).toBe(1);
    expect(await cache.getOrLoad('count', query, 's', 'v1', async () => 7)).toBe(7);
  });
});
