import { projectKeys } from '../projects/keys.js';
import { workspaceKeys } from '../workspaces/keys.js';

/** Members of a workspace and of a project: a change refreshes the list it belongs to. */
export const memberKeys = {
  workspace: (workspaceId: string) => [...workspaceKeys.all(workspaceId), 'members', 'list'] as const,
  project: (projectId: string) => [...projectKeys.all(projectId), 'members'] as const,
};
