import { projectKeys } from '../projects/keys.js';

/** A project's API keys: a write refreshes `list`, the names under it too. */
export const apiKeyKeys = {
  list: (projectId: string) => [...projectKeys.all(projectId), 'keys'] as const,
  /** The keys, read to name the authors of revisions. */
  names: (projectId: string) => [...apiKeyKeys.list(projectId), 'names'] as const,
};
