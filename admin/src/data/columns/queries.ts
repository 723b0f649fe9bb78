import { useQueries, useQuery } from '@tanstack/react-query';
import type { RouterOutputs, TabulaClient } from 'tabula/client';
import { ALL } from '../api.js';
import { useClient } from '../session/session.js';
import { columnKeys } from './keys.js';

export type Column = RouterOutputs['columns']['get'];

/**
 * The query of a table's columns, ordered by position: one key and one shape wherever they are
 * read (useColumns, the list's reference labels, the revision diff's names), so all share it.
 */
export const columnsQuery = (client: TabulaClient, projectId: string, tableId: string) => ({
  queryKey: columnKeys.list(projectId, tableId),
  queryFn: async () => {
    const { list } = await client.columns.list.query({ projectId, tableId, ...ALL });
    return [...list].sort((a, b) => a.position - b.position);
  },
});

export function useColumns(projectId: string, tableId: string, options: { enabled?: boolean } = {}) {
  return useQuery({ ...columnsQuery(useClient(), projectId, tableId), enabled: options.enabled });
}

/** The columns of each of `tableIds`, in that order. */
export function useColumnsOfTables(projectId: string, tableIds: string[]) {
  const client = useClient();
  return useQueries({ queries: tableIds.map((tableId) => columnsQuery(client, projectId, tableId)) });
}
