import { forbidden } from '../errors/app-error.js';
import { publicProcedure, type ProcedureAccess } from './trpc.js';
import {
  loadProjectAccess,
  loadWorkspaceAccess,
  requireProjectRole,
  requireWorkspaceRole,
  rawPathParam,
} from '../auth/access.js';
import type { AccountPrincipal, Principal } from '../auth/principal.js';
import { authorizeProject, type ProjectAccessLevel, type ProjectAccess, type TableAccess } from '../auth/project-access.js';
import type { TableDef } from '../modules/tables/table-def.js';
import type { Context } from './context.js';
import { raiseInputErrors } from './input-errors.js';
import { conditionalRead } from './http-cache.js';
import { depsForRequest, withWritePosition } from './consistency.js';
import { noteProject } from './request-facts.js';
import type { ProjectRole } from '../modules/projects/project.entity.js';
import type { WorkspaceRole } from '../modules/workspaces/workspace.entity.js';

/*
 * Authorization is declared on each procedure by picking one of these builders. Each one checks,
 * in the order of docs/reliability.md#errors, the credential (401), the caller's right (403) and the addressed resource
 * (404), and only then lets a deferred body failure (400/413/415) through.
 *
 * Each builder is a single tRPC middleware: every middleware layer copies the context, and on
 * the hottest reads those copies were a measurable share of the request's CPU.
 */

/** The base of a builder: the procedure declares who may call it (ProcedureAccess). */
const declared = (access: ProcedureAccess) => publicProcedure.meta({ access });

/**
 * Hands the call on to the procedure, once its access is checked. A mutation's answer carries
 * the WAL position of its commits (docs/scaling-out.md#read-replicas), taken here rather than by
 * a middleware of its own: each middleware is one more round of tRPC's calling machinery on every
 * request, reads included.
 */
function passOn<R extends { ok: boolean }>(opts: { ctx: Context; type: string }, next: () => Promise<R>): Promise<R> {
  return opts.type === 'mutation' ? withWritePosition(opts.ctx, next) : next();
}
const ACCOUNT_ONLY = declared({ scope: 'account' });

interface Arrival {
  ctx: Context;
  path: string;
  type: string;
  getRawInput: () => Promise<unknown>;
}

/**
 * Any valid credential (401 otherwise), resolved once per request: the rate limiter's result, or
 * when it found none (or the request did not pass it), resolved again for the exact 401.
 */
const authenticate = async (ctx: Context): Promise<Principal> => ctx.facts.principal ?? ctx.deps.credentials.resolve(ctx.req.headers.authorization);

/**
 * `/{projectId}/...`: the request is noted for the project's logs (refused ones too), then the
 * credential and its right on the project are checked: the caller's ProjectAccess. A read-only
 * GET may read from a replica: `deps` (also the context's from here on) then reads there.
 */
async function projectAccess({ ctx, path, type }: Arrival, input: unknown, level: ProjectAccessLevel) {
  ctx.facts.procedures.push(path);
  const projectId = rawPathParam(input, 'projectId');
  noteProject(ctx.facts, projectId);
  const principal = await authenticate(ctx);
  const deps = depsForRequest(ctx, level, type);
  const access = await authorizeProject(deps, ctx.em, principal, ctx.req.headers, projectId, level);
  return { principal, access, deps };
}

/**
 * The project's own data beyond its tables and files (categories, variables, translations) is
 * written by built-in grants only: a custom role's rules speak of table rows and of files
 * (docs/roles.md#granting-a-role). Table and file procedures do not call this; their rules decide.
 */
function refuseCustomRoleWrite(access: ProjectAccess, level: ProjectAccessLevel): void {
  if (level === 'write' && access.role) {
    throw forbidden(`Writing the project's categories, variables and translations requires a built-in role or permission; the custom role "${access.role.name}" grants table rows only`);
  }
}

