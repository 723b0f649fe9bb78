import type { RouterOutputs } from 'tabula/client';
import { ALL, useApi } from '../api.js';
import { workspaceKeys } from './keys.js';

export type Workspace = RouterOutputs['workspaces']['get'];

/** The signed-in account's workspaces. */
export function useWorkspaces() {
  return useApi(workspaceKeys.list(), (client) => client.workspaces.list.query(ALL));
}

export function useWorkspace(workspaceId: string | undefined, options: { enabled?: boolean } = {}) {
  return useApi(workspaceKeys.detail(workspaceId), (client) => client.workspaces.get.query({ workspaceId: workspaceId! }), options);
}

/** The workspace's members (to name the authors of revisions). */
export function useWorkspaceMembers(workspaceId: string) {
  return useApi(workspaceKeys.memberNames(workspaceId), (client) => client.workspaceMembers.list.query({ workspaceId, ...ALL }));
}
