import { ALL, useApi } from '../api.js';
import { projectKeys } from './keys.js';

/** A workspace's projects. */
export function useProjects(workspaceId: string | undefined, options: { enabled?: boolean } = {}) {
  return useApi(projectKeys.list(workspaceId), (client) => client.projects.list.query({ workspaceId: workspaceId!, ...ALL }), options);
}

/** One project: its name, locales and default locale. */
export function useProjectDetail(workspaceId: string, projectId: string) {
  return useApi(projectKeys.detail(projectId), (client) => client.projects.get.query({ workspaceId, projectId }));
}
