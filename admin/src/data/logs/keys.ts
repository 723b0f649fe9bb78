import { projectKeys } from '../projects/keys.js';

/** A project's request log, by filters (`query`) and page. */
export const logKeys = {
  list: (projectId: string, query: object, page: number) => [...projectKeys.all(projectId), 'logs', query, page] as const,
};
