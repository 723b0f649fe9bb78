import type { IncomingHttpHeaders } from 'node:http';
import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { forbidden, notFound, unauthorized } from '../errors/app-error.js';
import { isUuid } from '../shared/ids.js';
import type { ProjectRole } from '../modules/projects/project.entity.js';
import { WorkspaceMemberSchema } from '../modules/workspaces/workspace.entity.js';
import { projectRoleOf } from './access.js';
import { originRefusal } from './allowed-hosts.js';
import type { GrantedRole, Principal } from './principal.js';
import type { ProjectDirectory, ProjectInfo } from '../modules/projects/project-directory.js';
import { projectRoleAtLeast } from '../modules/projects/project-roles.js';
import type { TableDefinitions } from '../modules/tables/table-definitions.js';
import type { TableDef } from '../modules/tables/table-def.js';
import type { Actor, ListCache, ListScope, WriteScope } from '../modules/contents/index.js';

/**
 * What a `/{projectId}/...` operation needs (docs/concepts.md#credentials-and-roles):
 * - `read`: GET of project data — any key of the project, VIEWER+;
 * - `logs`: GET of request logs — read_write keys (the logs hold other callers' addresses, and
 *   read keys live in browsers), VIEWER+;
 * - `revisions`: GET of revisions — read_write keys (revisions hold unpublished values), VIEWER+;
 * - `write`: POST/PUT/DELETE of project data — read_write key, EDITOR+;
 * - `schema`: changes to tables and columns — read_write key, project ADMIN;
 * - `admin`: api-keys, webhooks and roles — account tokens with project ADMIN only.
 * A caller holding a custom role (a key or a member, docs/roles.md#granting-a-role) passes
 * `read`, `revisions` and `write`, where its rules decide per table, and none of the others.
 */
export type ProjectAccessLevel = 'read' | 'logs' | 'revisions' | 'write' | 'schema' | 'admin';

const MIN_ROLE: Record<ProjectAccessLevel, ProjectRole> = { read: 'VIEWER', logs: 'VIEWER', revisions: 'VIEWER', write: 'EDITOR', schema: 'ADMIN', admin: 'ADMIN' };

/** What a level beyond table rows is for, as the 403 of a custom-role caller says it. */
const BEYOND_ROWS: Partial<Record<ProjectAccessLevel, string>> = {
  logs: 'Reading request logs',
  schema: 'Changing tables and columns',
  admin: 'Managing API keys, webhooks and roles',
};

/** A custom role grants table rows (its rules) and nothing of the project beyond them. */
function checkCustomRole(role: GrantedRole, level: ProjectAccessLevel): void {
  const beyond = BEYOND_ROWS[level];
  if (beyond) throw forbidden(`${beyond} requires a built-in role or permission; the custom role "${role.name}" grants table rows only`);
}

/** What the access checks and the scopes they hand out read: the directories and the contents pool. */
export interface AccessDeps {
  projects: ProjectDirectory;
  tables: TableDefinitions;
  pool: pg.Pool;
  /** Contents list pages and totals; null where nothing reads lists through a cache (the CLI). */
  results: ListCache | null;
}

/**
 * What one caller may do in one project, as checked once per request: every surface (procedures,
 * plain routes, streams, the CLI) gets its project, its visibility and the scopes of its table
 * reads and writes from here (docs/architecture.md#access).
 */
export class ProjectAccess {
  constructor(
    readonly project: ProjectInfo,
    /** Null for the operator (the CLI), who holds every right. */
    readonly principal: Principal | null,
    /**
     * The custom role the caller holds (docs/roles.md#granting-a-role), whose rules decide what it
     * may do in each table; null for built-in grants, built-in keys and the operator.
     */
    readonly role: GrantedRole | null,
    /** Non-public contents (DRAFT, SCHEDULED, ARCHIVED) are invisible to read keys only. */
    readonly publicOnly: boolean,
    readonly deps: AccessDeps,
  ) {}

  /** The project's tables by id or key (null when unknown). */
  readonly tables = (idOrKey: string): Promise<TableDef | null> => this.deps.tables.get(this.project.id, idOrKey);

