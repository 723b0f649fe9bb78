import type { WorkspaceRole } from './workspace.entity.js';

const WORKSPACE_RANK: Record<WorkspaceRole, number> = { MEMBER: 1, ADMIN: 2, OWNER: 3 };

export const workspaceRoleAtLeast = (role: WorkspaceRole | null, min: WorkspaceRole): boolean =>
  role !== null && WORKSPACE_RANK[role] >= WORKSPACE_RANK[min];
