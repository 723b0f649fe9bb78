import type pg from 'pg';
import { sqlOn, type SqlQuery } from '../../../db/sql.js';
import { codePointOrderProbe } from './list-cache.sql.js';
import { visibleIn, type RowChange, type RowImage, type Snapshot } from './change-log.js';
import { rowMatches, type ListShape, type TextOrder } from '../../query/index.js';
import { countDelta, pageUnaffected, type PageBounds } from './list-effects.js';
import type { SortedRow } from './page-patch.js';
import { RowCache } from './row-cache.js';
import { TableSync, type SyncedTable } from './table-sync.js';

/*
 * List pages and filtered totals, per API process, kept exact under writes. Every list request
 * first reads the table's changes committed since the process last looked (table-sync.ts, one
 * statement that also gives the unfiltered totals); each change is then checked against each
 * cached result of the table (list-effects.ts): a page stays unless the changed row sorts into
 * or out of its range, a first page takes a created row in its place (page-patch.ts), a
 * filtered total moves by the change's -1/0/+1. Whatever cannot be decided is dropped and
 * loaded again (single flight). Entries also expire after MAX_AGE_MS,
 * so a mistake could never outlive a minute.
 */

/** Bound of the cache, in list rows (a count weighs one): ~25 MB at typical row sizes. */
const MAX_WEIGHT = 50_000;
/** Pages larger than this are not kept: one of them would evict everything else. */
const MAX_ENTRY_WEIGHT = 2_000;
/** An entry is loaded again after this long, whatever happened. */
const MAX_AGE_MS = 60_000;
/** Checks per batch (changes x entries of the table) above which the table's entries are simply dropped. */
const MAX_CHECKS_PER_BATCH = 200_000;

export interface PageResult<T> {
  list: T[];
  hasNext: boolean;
  nextCursor: string | null;
  bounds: PageBounds;
  /** The rows behind `list`, and the first row after it when there is one. */
  rows: SortedRow[];
}

/**
 * The page with a created row in its place (a row that matches the list), or null when it must
 * be loaded again. Given for pages that can take one (page-patch.ts).
 */
export type PagePatch<T> = (page: PageResult<T>, created: RowImage, textOrder: TextOrder) => PageResult<T> | null;

interface PageEntry {
  kind: 'page';
  value: PageResult<unknown>;
  patch?: PagePatch<unknown>;
}
interface CountEntry {
  kind: 'count';
  value: number;
  /** What the count statement saw: later changes it already counted are skipped. */
  snapshot: Snapshot;
}
type Entry = (PageEntry | CountEntry) & {
  key: string;
  tableId: string;
  /** Other tables the result reads (dotted filters and sorts): any change of theirs drops it. */
  related: string[];
  shape: ListShape;
  weight: number;
  loadedAt: number;
};

export interface Lookup {
  tableId: string;
  /** The statement, and what else shapes its answer (schema, default locale). */
  query: SqlQuery;
  variant: string;
  shape: ListShape;
  /** `seq` of the sync this request made before looking up. */
  seq: number;
  /** The other tables the statement reads, each with the `seq` of its sync by this request. */
  related?: { tableId: string; seq: number }[];
}

/**
 * Whether the database orders text by code point (C or C.UTF-8 collations: the embedded
 * server's), so that text sort keys can be compared here; otherwise pages sorted by text are
 * loaded again on any change of a matching row.
 */
export async function detectTextOrder(pool: pg.Pool): Promise<TextOrder> {
  const [row] = await sqlOn(pool)<{ codepoint: boolean }>(codePointOrderProbe());
  return row.codepoint ? 'codepoint' : 'unknown';
}

export class ListCache {
  private readonly entries = new Map<string, Entry>();
  private readonly byTable = new Map<string, Set<string>>();
  /**
   * Loads under way, with the sync they started after: a request joins a load that started
   * after its own sync (it includes every change the request must see), else starts its own.
   */
  private readonly loading = new Map<string, { seq: number; promise: Promise<unknown> }>();
  private readonly sync: TableSync;
  private weight = 0;
  /** Rows by id for expansions, kept exact by the same change log (row-cache.ts). */
  readonly rows = new RowCache();

  constructor(private readonly textOrder: TextOrder = 'unknown') {
    this.sync = new TableSync({
      onBatch: (tableId, batch) => {
        this.apply(tableId, batch.changes);
        this.rows.apply(tableId, batch.changes);
      },
      onReset: (tableId) => {
        this.dropTable(tableId);
        this.rows.drop(tableId);
      },
    });
  }

  /** Brings the table's cached results up to date with every committed change; answers its totals. */
  syncTable(pool: pg.Pool, tableId: string): Promise<SyncedTable> {
    return this.sync.sync(sqlOn(pool), tableId);
  }

