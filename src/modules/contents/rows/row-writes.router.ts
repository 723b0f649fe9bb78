/** The procedure builder every write of one row shares, and the shape of its answer: tRPC layer, beside the routers that use it. */
import { rawPathParam } from '../../../auth/access.js';
import { sqlOn } from '../../../db/sql.js';
import { tableItemProcedure, type TableItemContext } from '../../../trpc/procedures.js';
import type { TableDef } from '../../tables/table-def.js';
import { toContentsOutput, type ContentsRow } from './row.js';
import { findRow } from './write.js';

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
