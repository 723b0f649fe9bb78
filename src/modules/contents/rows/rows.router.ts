import { markCreated, markNoContent } from '../../../trpc/context.js';
import { rawPathParam } from '../../../auth/access.js';
import { sqlOn } from '../../../db/sql.js';
import { tableItemProcedure, tableProcedure, type TableItemContext } from '../../../trpc/procedures.js';
import { router } from '../../../trpc/trpc.js';
import { z } from 'zod';
import { findVisibleRow, getContents } from './read.js';
import { toContentsOutput } from './row.js';
import {
  contentsListItem,
  contentsListResponse,
  contentsOutput,
  createContentsInput,
  deleteContentsInput,
  getContentsInput,
  listContentsInput,
  referrersInput,
  referrersOutput,
  updateContentsInput,
} from './rows.schema.js';
import { createContents, deleteContents, findRow, updateContents } from './write.js';
import { listContents, type ListScope } from './list.js';
import type { WriteScope } from './write.js';
import { actorOf } from '../revisions/actions.js';
import type { Principal } from '../../../auth/principal.js';
import type { Context } from '../../../trpc/context.js';
import { referrersOf } from '../references/references.js';
import { saveDraft } from '../drafts/drafts.js';

const TAG = 'Contents';

/** What a write needs: the table, the project's other tables (onDelete) and who writes (revisions). */
export const writeScope = (ctx: TableItemContext & { principal: Principal }): WriteScope => ({
  pool: ctx.deps.pool,
  table: ctx.table,
  project: ctx.scope.project,
  tables: (tableId) => ctx.deps.tables.get(ctx.scope.project.id, tableId),
  actor: actorOf(ctx.principal),
});

/** What a read needs: the table, the caller's visibility, and for `expand` the project's other tables. */
export const readScope = (ctx: TableItemContext & { em: Context['em'] }): ListScope => ({
  pool: ctx.deps.pool,
  cache: ctx.deps.results,
  table: ctx.table,
  project: ctx.scope.project,
  publicOnly: !ctx.scope.seesNonPublic,
  tables: (tableId) => ctx.deps.tables.get(ctx.scope.project.id, tableId),
  em: ctx.em,
});

const collection = '/{projectId}/tables/{tableId}/contents' as const;
const item = '/{projectId}/tables/{tableId}/contents/{contentsId}' as const;

/** PUT/DELETE of one row: an unknown id or slug is 404 before the body is looked at (SPEC §3). */
const rowWriteProcedure = tableItemProcedure('write', async (ctx, input) => {
  await findRow(sqlOn(ctx.deps.pool), ctx.table, rawPathParam(input, 'contentsId'));
});

export const contentsRouter = router({
  list: tableProcedure('read')
    .meta({
      openapi: {
        method: 'GET',
        path: collection,
        tags: [TAG],
        summary: 'List contents with paging, field selection, sorting and filtering',
        description: 'Read keys see PUBLISHED rows only, whatever the filter. See the parameters for the JSON shapes of sort and filter.',
        protect: true,
      },
    })
    .input(listContentsInput)
    .output(contentsListResponse)
    .query(({ ctx, input }) =>
      listContents(readScope(ctx), input),
    ),

  create: tableProcedure('write')
    .meta({ openapi: { method: 'POST', path: collection, tags: [TAG], summary: 'Create contents', protect: true }, successStatus: 201 })
    .input(createContentsInput)
    .output(contentsOutput)
    .mutation(async ({ ctx, input }) => {
      const row = await createContents(writeScope(ctx), input);
      markCreated(ctx, row.id);
      return toContentsOutput(ctx.table, row);
    }),

  get: tableProcedure('read')
    .meta({
      openapi: {
        method: 'GET',
        path: item,
        tags: [TAG],
        summary: 'Read contents by id or slug',
        description: 'With `fields`, only `id` and the fields asked for, as on lists (`data` is absent when no column is asked for).',
        protect: true,
      },
    })
    .input(getContentsInput)
    .output(contentsListItem)
    .query(({ ctx, input }) => getContents(readScope(ctx), input)),

  referrers: tableProcedure('read')
    .meta({
      openapi: {
        method: 'GET',
        path: `${item}/referrers`,
        tags: [TAG],
        summary: 'Where a row is referenced',
        description:
          'For each reference column that holds this row’s id, the number of rows that hold it: what a delete would clear (onDelete setNull), delete (cascade) or be refused for (restrict).',
        protect: true,
      },
    })
    .input(referrersInput)
    .output(referrersOutput)
    .query(async ({ ctx, input }) => {
      const sql = sqlOn(ctx.deps.pool);
      const publicOnly = !ctx.scope.seesNonPublic;
      const row = await findVisibleRow(sql, ctx.table, input.contentsId, publicOnly);
      return referrersOf(sql, ctx.scope.project.id, ctx.table.id, row.id, publicOnly);
    }),

  update: rowWriteProcedure
    .meta({ openapi: { method: 'PUT', path: item, tags: [TAG], summary: 'Update contents (data merged; status transitions checked)', protect: true } })
    .input(updateContentsInput)
    .output(contentsOutput)
    .mutation(async ({ ctx, input }) => {
      const row = input.draft ? await saveDraft(writeScope(ctx), input) : await updateContents(writeScope(ctx), input);
      return toContentsOutput(ctx.table, row);
    }),

  delete: rowWriteProcedure
    .meta({ openapi: { method: 'DELETE', path: item, tags: [TAG], summary: 'Delete contents', protect: true }, successStatus: 204 })
    .input(deleteContentsInput)
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await deleteContents(writeScope(ctx), input.contentsId);
      markNoContent(ctx);
    }),
});
