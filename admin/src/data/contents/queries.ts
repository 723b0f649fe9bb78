import { useQueries } from '@tanstack/react-query';
import type { RouterInputs, RouterOutputs } from 'tabula/client';
import { useApi } from '../api.js';
import { useClient } from '../session/session.js';
import { contentsKeys } from './keys.js';

export type ContentRow = RouterOutputs['contents']['get'];
/** What a list asks for beside its project and table: page or cursor, sort, filter, search, expand. */
export type ContentsQuery = Omit<RouterInputs['contents']['list'], 'projectId' | 'tableId'>;

const byIds = (ids: string[]) => ({ filter: JSON.stringify([{ i: 'id', w: 'in', v: ids }]), size: ids.length, withCount: 'false' as const });

/** One page of a table's rows; the page shown stays while the next one is read. */
export function useContentsList(projectId: string, tableId: string, query: ContentsQuery) {
  return useApi(contentsKeys.page(projectId, tableId, query), (client) => client.contents.list.query({ projectId, tableId, ...query }), { keepPrevious: true });
}

/** One row, live. */
export function useContentRow(projectId: string, tableId: string, contentId: string, options: { enabled?: boolean } = {}) {
  return useApi(contentsKeys.row(projectId, tableId, contentId), (client) => client.contents.get.query({ projectId, tableId, contentsId: contentId }), options);
}

/** A row with its pending draft applied (the live row when it has none). */
export function useContentDraft(projectId: string, tableId: string, contentId: string, options: { enabled?: boolean } = {}) {
  return useApi(contentsKeys.draft(projectId, tableId, contentId), (client) => client.contents.get.query({ projectId, tableId, contentsId: contentId, version: 'draft' }), options);
}

/**
 * The reference picker's search: `size` rows matching `search` with only `fields`, in `locale`;
 * with `filter`, rows matching any of its conditions instead of the full-text search (the search
 * by a table's display columns).
 */
export function useContentsSearch(projectId: string, tableId: string, find: { search: string; fields: string; locale: string; size: number; filter?: string | null }, options: { enabled?: boolean } = {}) {
  const { search, fields, locale, size, filter } = find;
  const query = filter ? { filter, op: 'or' as const } : { search: search || undefined };
  return useApi(
    contentsKeys.search(projectId, tableId, search, fields),
    (client) => client.contents.list.query({ projectId, tableId, ...query, size, withCount: 'false', locale, fields }),
    { enabled: options.enabled, keepPrevious: true },
  );
}

/** The reference picker's chosen rows, with only `fields`, in `locale`. */
export function useChosenRows(projectId: string, tableId: string, ids: string[], show: { fields: string; locale: string }, options: { enabled?: boolean } = {}) {
  return useApi(
    contentsKeys.chosen(projectId, tableId, ids, show.fields),
    (client) => client.contents.list.query({ projectId, tableId, ...byIds(ids), locale: show.locale, fields: show.fields }),
    { enabled: options.enabled, keepPrevious: true },
  );
}

/** Rows by id, for each table of `tables`, in that order (every field, to be named by their label). */
export function useRowsOfTables(projectId: string, tables: { tableId: string; ids: string[] }[]) {
  const client = useClient();
  return useQueries({
    queries: tables.map(({ tableId, ids }) => ({
      queryKey: contentsKeys.labels(projectId, tableId, ids),
      queryFn: () => client.contents.list.query({ projectId, tableId, ...byIds(ids) }),
    })),
  });
}
