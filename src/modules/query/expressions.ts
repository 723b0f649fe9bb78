/**
 * The SQL text of every field, shared by the query compiler and the columns module's index DDL:
 * PostgreSQL uses an expression index only when the query's expression is the same text, so
 * both sides must build it here. Column names and locale codes are embedded as string literals
 * (from the validated schema, escaped as every literal is by db/sql-literal.ts).
 */
import { sqlLiteral } from '../../db/sql-literal.js';
import { isLocalized, isMultiple, STRING_TYPES, type ColumnDef } from '../tables/table-def.js';
import type { FieldRef, SystemField, ValueKind } from './types.js';

export const LOCALE_CODE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

/** `'name'`: a column name or locale code as an SQL string literal (db/sql-literal.ts escapes it). */
export const literal = (value: string): string => sqlLiteral(value);

const SYSTEM_COLUMNS: Record<SystemField, string> = {
  id: 'id',
  slug: 'slug',
  status: 'status',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  publishedAt: 'published_at',
  publishAt: 'publish_at',
};
const SYSTEM_KINDS: Record<SystemField, ValueKind> = {
  id: 'uuid',
  slug: 'text',
  status: 'status',
  createdAt: 'timestamp',
  updatedAt: 'timestamp',
  publishedAt: 'timestamp',
  publishAt: 'timestamp',
};
const NOT_NULL_SYSTEM: ReadonlySet<SystemField> = new Set(['id', 'status', 'createdAt', 'updatedAt']);

export const systemColumn = (name: SystemField): string => SYSTEM_COLUMNS[name];

export function columnKind(column: ColumnDef): ValueKind {
  if (STRING_TYPES.has(column.type)) return 'text';
  switch (column.type) {
    case 'select':
      return 'option';
    case 'reference':
    case 'file':
      return 'uuid';
    case 'number':
    case 'integer':
    case 'boolean':
    case 'date':
    case 'datetime':
    case 'json':
      return column.type;
    default:
      throw new Error(`unhandled column type ${column.type}`);
  }
}

export function fieldKind(field: FieldRef): ValueKind {
  switch (field.source) {
    case 'system':
      return SYSTEM_KINDS[field.name];
    case 'relevance':
      return 'number';
    case 'related':
      return fieldKind(field.field);
    default:
      return columnKind(field.column);
  }
}

export const fieldIsMultiple = (field: FieldRef): boolean => field.source === 'column' && isMultiple(field.column);

/**
 * Whether the field's expression can be SQL NULL: every column can, some system fields cannot,
 * and a field through a reference is null when there is no (visible) referenced row.
 */
export const fieldIsNullable = (field: FieldRef): boolean =>
  field.source === 'column' || field.source === 'related' || (field.source === 'system' && !NOT_NULL_SYSTEM.has(field.name));

/** The relevance of a row to the search, computed in the list statement's `search` lateral (compile.ts). */
export const RELEVANCE_EXPRESSION = 'search.rank';

/**
 * The expression a column is filtered and sorted by:
 * text-like, select, reference, file, date and datetime `(data->>'name')` (dates and datetimes
 * are stored in a fixed-width UTC form, so text order is time order); localized
 * `(data->'name'->>'fr')`; number and integer `(data->>'name')::float8` and boolean
 * `(data->>'name')::boolean`, each guarded by the value's JSON type; multiple
 * select/reference/file and json `(data->'name')` (jsonb).
 *
 * The guard matters although a table's rows are validated: index builds evaluate the expression
 * on dead row versions too (a value of a deleted column of the same name), and statistics are
 * sampled over every table's rows. An unguarded cast would fail them on the first non-number.
 */
export function columnExpression(column: ColumnDef, locale?: string | null): string {
  const name = literal(column.name);
  if (isMultiple(column) || column.type === 'json') return `(data->${name})`;
  if (isLocalized(column)) {
    if (!locale) throw new Error(`column ${column.name} is localized: a locale is needed`);
    return `(data->${name}->>${literal(locale)})`;
  }
  switch (column.type) {
    case 'number':
    case 'integer':
      return `(case when jsonb_typeof(data->${name}) = 'number' then (data->>${name})::float8 end)`;
    case 'boolean':
      return `(case when jsonb_typeof(data->${name}) = 'boolean' then (data->>${name})::boolean end)`;
    default:
      return `(data->>${name})`;
  }
}

/** Whether a column can be a sort key (json and multiple columns have no useful order). */
export const isSortableColumn = (column: ColumnDef): boolean => !isMultiple(column) && column.type !== 'json';

/**
 * How many leading characters of a string value its sort key and sort index hold. A btree
 * entry holds at most 2,704 bytes, and text values may be as long as a request body: the whole
 * value cannot be indexed (a few KB of random text failed the insert). 256 characters are at
 * most 1 KB in UTF-8, so an entry always fits, and cursors stay short.
 */
export const TEXT_KEY_CHARS = 256;

/** String columns (text, longtext, email, url, slug) whose keys are a prefix and a hash. */
export const hasTextKey = (column: ColumnDef): boolean => STRING_TYPES.has(column.type) && !isMultiple(column);

