import type { RouterOutputs } from 'tabula/client';
import { ALL, useApi } from '../api.js';
import { memberKeys } from './keys.js';

export type WorkspaceMember = RouterOutputs['workspaceMembers']['list']['list'][number];
export type ProjectMember = RouterOutputs['projectMembers']['list']['list'][number];

export function useWorkspaceMemberList(workspaceId: string) {
  return useApi(memberKeys.workspace(workspaceId), (client) => client.workspaceMembers.list.query({ workspaceId, ...ALL }));
}

/** A project's members; any member may read them (the console learns its own role there). */
export function useProjectMembers(workspaceId: string, projectId: string) {
  return useApi(memberKeys.project(projectId), (client) => client.projectMembers.list.query({ workspaceId, projectId, ...ALL }));
}
