import type { SqlQuery } from '../../db/sql.js';

/*
 * List results and filtered totals, per API process, keyed by the exact statement (text and
 * values), the table's schema and the table's change counter (see counts.ts). Any write to the
 * table moves the counter, so an entry is never served after a change; column changes move the
 * schema key. Readers of a table that nobody writes to therefore skip the database for the
 * page and the count alike, and a count over thousands of rows runs once per change, not per
 * request.
 */

/** Bound of the cache, in list rows (a count weighs one): ~25 MB at typical row sizes. */
const MAX_WEIGHT = 50_000;
/** Pages larger than this are not kept: one of them would evict everything else. */
const MAX_ENTRY_WEIGHT = 2_000;

/** A page with its total, a page without (withCount=false: same statement, other answer), or a count. */
export type CacheKind = 'page' | 'page-without-count' | 'count';

interface Entry {
  version: string;
  value: unknown;
  weight: number;
}

export class ResultCache {
  private readonly entries = new Map<string, Entry>();
  /** Loads under way, by key and version: concurrent misses of one result share one query. */
  private readonly loading = new Map<string, Promise<unknown>>();
  private weight = 0;

  /**
   * The cached result, or `load()`'s, filed under `version`. Requests that miss together wait
   * for the same load: after a write to a large table, a hundred readers of one filtered list
   * run one count, not a hundred at once (which on two cores took each of them seconds).
   */
  async getOrLoad<T>(kind: CacheKind, query: SqlQuery, schemaKey: string, version: string, load: () => Promise<T>, weightOf: (value: T) => number = () => 1): Promise<T> {
    const key = keyOf(kind, query, schemaKey);
    const entry = this.entries.get(key);
    if (entry && entry.version === version) {
      // Most recently used last: a Map iterates in insertion order, so eviction takes the oldest.
      this.entries.delete(key);
      this.entries.set(key, entry);
      return entry.value as T;
    }
    const loadKey = `${version}\u0000${key}`;
    const pending = this.loading.get(loadKey) as Promise<T> | undefined;
    if (pending) return pending;
    const started = load().then((value) => {
      this.set(key, version, value, weightOf(value));
      return value;
    });
    this.loading.set(loadKey, started);
    try {
      return await started;
    } finally {
      this.loading.delete(loadKey);
    }
  }

  private set(key: string, version: string, value: unknown, weight: number): void {
    if (weight > MAX_ENTRY_WEIGHT) return;
    this.remove(key);
    while (this.weight + weight > MAX_WEIGHT && this.entries.size > 0) this.remove(this.entries.keys().next().value!);
    this.entries.set(key, { version, value, weight });
    this.weight += weight;
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.weight -= entry.weight;
  }
}

const keyOf = (kind: string, query: SqlQuery, schemaKey: string) => `${kind}\u0000${schemaKey}\u0000${query.text}\u0000${JSON.stringify(query.values)}`;