/**
 * `/{projectId}/...`: API keys of that project or accounts with a project role, at the level the
 * procedure declares (see ProjectAccessLevel); a custom-role caller does not write here, unless
 * `byRules`: what it writes are table rows, its rules checked per row (releases, docs/releases.md#access).
 */
export const projectProcedure = (level: ProjectAccessLevel, byRules = false) =>
  declared({ scope: 'project', level, byRules }).use(async (opts) => {
    const input = await opts.getRawInput();
    const { principal, access, deps } = await projectAccess(opts, input, level);
    if (!byRules) refuseCustomRoleWrite(access, level);
    if (opts.meta?.httpCache) await conditionalRead({ ctx: opts.ctx, kind: opts.meta.httpCache, principal, access, input, deps });
    raiseInputErrors(opts.ctx.inputError, input, opts.type);
    return passOn(opts, () => opts.next({ ctx: { principal, access, deps } }));
  });

/** What an item loader sees: the request context with its project access. */
export interface ProjectItemContext {
  em: Context['em'];
  deps: Context['deps'];
  access: ProjectAccess;
}

/**
 * `/{projectId}/<items>/{id}`: as projectProcedure (custom roles do not write, unless `byRules`:
 * the item's own rules decide, which `load` checks: files' `$files` rules), and `load` (which throws
 * 404 for an unknown item) runs before a malformed body is reported (404 before 400/413/415). The
 * loaded item is `ctx.item`.
 */
export const projectItemProcedure = <T>(level: ProjectAccessLevel, load: (ctx: ProjectItemContext, rawInput: unknown) => Promise<T>, byRules = false) =>
  declared({ scope: 'project', level, byRules }).use(async (opts) => {
    const input = await opts.getRawInput();
    const { principal, access, deps } = await projectAccess(opts, input, level);
    if (!byRules) refuseCustomRoleWrite(access, level);
    if (opts.meta?.httpCache) await conditionalRead({ ctx: opts.ctx, kind: opts.meta.httpCache, principal, access, input, deps });
    const item = await load({ em: opts.ctx.em, deps, access }, input);
    raiseInputErrors(opts.ctx.inputError, input, opts.type);
    return passOn(opts, () => opts.next({ ctx: { principal, access, item, deps } }));
  });

/**
 * `/{projectId}/tables/{tableId}/...`: as projectProcedure, and the table (id or key) must exist
 * (404). `ctx.tableAccess` hands out the scopes of the table's reads and writes.
 */
export const tableProcedure = (level: ProjectAccessLevel) =>
  declared({ scope: 'project', level, byRules: true }).use(async (opts) => {
    const input = await opts.getRawInput();
    const { principal, access, deps } = await projectAccess(opts, input, level);
    const tableAccess = await access.table(rawPathParam(input, 'tableId'), level);
    if (opts.meta?.httpCache) await conditionalRead({ ctx: opts.ctx, kind: opts.meta.httpCache, principal, access, input, table: tableAccess.table, deps });
    raiseInputErrors(opts.ctx.inputError, input, opts.type);
    return passOn(opts, () => opts.next({ ctx: { principal, access, tableAccess, table: tableAccess.table, deps } }));
  });

/** What an item check sees: the request context with its project access and table. */
export interface TableItemContext {
  em: Context['em'];
  deps: Context['deps'];
  access: ProjectAccess;
  /** The caller's view of the table. */
  table: TableDef;
  tableAccess: TableAccess;
}

/**
 * `/{projectId}/tables/{tableId}/<items>/{id}`: as tableProcedure, and `exists` (which throws
 * 404 for an unknown item) runs before a malformed body is reported (404 before 400).
 */
export const tableItemProcedure = (level: ProjectAccessLevel, exists: (ctx: TableItemContext, rawInput: unknown) => Promise<void>) =>
  declared({ scope: 'project', level, byRules: true }).use(async (opts) => {
    const input = await opts.getRawInput();
    const { principal, access, deps } = await projectAccess(opts, input, level);
    const tableAccess = await access.table(rawPathParam(input, 'tableId'), level);
    if (opts.meta?.httpCache) await conditionalRead({ ctx: opts.ctx, kind: opts.meta.httpCache, principal, access, input, table: tableAccess.table, deps });
    await exists({ em: opts.ctx.em, deps, access, table: tableAccess.table, tableAccess }, input);
    raiseInputErrors(opts.ctx.inputError, input, opts.type);
    return passOn(opts, () => opts.next({ ctx: { principal, access, tableAccess, table: tableAccess.table, deps } }));
  });

