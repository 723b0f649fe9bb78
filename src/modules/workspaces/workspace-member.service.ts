import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import { findPage } from '../../db/find-page.js';
import { runSql } from '../../db/sql.js';
import { conflict, forbidden, notFound } from '../../errors/app-error.js';
import { isUuid } from '../../shared/ids.js';
import { iso } from '../../shared/schemas.js';
import type { PageParams } from '../../shared/pagination.js';
import { workspaceRoleAtLeast } from './workspace-roles.js';
import { lockWorkspace } from './workspace.sql.js';
import { addAccountToken, findOrCreateAccount } from '../accounts/account.service.js';
import { WorkspaceMemberSchema, type Workspace, type WorkspaceMember, type WorkspaceRole } from './workspace.entity.js';
import type { InviteMemberInput } from './workspace.schema.js';

export const toMemberOutput = <R extends string>(m: {
  id: string;
  account: { id: string; email: string; name: string };
  role: R;
  createdAt: Date;
}) => ({
  id: m.id,
  accountId: m.account.id,
  email: m.account.email,
  name: m.account.name,
  role: m.role,
  createdAt: iso(m.createdAt),
});

export async function listWorkspaceMembers(em: EntityManager, workspaceId: string, params: PageParams) {
  const where = { workspace: workspaceId };
  return findPage(em, WorkspaceMemberSchema, where, params, { populate: ['account'], orderBy: { createdAt: 'asc', id: 'asc' } }, toMemberOutput);
}

/** Only an OWNER may grant OWNER or change what an OWNER is (docs/concepts.md#credentials-and-roles). */
function requireOwnerFor(actorRole: WorkspaceRole, ...roles: WorkspaceRole[]): void {
  if (roles.includes('OWNER') && actorRole !== 'OWNER') throw forbidden('Only an OWNER can grant, change or remove OWNER');
}

/**
 * Invite by e-mail: an unknown e-mail creates the account and returns its token once.
 * Already a member: 409.
 */
export async function inviteWorkspaceMember(em: EntityManager, workspace: Workspace, actorRole: WorkspaceRole, input: InviteMemberInput) {
  requireOwnerFor(actorRole, input.role);
  try {
    return await addWorkspaceMember(em, workspace.id, input);
  } catch (error) {
    if (!(error instanceof AccountCreatedConcurrently)) throw error;
    // Another request (an invite into another workspace, say) created the same account between
    // our lookup and our insert; it exists now, so invite it as a known account.
    return addWorkspaceMember(em.fork({ clear: true }), workspace.id, input);
  }
}

/** Our new account lost the race on the unique e-mail to a concurrent request. */
class AccountCreatedConcurrently extends Error {}

async function addWorkspaceMember(em: EntityManager, workspaceId: string, input: InviteMemberInput) {
  const { account, created } = await findOrCreateAccount(em, input.email);
  if (!created && (await em.count(WorkspaceMemberSchema, { workspace: workspaceId, account: account.id })) > 0) {
    throw conflict('email is already a member of this workspace');
  }
  const accessToken = created ? addAccountToken(em, account) : undefined;
  const member = em.create(WorkspaceMemberSchema, { workspace: workspaceId, account, role: input.role });
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) {
      // A new account cannot already be a member: the clash is on the account's e-mail.
      if (created) throw new AccountCreatedConcurrently();
      // A concurrent invite of the same e-mail won the unique (workspace, account) index.
      throw conflict('email is already a member of this workspace');
    }
    throw error;
  }
  return { ...toMemberOutput(member), ...(accessToken ? { accessToken } : {}) };
}

/**
 * Loads the member under a lock on the workspace row, so that two concurrent demotions cannot
 * both pass the last-OWNER check.
 */
async function lockedMember(tx: EntityManager, workspaceId: string, memberId: string): Promise<WorkspaceMember> {
  await runSql(tx, lockWorkspace(workspaceId));
  const member = isUuid(memberId)
    ? await tx.findOne(WorkspaceMemberSchema, { id: memberId, workspace: workspaceId }, { populate: ['account'] })
    : null;
  if (!member) throw notFound('Member');
  return member;
}

/** 404 unless `memberId` is a member of the workspace (checked before the body, docs/reliability.md#errors). */
export async function requireWorkspaceMember(em: EntityManager, workspaceId: string, memberId: string): Promise<void> {
  const found = isUuid(memberId) ? await em.count(WorkspaceMemberSchema, { id: memberId, workspace: workspaceId }) : 0;
  if (found === 0) throw notFound('Member');
}

async function requireAnotherOwner(tx: EntityManager, member: WorkspaceMember): Promise<void> {
  if (member.role !== 'OWNER') return;
  const owners = await tx.count(WorkspaceMemberSchema, { workspace: member.workspace.id, role: 'OWNER' });
  if (owners <= 1) throw conflict('The last OWNER of a workspace cannot be removed or demoted');
}

export async function changeWorkspaceMemberRole(
  em: EntityManager,
  workspace: Workspace,
  actorRole: WorkspaceRole,
  memberId: string,
  role: WorkspaceRole,
) {
  return em.transactional(async (tx) => {
    const member = await lockedMember(tx, workspace.id, memberId);
    requireOwnerFor(actorRole, member.role, role);
    if (role !== 'OWNER') await requireAnotherOwner(tx, member);
    member.role = role;
    return toMemberOutput(member);
  });
}

/** Removes what an account holds inside the workspace's projects, in the removal's transaction. */
export type LeaveProjects = (tx: EntityManager, workspaceId: string, accountId: string) => Promise<void>;

/**
 * ADMIN+ may remove members; anyone may leave. The account's project memberships in the workspace
 * go too, through `leaveProjects` (the projects module's; workspaces sit below projects).
 */
export async function removeWorkspaceMember(
  em: EntityManager,
  workspace: Workspace,
  actor: { accountId: string; role: WorkspaceRole },
  memberId: string,
  leaveProjects: LeaveProjects,
): Promise<void> {
  await em.transactional(async (tx) => {
    const member = await lockedMember(tx, workspace.id, memberId);
    const leaving = member.account.id === actor.accountId;
    if (!leaving && !workspaceRoleAtLeast(actor.role, 'ADMIN')) throw forbidden('Requires workspace role ADMIN or higher');
    if (!leaving) requireOwnerFor(actor.role, member.role);
    await requireAnotherOwner(tx, member);
    await leaveProjects(tx, workspace.id, member.account.id);
    tx.remove(member);
  });
}
