import type { RouterOutputs } from 'tabula/client';
import { ALL } from './layout/Shell.js';
import { useApi } from './query.js';

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

export function useColumns(projectId: string, tableId: string) {
  return useApi(['project', projectId, 'tables', tableId, 'columns'], async (client) => {
    const { list } = await client.columns.list.query({ projectId, tableId, ...ALL });
    return [...list].sort((a, b) => a.position - b.position);
  });
}
