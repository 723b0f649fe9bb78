import { useProjectMembers } from '../members/queries.js';
import { useMe } from '../session/queries.js';
import { useWorkspaces } from '../workspaces/queries.js';

/**
 * What the signed-in account may do in a project, for the console to show only that
 * (docs/console.md#what-a-member-sees): a workspace OWNER or ADMIN and a project ADMIN manage the
 * project (members, roles, keys, webhooks); an EDITOR writes; a VIEWER reads; a member holding a
 * custom role reads and writes table rows as its rules say, and nothing beyond them.
 */
export interface MyAccess {
  /** Known yet (the reads it comes from have answered). */
  ready: boolean;
  isAdmin: boolean;
  /** A workspace OWNER or ADMIN: manages the workspace's members too. */
  workspaceAdmin: boolean;
  /** Categories, variables, translations and (built-in roles) files. */
  canWrite: boolean;
  /** The member holds a custom role (its id), whose rules the API applies per table. */
  customRoleId: string | null;
}

const BUILT_IN = new Set(['ADMIN', 'EDITOR', 'VIEWER']);

export function useMyAccess(workspaceId: string, projectId: string): MyAccess {
  const me = useMe();
  const workspaces = useWorkspaces();
  const members = useProjectMembers(workspaceId, projectId);
  const workspaceRole = workspaces.data?.list.find((w) => w.id === workspaceId)?.role;
  if (workspaceRole === 'OWNER' || workspaceRole === 'ADMIN') return { ready: true, isAdmin: true, workspaceAdmin: true, canWrite: true, customRoleId: null };
  if (!me.data || !workspaces.data || !members.data) return { ready: false, isAdmin: false, workspaceAdmin: false, canWrite: false, customRoleId: null };
  const role = members.data.list.find((m) => m.accountId === me.data.id)?.role ?? null;
  return {
    ready: true,
    isAdmin: role === 'ADMIN',
    workspaceAdmin: false,
    canWrite: role === 'ADMIN' || role === 'EDITOR',
    customRoleId: role !== null && !BUILT_IN.has(role) ? role : null,
  };
}
