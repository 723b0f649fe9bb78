import { projectKeys } from '../projects/keys.js';

/** A project's releases (docs/releases.md): the list, and one release with its items. */
export const releasesKeys = {
  all: (projectId: string) => [...projectKeys.all(projectId), 'releases'] as const,
  list: (projectId: string, page: number) => [...releasesKeys.all(projectId), 'list', page] as const,
  one: (projectId: string, releaseId: string) => [...releasesKeys.all(projectId), 'one', releaseId] as const,
};
