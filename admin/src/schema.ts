import { useQuery } from '@tanstack/react-query';
import type { RouterOutputs, TabulaClient } from 'tabula/client';
import { ALL } from './layout/Shell.js';
import { useApi } from './query.js';
import { useClient } from './session.js';

export type Table = RouterOutputs['tables']['get'];
export type Column = RouterOutputs['columns']['get'];
export type ContentRow = RouterOutputs['contents']['get'];

/**
 * A table and its columns (ordered by position), shared by the contents list, the editor and the
 * revisions' diff. Keyed under the project's `tables`, which table events refresh.
 */
export function useTable(projectId: string, tableId: string) {
  return useApi(['project', projectId, 'tables', tableId], (client) => client.tables.get.query({ projectId, tableId }));
}

/**
 * The query of a table's columns, ordered by position: one key and one shape wherever they are
 * read (useColumns, and the useQueries of reference labels and revision names), so all share it.
 */
export const columnsQuery = (client: TabulaClient, projectId: string, tableId: string) => ({
  queryKey: ['project', projectId, 'tables', tableId, 'columns'],
  queryFn: async () => {
    const { list } = await client.columns.list.query({ projectId, tableId, ...ALL });
    return [...list].sort((a, b) => a.position - b.position);
  },
});

export function useColumns(projectId: string, tableId: string) {
  return useQuery(columnsQuery(useClient(), projectId, tableId));
}
