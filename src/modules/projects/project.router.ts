import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { requireSourceProjectAdmin } from '../../auth/access.js';
import { fieldInvalid } from '../../errors/app-error.js';
import { markCreated, markNoContent } from '../../trpc/context.js';
import { workspaceProcedure, workspaceProjectProcedure } from '../../trpc/procedures.js';
import { router } from '../../trpc/trpc.js';
import { copyProject } from '../project-copy/project-copy.service.js';
import type { Workspace } from '../workspaces/workspace.entity.js';
import { ProjectSchema } from './project.entity.js';
import {
  createProjectInput,
  type CreateProjectInput,
  listProjectsInput,
  projectIdInput,
  projectListOutput,
  projectOutput,
  updateProjectInput,
} from './project.schema.js';
import { createProject, deleteProject, listProjects, toProjectOutput, updateProject } from './project.service.js';

const TAG = 'Projects';
const collection = '/workspaces/{workspaceId}/projects' as const;
const item = '/workspaces/{workspaceId}/projects/{projectId}' as const;

type CreateContext = { em: EntityManager; workspace: Workspace; principal: { accountId: string } };

/** `from` (docs/concepts.md#copying-a-project): the source's ADMIN only (404/403), its locales. */
async function copyFrom(ctx: CreateContext, input: CreateProjectInput, from: NonNullable<CreateProjectInput['from']>) {
  await requireSourceProjectAdmin(ctx.em, from.projectId, ctx.principal.accountId);
  if (input.locales !== undefined) throw fieldInvalid('locales', 'a copy has the locales of the project it is copied from');
  if (input.defaultLocale !== undefined) throw fieldInvalid('defaultLocale', 'a copy has the default locale of the project it is copied from');
  const target = { workspaceId: ctx.workspace.id, name: input.name, description: input.description ?? '' };
  const id = await copyProject(ctx.em, target, { projectId: from.projectId.toLowerCase(), contents: from.contents ?? false });
  return ctx.em.findOneOrFail(ProjectSchema, { id });
}

export const projectRouter = router({
  list: workspaceProcedure('MEMBER')
    .meta({ openapi: { method: 'GET', path: collection, tags: [TAG], summary: 'List the projects the caller can access', protect: true } })
    .input(listProjectsInput)
    .output(projectListOutput)
    .query(({ ctx, input }) =>
      listProjects(ctx.em, ctx.workspace.id, { accountId: ctx.principal.accountId, role: ctx.workspaceRole }, input),
    ),

  create: workspaceProcedure('ADMIN')
    .meta({ openapi: { method: 'POST', path: collection, tags: [TAG], summary: 'Create a project (workspace OWNER, ADMIN), or copy one with from', protect: true }, successStatus: 201 })
    .input(createProjectInput)
    .output(projectOutput)
    .mutation(async ({ ctx, input }) => {
      const project = input.from ? await copyFrom(ctx, input, input.from) : await createProject(ctx.em, ctx.workspace, input);
      markCreated(ctx, project.id);
      return toProjectOutput(project);
    }),

  get: workspaceProjectProcedure('VIEWER')
    .meta({ openapi: { method: 'GET', path: item, tags: [TAG], summary: 'Read a project', protect: true } })
    .input(projectIdInput)
    .output(projectOutput)
    .query(({ ctx }) => toProjectOutput(ctx.project)),

  update: workspaceProjectProcedure('ADMIN')
    .meta({ openapi: { method: 'PUT', path: item, tags: [TAG], summary: 'Update a project (project ADMIN)', protect: true } })
    .input(updateProjectInput)
    .output(projectOutput)
    .mutation(async ({ ctx, input }) => {
      const project = await updateProject(ctx.em, ctx.project, input);
      ctx.deps.projects.forget(project.id);
      return toProjectOutput(project);
    }),

  delete: workspaceProjectProcedure('ADMIN')
    .meta({ openapi: { method: 'DELETE', path: item, tags: [TAG], summary: 'Delete a project and everything in it (project ADMIN)', protect: true }, successStatus: 204 })
    .input(projectIdInput)
    .output(z.void())
    .mutation(async ({ ctx }) => {
      await deleteProject(ctx.em, ctx.deps.boss, ctx.project);
      ctx.deps.projects.forget(ctx.project.id);
      ctx.deps.credentials.invalidate();
      markNoContent(ctx);
    }),
});
