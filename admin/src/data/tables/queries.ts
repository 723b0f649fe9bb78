import type { RouterOutputs } from 'tabula/client';
import { ALL, useApi } from '../api.js';
import { tableKeys } from './keys.js';

export type Table = RouterOutputs['tables']['get'];

/** The project's tables: one query for the project's sidebar and the pages that list them. */
export function useTables(projectId: string) {
  return useApi(tableKeys.list(projectId), (client) => client.tables.list.query({ projectId, ...ALL }));
}

/** A table, shared by the contents list, the editor and the reference picker. */
export function useTable(projectId: string, tableId: string) {
  return useApi(tableKeys.detail(projectId, tableId), (client) => client.tables.get.query({ projectId, tableId }));
}
