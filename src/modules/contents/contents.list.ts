import type pg from 'pg';
import type { ProjectInfo } from '../../auth/project-directory.js';
import { sqlOn } from '../../db/sql.js';
import type { TableDef } from '../columns/column.types.js';
import { tableTotals, type CountCache } from './counts.js';
import type { ContentsListItem, ListContentsInput } from './contents.schema.js';
import { compileListQuery, pageOf, parseListQuery, toListItem, type ListRow } from './query/index.js';

export interface ListScope {
  /** Lists read through the plain pool: no unit of work is needed, and it is the hottest path. */
  pool: pg.Pool;
  counts: CountCache;
  table: TableDef;
  project: ProjectInfo;
  publicOnly: boolean;
}

/**
 * SPEC §7 list: one parameterised select for the page (size + 1 rows tell `hasNext`) and an
 * exact total — from the maintained counters when nothing is filtered; else counted once and
 * reused until the table's change counter moves (see counts.ts).
 */
export async function listContents(scope: ListScope, input: ListContentsInput) {
  const query = parseListQuery(input, scope.table, scope.project);
  const compiled = compileListQuery(query, { tableId: scope.table.id, publicOnly: scope.publicOnly });
  const sql = sqlOn(scope.pool);
  const [rows, totals] = await Promise.all([
    sql<ListRow>(compiled.select),
    query.withCount ? tableTotals(sql, scope.table.id, scope.publicOnly) : null,
  ]);
  let total: number | null = null;
  if (totals && (query.filters.length === 0 || !compiled.count)) total = totals.total;
  else if (totals && compiled.count) {
    total = scope.counts.get(compiled.count, totals.version);
    if (total === null) {
      // Counted after the change counter was read: the count is at least as new as the counter.
      const [row] = await sql<{ total: number }>(compiled.count);
      total = Number(row.total);
      scope.counts.set(compiled.count, totals.version, total);
    }
  }
  const page = pageOf(query, rows);
  return {
    // toListItem builds exactly the wire shape of contentsListItem.
    list: page.rows.map((row) => toListItem(row, query) as ContentsListItem),
    pagination: {
      page: query.page,
      size: query.size,
      total,
      pages: total === null ? null : Math.ceil(total / query.size),
      hasNext: page.hasNext,
      nextCursor: page.nextCursor,
    },
  };
}
