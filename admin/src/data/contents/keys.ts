import { projectKeys } from '../projects/keys.js';

/**
 * A project's rows. Each read of a table's rows is under `table`, which a contents event of that
 * table and every write to it refresh: the list's pages, a row, its draft, the reference picker's
 * searches and labels, and the revisions (revisions/keys.ts).
 */
export const contentsKeys = {
  all: (projectId: string) => [...projectKeys.all(projectId), 'contents'] as const,
  table: (projectId: string, tableId: string) => [...contentsKeys.all(projectId), tableId] as const,
  /** One page of the list: `query` is the list's input without the project and table. */
  page: (projectId: string, tableId: string, query: object) => [...contentsKeys.table(projectId, tableId), 'list', query] as const,
  row: (projectId: string, tableId: string, contentId: string) => [...contentsKeys.table(projectId, tableId), 'row', contentId] as const,
  draft: (projectId: string, tableId: string, contentId: string) => [...contentsKeys.row(projectId, tableId, contentId), 'draft'] as const,
  /** The reference picker's search: each text's answer under its own key. */
  search: (projectId: string, tableId: string, search: string, fields: string) => [...contentsKeys.table(projectId, tableId), 'pick', search, fields] as const,
  /** Rows by id (every field), which the revisions' diff names by their label. */
  labels: (projectId: string, tableId: string, ids: string[]) => [...contentsKeys.table(projectId, tableId), 'labels', ids] as const,
  /** Rows by id with only `fields`, in the default locale: the reference picker's chosen rows. */
  chosen: (projectId: string, tableId: string, ids: string[], fields: string) => [...contentsKeys.labels(projectId, tableId, ids), fields] as const,
};
