import type pg from 'pg';
import type { ProjectInfo } from '../../auth/project-directory.js';
import { sqlOn, type SqlQuery } from '../../db/sql.js';
import type { TableDef } from '../columns/column.types.js';
import { parseSnapshot } from './list-cache/change-log.js';
import type { ListCache, Lookup, PageResult } from './list-cache/list-cache.js';
import type { SortPosition } from './list-cache/list-effects.js';
import type { ContentsListItem, ListContentsInput } from './contents.schema.js';
import { compileListQuery, pageOf, parseListQuery, toListItem, type ListQuery, type ListRow } from './query/index.js';

export interface ListScope {
  /** Lists read through the plain pool: no unit of work is needed, and it is the hottest path. */
  pool: pg.Pool;
  cache: ListCache;
  table: TableDef;
  project: ProjectInfo;
  publicOnly: boolean;
}

/**
 * SPEC §7 list: one parameterised select for the page (size + 1 rows tell `hasNext`) and an exact
 * total — from the maintained counters when nothing is filtered, else counted. Both are cached
 * and kept up to date with the changes committed since (list-cache/); the table's changes are
 * read first, so a result is never older than the request.
 */
export async function listContents(scope: ListScope, input: ListContentsInput) {
  const query = parseListQuery(input, scope.table, scope.project);
  const compiled = compileListQuery(query, { tableId: scope.table.id, publicOnly: scope.publicOnly });
  const synced = await scope.cache.syncTable(scope.pool, scope.table.id);
  // The default locale shapes `locale` reads: part of the key, as the schema is.
  const lookup = (statement: SqlQuery): Lookup => ({
    tableId: scope.table.id,
    query: statement,
    variant: `${scope.table.schemaKey}:${scope.project.defaultLocale}`,
    shape: { query, publicOnly: scope.publicOnly },
    seq: synced.seq,
  });
  const [page, total] = await Promise.all([
    scope.cache.page(lookup(compiled.select), () => loadPage(scope.pool, query, compiled.select)),
    !query.withCount
      ? null
      : query.filters.length === 0 || !compiled.count
        ? scope.publicOnly
          ? synced.publishedTotal
          : synced.total
        : scope.cache.count(lookup(compiled.count), () => loadCount(scope.pool, compiled.count!)),
  ]);
  return {
    list: page.list,
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

const positionOf = (query: ListQuery, row: ListRow | undefined): SortPosition | null =>
  row ? { keys: query.sort.map((_, i) => row[`_k${i}`]), id: row.id } : null;

async function loadPage(pool: pg.Pool, query: ListQuery, select: SqlQuery): Promise<PageResult<ContentsListItem>> {
  const rows = await sqlOn(pool)<ListRow>(select);
  const page = pageOf(query, rows);
  return {
    // toListItem builds exactly the wire shape of contentsListItem.
    list: page.rows.map((row) => toListItem(row, query) as ContentsListItem),
    hasNext: page.hasNext,
    nextCursor: page.nextCursor,
    bounds: { last: positionOf(query, page.rows.at(-1)), next: page.hasNext ? positionOf(query, rows[query.size]) : null },
  };
}

async function loadCount(pool: pg.Pool, count: SqlQuery) {
  const [row] = await sqlOn(pool)<{ total: number; snapshot: string }>(count);
  return { total: Number(row.total), snapshot: parseSnapshot(row.snapshot) };
}
