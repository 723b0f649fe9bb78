import type { EntityManager } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import { findPage } from '../../db/find-page.js';
import { notFound } from '../../errors/app-error.js';
import { enqueue, outboxOfEm } from '../../jobs/outbox.js';
import { QUEUES } from '../../jobs/queues.js';
import { isUuid } from '../../shared/ids.js';
import { iso } from '../../shared/schemas.js';
import type { PageParams } from '../../shared/pagination.js';
import { WorkspaceMemberSchema, WorkspaceSchema, type Workspace, type WorkspaceRole } from './workspace.entity.js';
import type { WorkspaceOutput } from './workspace.schema.js';

export const toWorkspaceOutput = (w: Workspace, role: WorkspaceRole): WorkspaceOutput => ({
  id: w.id,
  name: w.name,
  role,
  createdAt: iso(w.createdAt),
  updatedAt: iso(w.updatedAt),
});

/** The caller's workspaces only, oldest first. */
export async function listWorkspaces(em: EntityManager, accountId: string, params: PageParams) {
  const where = { account: accountId, workspace: { deletedAt: null } };
  return findPage(
    em,
    WorkspaceMemberSchema,
    where,
    params,
    { populate: ['workspace'], orderBy: { workspace: { createdAt: 'asc', id: 'asc' } } },
    (m) => toWorkspaceOutput(m.workspace, m.role),
  );
}

/** A live workspace by id (404 when unknown or deleted), for callers outside a request (the CLI). */
export async function findWorkspace(em: EntityManager, workspaceId: string): Promise<Workspace> {
  const workspace = isUuid(workspaceId) ? await em.findOne(WorkspaceSchema, { id: workspaceId, deletedAt: null }) : null;
  if (!workspace) throw notFound('Workspace');
  return workspace;
}

/** The creator becomes OWNER. */
export async function createWorkspace(em: EntityManager, accountId: string, name: string): Promise<Workspace> {
  const workspace = em.create(WorkspaceSchema, { name });
  em.create(WorkspaceMemberSchema, { workspace, account: accountId, role: 'OWNER' });
  await em.flush();
  return workspace;
}

export async function renameWorkspace(em: EntityManager, workspace: Workspace, name: string | undefined): Promise<Workspace> {
  if (name !== undefined) workspace.name = name;
  await em.flush();
  return workspace;
}

/**
 * Soft delete: the workspace and everything below it is unreachable at once; the purge job,
 * enqueued in the same transaction, removes the rows in the background (docs/concepts.md#workspaces-projects-and-members).
 */
export async function deleteWorkspace(em: EntityManager, boss: PgBoss, workspace: Workspace): Promise<void> {
  await em.transactional(async (tx) => {
    await tx.nativeUpdate(WorkspaceSchema, { id: workspace.id }, { deletedAt: new Date() });
    await enqueue(outboxOfEm(tx), boss, QUEUES.purge.name, { kind: 'workspace', id: workspace.id });
  });
}
