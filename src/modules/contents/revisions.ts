import type { Sql } from '../../db/sql.js';
import { forbidden, notFound } from '../../errors/app-error.js';
import { paginationOf, wantsCount, type PageParams } from '../../shared/pagination.js';
import type { ContentStatus } from '../tables/table.entity.js';
import type { TableDef } from '../tables/table-def.js';
import { visibleData } from './contents.row.js';
import type { Principal } from '../../auth/principal.js';
import { isUuid } from '../../shared/ids.js';
import { findRow } from './contents.write.js';
import { purgeOldRevisions, revisionHead, revisionOf, revisionsOf, type RevisionRow } from './revisions.sql.js';

/** SPEC §13: read_write keys and accounts read revisions; read keys get 403. */
export function assertMaySeeRevisions(principal: Principal): void {
  if (principal.kind === 'apiKey' && principal.permission === 'read') throw forbidden('Read keys cannot read revisions');
}

const iso = (t: Date | string) => (typeof t === 'string' ? t : t.toISOString());

function toRevisionOutput(table: TableDef, row: RevisionRow) {
  return {
    version: row.version,
    action: row.action,
    status: row.status as ContentStatus,
    data: visibleData(table, row.data),
    actor: row.actor_type && row.actor_id ? { type: row.actor_type, id: row.actor_id } : null,
    createdAt: iso(row.created_at),
  };
}

/**
 * Deletes the revisions beyond the newest `keep` of each row that got one since `since`
 * (SPEC §13 retention, run by the `revisions` worker). Answers how many went.
 */
export async function purgeRevisions(sql: Sql, keep: number, since: Date): Promise<number> {
  const [{ deleted }] = await sql<{ deleted: number }>(purgeOldRevisions(keep, since));
  return deleted;
}

/**
 * One page of a row's revisions, newest first. By id, the page and the head (does the row exist
 * in this table, how many revisions) are read at once: a page of another table's row is read
 * for nothing and never answered.
 */
export async function listRevisions(sql: Sql, table: TableDef, contentsId: string, params: PageParams) {
  const rowId = isUuid(contentsId) ? contentsId.toLowerCase() : (await findRow(sql, table, contentsId)).id;
  const [rows, [head]] = await Promise.all([
    sql<RevisionRow>(revisionsOf(rowId, params.size + 1, (params.page - 1) * params.size)),
    sql<{ found: boolean; total: number }>(revisionHead(rowId, table.id)),
  ]);
  if (!head.found) throw notFound('Contents');
  const total = wantsCount(params) ? head.total : null;
  return { list: rows.slice(0, params.size).map((row) => toRevisionOutput(table, row)), pagination: paginationOf(params, rows.length, total) };
}

export async function getRevision(sql: Sql, table: TableDef, rowId: string, version: number) {
  const [row] = await sql<RevisionRow>(revisionOf(rowId, version));
  if (!row) throw notFound('Revision');
  return toRevisionOutput(table, row);
}
