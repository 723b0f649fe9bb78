import { z } from 'zod';
import { rawPathParam } from '../../auth/access.js';
import type { ProjectAccess } from '../../auth/project-access.js';
import { markCreated, markNoContent } from '../../trpc/context.js';
import { projectItemProcedure, projectProcedure } from '../../trpc/procedures.js';
import { router } from '../../trpc/trpc.js';
import { addItemInput, createReleaseInput, itemIdInput, listReleasesInput, releaseIdInput, releaseItemOutput, releaseListOutput, releaseOutput, releaseWithItemsOutput, updateReleaseInput } from './releases.schema.js';
import { addItem, createRelease, deleteRelease, findRelease, listReleases, publishRelease, readRelease, removeItem, toReleaseOutput, updateRelease, type ReleaseCaller } from './releases.service.js';

/*
 * Releases (docs/releases.md) are EDITOR+ and custom roles alike (`byRules`): what a release
 * writes are table rows, and each item is checked against the caller's rules when added and when
 * published. Read keys are refused (the `write` level).
 */

const TAG = 'Releases';
const collection = '/{projectId}/releases' as const;
const item = '/{projectId}/releases/{releaseId}' as const;

/** The caller as a release sees it: the tables it writes, with its rules when it holds a custom role. */
const callerOf = (access: ProjectAccess): ReleaseCaller => ({
  pool: access.deps.pool,
  projectId: access.project.id,
  customRole: access.role !== null,
  table: (idOrKey) => access.table(idOrKey, 'write'),
});

/** `.../releases/{releaseId}/...`: the release must exist (404) before the body is checked (400). */
const releaseProcedure = projectItemProcedure('write', (ctx, input) => findRelease(ctx.deps.pool, ctx.access.project.id, rawPathParam(input, 'releaseId')), true);

export const releaseRouter = router({
  list: projectProcedure('write', true)
    .meta({ openapi: { method: 'GET', path: collection, tags: [TAG], summary: 'List releases, newest first', protect: true } })
    .input(listReleasesInput)
    .output(releaseListOutput)
    .query(({ ctx, input }) => listReleases(ctx.deps.pool, ctx.access.project.id, input)),

  create: projectProcedure('write', true)
    .meta({ openapi: { method: 'POST', path: collection, tags: [TAG], summary: 'Create a release (publishAt: scheduled)', protect: true }, successStatus: 201 })
    .input(createReleaseInput)
    .output(releaseOutput)
    .mutation(async ({ ctx, input }) => {
      const release = await createRelease(ctx.deps.pool, ctx.access.project.id, input);
      markCreated(ctx, release.id);
      return toReleaseOutput(release);
    }),

  get: releaseProcedure
    .meta({ openapi: { method: 'GET', path: item, tags: [TAG], summary: 'Read a release with its items and whether each would pass now', protect: true } })
    .input(releaseIdInput)
    .output(releaseWithItemsOutput)
    .query(({ ctx }) => readRelease(callerOf(ctx.access), ctx.item)),

  update: releaseProcedure
    .meta({ openapi: { method: 'PUT', path: item, tags: [TAG], summary: 'Rename or (re)schedule an open release (409 once published)', protect: true } })
    .input(updateReleaseInput)
    .output(releaseOutput)
    .mutation(async ({ ctx, input }) => toReleaseOutput(await updateRelease(ctx.deps.pool, ctx.item, input))),

  delete: releaseProcedure
    .meta({ openapi: { method: 'DELETE', path: item, tags: [TAG], summary: 'Delete a release (409 once published)', protect: true }, successStatus: 204 })
    .input(releaseIdInput)
    .output(z.void())
    .mutation(async ({ ctx }) => {
      await deleteRelease(ctx.deps.pool, ctx.item);
      markNoContent(ctx);
    }),

  addItem: releaseProcedure
    .meta({ openapi: { method: 'POST', path: `${item}/items`, tags: [TAG], summary: 'Add a row to a release (409 when in another open release)', protect: true }, successStatus: 201 })
    .input(addItemInput)
    .output(releaseItemOutput.pick({ id: true, tableId: true, contentsId: true, action: true, createdAt: true }))
    .mutation(async ({ ctx, input }) => {
      const added = await addItem(callerOf(ctx.access), ctx.item, input);
      markCreated(ctx, added.id);
      return { id: added.id, tableId: added.table_id, contentsId: added.row_id, action: added.action, createdAt: new Date(added.created_at).toISOString() };
    }),

  removeItem: releaseProcedure
    .meta({ openapi: { method: 'DELETE', path: `${item}/items/{itemId}`, tags: [TAG], summary: 'Remove a row from a release', protect: true }, successStatus: 204 })
    .input(itemIdInput)
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await removeItem(ctx.deps.pool, ctx.item, input.itemId);
      markNoContent(ctx);
    }),

  publish: releaseProcedure
    .meta({ openapi: { method: 'POST', path: `${item}/publish`, tags: [TAG], summary: 'Publish every item of a release in one transaction', protect: true } })
    .input(releaseIdInput)
    .output(releaseOutput)
    .mutation(async ({ ctx }) => toReleaseOutput(await publishRelease(callerOf(ctx.access), ctx.item.id))),
});
