import type { Sql } from '../../db/sql.js';
import { forbidden, notFound } from '../../errors/app-error.js';
import { paginationOf, wantsCount, type PageParams } from '../../shared/pagination.js';
import type { ContentStatus } from '../tables/table.entity.js';
import type { TableDef } from '../tables/table-def.js';
import { visibleData } from './contents.row.js';
import type { Principal } from '../../auth/principal.js';
import type { RevisionAction } from './revision-types.js';
import { purgeOldRevisions, revisionCount, revisionOf, revisionsOf, type RevisionRow } from './revisions.sql.js';

/**
 * The action of an update from `from` to `to`: a status change names where the row went
 * (leaving PUBLISHED for DRAFT unpublishes it), anything else is `updated`.
 */
export function updateAction(from: ContentStatus, to: ContentStatus): RevisionAction {
  if (from === to) return 'updated';
  switch (to) {
    case 'PUBLISHED':
      return 'published';
    case 'SCHEDULED':
      return 'scheduled';
    case 'ARCHIVED':
      return 'archived';
    default:
      return from === 'PUBLISHED' ? 'unpublished' : 'updated';
  }
}

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

/** One page of a row's revisions, newest first. */
export async function listRevisions(sql: Sql, table: TableDef, rowId: string, params: PageParams) {
  const limit = params.size + 1;
  const [rows, counted] = await Promise.all([
    sql<RevisionRow>(revisionsOf(rowId, limit, (params.page - 1) * params.size)),
    wantsCount(params) ? sql<{ total: number }>(revisionCount(rowId)) : null,
  ]);
  return { list: rows.slice(0, params.size).map((row) => toRevisionOutput(table, row)), pagination: paginationOf(params, rows.length, counted?.[0].total ?? null) };
}

export async function getRevision(sql: Sql, table: TableDef, rowId: string, version: number) {
  const [row] = await sql<RevisionRow>(revisionOf(rowId, version));
  if (!row) throw notFound('Revision');
  return toRevisionOutput(table, row);
}
