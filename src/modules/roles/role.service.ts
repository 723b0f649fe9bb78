import { DriverException, UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import { conflict, notFound } from '../../errors/app-error.js';
import { isUuid } from '../../shared/ids.js';
import { iso } from '../../shared/schemas.js';
import { paginationOf, pageWindow, wantsCount, type PageParams } from '../../shared/pagination.js';
import { ProjectSchema } from '../projects/project.entity.js';
import { BUILT_IN_ROLES, builtInRole, type BuiltInRole } from './built-in-roles.js';
import { RoleSchema, type Role } from './role.entity.js';
import { validateRules, type RuleContext } from './role-rules.js';
import { refuseGrantedRole } from './role-grants.js';
import type { CreateRoleInput, RoleOutput, UpdateRoleInput } from './role.schema.js';

/** A role a path names: one of the built-ins (by name) or a custom role of the project (by id). */
export type FoundRole = { builtIn: true; role: BuiltInRole } | { builtIn: false; role: Role };

export const toRoleOutput = (r: Role): RoleOutput => ({
  id: r.id,
  name: r.name,
  description: r.description,
  rules: r.rules,
  builtIn: false,
  createdAt: iso(r.createdAt),
  updatedAt: iso(r.updatedAt),
});

/** The built-ins exist as long as the project: they carry its creation time. */
async function builtInOutputs(em: EntityManager, projectId: string, roles: readonly BuiltInRole[]): Promise<RoleOutput[]> {
  if (roles.length === 0) return [];
  const since = iso((await em.findOneOrFail(ProjectSchema, { id: projectId })).createdAt);
  return roles.map((r) => ({ ...r, builtIn: true, createdAt: since, updatedAt: since }));
}

export async function roleOutput(em: EntityManager, projectId: string, found: FoundRole): Promise<RoleOutput> {
  return found.builtIn ? (await builtInOutputs(em, projectId, [found.role]))[0] : toRoleOutput(found.role);
}

/** The built-ins first (ADMIN, EDITOR, VIEWER), then the custom roles oldest first, paged together. */
export async function listRoles(em: EntityManager, projectId: string, params: PageParams) {
  const { offset } = pageWindow(params);
  const builtIns = BUILT_IN_ROLES.slice(offset, offset + params.size);
  const room = params.size - builtIns.length;
  const where = { project: projectId };
  const [rows, count, first] = await Promise.all([
    // One row beyond the room tells `hasNext`.
    em.find(RoleSchema, where, { orderBy: { createdAt: 'asc', id: 'asc' }, offset: Math.max(0, offset - BUILT_IN_ROLES.length), limit: room + 1 }),
    wantsCount(params) ? em.count(RoleSchema, where) : Promise.resolve(null),
    builtInOutputs(em, projectId, builtIns),
  ]);
  const total = count === null ? null : count + BUILT_IN_ROLES.length;
  return { list: [...first, ...rows.slice(0, room).map(toRoleOutput)], pagination: paginationOf(params, builtIns.length + rows.length, total) };
}

export async function findRole(em: EntityManager, projectId: string, roleId: string): Promise<FoundRole> {
  const builtIn = builtInRole(roleId);
  if (builtIn) return { builtIn: true, role: builtIn };
  const role = isUuid(roleId) ? await em.findOne(RoleSchema, { id: roleId.toLowerCase(), project: projectId }) : null;
  if (!role) throw notFound('Role');
  return { builtIn: false, role };
}

/** A custom role cannot take a built-in's name: members will be granted roles by either. */
function checkName(name: string): void {
  if (builtInRole(name)) throw conflict(`name: "${name}" is a built-in role`);
}

async function flushNamed(em: EntityManager, name: string): Promise<void> {
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw conflict(`name: "${name}" is already used by another role of this project`);
    throw error;
  }
}

export async function createRole(em: EntityManager, ctx: RuleContext, input: CreateRoleInput): Promise<Role> {
  await validateRules(input.rules, ctx);
  checkName(input.name);
  const role = em.create(RoleSchema, { project: ctx.projectId, name: input.name, description: input.description ?? '', rules: input.rules });
  await flushNamed(em, input.name);
  return role;
}

/** Rules are checked (422) before the built-ins are refused (409), in the order of docs/reliability.md#errors. */
export async function updateRole(em: EntityManager, ctx: RuleContext, input: UpdateRoleInput): Promise<Role> {
  const found = await findRole(em, ctx.projectId, input.roleId);
  if (input.rules !== undefined) await validateRules(input.rules, ctx);
  if (found.builtIn) throw conflict(`${found.role.name} is a built-in role and cannot be changed`);
  const role = found.role;
  if (input.name !== undefined) {
    checkName(input.name);
    role.name = input.name;
  }
  if (input.description !== undefined) role.description = input.description;
  if (input.rules !== undefined) role.rules = input.rules;
  await flushNamed(em, role.name);
  return role;
}

/**
 * A granted role is not deleted (409, docs/roles.md#granting-a-role); the database's foreign
 * keys refuse it too when a grant arrives between the check and the delete.
 */
export async function deleteRole(em: EntityManager, projectId: string, roleId: string): Promise<void> {
  const found = await findRole(em, projectId, roleId);
  if (found.builtIn) throw conflict(`${found.role.name} is a built-in role and cannot be deleted`);
  await refuseGrantedRole(em, found.role);
  try {
    await em.remove(found.role).flush();
  } catch (error) {
    // restrict_violation (23001): the keys' and members' foreign keys are `on delete restrict`.
    if (!(error instanceof DriverException && error.code === '23001')) throw error;
    await refuseGrantedRole(em.fork(), found.role);
    throw error;
  }
}
