export interface TtlCacheOptions {
  /** How long an entry is served after it was set. */
  ttlMs: number;
  /** Past this many entries the oldest one is evicted, so that memory stays bounded. */
  maxEntries: number;
  /** The clock in milliseconds; injectable so that tests move time instead of sleeping. */
  now?: () => number;
}

/**
 * A small in-process cache whose entries expire `ttlMs` after they were set. It backs the
 * short windows (credentials, projects, table definitions) in which another process's change
 * may not be seen yet. `undefined` means "not cached"; `null` is a value like any other, so a
 * lookup that found nothing can be cached too.
 */
export class TtlCache<K, V> {
  // A Map keeps insertion order, and `set` re-inserts: the first key is always the oldest.
  private readonly entries = new Map<K, { value: V; expiresAt: number }>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: TtlCacheOptions) {
    this.ttlMs = options.ttlMs;
    this.maxEntries = options.maxEntries;
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value while it is fresh; `undefined` when absent or expired (an expired entry is dropped). */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt > this.now()) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.now() + this.ttlMs });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as K);
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  /** Drops every entry whose key matches (e.g. all tables of one project). */
  deleteWhere(matches: (key: K) => boolean): void {
    for (const key of this.entries.keys()) if (matches(key)) this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
