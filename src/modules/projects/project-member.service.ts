import { ForeignKeyConstraintViolationException, UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import { findPage } from '../../db/find-page.js';
import { conflict, fieldInvalid, notFound } from '../../errors/app-error.js';
import { isUuid } from '../../shared/ids.js';
import type { PageParams } from '../../shared/pagination.js';
import { AccountSchema } from '../accounts/account.entity.js';
import { WorkspaceMemberSchema } from '../workspaces/workspace.entity.js';
import { toMemberOutput } from '../workspaces/workspace-member.service.js';
import { ProjectMemberSchema, type Project, type ProjectGrant, type ProjectMember } from './project.entity.js';
import type { AddProjectMemberInput } from './project.schema.js';

/** The member shape; `role` is the custom role's id when the member holds one (docs/roles.md#granting-a-role). */
const toProjectMemberOutput = (m: ProjectMember) => toMemberOutput({ ...m, account: m.account, role: m.roleId ?? m.role! });

export async function listProjectMembers(em: EntityManager, projectId: string, params: PageParams) {
  const where = { project: projectId };
  return findPage(em, ProjectMemberSchema, where, params, { populate: ['account'], orderBy: { createdAt: 'asc', id: 'asc' } }, toProjectMemberOutput);
}

/** Writes the member; a custom role deleted since it was checked fails the database's foreign key (422 on role). */
async function flushMember(em: EntityManager): Promise<void> {
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw conflict('account is already a member of this project');
    if (error instanceof ForeignKeyConstraintViolationException) throw fieldInvalid('role', 'no custom role with this id in this project');
    throw error;
  }
}

/** The account must already be a member of the project's workspace (422); `grant` is what `input.role` names. */
export async function addProjectMember(em: EntityManager, project: Project, input: AddProjectMemberInput, grant: ProjectGrant) {
  const field = input.accountId !== undefined ? 'accountId' : 'email';
  const account = await em.findOne(
    AccountSchema,
    input.accountId !== undefined ? { id: input.accountId } : { email: input.email!.toLowerCase() },
  );
  const inWorkspace = account
    ? (await em.count(WorkspaceMemberSchema, { workspace: project.workspace.id, account: account.id })) > 0
    : false;
  if (!account || !inWorkspace) throw fieldInvalid(field, 'must identify a member of the project’s workspace');
  const member = em.create(ProjectMemberSchema, { project, account, ...grant });
  await flushMember(em);
  return toProjectMemberOutput(member);
}

/** The project's member `memberId` (404 otherwise); also checked before the body (docs/reliability.md#errors). */
export async function findMember(em: EntityManager, projectId: string, memberId: string): Promise<ProjectMember> {
  const member = isUuid(memberId)
    ? await em.findOne(ProjectMemberSchema, { id: memberId, project: projectId }, { populate: ['account'] })
    : null;
  if (!member) throw notFound('Project member');
  return member;
}

export async function changeProjectMemberRole(em: EntityManager, projectId: string, memberId: string, grant: ProjectGrant) {
  const member = await findMember(em, projectId, memberId);
  member.role = grant.role;
  member.roleId = grant.roleId;
  await flushMember(em);
  return toProjectMemberOutput(member);
}

export async function removeProjectMember(em: EntityManager, projectId: string, memberId: string): Promise<void> {
  const member = await findMember(em, projectId, memberId);
  await em.remove(member).flush();
}

/** An account's memberships in every project of a workspace (it left the workspace). */
export async function removeWorkspaceProjectMemberships(em: EntityManager, workspaceId: string, accountId: string): Promise<void> {
  await em.nativeDelete(ProjectMemberSchema, { account: accountId, project: { workspace: workspaceId } });
}
