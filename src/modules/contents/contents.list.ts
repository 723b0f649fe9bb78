import type pg from 'pg';
import type { ProjectInfo } from '../../auth/project-directory.js';
import { sqlOn, type SqlQuery } from '../../db/sql.js';
import type { TableDef } from '../columns/column.types.js';
import { tableTotals } from './counts.js';
import type { ResultCache } from './result-cache.js';
import type { ContentsListItem, ListContentsInput } from './contents.schema.js';
import { compileListQuery, pageOf, parseListQuery, toListItem, type ListRow } from './query/index.js';

export interface ListScope {
  /** Lists read through the plain pool: no unit of work is needed, and it is the hottest path. */
  pool: pg.Pool;
  cache: ResultCache;
  table: TableDef;
  project: ProjectInfo;
  publicOnly: boolean;
}

type ContentsList = Awaited<ReturnType<typeof queryList>>;

/**
 * SPEC §7 list: one parameterised select for the page (size + 1 rows tell `hasNext`) and an exact
 * total — from the maintained counters when nothing is filtered, else counted. Both are reused
 * until the table's change counter moves (result-cache.ts); the counter is read first, so a
 * result is never older than the counter it is filed under.
 */
export async function listContents(scope: ListScope, input: ListContentsInput): Promise<ContentsList> {
  const query = parseListQuery(input, scope.table, scope.project);
  const compiled = compileListQuery(query, { tableId: scope.table.id, publicOnly: scope.publicOnly });
  const sql = sqlOn(scope.pool);
  const totals = await tableTotals(sql, scope.table.id, scope.publicOnly);
  // The default locale shapes `locale` reads: part of the key, as the schema is.
  const schemaKey = `${scope.table.schemaKey}:${scope.project.defaultLocale}`;
  const kind = query.withCount ? 'page' : 'page-without-count';
  return scope.cache.getOrLoad(
    kind,
    compiled.select,
    schemaKey,
    totals.version,
    () => queryList(scope, query, compiled, totals.total, schemaKey, totals.version),
    (result) => Math.max(1, result.list.length),
  );
}

async function queryList(
  scope: ListScope,
  query: ReturnType<typeof parseListQuery>,
  compiled: ReturnType<typeof compileListQuery>,
  unfilteredTotal: number,
  schemaKey: string,
  version: string,
) {
  const sql = sqlOn(scope.pool);
  const rows = await sql<ListRow>(compiled.select);
  let total: number | null = null;
  if (query.withCount) total = query.filters.length === 0 || !compiled.count ? unfilteredTotal : await countOf(scope, compiled.count, schemaKey, version);
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

/** A filtered total: one count per change of the table, shared by every page of the same filter. */
async function countOf(scope: ListScope, count: SqlQuery, schemaKey: string, version: string): Promise<number> {
  return scope.cache.getOrLoad('count', count, schemaKey, version, async () => {
    const [row] = await sqlOn(scope.pool)<{ total: number }>(count);
    return Number(row.total);
  });
}
