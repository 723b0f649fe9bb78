import { z } from 'zod';
import { emailString, isoDate, nameString, pathId } from '../../shared/schemas.js';
import { listOf, pageParams } from '../../shared/pagination.js';
import { WORKSPACE_ROLES } from './workspace.entity.js';

export const workspaceRole = z.enum(WORKSPACE_ROLES);

export const workspaceOutput = z.object({
  id: z.uuid(),
  name: z.string(),
  role: workspaceRole.describe("The caller's role in this workspace"),
  createdAt: isoDate,
  updatedAt: isoDate,
});
export type WorkspaceOutput = z.infer<typeof workspaceOutput>;

export const workspacePath = { workspaceId: pathId('Workspace id') };

export const listWorkspacesInput = z.object({ ...pageParams });
export const workspaceListOutput = listOf(workspaceOutput);
export const createWorkspaceInput = z.object({ name: nameString });
export const updateWorkspaceInput = z.object({ ...workspacePath, name: nameString.optional() });
export const workspaceIdInput = z.object(workspacePath);

/** A member of a workspace or of a project: the same wire shape (docs/concepts.md#workspaces-projects-and-members). */
export const memberOutput = z.object({
  id: z.uuid(),
  accountId: z.uuid(),
  email: z.string(),
  name: z.string(),
  role: z.string(),
  createdAt: isoDate,
});

export const workspaceMemberOutput = memberOutput.extend({ role: workspaceRole });
export const invitedMemberOutput = workspaceMemberOutput.extend({
  accessToken: z.string().optional().describe('Only when the invite created the account: its token, shown once'),
});
export const listWorkspaceMembersInput = z.object({ ...workspacePath, ...pageParams });
export const workspaceMemberListOutput = listOf(workspaceMemberOutput);
export const inviteMemberInput = z.object({ ...workspacePath, email: emailString, role: workspaceRole });
export type InviteMemberInput = z.infer<typeof inviteMemberInput>;
export const memberPath = { ...workspacePath, memberId: pathId('Member id') };
export const updateWorkspaceMemberInput = z.object({ ...memberPath, role: workspaceRole });
export const workspaceMemberIdInput = z.object(memberPath);
