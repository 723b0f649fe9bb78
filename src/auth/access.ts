import type { EntityManager } from '@mikro-orm/postgresql';
import { forbidden, notFound } from '../errors/app-error.js';
import { isUuid } from '../shared/ids.js';
import { ProjectMemberSchema, ProjectSchema, type Project, type ProjectRole } from '../modules/projects/project.entity.js';
import {
  WorkspaceMemberSchema,
  WorkspaceSchema,
  type Workspace,
  type WorkspaceRole,
} from '../modules/workspaces/workspace.entity.js';
import { effectiveProjectRole, projectRoleAtLeast } from '../modules/projects/project-roles.js';
import { workspaceRoleAtLeast } from '../modules/workspaces/workspace-roles.js';

export interface WorkspaceAccess {
  workspace: Workspace;
  role: WorkspaceRole | null;
}

export interface ProjectAccess {
  project: Project;
  role: ProjectRole | null;
}

/** A path parameter from the raw (not yet validated) input; missing or non-string is "". */
export function rawPathParam(input: unknown, name: string): string {
  const value = (input as Record<string, unknown> | null | undefined)?.[name];
  return typeof value === 'string' ? value : '';
}

/** The workspace (404 when unknown or deleted) and the account's role in it (null: none). */
export async function loadWorkspaceAccess(em: EntityManager, workspaceId: string, accountId: string): Promise<WorkspaceAccess> {
  if (!isUuid(workspaceId)) throw notFound('Workspace');
  const workspace = await em.findOne(WorkspaceSchema, { id: workspaceId, deletedAt: null });
  if (!workspace) throw notFound('Workspace');
  const member = await em.findOne(WorkspaceMemberSchema, { workspace: workspaceId, account: accountId });
  return { workspace, role: member?.role ?? null };
}

export function requireWorkspaceRole(access: WorkspaceAccess, minRole: WorkspaceRole): void {
  if (!workspaceRoleAtLeast(access.role, minRole)) {
    throw forbidden(access.role ? `Requires workspace role ${minRole} or higher` : 'Not a member of this workspace');
  }
}

/** The project inside the given workspace (404 otherwise) and the account's effective role. */
export async function loadProjectAccess(
  em: EntityManager,
  workspace: WorkspaceAccess,
  projectId: string,
  accountId: string,
): Promise<ProjectAccess> {
  if (!isUuid(projectId)) throw notFound('Project');
  const project = await em.findOne(ProjectSchema, { id: projectId, workspace: workspace.workspace.id, deletedAt: null });
  if (!project) throw notFound('Project');
  return { project, role: await projectRoleOf(em, workspace.role, projectId, accountId) };
}

export async function projectRoleOf(
  em: EntityManager,
  workspaceRole: WorkspaceRole | null,
  projectId: string,
  accountId: string,
): Promise<ProjectRole | null> {
  if (workspaceRole !== 'MEMBER') return effectiveProjectRole(workspaceRole, null);
  const member = await em.findOne(ProjectMemberSchema, { project: projectId, account: accountId });
  return effectiveProjectRole(workspaceRole, member?.role ?? null);
}

export function requireProjectRole(access: ProjectAccess, minRole: ProjectRole): void {
  if (!projectRoleAtLeast(access.role, minRole)) {
    throw forbidden(access.role ? `Requires project role ${minRole} or higher` : 'No access to this project');
  }
}
