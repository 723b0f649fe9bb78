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
import { TtlCache } from '../shared/ttl-cache.js';
import { compileTablePolicy, usesNow, type Caller, type TablePolicy } from '../modules/roles/policy.js';
import { builtInRole, PERMISSION_RULES } from '../modules/roles/built-in-roles.js';
import type { Rule } from '../modules/roles/role.schema.js';
import { WriteRules } from '../modules/roles/write-rules.js';
import { compileFilesPolicy, type FilesPolicy } from '../modules/roles/files-policy.js';

/**
 * How long a compiled policy is kept. Its key holds the role's version and the table's schema, so
 * a change to either is seen at once; the window only bounds how long a change to a table that a
 * dotted `where` reaches through may go unseen.
 */
const POLICY_CACHE_MS = 10_000;
import type { ProjectDirectory, ProjectInfo } from '../modules/projects/project-directory.js';
import { projectRoleAtLeast } from '../modules/projects/project-roles.js';
import type { TableDefinitions } from '../modules/tables/table-definitions.js';
import type { RowScope, TableDef } from '../modules/tables/table-def.js';
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
    readonly deps: AccessDeps,
  ) {}

  /** The rules the caller holds: its role's, or those its built-in grant stands for (docs/roles.md#built-in-roles). */
  get rules(): readonly Rule[] {
    if (this.role) return this.role.rules;
    if (this.principal?.kind === 'apiKey') return PERMISSION_RULES[this.principal.permission ?? 'read'];
    // Accounts' built-in roles all read everything, drafts included; what else they may do is their level's.
    return builtInRole('EDITOR')!.rules;
  }

  /** The caller's rules compiled for `table`, cached (docs/roles.md#one-enforcement-path). */
  policy(table: TableDef): Promise<TablePolicy> {
    return policyFor(this, table);
  }

  /**
   * The caller's `$files` rules compiled, cached (docs/roles.md#files). Built-in rules hold none:
   * built-in grants keep their level's access to files, and only a custom role's are enforced.
   */
  filesPolicy(): FilesPolicy {
    return filesPolicyFor(this);
  }

  /** The caller's policy on a table of the project, by id or key; null when the table is unknown. */
  private async policyOf(idOrKey: string): Promise<TablePolicy | null> {
    const table = await this.deps.tables.get(this.project.id, idOrKey);
    return table && this.policy(table);
  }

  /** The caller's view of a table when its rules grant anything on it; null otherwise, or when unknown. */
  readonly viewOf = async (idOrKey: string): Promise<TableDef | null> => {
    const policy = await this.policyOf(idOrKey);
    return policy && Object.values(policy.grants).some((rules) => rules.length > 0) ? policy.view : null;
  };

  /** The project's tables by id or key, as the caller sees them (views); null when unknown. */
  readonly tables = async (idOrKey: string): Promise<TableDef | null> => (await this.policyOf(idOrKey))?.view ?? null;

  /** Whether the caller reads the drafts (and `hasDraft`) of a table of the project, by id or key. */
  readonly readsDrafts = async (idOrKey: string): Promise<boolean> => (await this.policyOf(idOrKey))?.drafts ?? false;

  /**
   * The access to one table of the project: 404 when it does not exist, 403 when the caller's
   * rules grant nothing on it (`read` levels: no read rule).
   */
  async table(idOrKey: string, level: ProjectAccessLevel = 'read'): Promise<TableAccess> {
    const table = await this.deps.tables.get(this.project.id, idOrKey);
    if (!table) throw notFound('Table');
    const policy = await this.policy(table);
    const reads = level === 'read' || level === 'revisions';
    const granted = reads ? policy.grants.read.length > 0 : WRITE_ACTIONS.some((action) => policy.grants[action].length > 0);
    if (!granted) throw forbidden(`This role grants no ${reads ? 'read' : 'write'} access to table "${table.key}"`);
    return new TableAccess(this, table, policy);
  }
}

const WRITE_ACTIONS = ['create', 'update', 'delete', 'publish'] as const;

/** Compiled policies by grant, caller, table schema (and second, for rules with `$now`). */
const policies = new TtlCache<string, Promise<TablePolicy>>({ ttlMs: POLICY_CACHE_MS, maxEntries: 10_000 });
/** Compiled `$files` policies by grant and caller. */
const filesPolicies = new TtlCache<string, FilesPolicy>({ ttlMs: POLICY_CACHE_MS, maxEntries: 10_000 });

