import { workspaceKeys } from '../workspaces/keys.js';

/** A workspace's projects, and the scope of everything read in one project. */
export const projectKeys = {
  /**
   * Everything read in one project starts with this: the event feed reads it all again when its
   * stream starts or after a `reset` (realtime.ts).
   */
  all: (projectId: string) => ['project', projectId] as const,
  list: (workspaceId: string | undefined) => [...workspaceKeys.all(workspaceId), 'projects'] as const,
  /** The project itself (its locales, its default locale). */
  detail: (projectId: string) => [...projectKeys.all(projectId), 'settings'] as const,
};
