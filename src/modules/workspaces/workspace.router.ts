import { z } from 'zod';
import { markCreated, markNoContent } from '../../trpc/context.js';
import { accountProcedure, workspaceProcedure } from '../../trpc/procedures.js';
import { router } from '../../trpc/trpc.js';
import {
  createWorkspaceInput,
  listWorkspacesInput,
  updateWorkspaceInput,
  workspaceIdInput,
  workspaceListOutput,
  workspaceOutput,
} from './workspace.schema.js';
import { createWorkspace, deleteWorkspace, listWorkspaces, renameWorkspace, toWorkspaceOutput } from './workspace.service.js';

const TAG = 'Workspaces';
const path = '/workspaces/{workspaceId}' as const;

export const workspaceRouter = router({
  list: accountProcedure
    .meta({ openapi: { method: 'GET', path: '/workspaces', tags: [TAG], summary: "List the caller's workspaces", protect: true } })
    .input(listWorkspacesInput)
    .output(workspaceListOutput)
    .query(({ ctx, input }) => listWorkspaces(ctx.em, ctx.principal.accountId, input)),

  create: accountProcedure
    .meta({ openapi: { method: 'POST', path: '/workspaces', tags: [TAG], summary: 'Create a workspace (the caller becomes OWNER)', protect: true }, successStatus: 201 })
    .input(createWorkspaceInput)
    .output(workspaceOutput)
    .mutation(async ({ ctx, input }) => {
      const workspace = await createWorkspace(ctx.em, ctx.principal.accountId, input.name);
      markCreated(ctx, workspace.id);
      return toWorkspaceOutput(workspace, 'OWNER');
    }),

  get: workspaceProcedure('MEMBER')
    .meta({ openapi: { method: 'GET', path, tags: [TAG], summary: 'Read a workspace', protect: true } })
    .input(workspaceIdInput)
    .output(workspaceOutput)
    .query(({ ctx }) => toWorkspaceOutput(ctx.workspace, ctx.workspaceRole)),

  update: workspaceProcedure('ADMIN')
    .meta({ openapi: { method: 'PUT', path, tags: [TAG], summary: 'Update a workspace (OWNER, ADMIN)', protect: true } })
    .input(updateWorkspaceInput)
    .output(workspaceOutput)
    .mutation(async ({ ctx, input }) =>
      toWorkspaceOutput(await renameWorkspace(ctx.em, ctx.workspace, input.name), ctx.workspaceRole),
    ),

  delete: workspaceProcedure('OWNER')
    .meta({ openapi: { method: 'DELETE', path, tags: [TAG], summary: 'Delete a workspace and everything in it (OWNER)', protect: true }, successStatus: 204 })
    .input(workspaceIdInput)
    .output(z.void())
    .mutation(async ({ ctx }) => {
      await deleteWorkspace(ctx.em, ctx.deps.boss, ctx.workspace);
      // Its projects and their keys are gone at once on this process.
      ctx.deps.projects.forget();
      ctx.deps.credentials.invalidate();
      markNoContent(ctx);
    }),
});
