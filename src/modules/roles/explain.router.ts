import type { EntityManager } from '@mikro-orm/postgresql';
import { authorizeProject, type ProjectAccess } from '../../auth/project-access.js';
import { projectRoleOf } from '../../auth/access.js';
import { sqlOn } from '../../db/sql.js';
import { notFound, badRequest } from '../../errors/app-error.js';
import { isUuid } from '../../shared/ids.js';
import type { Context } from '../../trpc/context.js';
import { projectProcedure } from '../../trpc/procedures.js';
import { router } from '../../trpc/trpc.js';
import { ApiKeySchema } from '../api-keys/api-key.entity.js';
import { findRow } from '../contents/rows/write.js';
import { findFile } from '../files/file.service.js';
import { WorkspaceMemberSchema } from '../workspaces/workspace.entity.js';
import { builtInRole, PERMISSION_RULES } from './built-in-roles.js';
import { explain } from './explain.js';
import { explainFiles, type FilesSubject } from './explain-files.js';
import { compileFilesPolicy } from './files-policy.js';
import { explainInput, explainOutput, type ExplainInput } from './explain.schema.js';
import { compileTablePolicy, type Caller } from './policy.js';
import { FILES } from './role-rules.js';
import type { Rule } from './role.schema.js';
import { findRole } from './role.service.js';

/** Whose rules are explained: the caller's own, or (project ADMIN) a role's, a key's or an account's. */
interface Subject {
  rules: readonly Rule[];
  caller: Caller;
  /** A built-in role or permission (no custom role): whether it writes, which is what its file rights are. */
  builtIn: { writes: boolean } | null;
}

async function subjectOf(ctx: Context & { access: ProjectAccess }, input: ExplainInput): Promise<Subject | null> {
  const named = [input.roleId, input.apiKeyId, input.accountId].filter((v) => v !== undefined);
  if (named.length === 0) return null;
  if (named.length > 1) throw badRequest('Give at most one of roleId, apiKeyId and accountId');
  // Explaining someone else's rights is managing access: project ADMIN account tokens only.
  const principal = ctx.access.principal!;
  await authorizeProject(ctx.deps, ctx.em, principal, ctx.req.headers, ctx.access.project.id, 'admin');
  const projectId = ctx.access.project.id;
  if (input.roleId !== undefined) {
    const found = await findRole(ctx.em, projectId, input.roleId);
    return { rules: found.role.rules, caller: { kind: 'account', me: '' }, builtIn: found.builtIn ? { writes: found.role.id !== 'VIEWER' } : null };
  }
  if (input.apiKeyId !== undefined) return apiKeySubject(ctx.em, projectId, input.apiKeyId);
  return accountSubject(ctx.em, projectId, ctx.access.project.workspaceId, input.accountId!);
}

async function apiKeySubject(em: EntityManager, projectId: string, apiKeyId: string): Promise<Subject> {
  const key = isUuid(apiKeyId) ? await em.findOne(ApiKeySchema, { id: apiKeyId.toLowerCase(), project: projectId }) : null;
  if (!key) throw notFound('API key');
  const rules = key.roleId ? (await findRole(em, projectId, key.roleId)).role.rules : PERMISSION_RULES[key.permission ?? 'read'];
  return { rules, caller: { kind: 'apiKey', me: key.id }, builtIn: key.roleId ? null : { writes: key.permission === 'read_write' } };
}

async function accountSubject(em: EntityManager, projectId: string, workspaceId: string, accountId: string): Promise<Subject> {
  const member = isUuid(accountId) ? await em.findOne(WorkspaceMemberSchema, { workspace: workspaceId, account: accountId.toLowerCase() }) : null;
  if (!member) throw notFound('Account');
  const grant = await projectRoleOf(em, member.role, projectId, accountId.toLowerCase());
  const rules = grant.customRole?.rules ?? (grant.role ? builtInRole(grant.role)!.rules : []);
  return { rules, caller: { kind: 'account', me: accountId.toLowerCase() }, builtIn: grant.customRole ? null : { writes: grant.role !== null && grant.role !== 'VIEWER' } };
}

/** The file rights explained: the subject's, or the caller's own (a built-in grant's level told by the level check itself). */
async function filesSubjectOf(ctx: Context & { access: ProjectAccess }, subject: Subject | null): Promise<FilesSubject> {
  if (subject) return subject.builtIn ? { builtIn: subject.builtIn } : { policy: compileFilesPolicy(subject.rules, subject.caller, new Date()) };
  if (ctx.access.role) return { policy: ctx.access.filesPolicy() };
  const principal = ctx.access.principal;
  if (!principal) return { builtIn: { writes: true } };
  const writes = await authorizeProject(ctx.deps, ctx.em, principal, ctx.req.headers, ctx.access.project.id, 'write').then(
    () => true,
    () => false,
  );
  return { builtIn: { writes } };
}

export const explainRouter = router({
  explain: projectProcedure('read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/{projectId}/access/explain',
        tags: ['Roles'],
        summary: 'What a credential may do on a table (and row)',
        description:
          'For the caller itself, or (project ADMIN account tokens) for a role, an API key or an account: per action whether it is allowed and by which rules, and the columns read and written. With `contentsId`, only rules whose `where` (and, for read, statuses) hold that row count.',
        protect: true,
      },
    })
    .input(explainInput)
    .output(explainOutput)
    .query(async ({ ctx, input }) => {
      const subject = await subjectOf(ctx, input);
      if (input.table === FILES) return explainFiles(ctx.em, await filesSubjectOf(ctx, subject), input.contentsId === undefined ? null : await findFile(ctx.em, ctx.access.project.id, input.contentsId));
      const table = await ctx.deps.tables.get(ctx.access.project.id, input.table);
      if (!table) throw notFound('Table');
      const { locales, defaultLocale, id: projectId } = ctx.access.project;
      const policy = subject
        ? await compileTablePolicy(subject.rules, table, subject.caller, new Date(), { locales, defaultLocale, tables: (id) => ctx.deps.tables.get(projectId, id) })
        : await ctx.access.policy(table);
      const sql = sqlOn(ctx.deps.pool);
      // The caller asking about itself finds only rows it sees (others are 404, as on a read).
      const visible = !subject && policy.grants.read.length > 0 ? policy.view.rows : undefined;
      const row = input.contentsId === undefined ? null : await findRow(sql, table, input.contentsId, false, visible);
      const keyCaller = subject ? subject.caller.kind === 'apiKey' : ctx.access.principal?.kind === 'apiKey';
      return explain(sql, table, policy, row, keyCaller);
    }),
});