  /** The access to one table of the project (404 when it does not exist). */
  async table(idOrKey: string): Promise<TableAccess> {
    const table = await this.tables(idOrKey);
    if (!table) throw notFound('Table');
    return this.on(table);
  }

  /** The access to a table already loaded. */
  on(table: TableDef): TableAccess {
    return new TableAccess(this, table);
  }
}

/** Who writes, as revisions record it; null for the operator. */
const actorOf = (principal: Principal | null): Actor | null => {
  if (!principal) return null;
  return principal.kind === 'account' ? { type: 'account', id: principal.accountId } : { type: 'apiKey', id: principal.apiKeyId };
};

/** What a caller may read and write in one table: the scopes that contents reads and writes take. */
export class TableAccess {
  constructor(
    readonly access: ProjectAccess,
    readonly table: TableDef,
  ) {}

  get project(): ProjectInfo {
    return this.access.project;
  }

  get publicOnly(): boolean {
    return this.access.publicOnly;
  }

  /** A read without the list cache and the entity manager (exports: no `expand` of files). */
  exportScope(): Omit<ListScope, 'cache' | 'em'> {
    const { access, table } = this;
    return { pool: access.deps.pool, table, project: access.project, publicOnly: access.publicOnly, tables: access.tables };
  }

  /** A list or read one: through the list cache; `em` reads the files that `expand` reaches. */
  readScope(em: EntityManager): ListScope {
    const cache = this.access.deps.results;
    if (!cache) throw new Error('contents lists are read through the list cache, which this process does not have');
    return { ...this.exportScope(), cache, em };
  }

  /** A write: the table, the project's other tables (onDelete) and who writes (revisions). */
  writeScope(): WriteScope {
    const { access, table } = this;
    return { pool: access.deps.pool, table, project: access.project, tables: access.tables, actor: actorOf(access.principal) };
  }
}

/** The operator's access (the CLI): every right, no credential. */
export const operatorAccess = (project: ProjectInfo, deps: AccessDeps) => new ProjectAccess(project, null, null, false, deps);

/** Checks the principal's right to `level` on the project, in the documented order (403 before 404). */
export async function authorizeProject(
  deps: AccessDeps,
  em: EntityManager,
  principal: Principal,
  headers: IncomingHttpHeaders,
  projectId: string,
  level: ProjectAccessLevel,
): Promise<ProjectAccess> {
  if (principal.kind === 'apiKey') {
    if (level === 'admin') throw forbidden('API keys cannot manage API keys, webhooks or roles; use an account token');
    // A key reaches its own project only: another project is 403 whether it exists or not.
    if (principal.projectId.toLowerCase() !== projectId.toLowerCase()) throw forbidden("This key belongs to another project");
    const refusal = originRefusal(headers, principal.allowedHosts);
    if (refusal) throw forbidden(refusal);
    if (principal.role) checkCustomRole(principal.role, level);
    else {
      if (level === 'logs' && principal.permission !== 'read_write') throw forbidden('Read keys cannot read request logs');
      if (level === 'revisions' && principal.permission !== 'read_write') throw forbidden('Read keys cannot read revisions');
      if (level !== 'read' && principal.permission !== 'read_write') throw forbidden('This key is read-only');
    }
    const project = await deps.projects.get(principal.projectId);
    // The key's project was deleted after the key was cached: the key is as good as deleted.
    if (!project) throw unauthorized('Unknown, deleted, deactivated or expired token or key');
    // Only read keys are held to public contents; a role's rules say which statuses it reads.
    return new ProjectAccess(project, principal, principal.role, principal.permission === 'read', deps);
  }
  const project = isUuid(projectId) ? await deps.projects.get(projectId) : null;
  if (!project) throw notFound('Project');
  const member = await em.findOne(WorkspaceMemberSchema, { workspace: project.workspaceId, account: principal.accountId });
  const { role, customRole } = await projectRoleOf(em, member?.role ?? null, project.id, principal.accountId);
  if (customRole) {
    checkCustomRole(customRole, level);
    return new ProjectAccess(project, principal, customRole, false, deps);
  }
  if (!projectRoleAtLeast(role, MIN_ROLE[level])) {
    throw forbidden(role ? `Requires project role ${MIN_ROLE[level]} or higher` : 'No access to this project');
  }
  return new ProjectAccess(project, principal, null, false, deps);
}
