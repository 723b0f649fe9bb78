import { markCreated, markNoContent } from '../../../trpc/context.js';
import { sqlOn, type Sql } from '../../../db/sql.js';
import { tableProcedure } from '../../../trpc/procedures.js';
import { router } from '../../../trpc/trpc.js';
import { z } from 'zod';
import { findVisibleRow, getContents } from './read.js';
import { answerWrite, rowWriteProcedure, rowWriteScope, writtenRow } from './row-writes.router.js';
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
  setStatusInput,
  setStatusOutput,
  updateContentsInput,
} from './rows.schema.js';
import { createContents, deleteContents, updateContents } from './write.js';
import { listContents } from './list.js';
import { setStatusOfMany } from './bulk-status.js';
import { referrersOf } from '../references/references.js';
import { saveDraft, saveDraftOver } from '../drafts/drafts.js';
import type { ContentsRow } from './row.js';

const TAG = 'Contents';

const collection = '/{projectId}/tables/{tableId}/contents' as const;
const item = '/{projectId}/tables/{tableId}/contents/{contentsId}' as const;
const CACHING =
  'Conditional: `If-None-Match` with the current `ETag` is 304 without a body. Read keys get `Cache-Control: public, max-age=0, s-maxage=<CDN_MAX_AGE>`, `Vary: Authorization, Origin` and `Surrogate-Key`/`Cache-Tag` (docs/scaling-out.md#http-caches-and-purging); others `private, no-cache`.';
const IF_MATCH = 'With `If-Match: "<id>:<version>"` (the `ETag` of a read) or `ifVersion`, only if the row is still at that version: else 412 PRECONDITION_FAILED, nothing written.';

export const contentsRouter = router({
  list: tableProcedure('read')
    .meta({
      openapi: {
        method: 'GET',
        path: collection,
        tags: [TAG],
        summary: 'List contents with paging, field selection, sorting and filtering',
        description: `Read keys see PUBLISHED rows only, whatever the filter. See the parameters for the JSON shapes of sort and filter. ${CACHING}`,
        protect: true,
      },
      httpCache: 'contents',
    })
    .input(listContentsInput)
    .output(contentsListResponse)
    .query(({ ctx, input }) =>
      listContents(ctx.tableAccess.readScope(ctx.em), input),
    ),

  create: tableProcedure('write')
    .meta({ openapi: { method: 'POST', path: collection, tags: [TAG], summary: 'Create contents', protect: true }, successStatus: 201 })
    .input(createContentsInput)
    .output(contentsOutput)
    .mutation(async ({ ctx, input }) => {
      const row = await createContents(ctx.tableAccess.writeScope(), input);
      markCreated(ctx, row.id);
      return writtenRow(ctx.tableAccess, row);
    }),

  setStatus: tableProcedure('write')
    .meta({
      openapi: {
        method: 'POST',
        path: `${collection}/status`,
        tags: [TAG],
        summary: 'Give many rows one status in one transaction, with a result per row',
        description: 'Each row is checked as its single update with `status` is; the rows that pass are written, the others answered with the error their update would give (docs/contents.md#bulk-status).',
        protect: true,
      },
    })
    .input(setStatusInput)
    .output(setStatusOutput)
    .mutation(async ({ ctx, input }) => ({ results: await setStatusOfMany(ctx.tableAccess.writeScope(), ctx.tableAccess.writableRows, input) })),

  get: tableProcedure('read')
    .meta({
      openapi: {
        method: 'GET',
        path: item,
        tags: [TAG],
        summary: 'Read contents by id or slug',
        description:
          'With `fields`, only `id` and the fields asked for, as on lists (`data` is absent when no column is asked for). Answers `ETag: "<id>:<version>"` (with `version=draft`: `W/"<id>:<version>:draft"`), for `If-Match` on writes. ' + CACHING,
        protect: true,
      },
      etag: 'read',
      httpCache: 'contentsItem',
    })
    .input(getContentsInput)
    .output(contentsListItem)
    .query(async ({ ctx, input }) => {
      const { item, etag } = await getContents(ctx.tableAccess.readScope(ctx.em), input);
      ctx.response.headers.etag = etag;
      return item;
    }),

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
      const row = await findVisibleRow(sql, ctx.table, input.contentsId);
      return referrersOf(sql, ctx.access.project.id, ctx.table.id, row.id, ctx.access.tables);
    }),

  update: rowWriteProcedure
    .meta({
      openapi: {
        method: 'PUT',
        path: item,
        tags: [TAG],
        summary: 'Update contents (data merged; status transitions checked)',
        description: IF_MATCH,
        protect: true,
      },
      etag: 'write',
    })
    .input(updateContentsInput)
    .output(contentsOutput)
    .mutation(async ({ ctx, input }) => {
      const scope = rowWriteScope(ctx, input);
      if (input.draft) return answerWrite(ctx, await saveDraft(scope, input), true);
      // A role with writeAsDraft proposes: its updates of PUBLISHED rows become their drafts (docs/roles.md#rules).
      let proposed = false;
      const proposal = (sql: Sql, current: ContentsRow) => {
        proposed = true;
        return saveDraftOver(sql, scope, input, current);
      };
      const row = await updateContents(scope, input, { kind: 'body', proposal });
      return answerWrite(ctx, row, proposed);
    }),

  delete: rowWriteProcedure
    .meta({ openapi: { method: 'DELETE', path: item, tags: [TAG], summary: 'Delete contents', description: IF_MATCH, protect: true }, successStatus: 204, etag: 'write' })
    .input(deleteContentsInput)
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await deleteContents(rowWriteScope(ctx, input), input.contentsId);
      markNoContent(ctx);
    }),
});
