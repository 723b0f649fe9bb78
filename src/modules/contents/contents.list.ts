import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';
import type { ProjectInfo } from '../../auth/project-directory.js';
import type { TableDef } from '../columns/column.types.js';
import { unfilteredTotal } from './counts.js';
import type { ContentsListItem, ListContentsInput } from './contents.schema.js';
import { compileListQuery, pageOf, parseListQuery, toListItem, type ListRow } from './query/index.js';

export interface ListScope {
  em: EntityManager;
  /** Lists read through a plain pool: no unit of work is needed, and it is the hottest path. */
  pool: pg.Pool;
  table: TableDef;
  project: ProjectInfo;
  publicOnly: boolean;
}

/**
 * SPEC §7 list: one parameterised select for the page (size + 1 rows tell `hasNext`) and the
 * total — from the maintained counters when nothing is filtered, else one count over the
 * same WHERE (index-backed where the columns are indexed).
 */
export async function listContents(scope: ListScope, input: ListContentsInput) {
  const query = parseListQuery(input, scope.table, scope.project);
  const compiled = compileListQuery(query, { tableId: scope.table.id, publicOnly: scope.publicOnly });
  const [selected, total] = await Promise.all([
    scope.pool.query<ListRow>(compiled.select.text, compiled.select.values),
    !query.withCount
      ? Promise.resolve(null)
      : query.filters.length === 0
        ? unfilteredTotal(scope.pool, scope.table.id, scope.publicOnly)
        : compiled.count
          ? scope.pool.query<{ total: number }>(compiled.count.text, compiled.count.values).then((r) => Number(r.rows[0].total))
          : Promise.resolve(null),
  ]);
  const page = pageOf(query, selected.rows);
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