  page<T>(lookup: Lookup, load: () => Promise<PageResult<T>>, patch?: PagePatch<T>): Promise<PageResult<T>> {
    return this.getOrLoad(lookup, 'page', async () => {
      const value = await load();
      return { entry: { kind: 'page', value, patch: patch as PagePatch<unknown> | undefined }, weight: Math.max(1, value.list.length) };
    }) as Promise<PageResult<T>>;
  }

  count(lookup: Lookup, load: () => Promise<{ total: number; snapshot: Snapshot }>): Promise<number> {
    return this.getOrLoad(lookup, 'count', async () => {
      const { total, snapshot } = await load();
      return { entry: { kind: 'count', value: total, snapshot }, weight: 1 };
    }) as Promise<number>;
  }

  private async getOrLoad(
    lookup: Lookup,
    kind: Entry['kind'],
    load: () => Promise<{ entry: PageEntry | CountEntry; weight: number }>,
  ): Promise<unknown> {
    const key = `${kind}\u0000${lookup.variant}\u0000${lookup.query.text}\u0000${JSON.stringify(lookup.query.values)}`;
    const entry = this.entries.get(key);
    if (entry && performance.now() - entry.loadedAt < MAX_AGE_MS) {
      // Most recently used last: a Map iterates in insertion order, so eviction takes the oldest.
      this.entries.delete(key);
      this.entries.set(key, entry);
      return entry.value;
    }
    const pending = this.loading.get(key);
    if (pending && pending.seq >= lookup.seq) return pending.promise;
    const loadedAt = performance.now();
    const related = lookup.related ?? [];
    const started = load().then(({ entry: loaded, weight }) => {
      const fresh: Entry = { ...loaded, key, tableId: lookup.tableId, related: related.map((r) => r.tableId), shape: lookup.shape, weight, loadedAt };
      // Batches read while the load ran: the result may predate them.
      const later = this.sync.batchesSince(lookup.tableId, lookup.seq);
      const relatedUnchanged = related.every((r) => this.sync.batchesSince(r.tableId, r.seq)?.length === 0);
      if (later && relatedUnchanged && later.every((batch) => this.maintain(fresh, batch.changes))) this.set(fresh);
      return loaded.value;
    });
    const loading = { seq: lookup.seq, promise: started };
    this.loading.set(key, loading);
    try {
      return await started;
    } finally {
      if (this.loading.get(key) === loading) this.loading.delete(key);
    }
  }

  /** Applies a batch to one entry; false when the entry can no longer be kept. */
  private maintain(entry: Entry, changes: RowChange[]): boolean {
    for (const change of changes) {
      if (entry.kind === 'page') {
        if (pageUnaffected(entry.shape, entry.value.bounds, change, this.textOrder)) continue;
        const created = !change.old && change.new && entry.patch && rowMatches(entry.shape, change.new) ? change.new : null;
        const patched = created && entry.patch!(entry.value, created, this.textOrder);
        if (!patched) return false;
        this.reweigh(entry, Math.max(1, patched.list.length));
        entry.value = patched;
      } else if (!visibleIn(change.xid, entry.snapshot)) {
        const delta = countDelta(entry.shape, change);
        if (delta === null) return false;
        entry.value += delta;
      }
    }
    return true;
  }

  /** A patched page may hold one row more than it was loaded with. */
  private reweigh(entry: Entry, weight: number): void {
    if (this.entries.get(entry.key) === entry) this.weight += weight - entry.weight;
    entry.weight = weight;
  }

  private apply(tableId: string, changes: RowChange[]): void {
    const keys = this.byTable.get(tableId);
    if (!keys) return;
    if (keys.size * changes.length > MAX_CHECKS_PER_BATCH) {
      this.dropTable(tableId);
      return;
    }
    for (const key of [...keys]) {
      const entry = this.entries.get(key)!;
      // A change in a table the result only reads through references: nothing to patch.
      if (entry.tableId !== tableId || !this.maintain(entry, changes)) this.remove(key);
    }
  }

  private dropTable(tableId: string): void {
    for (const key of [...(this.byTable.get(tableId) ?? [])]) this.remove(key);
  }

  private set(entry: Entry): void {
    if (entry.weight > MAX_ENTRY_WEIGHT) return;
    this.remove(entry.key);
    while (this.weight + entry.weight > MAX_WEIGHT && this.entries.size > 0) this.remove(this.entries.keys().next().value!);
    this.entries.set(entry.key, entry);
    for (const tableId of [entry.tableId, ...entry.related]) {
      let keys = this.byTable.get(tableId);
      if (!keys) this.byTable.set(tableId, (keys = new Set()));
      keys.add(entry.key);
    }
    this.weight += entry.weight;
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.weight -= entry.weight;
    for (const tableId of [entry.tableId, ...entry.related]) {
      const keys = this.byTable.get(tableId);
      keys?.delete(key);
      if (keys?.size === 0) this.byTable.delete(tableId);
    }
  }
}

