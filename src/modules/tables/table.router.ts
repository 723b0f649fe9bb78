import { z } from 'zod';
import { markCreated, markNoContent } from '../../trpc/context.js';
import { projectProcedure, tableProcedure } from '../../trpc/procedures.js';
import { router } from '../../trpc/trpc.js';
import { tablesNamed } from '../roles/policy.js';
import { createTableInput, listTablesInput, tableIdInput, tableListOutput, tableOutput, updateTableInput } from './table.schema.js';
import { createTable, deleteTable, findTable, listTables, toTableOutput, updateTable } from './table.service.js';

const TAG = 'Tables';
const collection = '/{projectId}/tables' as const;
const item = '/{projectId}/tables/{tableId}' as const;

export const tableRouter = router({
  list: projectProcedure('read')
    .meta({ openapi: { method: 'GET', path: collection, tags: [TAG], summary: 'List tables', protect: true } , httpCache: 'tables' })
    .input(listTablesInput)
    .output(tableListOutput)
    .query(({ ctx, input }) => listTables(ctx.em, ctx.access.project.id, input, tablesNamed(ctx.access.rules))),

  create: projectProcedure('schema')
    .meta({ openapi: { method: 'POST', path: collection, tags: [TAG], summary: 'Create a table', protect: true }, successStatus: 201 })
    .input(createTableInput)
    .output(tableOutput)
    .mutation(async ({ ctx, input }) => {
      const table = await createTable(ctx.em, ctx.access.project.id, input);
      // A lookup of this key that missed (404) may be cached: forget it so the new table answers at once.
      ctx.deps.tables.forget(ctx.access.project.id);
      markCreated(ctx, table.id);
      return toTableOutput(table);
    }),

  get: tableProcedure('read')
    .meta({ openapi: { method: 'GET', path: item, tags: [TAG], summary: 'Read a table (by id or key)', protect: true } , httpCache: 'tables' })
    .input(tableIdInput)
    .output(tableOutput)
    .query(async ({ ctx }) => toTableOutput(await findTable(ctx.em, ctx.access.project.id, ctx.table.id))),

  update: tableProcedure('schema')
    .meta({ openapi: { method: 'PUT', path: item, tags: [TAG], summary: 'Update a table', protect: true } })
    .input(updateTableInput)
    .output(tableOutput)
    .mutation(async ({ ctx, input }) => {
      const table = await findTable(ctx.em, ctx.access.project.id, ctx.table.id);
      const updated = await updateTable(ctx.em, ctx.access.project.id, table, input);
      ctx.deps.tables.forget(ctx.access.project.id);
      return toTableOutput(updated);
    }),

  delete: tableProcedure('schema')
    .meta({ openapi: { method: 'DELETE', path: item, tags: [TAG], summary: 'Delete a table and its contents', protect: true }, successStatus: 204 })
    .input(tableIdInput)
    .output(z.void())
    .mutation(async ({ ctx }) => {
      const table = await findTable(ctx.em, ctx.access.project.id, ctx.table.id);
      await deleteTable(ctx.em, ctx.deps.boss, ctx.access.project.id, table);
      ctx.deps.tables.forget(ctx.access.project.id);
      markNoContent(ctx);
    }),
});
