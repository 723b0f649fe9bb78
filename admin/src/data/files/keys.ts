import { projectKeys } from '../projects/keys.js';

/** A project's files; a file event refreshes `all`. */
export const fileKeys = {
  all: (projectId: string) => [...projectKeys.all(projectId), 'files'] as const,
  detail: (projectId: string, fileId: string) => [...fileKeys.all(projectId), fileId] as const,
  /** A page of the library (its search and page). */
  page: (projectId: string, search: string, page: number, size: number) => [...fileKeys.all(projectId), 'page', { search, page, size }] as const,
  usedBy: (projectId: string, fileId: string) => [...fileKeys.detail(projectId, fileId), 'used-by'] as const,
};
