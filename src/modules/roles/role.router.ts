import { z } from 'zod';
import { rawPathParam } from '../../auth/access.js';
import type { ProjectAccess } from '../../auth/project-access.js';
import { markCreated, markNoContent } from '../../trpc/context.js';
import { projectItemProcedure, projectProcedure } from '../../trpc/procedures.js';
import { router } from '../../trpc/trpc.js';
import type { RuleContext } from './role-rules.js';
import { createRoleInput, listRolesInput, roleIdInput, roleListOutput, roleOutput, updateRoleInput } from './role.schema.js';
import { createRole, deleteRole, findRole, listRoles, roleOutput as outputOf, toRoleOutput, updateRole } from './role.service.js';

const TAG = 'Roles';
const collection = '/{projectId}/roles' as const;
const item = '/{projectId}/roles/{roleId}' as const;
/**
 * Only project ADMIN account tokens manage roles (docs/roles.md): the `admin` level, as for API
 * keys and webhooks. A key that could edit roles could widen its own rights once keys hold roles.
 */
const admin = projectProcedure('admin');
/** One role: unknown is 404 before the body is looked at (docs/reliability.md#errors). */
const adminItem = projectItemProcedure('admin', (ctx, input) => findRole(ctx.em, ctx.access.project.id, rawPathParam(input, 'roleId')));

const rulesOf = (access: ProjectAccess): RuleContext => ({
  projectId: access.project.id,
  locales: access.project.locales,
  defaultLocale: access.project.defaultLocale,
  tables: access.tables,
});

export const roleRouter = router({
  list: admin
    .meta({ openapi: { method: 'GET', path: collection, tags: [TAG], summary: 'List roles: the built-ins ADMIN, EDITOR, VIEWER first', protect: true } })
    .input(listRolesInput)
    .output(roleListOutput)
    .query(({ ctx, input }) => listRoles(ctx.em, ctx.access.project.id, input)),

  create: admin
    .meta({ openapi: { method: 'POST', path: collection, tags: [TAG], summary: 'Create a role', protect: true }, successStatus: 201 })
    .input(createRoleInput)
    .output(roleOutput)
    .mutation(async ({ ctx, input }) => {
      const role = await createRole(ctx.em, rulesOf(ctx.access), input);
      markCreated(ctx, role.id);
      return toRoleOutput(role);
    }),

  get: adminItem
    .meta({ openapi: { method: 'GET', path: item, tags: [TAG], summary: 'Read a role (a UUID, or ADMIN, EDITOR, VIEWER)', protect: true } })
    .input(roleIdInput)
    .output(roleOutput)
    .query(({ ctx }) => outputOf(ctx.em, ctx.access.project.id, ctx.item)),

  update: adminItem
    .meta({ openapi: { method: 'PUT', path: item, tags: [TAG], summary: 'Update a role (name, description, rules); built-ins: 409', protect: true } })
    .input(updateRoleInput)
    .output(roleOutput)
    .mutation(async ({ ctx, input }) => {
      const role = await updateRole(ctx.em, rulesOf(ctx.access), input);
      // Keys cache their role with the credential: changed rules apply at once on this process.
      ctx.deps.credentials.invalidate();
      return toRoleOutput(role);
    }),

  delete: adminItem
    .meta({ openapi: { method: 'DELETE', path: item, tags: [TAG], summary: 'Delete a role; built-ins and roles granted to keys or members: 409', protect: true }, successStatus: 204 })
    .input(roleIdInput)
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await deleteRole(ctx.em, ctx.access.project.id, input.roleId);
      markNoContent(ctx);
    }),
});
