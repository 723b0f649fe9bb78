import { z } from 'zod';
import { rawPathParam } from '../../auth/access.js';
import { markCreated, markNoContent } from '../../trpc/context.js';
import { workspaceProjectProcedure } from '../../trpc/procedures.js';
import { router } from '../../trpc/trpc.js';
import { memberGrantOf } from '../roles/role-grants.js';
import {
  addProjectMemberInput,
  listProjectMembersInput,
  projectMemberIdInput,
  projectMemberListOutput,
  projectMemberOutput,
  updateProjectMemberInput,
} from './project.schema.js';
import { addProjectMember, changeProjectMemberRole, findMember, listProjectMembers, removeProjectMember } from './project-member.service.js';

const TAG = 'Project Members';
const collection = '/workspaces/{workspaceId}/projects/{projectId}/members' as const;
const item = '/workspaces/{workspaceId}/projects/{projectId}/members/{memberId}' as const;

/**
 * A member's `role` is a built-in role or a custom role of the project (docs/roles.md#granting-a-role),
 * resolved by the roles module before the service stores it. A member's grant is read on each
 * request; the credential cache is forgotten on a change all the same, as for every grant.
 */

export const projectMemberRouter = router({
  list: workspaceProjectProcedure('VIEWER')
    .meta({ openapi: { method: 'GET', path: collection, tags: [TAG], summary: 'List project members', protect: true } })
    .input(listProjectMembersInput)
    .output(projectMemberListOutput)
    .query(({ ctx, input }) => listProjectMembers(ctx.em, ctx.project.id, input)),

  add: workspaceProjectProcedure('ADMIN')
    .meta({
      openapi: { method: 'POST', path: collection, tags: [TAG], summary: 'Add a workspace member to the project (project ADMIN)', protect: true },
      successStatus: 201,
    })
    .input(addProjectMemberInput)
    .output(projectMemberOutput)
    .mutation(async ({ ctx, input }) => {
      const member = await addProjectMember(ctx.em, ctx.project, input, await memberGrantOf(ctx.em, ctx.project.id, input.role));
      markCreated(ctx, member.id);
      return member;
    }),

  update: workspaceProjectProcedure('ADMIN', async (em, projectId, input) => {
    await findMember(em, projectId, rawPathParam(input, 'memberId'));
  })
    .meta({ openapi: { method: 'PUT', path: item, tags: [TAG], summary: "Change a project member's role (project ADMIN)", protect: true } })
    .input(updateProjectMemberInput)
    .output(projectMemberOutput)
    .mutation(async ({ ctx, input }) => {
      const member = await changeProjectMemberRole(ctx.em, ctx.project.id, input.memberId, await memberGrantOf(ctx.em, ctx.project.id, input.role));
      ctx.deps.credentials.invalidate();
      return member;
    }),

  remove: workspaceProjectProcedure('ADMIN')
    .meta({ openapi: { method: 'DELETE', path: item, tags: [TAG], summary: 'Remove a project member (project ADMIN)', protect: true }, successStatus: 204 })
    .input(projectMemberIdInput)
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await removeProjectMember(ctx.em, ctx.project.id, input.memberId);
      markNoContent(ctx);
    }),
});
