/**
 * From the rows of the compiled select to the wire (optional helpers for the contents service):
 * the page itself, `hasNext`, `nextCursor`, and each item with only the asked-for fields.
 */
import { encodeCursor } from './cursor.js';
import type { ListQuery, OutputSystemField } from './types.js';

type Timestamp = Date | string;

/** One row of the compiled select (`_k<i>` sort-key columns besides). */
export interface ListRow {
  id: string;
  status: string;
  slug: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  publishedAt: Timestamp | null;
  publishAt: Timestamp | null;
  /** The row's revision number (docs/contents.md#concurrent-edits). */
  version: number;
  /** Selected only when asked for (never for read keys). */
  hasDraft?: boolean;
  data?: Record<string, unknown> | null;
  [sortKey: `_k${number}`]: unknown;
}

/**
 * The first `size` rows, whether more follow (the select fetches `size + 1`) and the cursor of
 * the next page (`null` on the last page). The cursor is built from the last row kept.
 */
export function pageOf<R extends ListRow>(query: ListQuery, rows: R[]): { rows: R[]; hasNext: boolean; nextCursor: string | null } {
  const hasNext = rows.length > query.size;
  const kept = hasNext ? rows.slice(0, query.size) : rows;
  return { rows: kept, hasNext, nextCursor: hasNext ? encodeCursor(query, kept[kept.length - 1]) : null };
}

/** The contents pool already returns ISO strings (db/pool.ts); a Date is formatted. */
const iso = (t: Timestamp | null): string | null => (t === null ? null : typeof t === 'string' ? t : t.toISOString());

const TIMESTAMPS: ReadonlySet<OutputSystemField> = new Set(['createdAt', 'updatedAt', 'publishedAt', 'publishAt']);

/**
 * The wire object of one row: `id`, the system fields asked for (all without `fields`) and
 * `data` holding only the asked-for live columns (so keys of deleted columns not yet purged
 * never leak); fields not asked for are absent, `data` too when no column was asked for.
 */
export function toListItem(row: ListRow, query: Pick<ListQuery, 'projection'>): Record<string, unknown> {
  const { projection } = query;
  const item: Record<string, unknown> = { id: row.id };
  const system = new Set(projection.system);
  if (system.has('slug')) item.slug = row.slug;
  if (system.has('status')) item.status = row.status;
  if (projection.all || projection.columns.length > 0) {
    const stored = row.data ?? {};
    const data: Record<string, unknown> = {};
    for (const column of projection.columns) {
      if (Object.hasOwn(stored, column.name)) data[column.name] = stored[column.name];
    }
    item.data = data;
  }
  for (const field of projection.system) {
    if (TIMESTAMPS.has(field)) item[field] = iso(row[field as 'createdAt' | 'updatedAt' | 'publishedAt' | 'publishAt']);
  }
  if (system.has('version')) item.version = row.version;
  if (system.has('hasDraft') && row.hasDraft !== undefined) item.hasDraft = row.hasDraft;
  return item;
}
