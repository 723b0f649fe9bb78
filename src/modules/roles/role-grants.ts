import { type EntityManager } from '@mikro-orm/postgresql';
import { runSql } from '../../db/sql.js';
import { conflict, fieldInvalid } from '../../errors/app-error.js';
import { isUuid } from '../../shared/ids.js';
import type { ProjectGrant } from '../projects/project.entity.js';
import { builtInRole } from './built-in-roles.js';
import { RoleSchema, type Role } from './role.entity.js';
import { roleGrantCounts } from './role.sql.js';

/**
 * Granting roles (docs/roles.md#granting-a-role): an API key holds a `permission` or a custom
 * role, a project member a built-in role or a custom one. Naming a role that is not the
 * project's is a 422 on the field that names it.
 */

/** 422 on `field`: no custom role of the project has this id (or it was deleted meanwhile). */
export const unknownRole = (field: string) => fieldInvalid(field, 'no custom role with this id in this project');

/** The project's custom role `roleId` as a grant names it (422 on `field` otherwise, a built-in name included). */
export async function customRoleToGrant(em: EntityManager, projectId: string, roleId: string, field: string): Promise<Role> {
  const role = isUuid(roleId) ? await em.findOne(RoleSchema, { id: roleId.toLowerCase(), project: projectId }) : null;
  if (!role) throw unknownRole(field);
  return role;
}

/** An API key's `roleId`: a custom role; the built-ins are given to keys as `permission`. */
export async function apiKeyRoleToGrant(em: EntityManager, projectId: string, roleId: string): Promise<Role> {
  if (builtInRole(roleId)) throw fieldInvalid('roleId', `${roleId} is a built-in role: give the key a permission ("read" or "read_write") instead`);
  return customRoleToGrant(em, projectId, roleId, 'roleId');
}

/** A project member's `role`: a built-in role's name, or a custom role's id. */
export async function memberGrantOf(em: EntityManager, projectId: string, role: string): Promise<ProjectGrant> {
  const builtIn = builtInRole(role);
  if (builtIn) return { role: builtIn.id, roleId: null };
  return { role: null, roleId: (await customRoleToGrant(em, projectId, role, 'role')).id };
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** 409 while the role is granted to a key or a member: revoke those grants first. */
export async function refuseGrantedRole(em: EntityManager, role: Role): Promise<void> {
  const [{ keys, members }] = await runSql<{ keys: number; members: number }>(em, roleGrantCounts(role.id));
  if (keys === 0 && members === 0) return;
  const to = [keys > 0 ? plural(keys, 'API key') : null, members > 0 ? plural(members, 'member') : null].filter((s) => s !== null);
  throw conflict(`role "${role.name}" is granted to ${to.join(' and ')}: give them another role or permission first`);
}
