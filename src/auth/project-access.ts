import type { IncomingHttpHeaders } from 'node:http';
import type { EntityManager } from '@mikro-orm/postgresql';
import { forbidden, notFound, unauthorized } from '../errors/app-error.js';
import { isUuid } from '../shared/ids.js';
import type { ProjectRole } from '../modules/projects/project.entity.js';
import { WorkspaceMemberSchema } from '../modules/workspaces/workspace.entity.js';
import { projectRoleOf } from './access.js';
import { originRefusal } from './allowed-hosts.js';
import type { Principal } from './principal.js';
import type { ProjectDirectory, ProjectInfo } from '../modules/projects/project-directory.js';
import { projectRoleAtLeast } from '../modules/projects/project-roles.js';

/**
 * What a `/{projectId}/...` procedure needs (the table of docs/concepts.md#credentials-and-roles):
 * - `read`: GET of project data — any key of the project, VIEWER+;
 * - `logs`: GET of request logs — read_write keys (the logs hold other callers' addresses, and
 *   read keys live in browsers), VIEWER+;
 * - `write`: POST/PUT/DELETE of project data — read_write key, EDITOR+;
 * - `schema`: changes to tables and columns — read_write key, project ADMIN;
 * - `admin`: api-keys and webhooks — account tokens with project ADMIN only.
 */
export type ProjectAccessLevel = 'read' | 'logs' | 'write' | 'schema' | 'admin';

const MIN_ROLE: Record<ProjectAccessLevel, ProjectRole> = { read: 'VIEWER', logs: 'VIEWER', write: 'EDITOR', schema: 'ADMIN', admin: 'ADMIN' };

export interface ProjectScope {
  project: ProjectInfo;
  principal: Principal;
  /** Non-public contents (DRAFT, SCHEDULED, ARCHIVED) are invisible to read keys only. */
  seesNonPublic: boolean;
}

/** Checks the principal's right to `level` on the project, in the order of docs/reliability.md#errors (403 before 404). */
export async function authorizeProject(
  em: EntityManager,
  projects: ProjectDirectory,
  principal: Principal,
  headers: IncomingHttpHeaders,
  projectId: string,
  level: ProjectAccessLevel,
): Promise<ProjectScope> {
  if (principal.kind === 'apiKey') {
    if (level === 'admin') throw forbidden('API keys cannot manage API keys or webhooks; use an account token');
    // A key reaches its own project only: another project is 403 whether it exists or not.
    if (principal.projectId.toLowerCase() !== projectId.toLowerCase()) throw forbidden("This key belongs to another project");
    const refusal = originRefusal(headers, principal.allowedHosts);
    if (refusal) throw forbidden(refusal);
    if (level === 'logs' && principal.permission !== 'read_write') throw forbidden('Read keys cannot read request logs');
    if (level !== 'read' && principal.permission !== 'read_write') throw forbidden('This key is read-only');
    const project = await projects.get(principal.projectId);
    // The key's project was deleted after the key was cached: the key is as good as deleted.
    if (!project) throw unauthorized('Unknown, deleted, deactivated or expired token or key');
    return { project, principal, seesNonPublic: principal.permission === 'read_write' };
  }
  const project = isUuid(projectId) ? await projects.get(projectId) : null;
  if (!project) throw notFound('Project');
  const member = await em.findOne(WorkspaceMemberSchema, { workspace: project.workspaceId, account: principal.accountId });
  const role = await projectRoleOf(em, member?.role ?? null, project.id, principal.accountId);
  if (!projectRoleAtLeast(role, MIN_ROLE[level])) {
    throw forbidden(role ? `Requires project role ${MIN_ROLE[level]} or higher` : 'No access to this project');
  }
  return { project, principal, seesNonPublic: true };
}
