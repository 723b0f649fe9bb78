import { z } from 'zod';
import { sqlOn, type Sql } from '../../../db/sql.js';
import { forbidden } from '../../../errors/app-error.js';
import { isUuid } from '../../../shared/ids.js';
import type { TableDef } from '../../tables/table-def.js';
import { findVisibleRow } from '../rows/read.js';
import { isoDate, jsonBoolean } from '../../../shared/schemas.js';
import { listOf, pageParams } from '../../../shared/pagination.js';
import { tableItemProcedure, tableProcedure } from '../../../trpc/procedures.js';
import { router } from '../../../trpc/trpc.js';
import { contentStatus } from '../../tables/table.schema.js';
import { answerWrite, assertWritableRow, rowWriteScope } from '../rows/row-writes.router.js';
import { contentsOutput, contentsPath, ifVersion } from '../rows/rows.schema.js';
import { updateContents } from '../rows/write.js';
import { REVISION_ACTIONS } from './actions.js';
import { getRevision, listRevisions, restoreIntoDraft } from './revisions.js';

const TAG = 'Contents';
const revisions = '/{projectId}/tables/{tableId}/contents/{contentsId}/revisions' as const;

const revisionOutput = z.object({
  version: z.number().int().describe('Counts from 1 per row'),
  action: z.enum(REVISION_ACTIONS),
  status: contentStatus.describe('The row’s status after the change'),
  data: z.record(z.string(), z.unknown()).describe('The row’s full data after the change'),
  actor: z
    .object({ type: z.enum(['account', 'apiKey']), id: z.uuid() })
    .nullable()
    .describe('Who made the change (null for revisions recorded before revisions existed)'),
  releaseId: z.uuid().nullable().describe('The release that made the change (docs/releases.md), null for a single write'),
  createdAt: isoDate,
});

/**
 * The list's output: documented as a list of `revisionOutput`, not parsed again at run time
 * (as contents lists, rows/rows.schema.ts): the service builds each item field by field, and
 * re-checking every `data` of a page cost more than reading it.
 */
const revisionList = listOf(revisionOutput);
const { $schema: _dialect, ...revisionListJsonSchema } = z.toJSONSchema(revisionList, { target: 'draft-2020-12', io: 'output' });
const revisionListResponse = z
  .custom<z.infer<typeof revisionList>>((value) => typeof value === 'object' && value !== null)
  .meta({ override: revisionListJsonSchema as never });

const DESCRIPTION = 'Read_write keys and project members (VIEWER and up); read keys get 403.';
const version = z.string().regex(/^[1-9][0-9]{0,8}$/, 'must be a version number (1, 2, …)').describe('The revision’s version');

/**
 * The row whose revisions are asked for, as the caller may read them: revisions hold unpublished
 * values, so only callers that read drafts get them (403), and only of rows they see (404).
 */
async function readableRowId(sql: Sql, access: { drafts: boolean; table: TableDef }, contentsId: string, listing = false): Promise<string> {
  if (!access.drafts) throw forbidden('This credential cannot read revisions');
  // Every row visible: a list checks that the row is the table's in the statement that reads the page.
  if (listing && !access.table.rows && isUuid(contentsId)) return contentsId;
  return (await findVisibleRow(sql, access.table, contentsId)).id;
}

/** A row's revisions (docs/contents.md#revisions). */
export const revisionsRouter = router({
  list: tableProcedure('revisions')
    .meta({ openapi: { method: 'GET', path: revisions, tags: [TAG], summary: 'Revisions of a row, newest first', description: DESCRIPTION, protect: true } })
    .input(z.object({ ...contentsPath, ...pageParams }))
    .output(revisionListResponse)
    .query(async ({ ctx, input }) => {
      const sql = sqlOn(ctx.deps.pool);
      return listRevisions(sql, ctx.table, await readableRowId(sql, ctx.tableAccess, input.contentsId, true), input);
    }),

  get: tableProcedure('revisions')
    .meta({ openapi: { method: 'GET', path: `${revisions}/{version}`, tags: [TAG], summary: 'One revision of a row', description: DESCRIPTION, protect: true } })
    .input(z.object({ ...contentsPath, version }))
    .output(revisionOutput)
    .query(async ({ ctx, input }) => {
      const sql = sqlOn(ctx.deps.pool);
      return getRevision(sql, ctx.table, await readableRowId(sql, ctx.tableAccess, input.contentsId), Number(input.version));
    }),

  // A restore reads a revision (the answer shows its data): only callers that read revisions
  // restore them (403), and only onto rows they read (404).
  restore: tableItemProcedure('write', async (ctx, input) => {
    if (!ctx.tableAccess.drafts) throw forbidden('This credential cannot read revisions');
    await assertWritableRow(ctx, input);
  })
    .meta({
      openapi: {
        method: 'POST',
        path: `${revisions}/{version}/restore`,
        tags: [TAG],
        summary: 'Restore a revision',
        description:
          'The row takes the revision’s data (columns deleted since are left out), validated and unique-checked now as an update is (422, 409); its status stays. Records a `restored` revision and fires `contents.updated`. With `{ "draft": true }` the revision’s data becomes the pending draft of a PUBLISHED row instead (replacing any draft; publish it with POST .../draft/publish): validated as a draft save is (422), 409 INVALID_TRANSITION for a row that is not PUBLISHED, the live row untouched, no revision recorded and no event fired. With `If-Match` or `ifVersion` (the row’s version, not the revision’s): only if the row is still at that version (412 otherwise).',
        protect: true,
      },
      etag: 'write',
    })
    .input(
      z.object({
        ...contentsPath,
        version,
        ifVersion,
        draft: jsonBoolean.optional().describe('true: restore into the pending draft of a PUBLISHED row, leaving the live values as they are. Default: false, onto the live row.'),
      }),
    )
    .output(contentsOutput)
    .mutation(async ({ ctx, input }) => {
      const scope = rowWriteScope(ctx, input);
      if (input.draft) return answerWrite(ctx, await restoreIntoDraft(scope, input.contentsId, Number(input.version)), true);
      const row = await updateContents(scope, { projectId: input.projectId, tableId: input.tableId, contentsId: input.contentsId }, { kind: 'revision', version: Number(input.version) });
      return answerWrite(ctx, row);
    }),
});
