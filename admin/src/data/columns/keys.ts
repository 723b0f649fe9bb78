import { tableKeys } from '../tables/keys.js';

/** A table's columns, under the table: what refreshes the tables refreshes them. */
export const columnKeys = {
  list: (projectId: string, tableId: string) => [...tableKeys.detail(projectId, tableId), 'columns'] as const,
};
