import { z } from 'zod';
import { rawPathParam } from '../../auth/access.js';
import { markCreated, markNoContent } from '../../trpc/context.js';
import { workspaceProcedure } from '../../trpc/procedures.js';
import { router } from '../../trpc/trpc.js';
import { removeWorkspaceProjectMemberships } from '../projects/project-member.service.js';
import {
  invitedMemberOutput,
  inviteMemberInput,
  listWorkspaceMembersInput,
  updateWorkspaceMemberInput,
  workspaceMemberIdInput,
  workspaceMemberListOutput,
  workspaceMemberOutput,
} from './workspace.schema.js';
import {
  changeWorkspaceMemberRole,
  inviteWorkspaceMember,
  listWorkspaceMembers,
  removeWorkspaceMember,
  requireWorkspaceMember,
} from './workspace-member.service.js';

const TAG = 'Workspace Members';
const collection = '/workspaces/{workspaceId}/members' as const;
const item = '/workspaces/{workspaceId}/members/{memberId}' as const;

export const workspaceMemberRouter = router({
  list: workspaceProcedure('MEMBER')
    .meta({ openapi: { method: 'GET', path: collection, tags: [TAG], summary: 'List workspace members', protect: true } })
    .input(listWorkspaceMembersInput)
    .output(workspaceMemberListOutput)
    .query(({ ctx, input }) => listWorkspaceMembers(ctx.em, ctx.workspace.id, input)),

  invite: workspaceProcedure('ADMIN')
    .meta({
      openapi: {
        method: 'POST',
        path: collection,
        tags: [TAG],
        summary: 'Invite a member by e-mail (OWNER, ADMIN; only an OWNER grants OWNER)',
        description: 'An unknown e-mail creates the account; the response then carries its accessToken, once.',
        protect: true,
      },
      successStatus: 201,
    })
    .input(inviteMemberInput)
    .output(invitedMemberOutput)
    .mutation(async ({ ctx, input }) => {
      const member = await inviteWorkspaceMember(ctx.em, ctx.workspace, ctx.workspaceRole, input);
      markCreated(ctx, member.id);
      return member;
    }),

  update: workspaceProcedure('ADMIN', (em, workspaceId, input) => requireWorkspaceMember(em, workspaceId, rawPathParam(input, 'memberId')))
    .meta({ openapi: { method: 'PUT', path: item, tags: [TAG], summary: "Change a member's role (the last OWNER stays)", protect: true } })
    .input(updateWorkspaceMemberInput)
    .output(workspaceMemberOutput)
    .mutation(({ ctx, input }) => changeWorkspaceMemberRole(ctx.em, ctx.workspace, ctx.workspaceRole, input.memberId, input.role)),

  remove: workspaceProcedure('MEMBER')
    .meta({
      openapi: { method: 'DELETE', path: item, tags: [TAG], summary: 'Remove a member (OWNER, ADMIN) or leave (yourself)', protect: true },
      successStatus: 204,
    })
    .input(workspaceMemberIdInput)
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await removeWorkspaceMember(ctx.em, ctx.workspace, { accountId: ctx.principal.accountId, role: ctx.workspaceRole }, input.memberId, removeWorkspaceProjectMemberships);
      markNoContent(ctx);
    }),
});