/** The first TEXT_KEY_CHARS code points of `value`, as PostgreSQL's `left()` counts them. */
export function textKey(value: string): string {
  if (value.length <= TEXT_KEY_CHARS) return value;
  let end = 0;
  for (let n = 0; n < TEXT_KEY_CHARS && end < value.length; n++) end += value.codePointAt(end)! > 0xffff ? 2 : 1;
  return value.slice(0, end);
}

/**
 * The ORDER BY expression of a column, the same text its btree sort index uses. String columns
 * sort by their first TEXT_KEY_CHARS characters (then by id, like any tie): values that share
 * that prefix are in creation-id order, not in full-text order.
 */
export function columnSortExpression(column: ColumnDef, locale?: string | null): string {
  if (!isSortableColumn(column)) throw new Error(`column ${column.name} (${column.type}) cannot be sorted`);
  const e = columnExpression(column, locale);
  return hasTextKey(column) ? `left(${e}, ${TEXT_KEY_CHARS})` : e;
}

/**
 * What a unique index of a column holds: an md5 for string columns (a fixed 32 characters,
 * whatever the value's length; equal values have equal hashes, and two different values share
 * one only by a deliberately built md5 collision, which can only make a write a false 409),
 * the value itself otherwise.
 */
export function columnUniqueExpression(column: ColumnDef, locale?: string | null): string {
  const e = columnExpression(column, locale);
  return hasTextKey(column) ? `md5(${e})` : e;
}

/** A table id inside SQL text (ids come from the schema and are UUIDs; anything else is a bug). */
export function uuidLiteral(id: string): string {
  if (!UUID.test(id)) throw new Error(`refusing to embed ${JSON.stringify(id)} in SQL`);
  return `'${id}'`;
}
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** `(data->>'author')` as a uuid, or null when it holds anything else (so a cast can never fail). */
const referenceId = (row: string, column: ColumnDef) => {
  const value = `${row}.data->>${literal(column.name)}`;
  return `(case when ${value} ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then (${value})::uuid end)`;
};

/**
 * A field through references (`author.company.name`) as one correlated scalar subquery per hop,
 * each finding the referenced row by primary key: `r1` is the row `author` points at, `r2` the
 * one its `company` points at, and the innermost expression (bare `data`) reads the last. A row
 * the caller does not see (outside the hop table's `rows`) counts as absent (null); that
 * condition's unqualified columns are the subquery's own row.
 */
function relatedExpression(field: Extract<FieldRef, { source: 'related' }>, inner: string): string {
  let expression = inner;
  for (let i = field.via.length - 1; i >= 0; i--) {
    const { column, table } = field.via[i];
    const alias = `r${i + 1}`;
    const from = i === 0 ? 'contents' : `r${i}`;
    const visible = table.rows ? ` and (${table.rows.sql})` : '';
    expression = `(select ${expression} from contents ${alias} where ${alias}.table_id = ${uuidLiteral(table.id)} and ${alias}.id = ${referenceId(from, column)}${visible})`;
  }
  return expression;
}

/** A field's SQL: the expression filters compare, or (`sort`) the one ORDER BY and its index use. */
function fieldSql(field: FieldRef, sort: boolean): string {
  switch (field.source) {
    case 'system':
      return SYSTEM_COLUMNS[field.name];
    case 'relevance':
      return RELEVANCE_EXPRESSION;
    case 'related':
      return relatedExpression(field, fieldSql(field.field, sort));
    default:
      return sort ? columnSortExpression(field.column, field.locale) : columnExpression(field.column, field.locale);
  }
}

export const fieldExpression = (field: FieldRef): string => fieldSql(field, false);

/** A sort key's expression (see columnSortExpression); system fields sort by their column. */
export const fieldSortExpression = (field: FieldRef): string => fieldSql(field, true);

/** Whether a field's equality tests should also compare the text key, so the sort index serves them. */
export const fieldHasTextKey = (field: FieldRef): boolean => field.source === 'column' && hasTextKey(field.column);

/**
 * Expression indexes that serve filters and sorts on a column, to be created partial on
 * `table_id = '<table id>'` by the columns module: a btree on the sort expression (one per
 * locale when localized), a trigram GIN for the case-insensitive text operators, a jsonb GIN
 * (`@>`) for multiple columns. json columns get none.
 */
export function columnIndexExpressions(
  column: ColumnDef,
  locales: string[],
): { expression: string; method: 'btree' | 'gin'; opclass: string | null }[] {
  if (column.type === 'json') return [];
  if (isMultiple(column)) return [{ expression: columnExpression(column), method: 'gin', opclass: 'jsonb_path_ops' }];
  const variants = isLocalized(column) ? locales : [null];
  const trigram = STRING_TYPES.has(column.type);
  return variants.flatMap((locale) => [
    { expression: columnSortExpression(column, locale), method: 'btree' as const, opclass: null },
    ...(trigram ? [{ expression: columnExpression(column, locale), method: 'gin' as const, opclass: 'gin_trgm_ops' }] : []),
  ]);
}
