/*
 * The first page of a list takes a created row without loading it again: the row goes where
 * the list's order puts it among the cached rows (the page and the first row after it), and
 * what falls off the end is dropped. On the lists every create touches (the newest rows first,
 * the default order) this replaces a query per write with a few comparisons.
 *
 * Only creates, and only the first page: a row sorting before a later page shifts it by one,
 * and which row then moves in from the page before is not cached. A delete or an update of a
 * listed row would pull the next row in and leave the one after it unknown. Those reload.
 */
import type { RowImage } from './change-log.js';
import { comparePosition, type SortKey, type SortPosition, type TextOrder } from '../../query/index.js';

/** A cached row of the compiled select: its id and its sort-key values `_k0`, `_k1`, … */
export interface SortedRow {
  id: string;
  [sortKey: `_k${number}`]: unknown;
}

export const positionOf = (sort: SortKey[], row: SortedRow): SortPosition => ({ keys: sort.map((_, i) => row[`_k${i}`]), id: row.id });

/**
 * `rows` (the first `size + 1` rows of the list, or all of them when fewer) with `created`, the
 * row of `image`, in its place; null when its place cannot be told here. The caller has checked
 * that the row matches the list.
 */
export function rowsWithCreated<R extends SortedRow>(sort: SortKey[], rows: R[], size: number, created: R, image: RowImage, textOrder: TextOrder): R[] | null {
  // A load that ran after the create committed already holds the row.
  if (rows.some((row) => row.id === image.id)) return rows;
  for (let i = 0; i < rows.length; i++) {
    const c = comparePosition(sort, image, positionOf(sort, rows[i]), textOrder);
    if (c === null) return null;
    if (c < 0) return [...rows.slice(0, i), created, ...rows.slice(i)].slice(0, size + 1);
  }
  // After every cached row: the list goes on past them (nothing cached moves), or it ended here.
  return rows.length > size ? rows : [...rows, created];
}