/** `/accounts/**` and `/workspaces/**` take account tokens only; API keys get 403 (docs/concepts.md#credentials-and-roles). */
async function accountOnly(ctx: Context): Promise<AccountPrincipal> {
  const principal = await authenticate(ctx);
  if (principal.kind !== 'account') throw forbidden('API keys cannot use account-level endpoints');
  return principal;
}

/** Account-level endpoints that address no workspace (`/accounts/me`, `/workspaces`). */
export const accountProcedure = ACCOUNT_ONLY.use(async ({ ctx, path, next, getRawInput, type }) => {
  ctx.facts.procedures.push(path);
  const principal = await accountOnly(ctx);
  raiseInputErrors(ctx.inputError, await getRawInput(), type);
  return passOn({ ctx, type }, () => next({ ctx: { principal } }));
});

/** Throws 404 when the item a path names (under the given workspace or project) does not exist. */
export type ItemCheck = (em: Context['em'], parentId: string, rawInput: unknown) => Promise<void>;

/**
 * `/workspaces/{workspaceId}/**`: the workspace must exist (404) and the caller must hold at
 * least `minRole` in it (403). `exists` checks an item in the path, so that an unknown one is
 * 404 before a malformed body is 400.
 */
export const workspaceProcedure = (minRole: WorkspaceRole, exists?: ItemCheck) =>
  ACCOUNT_ONLY.use(async ({ ctx, path, next, getRawInput, type }) => {
    ctx.facts.procedures.push(path);
    const principal = await accountOnly(ctx);
    const input = await getRawInput();
    const access = await loadWorkspaceAccess(ctx.em, rawPathParam(input, 'workspaceId'), principal.accountId);
    requireWorkspaceRole(access, minRole);
    if (exists) await exists(ctx.em, access.workspace.id, input);
    raiseInputErrors(ctx.inputError, input, type);
    // requireWorkspaceRole guarantees a role from here on.
    return passOn({ ctx, type }, () => next({ ctx: { principal, workspace: access.workspace, workspaceRole: access.role as WorkspaceRole } }));
  });

/**
 * `/workspaces/{workspaceId}/projects/{projectId}/**`: the caller's effective project role
 * (workspace OWNER/ADMIN count as project ADMIN) must be at least `minRole`; `exists` as
 * above. Logged under the project (docs/logs-and-metrics.md#request-logs).
 */
export const workspaceProjectProcedure = (minRole: ProjectRole, exists?: ItemCheck) =>
  ACCOUNT_ONLY.use(async ({ ctx, path, next, getRawInput, type }) => {
    ctx.facts.procedures.push(path);
    const input = await getRawInput();
    noteProject(ctx.facts, rawPathParam(input, 'projectId'));
    const principal = await accountOnly(ctx);
    const workspace = await loadWorkspaceAccess(ctx.em, rawPathParam(input, 'workspaceId'), principal.accountId);
    requireWorkspaceRole(workspace, 'MEMBER');
    const access = await loadProjectAccess(ctx.em, workspace, rawPathParam(input, 'projectId'), principal.accountId);
    requireProjectRole(access, minRole);
    if (exists) await exists(ctx.em, access.project.id, input);
    raiseInputErrors(ctx.inputError, input, type);
    return passOn({ ctx, type }, () =>
      next({
        ctx: {
          principal,
          workspace: workspace.workspace,
          workspaceRole: workspace.role as WorkspaceRole,
          project: access.project,
          // Null for a member holding a custom role (which passes VIEWER here).
          projectRole: access.role,
        },
      }),
    );
  });
