import { forbidden, notFound } from '../errors/app-error.js';
import { raiseDeferredBodyError } from '../http/deferred-body-error.js';
import { noteProject } from '../http/request-facts.js';
import { middleware, publicProcedure } from './trpc.js';
import {
  loadProjectAccess,
  loadWorkspaceAccess,
  requireProjectRole,
  requireWorkspaceRole,
  rawPathParam,
} from '../auth/access.js';
import { authorizeProject, type ProjectAccessLevel, type ProjectScope } from '../auth/project-access.js';
import type { TableDef } from '../modules/columns/column.types.js';
import type { Context } from './context.js';
import type { ProjectRole } from '../modules/projects/project.entity.js';
import type { WorkspaceRole } from '../modules/workspaces/workspace.entity.js';

/*
 * Authorization is declared on each procedure by picking one of these builders. Each one checks,
 * in SPEC §3 order, the credential (401), the caller's right (403) and the addressed resource
 * (404), and only then lets a deferred body failure (400/413/415) through.
 */

/** Any valid credential (401 otherwise); the rate limiter has usually resolved it already. */
const authenticate = middleware(async ({ ctx, next }) => {
  const principal = await ctx.deps.credentials.resolve(ctx.req.headers.authorization);
  return next({ ctx: { principal } });
});

/** A request that names a project is logged in that project's logs (SPEC §9), refused ones too. */
const logProject = middleware(async ({ ctx, next, getRawInput }) => {
  noteProject(ctx.res, rawPathParam(await getRawInput(), 'projectId'));
  return next();
});

/** `/{projectId}/...` authorization without the final body check (see the two builders below). */
const projectScoped = (level: ProjectAccessLevel) =>
  publicProcedure.use(logProject).use(authenticate).use(async ({ ctx, next, getRawInput }) => {
    const projectId = rawPathParam(await getRawInput(), 'projectId');
    const scope = await authorizeProject(ctx.em, ctx.deps.projects, ctx.principal, ctx.req.headers, projectId, level);
    return next({ ctx: { scope } });
  });

const raiseBodyError = middleware(async ({ next, getRawInput }) => {
  raiseDeferredBodyError(await getRawInput());
  return next();
});

/**
 * `/{projectId}/...`: API keys of that project or accounts with a project role, at the level the
 * procedure declares (see ProjectAccessLevel).
 */
export const projectProcedure = (level: ProjectAccessLevel) => projectScoped(level).use(raiseBodyError);

/** What an item loader sees: the request context with its project scope. */
export interface ProjectItemContext {
  em: Context['em'];
  deps: Context['deps'];
  scope: ProjectScope;
}

/**
 * `/{projectId}/<items>/{id}`: as projectProcedure, and `load` (which throws 404 for an unknown
 * item) runs before a malformed body is reported (SPEC §3: 404 before 400/413/415). The loaded
 * item is `ctx.item`.
 */
export const projectItemProcedure = <T>(level: ProjectAccessLevel, load: (ctx: ProjectItemContext, rawInput: unknown) => Promise<T>) =>
  projectScoped(level)
    .use(async ({ ctx, next, getRawInput }) => next({ ctx: { item: await load(ctx, await getRawInput()) } }))
    .use(raiseBodyError);

const tableScoped = (level: ProjectAccessLevel) =>
  projectScoped(level).use(async ({ ctx, next, getRawInput }) => {
    const table = await ctx.deps.tables.get(ctx.scope.project.id, rawPathParam(await getRawInput(), 'tableId'));
    if (!table) throw notFound('Table');
    return next({ ctx: { table } });
  });

/** `/{projectId}/tables/{tableId}/...`: as projectProcedure, and the table (id or key) must exist (404). */
export const tableProcedure = (level: ProjectAccessLevel) => tableScoped(level).use(raiseBodyError);

/** What an item check sees: the request context with its project scope and table. */
export interface TableItemContext {
  em: Context['em'];
  deps: Context['deps'];
  scope: ProjectScope;
  table: TableDef;
}

/**
 * `/{projectId}/tables/{tableId}/<items>/{id}`: as tableProcedure, and `exists` (which throws
 * 404 for an unknown item) runs before a malformed body is reported (SPEC §3: 404 before 400).
 */
export const tableItemProcedure = (level: ProjectAccessLevel, exists: (ctx: TableItemContext, rawInput: unknown) => Promise<void>) =>
  tableScoped(level)
    .use(async ({ ctx, next, getRawInput }) => {
      await exists(ctx, await getRawInput());
      return next();
    })
    .use(raiseBodyError);

/** SPEC §4: `/accounts/**` and `/workspaces/**` take account tokens only; API keys get 403. */
const accountOnlyCheck = middleware(async ({ ctx, next }) => {
  const principal = await ctx.deps.credentials.resolve(ctx.req.headers.authorization);
  if (principal.kind !== 'account') throw forbidden('API keys cannot use account-level endpoints');
  return next({ ctx: { principal } });
});
const accountOnly = publicProcedure.use(accountOnlyCheck);

/** Account-level endpoints that address no workspace (`/accounts/me`, `/workspaces`). */
export const accountProcedure = accountOnly.use(raiseBodyError);

/**
 * `/workspaces/{workspaceId}/**`: the workspace must exist (404) and the caller must hold at
 * least `minRole` in it (403).
 */
export const workspaceProcedure = (minRole: WorkspaceRole) =>
  accountOnly.use(async ({ ctx, next, getRawInput }) => {
    const input = await getRawInput();
    const access = await loadWorkspaceAccess(ctx.em, rawPathParam(input, 'workspaceId'), ctx.principal.accountId);
    requireWorkspaceRole(access, minRole);
    raiseDeferredBodyError(input);
    // requireWorkspaceRole guarantees a role from here on.
    return next({ ctx: { workspace: access.workspace, workspaceRole: access.role as WorkspaceRole } });
  });

/**
 * `/workspaces/{workspaceId}/projects/{projectId}/**`: the caller's effective project role
 * (workspace OWNER/ADMIN count as project ADMIN) must be at least `minRole`.
 */
export const workspaceProjectProcedure = (minRole: ProjectRole) =>
  publicProcedure.use(logProject).use(accountOnlyCheck).use(async ({ ctx, next, getRawInput }) => {
    const input = await getRawInput();
    const workspace = await loadWorkspaceAccess(ctx.em, rawPathParam(input, 'workspaceId'), ctx.principal.accountId);
    requireWorkspaceRole(workspace, 'MEMBER');
    const access = await loadProjectAccess(ctx.em, workspace, rawPathParam(input, 'projectId'), ctx.principal.accountId);
    requireProjectRole(access, minRole);
    raiseDeferredBodyError(input);
    return next({
      ctx: {
        workspace: workspace.workspace,
        workspaceRole: workspace.role as WorkspaceRole,
        project: access.project,
        projectRole: access.role as ProjectRole,
      },
    });
  });
