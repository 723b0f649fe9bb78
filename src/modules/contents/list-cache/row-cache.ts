import type { Sql } from '../../../db/sql.js';
import type { RowChange, RowImage } from './change-log.js';
import { rowImages } from './list-cache.sql.js';

/** Rows kept in all, over every table; past it the cache starts again empty. */
const MAX_ROWS = 100_000;

/**
 * Rows by id, per table, for expansions (`expand`, docs/contents.md#expand): what a referenced row looks like
 * now. Kept exact the way list pages are: the table's change log (table-sync.ts) brings every
 * committed change of a row, created, changed or deleted, before the rows are asked for. A row
 * known to be absent is remembered as null. Loads race with changes that arrive meanwhile: a row
 * such a change touched is served as loaded but not kept.
 */
export class RowCache {
  private readonly tables = new Map<string, Map<string, RowImage | null>>();
  private size = 0;
  /** Ids changed per table while loads ran (cleared when no load is running). */
  private readonly touched = new Map<string, Set<string>>();
  private loads = 0;

  /** The rows of `ids` (null for an absent one), loading the unknown ones in one statement. */
  async get(sql: Sql, tableId: string, ids: string[]): Promise<Map<string, RowImage | null>> {
    const rows = this.tables.get(tableId);
    const found = new Map<string, RowImage | null>();
    const missing: string[] = [];
    for (const id of new Set(ids)) {
      const row = rows?.get(id);
      if (row === undefined) missing.push(id);
      else found.set(id, row);
    }
    if (missing.length === 0) return found;
    this.loads++;
    try {
      const loaded = await sql<{ image: RowImage }>(rowImages(tableId, missing));
      const byId = new Map(loaded.map(({ image }) => [image.id, image]));
      const changed = this.touched.get(tableId);
      for (const id of missing) {
        const row = byId.get(id) ?? null;
        found.set(id, row);
        if (!changed?.has(id)) this.set(tableId, id, row);
      }
    } finally {
      if (--this.loads === 0) this.touched.clear();
    }
    return found;
  }

  /**
   * Takes a batch of the table's committed changes. A row changed twice in one batch is
   * forgotten rather than guessed: a batch does not order the changes of one row.
   */
  apply(tableId: string, changes: RowChange[]): void {
    const latest = new Map<string, RowImage | null | undefined>();
    for (const change of changes) {
      const id = change.new?.id ?? change.old?.id;
      // Neither image: a statement changed too many rows to say which.
      if (!id) return this.drop(tableId);
      // An image logged before versions were (no `version`) is forgotten too: read anew, it has one.
      const unversioned = change.new !== null && change.new.version === undefined;
      latest.set(id, latest.has(id) || unversioned ? undefined : change.new);
    }
    if (this.loads > 0) {
      let ids = this.touched.get(tableId);
      if (!ids) this.touched.set(tableId, (ids = new Set()));
      for (const id of latest.keys()) ids.add(id);
    }
    const rows = this.tables.get(tableId);
    if (!rows) return;
    for (const [id, row] of latest) {
      if (!rows.has(id)) continue;
      if (row === undefined) {
        rows.delete(id);
        this.size--;
      } else {
        rows.set(id, row);
      }
    }
  }

  /** Forgets the table's rows (its changes can no longer be followed). */
  drop(tableId: string): void {
    const rows = this.tables.get(tableId);
    if (!rows) return;
    this.size -= rows.size;
    this.tables.delete(tableId);
  }

  private set(tableId: string, id: string, row: RowImage | null): void {
    if (this.size >= MAX_ROWS) {
      this.tables.clear();
      this.size = 0;
    }
    let rows = this.tables.get(tableId);
    if (!rows) this.tables.set(tableId, (rows = new Map()));
    if (!rows.has(id)) this.size++;
    rows.set(id, row);
  }
}
