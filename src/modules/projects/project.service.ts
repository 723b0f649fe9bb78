import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import { findPage } from '../../db/find-page.js';
import { fieldInvalid, notFound } from '../../errors/app-error.js';
import { enqueue, outboxOfEm } from '../../jobs/outbox.js';
import { QUEUES } from '../../jobs/queues.js';
import { isUuid } from '../../shared/ids.js';
import { iso } from '../../shared/schemas.js';
import type { PageParams } from '../../shared/pagination.js';
import type { Workspace, WorkspaceRole } from '../workspaces/workspace.entity.js';
import { ProjectMemberSchema, ProjectSchema, type Project } from './project.entity.js';
import type { CreateProjectInput, ProjectOutput, UpdateProjectInput } from './project.schema.js';

export const toProjectOutput = (p: Project): ProjectOutput => ({
  id: p.id,
  workspaceId: p.workspace.id,
  name: p.name,
  description: p.description,
  locales: p.locales,
  defaultLocale: p.defaultLocale,
  createdAt: iso(p.createdAt),
  updatedAt: iso(p.updatedAt),
});

/** `defaultLocale` must be one of `locales` (422). */
function checkLocales(locales: string[], defaultLocale: string): void {
  if (!locales.includes(defaultLocale)) throw fieldInvalid('defaultLocale', `must be one of locales (${locales.join(', ')})`);
}

const unique = (values: string[]) => [...new Set(values)];

/** OWNER and ADMIN see every project; a MEMBER sees the projects they belong to. */
export async function listProjects(em: EntityManager, workspaceId: string, caller: { accountId: string; role: WorkspaceRole }, params: PageParams) {
  const where: FilterQuery<Project> = { workspace: workspaceId, deletedAt: null };
  if (caller.role === 'MEMBER') {
    const memberships = await em.find(ProjectMemberSchema, { account: caller.accountId, project: { workspace: workspaceId } });
    where.id = { $in: memberships.map((m) => m.project.id) };
  }
  return findPage(em, ProjectSchema, where, params, { orderBy: { createdAt: 'asc', id: 'asc' } }, toProjectOutput);
}

/** A live project (it and its workspace not deleted; else 404), for callers outside a request (the CLI). */
export async function findProject(em: EntityManager, projectId: string): Promise<Project> {
  const project = isUuid(projectId) ? await em.findOne(ProjectSchema, { id: projectId, deletedAt: null, workspace: { deletedAt: null } }) : null;
  if (!project) throw notFound('Project');
  return project;
}

export async function createProject(em: EntityManager, workspace: Workspace, input: CreateProjectInput): Promise<Project> {
  const locales = unique(input.locales ?? ['en']);
  const defaultLocale = input.defaultLocale ?? locales[0];
  checkLocales(locales, defaultLocale);
  const project = em.create(ProjectSchema, {
    workspace,
    name: input.name,
    description: input.description ?? '',
    locales,
    defaultLocale,
  });
  await em.flush();
  return project;
}

export async function updateProject(em: EntityManager, project: Project, input: UpdateProjectInput): Promise<Project> {
  const locales = input.locales ? unique(input.locales) : project.locales;
  const defaultLocale = input.defaultLocale ?? project.defaultLocale;
  checkLocales(locales, defaultLocale);
  if (input.name !== undefined) project.name = input.name;
  if (input.description !== undefined) project.description = input.description;
  project.locales = locales;
  project.defaultLocale = defaultLocale;
  await em.flush();
  return project;
}

/** Soft delete plus a purge job in the same transaction (docs/concepts.md#workspaces-projects-and-members). */
export async function deleteProject(em: EntityManager, boss: PgBoss, project: Project): Promise<void> {
  await em.transactional(async (tx) => {
    await tx.nativeUpdate(ProjectSchema, { id: project.id }, { deletedAt: new Date() });
    await enqueue(outboxOfEm(tx), boss, QUEUES.purge.name, { kind: 'project', id: project.id });
  });
}
