import type { Column } from '../../data/columns/queries.js';
import { useContentsList, type ContentsQuery } from '../../data/contents/queries.js';
import type { ListState } from './list-state.js';

/**
 * One page of a table's rows, keyed under `contentsKeys.table(projectId, tableId)` so that the
 * event feed's contents events (data/realtime.ts) read it again while it is shown.
 *
 * What keeps it fast on a large table:
 * - the total is asked for when nothing is filtered, where the API answers it from maintained
 *   counters, and for a search, whose "N results" a person reads first (the API counts the
 *   matches once and keeps that count exact under writes, docs/contents.md#lists-under-writes); a
 *   filter alone goes without it (`withCount: false`), `hasNext` telling whether there is a next
 *   page;
 * - a page past the first is read by its keyset cursor (`cursor`), not by an offset that makes the
 *   database walk every row before it;
 * - references and files come expanded in the same call (`expand`: one query per column, whatever
 *   the page size), never read row by row;
 * - the call does not wait for the columns: it goes out beside them, without `expand`, and a table
 *   without reference or file columns (whose key stays the same) is read once. A table with them is
 *   read again with `expand` once its columns are known, the first answer shown meanwhile.
 */
/** The part of a list's input that decides which rows match: its filter and search. */
export const listQuery = (state: ListState): Pick<ContentsQuery, 'filter' | 'op' | 'search'> => ({
  ...(state.conditions.length > 0 ? { filter: JSON.stringify(state.conditions), op: state.op } : {}),
  ...(state.search.trim() ? { search: state.search.trim() } : {}),
});

export function useContentsPage(projectId: string, tableId: string, columns: Column[] | undefined, state: ListState) {
  const expand = (columns ?? []).filter((c) => c.type === 'reference' || c.type === 'file').map((c) => c.name);
  const counted = state.search.trim() !== '' || state.conditions.length === 0;
  const query: ContentsQuery = {
    size: state.size,
    ...(state.after ? { cursor: state.after } : { page: state.page }),
    ...(state.sort ? { sort: JSON.stringify([{ i: state.sort.field, o: state.sort.direction }]) } : {}),
    ...(state.conditions.length > 0 ? { filter: JSON.stringify(state.conditions), op: state.op } : {}),
    ...(state.search.trim() ? { search: state.search.trim() } : {}),
    ...(expand.length > 0 ? { expand: expand.join(',') } : {}),
    // The input is read from a query string on /v1, so the flag is the word.
    withCount: counted ? 'true' : 'false',
  };
  return useContentsList(projectId, tableId, query);
}

/**
 * The cursors met while paging, per listing (sort, filter, search, size): going back to a page
 * seen before reads it by its cursor again. A page whose cursor is not known (a reload on page 7,
 * then Previous) is read by its number.
 */
const cursors = new Map<string, Map<number, string>>();

const listingOf = (tableId: string, state: ListState) => JSON.stringify([tableId, state.sort, state.search, state.conditions, state.op, state.size]);

export function rememberCursor(tableId: string, state: ListState, page: number, cursor: string): void {
  const key = listingOf(tableId, state);
  if (!cursors.has(key)) cursors.set(key, new Map());
  cursors.get(key)!.set(page, cursor);
}

export function cursorOf(tableId: string, state: ListState, page: number): string | null {
  return cursors.get(listingOf(tableId, state))?.get(page) ?? null;
}
