import { z } from 'zod';
import { markCreated, markNoContent } from '../../trpc/context.js';
import { workspaceProcedure, workspaceProjectProcedure } from '../../trpc/procedures.js';
import { router } from '../../trpc/trpc.js';
import {
  createProjectInput,
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

export const projectRouter = router({
  list: workspaceProcedure('MEMBER')
    .meta({ openapi: { method: 'GET', path: collection, tags: [TAG], summary: 'List the projects the caller can access', protect: true } })
    .input(listProjectsInput)
    .output(projectListOutput)
    .query(({ ctx, input }) =>
      listProjects(ctx.em, ctx.workspace.id, { accountId: ctx.principal.accountId, role: ctx.workspaceRole }, input),
    ),

  create: workspaceProcedure('ADMIN')
    .meta({ openapi: { method: 'POST', path: collection, tags: [TAG], summary: 'Create a project (workspace OWNER, ADMIN)', protect: true }, successStatus: 201 })
    .input(createProjectInput)
    .output(projectOutput)
    .mutation(async ({ ctx, input }) => {
      const project = await createProject(ctx.em, ctx.workspace, input);
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
