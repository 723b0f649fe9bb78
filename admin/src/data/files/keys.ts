import { projectKeys } from '../projects/keys.js';

/** A project's files; a file event refreshes `all`. */
export const fileKeys = {
  all: (projectId: string) => [...projectKeys.all(projectId), 'files'] as const,
  detail: (projectId: string, fileId: string) => [...fileKeys.all(projectId), fileId] as const,
};
