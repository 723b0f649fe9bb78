/**
 * Compiles a validated ListQuery into one parameterised statement for the page and one for the
 * count (pg-boss style: pure functions, no I/O). The page statement returns at most `size + 1`
 * rows (the extra one only tells `hasNext`), with these columns:
 *   id, status, slug, "createdAt", "updatedAt", "publishedAt", "publishAt" (timestamptz), version,
 *   data (jsonb, absent when `fields` names no column),
 *   "_k0", "_k1", … one per sort key: the key's value in cursor form (timestamps as UTC text
 *   with microseconds). `encodeCursor(query, row)` reads them to build `nextCursor`.
 * The SQL uses `$n` placeholders and no `?`: run it with node-postgres or kysely's
 * `CompiledQuery.raw(text, values)`, never MikroORM's `execute` (which rewrites `?`).
 */
import { isLocalized, type ColumnDef, type RowScope } from '../tables/table-def.js';
import { cursorPredicate, filtersClause, Params, sortsById } from './compile-where.js';
import { fieldIsNullable, fieldKind, fieldSortExpression, literal } from './expressions.js';
import { searchQuery } from './search.js';
import type { ListQuery, SortKey, SqlQuery } from './types.js';

export interface ListScope {
  tableId: string;
  /** The rows the caller may read (the table view's `rows`), whatever the filter says; absent: every row. */
  rows?: Pick<RowScope, 'sql'> | null;
}

const SYSTEM_SELECT =
  'id, status, slug, created_at as "createdAt", updated_at as "updatedAt", ' +
  'published_at as "publishedAt", publish_at as "publishAt", version';

/**
 * The search's tsquery, its text as one parameter used wherever the statement needs it; null
 * without a search, or when the table has no searchable column.
 */
const searchTsQuery = (query: ListQuery, p: Params) =>
  query.search && query.searchDocument ? searchQuery(p.add(query.search.text, 'text'), query.search.prefix) : null;

function whereClause(query: ListQuery, scope: ListScope, p: Params, withCursor: boolean, tsquery: string | null): string {
  const parts = [`table_id = ${p.add(scope.tableId, 'uuid')}`];
  if (scope.rows) parts.push(`(${scope.rows.sql})`);
  if (tsquery !== null) parts.push(`${query.searchDocument} @@ ${tsquery}`);
  // A table without searchable columns has nothing a search could match.
  else if (query.search) parts.push('false');
  const filters = filtersClause(query.filters, query.op, p);
  if (filters) parts.push(filters);
  if (withCursor && query.cursor) parts.push(cursorPredicate(query.sort, query.cursor, p));
  return parts.join(' and ');
}

/** ORDER BY: each key with NULLS LAST when it can be null, then id in the last key's direction. */
export function orderByClause(sort: SortKey[]): string {
  const keys = sort.map((k) => `${fieldSortExpression(k.field)} ${k.direction}${fieldIsNullable(k.field) ? ' nulls last' : ''}`);
  if (!sortsById(sort)) keys.push(`id ${sort[sort.length - 1].direction}`);
  return keys.join(', ');
}

/** A sort key's value as the cursor carries it: timestamptz as exact UTC text, others as is. */
function cursorKeyExpression(key: SortKey): string {
  const e = fieldSortExpression(key.field);
  if (fieldKind(key.field) === 'timestamp') {
    return `to_char(${e} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
  }
  return e;
}

/**
 * A column's output value as jsonb, SQL NULL when absent. With `locale`, a localized column is
 * its plain value in that locale, else in the default locale (docs/contents.md#contents).
 */
export function columnValue(column: ColumnDef, locale: string | null, defaultLocale: string): string {
  const name = literal(column.name);
  if (!locale || !isLocalized(column)) return `(data->${name})`;
  const pick = (l: string) => `data->${name}->>${literal(l)}`;
  return locale === defaultLocale ? `to_jsonb(${pick(locale)})` : `to_jsonb(coalesce(${pick(locale)}, ${pick(defaultLocale)}))`;
}

/**
 * Builds `{ name: value }` for each column that has a value; absent columns stay absent and a
 * json column holding JSON null stays null (which jsonb_strip_nulls would wrongly remove).
 */
function objectOf(columns: ColumnDef[], locale: string | null, defaultLocale: string): string {
  return columns
    .map((c) => {
      const v = columnValue(c, locale, defaultLocale);
      return `(case when ${v} is not null then jsonb_build_object(${literal(c.name)}, ${v}) else '{}'::jsonb end)`;
    })
    .join(' || ');
}

/** The `data` select expression, or null when no column is asked for. */
export function dataExpression(query: ListQuery): string | null {
  const { projection, locale, defaultLocale } = query;
  if (projection.all) {
    const localized = locale ? projection.columns.filter(isLocalized) : [];
    if (localized.length === 0) return 'data';
    // Everything as stored, with each localized column replaced by its value in `locale`.
    const rest = `(data${localized.map((c) => ` - ${literal(c.name)}`).join('')})`;
    return `(${rest} || ${objectOf(localized, locale, defaultLocale)})`;
  }
  if (projection.columns.length === 0) return null;
  return `(${objectOf(projection.columns, locale, defaultLocale)})`;
}

/**
 * `options.columns` replaces the select list, and `options.unbounded` drops LIMIT, OFFSET and the
 * `_k` keys (nothing pages by cursor): an export reads the whole ordered set through one SQL
 * cursor (contents/export/export.ts).
 */
export function compileListQuery(
  query: ListQuery,
  scope: ListScope,
  options: { columns?: string; unbounded?: boolean; inlineValues?: boolean } = {},
): { select: SqlQuery; count: SqlQuery | null } {
  const p = new Params(options.inlineValues);
  const columns = options.columns ? [options.columns] : [SYSTEM_SELECT];
  if (!options.columns) {
    if (query.projection.system.includes('hasDraft')) columns.push('draft is not null as "hasDraft"');
    const data = dataExpression(query);
    if (data) columns.push(`${data} as data`);
    if (!options.unbounded) query.sort.forEach((k, i) => columns.push(`${cursorKeyExpression(k)} as "_k${i}"`));
  }
  const tsquery = searchTsQuery(query, p);
  const where = whereClause(query, scope, p, true, tsquery);
  // The relevance of each matching row, computed once per row for the order, the cursor and `_k`.
  const ranked = query.search && query.sort.some((k) => k.field.source === 'relevance');
  const rank = tsquery !== null ? `ts_rank(${query.searchDocument}, ${tsquery})::float8` : '0::float8';
  const from = ranked ? `contents cross join lateral (select ${rank} as rank) as search` : 'contents';
  let text = `select ${columns.join(', ')} from ${from} where ${where} order by ${orderByClause(query.sort)}`;
  if (!options.unbounded) {
    text += ` limit ${p.add(query.size + 1, 'int8')}`;
    if (!query.cursor) text += ` offset ${p.add((query.page - 1) * query.size, 'int8')}`;
  }
  const select = { text, values: p.values };

  if (!query.withCount) return { select, count: null };
  // The count ignores the cursor: `total` is the size of the whole filtered set.
  const c = new Params();
  // The snapshot tells the list cache which later changes the count already includes.
  const count = {
    text: `select count(*)::float8 as total, pg_current_snapshot()::text as snapshot from contents where ${whereClause(query, scope, c, false, searchTsQuery(query, c))}`,
    values: c.values,
  };
  return { select, count };
}
