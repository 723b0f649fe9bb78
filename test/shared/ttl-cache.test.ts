import { describe, expect, it } from 'vitest';
import { TtlCache } from '../../src/shared/ttl-cache.js';

/** A clock the test moves by hand. */
const manualClock = (start = 1_000) => {
  let time = start;
  return { now: () => time, advance: (ms: number) => (time += ms) };
};

describe('TtlCache', () => {
  it('serves an entry until its TTL has passed, then forgets it', () => {
    const clock = manualClock();
    const cache = new TtlCache<string, number>({ ttlMs: 500, maxEntries: 10, now: clock.now });
    cache.set('a', 1);
    clock.advance(499);
    expect(cache.get('a')).toBe(1);
    clock.advance(1);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('restarts the TTL when an entry is set again', () => {
    const clock = manualClock();
    const cache = new TtlCache<string, number>({ ttlMs: 500, maxEntries: 10, now: clock.now });
    cache.set('a', 1);
    clock.advance(400);
    cache.set('a', 2);
    clock.advance(400);
    expect(cache.get('a')).toBe(2);
  });

  it('caches null as a value, apart from a miss', () => {
    const cache = new TtlCache<string, string | null>({ ttlMs: 500, maxEntries: 10, now: manualClock().now });
    cache.set('gone', null);
    expect(cache.get('gone')).toBeNull();
    expect(cache.get('never')).toBeUndefined();
  });

  it('evicts the oldest entry past maxEntries, counting a re-set as new', () => {
    const cache = new TtlCache<string, number>({ ttlMs: 500, maxEntries: 3, now: manualClock().now });
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    cache.set('a', 10); // now b is the oldest
    cache.set('d', 4);
    expect(cache.size).toBe(3);
    expect(cache.get('b')).toBeUndefined();
    expect([cache.get('a'), cache.get('c'), cache.get('d')]).toEqual([10, 3, 4]);
  });

  it('deletes one key, the keys that match, or everything', () => {
    const cache = new TtlCache<string, number>({ ttlMs: 500, maxEntries: 10, now: manualClock().now });
    for (const [key, value] of [['p1:a', 1], ['p1:b', 2], ['p2:a', 3], ['p3:a', 4]] as const) cache.set(key, value);
    cache.delete('p3:a');
    expect(cache.get('p3:a')).toBeUndefined();
    cache.deleteWhere((key) => key.startsWith('p1:'));
    expect([cache.get('p1:a'), cache.get('p1:b'), cache.get('p2:a')]).toEqual([undefined, undefined, 3]);
    cache.clear();
    expect(cache.size).toBe(0);
  });
});