/** Whom the rules are compiled for, the grant's cache key, and the time `$now` stands for. */
function grantOf(access: ProjectAccess): { caller: Caller; key: string; at: Date } {
  const { principal, role } = access;
  const caller: Caller = principal?.kind === 'apiKey' ? { kind: 'apiKey', me: principal.apiKeyId } : { kind: 'account', me: principal?.accountId ?? '' };
  const now = Date.now();
  const timed = role !== null && usesNow(role.rules);
  // Built-in rules name no caller: one entry serves every caller of the same grant.
  const key = role ? `role:${role.id}:${role.version}:${caller.me}${timed ? `:${Math.floor(now / 1000)}` : ''}` : `builtin:${principal?.kind === 'apiKey' ? principal.permission : 'account'}`;
  return { caller, key, at: new Date(timed ? Math.floor(now / 1000) * 1000 : now) };
}

function policyFor(access: ProjectAccess, table: TableDef): Promise<TablePolicy> {
  const grant = grantOf(access);
  const key = `${grant.key}|${table.id}|${table.schemaKey}`;
  let compiled = policies.get(key);
  if (!compiled) {
    const { locales, defaultLocale } = access.project;
    compiled = compileTablePolicy(access.rules, table, grant.caller, grant.at, { locales, defaultLocale, tables: (id) => access.deps.tables.get(access.project.id, id) });
    compiled.catch(() => policies.delete(key));
    policies.set(key, compiled);
  }
  return compiled;
}

function filesPolicyFor(access: ProjectAccess): FilesPolicy {
  const grant = grantOf(access);
  let compiled = filesPolicies.get(grant.key);
  if (!compiled) {
    compiled = compileFilesPolicy(access.rules, grant.caller, grant.at);
    filesPolicies.set(grant.key, compiled);
  }
  return compiled;
}

/** Who writes, as revisions record it; null for the operator. */
const actorOf = (principal: Principal | null): Actor | null => {
  if (!principal) return null;
  return principal.kind === 'account' ? { type: 'account', id: principal.accountId } : { type: 'apiKey', id: principal.apiKeyId };
};

/**
 * What a caller may read and write in one table: the scopes that contents reads and writes take.
 * `table` is the caller's view (its readable columns and rows); writes work on `definition`.
 */
export class TableAccess {
  readonly table: TableDef;

  constructor(
    readonly access: ProjectAccess,
    /** The table itself, every column. */
    readonly definition: TableDef,
    readonly policy: TablePolicy,
  ) {
    this.table = policy.view;
  }

  get project(): ProjectInfo {
    return this.access.project;
  }

  /** Whether the caller reads pending drafts, `hasDraft` and revisions. */
  get drafts(): boolean {
    return this.policy.drafts;
  }

  /**
   * The rows a write may address by id or slug: the readable ones (others are 404, as for a
   * read); every row when the caller has no read rule on the table.
   */
  get writableRows(): RowScope | undefined {
    return this.policy.grants.read.length > 0 ? this.table.rows : undefined;
  }

  /** A read without the list cache and the entity manager (exports: no `expand` of files). */
  exportScope(): Omit<ListScope, 'cache' | 'em'> {
    const { access, table } = this;
    return { pool: access.deps.pool, table, project: access.project, drafts: this.drafts, tables: access.tables, readsDrafts: access.readsDrafts };
  }

  /** A list or read one: through the list cache; `em` reads the files that `expand` reaches. */
  readScope(em: EntityManager): ListScope {
    const cache = this.access.deps.results;
    if (!cache) throw new Error('contents lists are read through the list cache, which this process does not have');
    return { ...this.exportScope(), cache, em };
  }

  /** A write: the table, the project's other tables (onDelete) and who writes (revisions). */
  writeScope(): WriteScope {
    const { access, definition } = this;
    const tables = (idOrKey: string) => access.deps.tables.get(access.project.id, idOrKey);
    // Built-in grants write what their level allows; a custom role's rules are checked per row.
    const rules = access.role ? new WriteRules(this.policy, definition) : undefined;
    return { pool: access.deps.pool, table: definition, project: access.project, tables, actor: actorOf(access.principal), rules };
  }
}

/** The operator's access (the CLI): every right, no credential. */
export const operatorAccess = (project: ProjectInfo, deps: AccessDeps) => new ProjectAccess(project, null, null, deps);

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
    return new ProjectAccess(project, principal, principal.role, deps);
  }
  const project = isUuid(projectId) ? await deps.projects.get(projectId) : null;
  if (!project) throw notFound('Project');
  const member = await em.findOne(WorkspaceMemberSchema, { workspace: project.workspaceId, account: principal.accountId });
  const { role, customRole } = await projectRoleOf(em, member?.role ?? null, project.id, principal.accountId);
  if (customRole) {
    checkCustomRole(customRole, level);
    return new ProjectAccess(project, principal, customRole, deps);
  }
  if (!projectRoleAtLeast(role, MIN_ROLE[level])) {
    throw forbidden(role ? `Requires project role ${MIN_ROLE[level]} or higher` : 'No access to this project');
  }
  return new ProjectAccess(project, principal, null, deps);
}
