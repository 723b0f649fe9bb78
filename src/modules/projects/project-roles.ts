import type { WorkspaceRole } from '../workspaces/workspace.entity.js';
import type { ProjectRole } from './project.entity.js';

const PROJECT_RANK: Record<ProjectRole, number> = { VIEWER: 1, EDITOR: 2, ADMIN: 3 };

export const projectRoleAtLeast = (role: ProjectRole | null, min: ProjectRole): boolean =>
  role !== null && PROJECT_RANK[role] >= PROJECT_RANK[min];

/**
 * docs/concepts.md#credentials-and-roles: workspace OWNER and ADMIN are project ADMIN on every project of the workspace;
 * anyone else has the role their project membership gives (or none).
 */
export function effectiveProjectRole(
  workspaceRole: WorkspaceRole | null,
  projectRole: ProjectRole | null,
): ProjectRole | null {
  if (workspaceRole === 'OWNER' || workspaceRole === 'ADMIN') return 'ADMIN';
  if (workspaceRole === null) return null;
  return projectRole;
}
