import type { EntityManager } from '@mikro-orm/postgresql';
import { runSql } from '../db/sql.js';
import { forbidden, notFound } from '../errors/app-error.js';
import { isUuid } from '../shared/ids.js';
import { ProjectSchema, type Project, type ProjectRole } from '../modules/projects/project.entity.js';
import {
  WorkspaceMemberSchema,
  WorkspaceSchema,
  type Workspace,
  type WorkspaceRole,
} from '../modules/workspaces/workspace.entity.js';
import { effectiveProjectRole, projectRoleAtLeast } from '../modules/projects/project-roles.js';
import { workspaceRoleAtLeast } from '../modules/workspaces/workspace-roles.js';
import { projectMembership } from './auth.sql.js';
import { grantedRoleOf, type GrantedRoleRow } from './granted-role.js';
import type { GrantedRole } from './principal.js';

export interface WorkspaceAccess {
  workspace: Workspace;
  role: WorkspaceRole | null;
}

/**
 * What an account holds in a project: a built-in role (workspace OWNER and ADMIN: ADMIN), or,
 * as a project member, a custom role (docs/roles.md#granting-a-role); at most one of the two.
 */
export interface ProjectRoleGrant {
  role: ProjectRole | null;
  customRole: GrantedRole | null;
}

export interface ProjectAccess extends ProjectRoleGrant {
  project: Project;
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
  return { project, ...(await projectRoleOf(em, workspace.role, projectId, accountId)) };
}

/**
 * The account's grant in the project: one statement for a workspace MEMBER (the membership and
 * the custom role it may hold, joined), none for OWNER and ADMIN (project ADMIN everywhere).
 */
export async function projectRoleOf(
  em: EntityManager,
  workspaceRole: WorkspaceRole | null,
  projectId: string,
  accountId: string,
): Promise<ProjectRoleGrant> {
  if (workspaceRole !== 'MEMBER') return { role: effectiveProjectRole(workspaceRole, null), customRole: null };
  const [member] = await runSql<GrantedRoleRow & { role: ProjectRole | null }>(em, projectMembership(projectId, accountId));
  return { role: effectiveProjectRole(workspaceRole, member?.role ?? null), customRole: member ? grantedRoleOf(member) : null };
}

/**
 * The workspace's project endpoints (the project itself, its members) by built-in role. A member
 * holding a custom role sees them as a VIEWER does; what it may do with the project's data its
 * rules say (docs/roles.md#granting-a-role).
 */
export function requireProjectRole(access: ProjectAccess, minRole: ProjectRole): void {
  if (access.customRole && minRole === 'VIEWER') return;
  if (!projectRoleAtLeast(access.role, minRole)) {
    throw forbidden(
      access.role
        ? `Requires project role ${minRole} or higher`
        : access.customRole
          ? `Requires project role ${minRole} or higher; the custom role "${access.customRole.name}" grants table rows only`
          : 'No access to this project',
    );
  }
}

/**
 * The project a new one is copied from (docs/concepts.md#copying-a-project): the caller must be
 * its ADMIN (project ADMIN, or OWNER/ADMIN of its workspace), whichever workspace it is in. An
 * unknown or deleted project, or one of a workspace the caller is not a member of, is 404 (its
 * existence is not told); one the caller holds a lesser role in is 403.
 */
export async function requireSourceProjectAdmin(em: EntityManager, projectId: string, accountId: string): Promise<Project> {
  const project = isUuid(projectId) ? await em.findOne(ProjectSchema, { id: projectId, deletedAt: null, workspace: { deletedAt: null } }) : null;
  if (!project) throw notFound('Source project');
  const member = await em.findOne(WorkspaceMemberSchema, { workspace: project.workspace.id, account: accountId });
  if (!member) throw notFound('Source project');
  const grant = await projectRoleOf(em, member.role, project.id, accountId);
  if (!projectRoleAtLeast(grant.role, 'ADMIN')) throw forbidden('Copying a project requires project role ADMIN on the source project');
  return project;
}
