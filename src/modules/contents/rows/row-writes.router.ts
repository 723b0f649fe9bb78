/** The procedure builder every write of one row shares, and the shape of its answer: tRPC layer, beside the routers that use it. */
import { rawPathParam } from '../../../auth/access.js';
import { sqlOn } from '../../../db/sql.js';
import { tableItemProcedure, type TableItemContext } from '../../../trpc/procedures.js';
import type { TableDef } from '../../tables/table-def.js';
import { toContentsOutput, type ContentsRow } from './row.js';
import { draftEtagOf, etagOf, versionCondition } from './precondition.js';
import { findRow, type WriteScope } from './write.js';
import type { Context } from '../../../trpc/context.js';

/**
 * A write names its row among those the caller reads: any other is 404, as for a read, before
 * the body is looked at (docs/roles.md#writes). Every write of one row (update, delete, draft
 * publish and discard, restore) checks it, so no write reaches, nor answers, a row its caller
 * cannot see. A caller without a read rule on the table names any row; its rules still decide.
 */
export async function assertWritableRow(ctx: TableItemContext, rawInput: unknown): Promise<void> {
  await findRow(sqlOn(ctx.deps.pool), ctx.table, rawPathParam(rawInput, 'contentsId'), false, ctx.tableAccess.writableRows);
}

/** `/{projectId}/tables/{tableId}/contents/{contentsId}/...` writes. */
export const rowWriteProcedure = tableItemProcedure('write', assertWritableRow);

/**
 * A written row as its writer reads it: the view's columns, and `hasDraft` only for a caller
 * that reads drafts (docs/contents.md#drafts-of-published-rows).
 */
export const writtenRow = (access: { table: TableDef; drafts: boolean }, row: ContentsRow) => toContentsOutput(access.table, row, { hideDrafts: !access.drafts });

type WriteContext = Pick<Context, 'req' | 'response'> & Pick<TableItemContext, 'tableAccess'>;

/**
 * The write scope of one row's write, with the version it expects from `If-Match` (400 when
 * malformed) and `ifVersion`: both must hold when both are given (docs/contents.md#concurrent-edits).
 */
export function rowWriteScope(ctx: WriteContext, input: { ifVersion?: number }): WriteScope {
  const header = ctx.req.headers['if-match'];
  const expected = versionCondition(typeof header === 'string' ? header : undefined, input.ifVersion);
  const scope = ctx.tableAccess.writeScope();
  return expected ? { ...scope, expected } : scope;
}

/** The answer of a write: the row, and its `ETag` (the draft's when the write saved a draft). */
export function answerWrite(ctx: WriteContext, row: ContentsRow, draft = false) {
  ctx.response.headers.etag = draft ? draftEtagOf(row) : etagOf(row);
  return writtenRow(ctx.tableAccess, row);
}
