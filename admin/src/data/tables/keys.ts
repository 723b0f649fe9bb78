import { projectKeys } from '../projects/keys.js';

/** A project's tables. A table event refreshes `all`, the tables and their columns (columns/keys.ts). */
export const tableKeys = {
  all: (projectId: string) => [...projectKeys.all(projectId), 'tables'] as const,
  list: (projectId: string) => [...tableKeys.all(projectId), 'list'] as const,
  detail: (projectId: string, tableId: string) => [...tableKeys.all(projectId), tableId] as const,
};
