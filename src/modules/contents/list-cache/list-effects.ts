/*
 * Whether a changed row can change a cached list result, decided from the row's images before
 * and after the change (change-log.ts) and the list's parsed query, without the database: the
 * query module's JavaScript mirror of the compiled SQL (query/evaluate.ts) says whether each
 * image matches and where it sorts, and answers `null` ("cannot tell") wherever it might
 * disagree with PostgreSQL; the caller then recomputes.
 */
import { comparePosition, rowMatches, type ListShape, type SortPosition, type TextOrder } from '../../query/index.js';
import type { RowChange, RowImage } from './change-log.js';

/** A page's extent: the sort position of its last row and of the first row after it. */
export interface PageBounds {
  /** Null for an empty page. */
  last: SortPosition | null;
  /** Null on the last page (nothing follows). */
  next: SortPosition | null;
}

/** How a filtered total moves with `change`: -1, 0 or +1, or null when it cannot be told. */
export function countDelta(shape: ListShape, change: RowChange): number | null {
  if (!change.old && !change.new) return null;
  const before = change.old ? rowMatches(shape, change.old) : false;
  const after = change.new ? rowMatches(shape, change.new) : false;
  if (before === null || after === null) return null;
  return Number(after) - Number(before);
}

/**
 * Whether a cached page (and its `hasNext`) is still what the query would return after
 * `change`. Rows sorting after the page's last row cannot move it, except the first row after
 * it leaving (the page may become the last). Pages of the end of the list take any change of a
 * matching row as a change.
 */
export function pageUnaffected(shape: ListShape, bounds: PageBounds, change: RowChange, textOrder: TextOrder): boolean {
  if (!change.old && !change.new) return false;
  const images: [RowImage, 'old' | 'new'][] = [];
  if (change.old) images.push([change.old, 'old']);
  if (change.new) images.push([change.new, 'new']);
  for (const [row, which] of images) {
    const matches = rowMatches(shape, row);
    if (matches === false) continue;
    if (matches === null || !bounds.next || !bounds.last) return false;
    // A row arriving after the last row leaves the page alone; one leaving must come after the next row.
    const bound = which === 'new' ? bounds.last : bounds.next;
    const c = comparePosition(shape.query.sort, row, bound, textOrder);
    if (c === null || c <= 0) return false;
  }
  return true;
}
