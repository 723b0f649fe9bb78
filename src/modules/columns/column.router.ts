import { z } from 'zod';
import { markCreated, markNoContent, type Context } from '../../trpc/context.js';
import { rawPathParam } from '../../auth/access.js';
import { tableItemProcedure, tableProcedure } from '../../trpc/procedures.js';
import { router } from '../../trpc/trpc.js';
import type { TableDef } from '../tables/table-def.js';
import { columnIdInput, columnListOutput, columnOutput, createColumnInput, listColumnsInput, updateColumnInput } from './column.schema.js';
import { createColumn, deleteColumn, dropRetiredIndexes, findColumn, listColumns, toColumnOutput, updateColumn } from './column.service.js';

const TAG = 'Columns';
const collection = '/{projectId}/tables/{tableId}/columns' as const;
const item = '/{projectId}/tables/{tableId}/columns/{columnId}' as const;

/**
 * The columns the caller reads, when its role hides some (docs/roles.md#rules): the others are
 * answered as if they did not exist. Undefined: every column.
 */
const readableColumns = (ctx: { table: TableDef; tableAccess: { definition: TableDef } }) =>
  ctx.table.columns.length === ctx.tableAccess.definition.columns.length ? undefined : ctx.table.columns.map((c) => c.id);

/** `.../columns/{columnId}`: an unknown column is 404 before the body is checked (404 → 400, docs/reliability.md#errors). */
const columnProcedure = (level: 'read' | 'schema') =>
  tableItemProcedure(level, async (ctx, input) => {
    await findColumn(ctx.em, ctx.table.id, rawPathParam(input, 'columnId'), readableColumns(ctx));
  });

/**
 * Every schema change is visible at once to this process's contents requests; the indexes it
 * retired are dropped in the background (column.ddl.ts).
 */
const forgetSchema = (ctx: Context, projectId: string) => {
  ctx.deps.tables.forget(projectId);
  dropRetiredIndexes(ctx.deps.orm.em.fork()).catch((error: unknown) => ctx.deps.logger.warn({ err: error }, 'dropping retired indexes failed; the next schema change retries'));
};

export const columnRouter = router({
  list: tableProcedure('read')
    .meta({ openapi: { method: 'GET', path: collection, tags: [TAG], summary: 'List columns (in position order)', protect: true } , httpCache: 'columns' })
    .input(listColumnsInput)
    .output(columnListOutput)
    .query(async ({ ctx, input }) => {
      return listColumns(ctx.em, ctx.table.id, input, readableColumns(ctx));
    }),

  create: tableProcedure('schema')
    .meta({ openapi: { method: 'POST', path: collection, tags: [TAG], summary: 'Add a column', protect: true }, successStatus: 201 })
    .input(createColumnInput)
    .output(columnOutput)
    .mutation(async ({ ctx, input }) => {
      const column = await createColumn(ctx.em, ctx.access.project, ctx.table.id, input);
      forgetSchema(ctx, ctx.access.project.id);
      markCreated(ctx, column.id);
      return toColumnOutput(column);
    }),

  get: columnProcedure('read')
    .meta({ openapi: { method: 'GET', path: item, tags: [TAG], summary: 'Read a column (by id or name)', protect: true } , httpCache: 'columns' })
    .input(columnIdInput)
    .output(columnOutput)
    .query(async ({ ctx, input }) => {
      return toColumnOutput(await findColumn(ctx.em, ctx.table.id, input.columnId, readableColumns(ctx)));
    }),

  update: columnProcedure('schema')
    .meta({
      openapi: {
        method: 'PUT',
        path: item,
        tags: [TAG],
        summary: 'Update a column (settings merged key by key; 409 when existing rows do not fit)',
        protect: true,
      },
    })
    .input(updateColumnInput)
    .output(columnOutput)
    .mutation(async ({ ctx, input }) => {
      const column = await updateColumn(ctx.em, ctx.access.project, ctx.table.id, input);
      forgetSchema(ctx, ctx.access.project.id);
      return toColumnOutput(column);
    }),

  delete: columnProcedure('schema')
    .meta({ openapi: { method: 'DELETE', path: item, tags: [TAG], summary: 'Delete a column and its values', protect: true }, successStatus: 204 })
    .input(columnIdInput)
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await deleteColumn(ctx.em, ctx.deps.boss, ctx.access.project, ctx.table.id, input.columnId);
      forgetSchema(ctx, ctx.access.project.id);
      markNoContent(ctx);
    }),
});
