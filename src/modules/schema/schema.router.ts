import type { Context } from '../../trpc/context.js';
import { dropRetiredIndexes } from '../columns/column.service.js';
import { projectProcedure } from '../../trpc/procedures.js';
import { router } from '../../trpc/trpc.js';
import type { Change } from './schema.schema.js';
import { applySchemaInput, diffSchemaInput, planOutput, pullSchemaInput, snapshotOutput } from './schema.schema.js';
import { applySchema, diffSchema, pullSchema } from './schema.service.js';

const TAG = 'Schema';

/**
 * Project ADMIN only, even to read (docs/environments.md#access): a snapshot holds every role's
 * rules, and an apply rewrites tables, columns and roles at once.
 */
const admin = projectProcedure('admin');

/**
 * What this process caches of the schema and of the roles is dropped at once (other processes:
 * within their cache window); the indexes the apply retired are dropped in the background.
 */
function forgetApplied(ctx: Context, projectId: string, changes: Change[]): void {
  if (changes.length === 0) return;
  ctx.deps.tables.forget(projectId);
  dropRetiredIndexes(ctx.deps.orm.em.fork()).catch((error: unknown) => ctx.deps.logger.warn({ err: error }, 'dropping retired indexes failed; the next schema change retries'));
  if (changes.some((c) => c.role !== undefined)) ctx.deps.credentials.invalidate();
}

export const schemaRouter = router({
  pull: admin
    .meta({ openapi: { method: 'GET', path: '/{projectId}/schema', tags: [TAG], summary: 'The project schema as a snapshot: tables (with their settings), columns and custom roles, without ids', protect: true } })
    .input(pullSchemaInput)
    .output(snapshotOutput)
    .query(({ ctx }) => pullSchema(ctx.em, ctx.access.project)),

  diff: admin
    .meta({
      openapi: {
        method: 'POST',
        path: '/{projectId}/schema/diff',
        tags: [TAG],
        summary: 'The plan that would turn this project schema into the snapshot (destructive changes flagged with their row counts)',
        protect: true,
      },
    })
    .input(diffSchemaInput)
    .output(planOutput)
    .mutation(async ({ ctx, input }) => ({ changes: await diffSchema(ctx.em, ctx.access.project, input.snapshot) })),

  applySnapshot: admin
    .meta({
      openapi: {
        method: 'POST',
        path: '/{projectId}/schema/apply',
        tags: [TAG],
        summary: 'Apply a snapshot in one transaction: 422 when stored rows do not fit, 409 for destructive changes without allowDestructive',
        protect: true,
      },
    })
    .input(applySchemaInput)
    .output(planOutput)
    .mutation(async ({ ctx, input }) => {
      const project = ctx.access.project;
      const changes = await applySchema(ctx.em, ctx.deps.boss, project, input.snapshot, { allowDestructive: input.allowDestructive, dryRun: input.dryRun });
      if (!input.dryRun) forgetApplied(ctx, project.id, changes);
      return { changes };
    }),
});
