import { isLocalized, isMultiple, STRING_TYPES, type ColumnDef } from './column.types.js';

/*
 * Per-column indexes on the shared `contents` table, each partial on its table. The indexed
 * expressions are exactly those the list query compiler emits, so the planner can use them.
 * Column names (^[A-Za-z][A-Za-z0-9_]{0,62}$), locale codes and ids are validated before they
 * reach these strings; `literal` asserts it again.
 */

const SAFE = /^[A-Za-z0-9_-]+$/;
const literal = (value: string) => {
  if (!SAFE.test(value)) throw new Error(`unsafe SQL literal: ${value}`);
  return `'${value}'`;
};

/** The SQL expression of a column's scalar value (for a localized column, of one locale). */
export function valueExpression(column: ColumnDef, locale?: string): string {
  const name = literal(column.name);
  if (isMultiple(column)) return `(data->${name})`;
  const text = locale && isLocalized(column) ? `(data->${name}->>${literal(locale)})` : `(data->>${name})`;
  if (column.type === 'number' || column.type === 'integer') return `(${text}::float8)`;
  if (column.type === 'boolean') return `(${text}::boolean)`;
  return text;
}

/** `c_<column id without dashes>_<suffix>`: at most 63 characters, and traceable to the column. */
export function indexName(columnId: string, suffix: string): string {
  return `c_${columnId.replace(/-/g, '')}_${suffix.replace(/-/g, '_').toLowerCase()}`.slice(0, 63);
}

/** Index name prefix of a column's unique indexes: a unique violation names the column. */
export const uniqueIndexPrefix = (columnId: string) => indexName(columnId, 'u');

/** The CREATE INDEX statements a column needs: sort/compare, contains (trigram), unique. */
export function createIndexStatements(tableId: string, column: ColumnDef, locales: string[]): string[] {
  const where = `where table_id = ${literal(tableId)}`;
  if (column.type === 'json') return [];
  if (isMultiple(column)) {
    return [`create index if not exists ${indexName(column.id, 'g')} on contents using gin (${valueExpression(column)} jsonb_path_ops) ${where}`];
  }
  const variants: { suffix: string; expression: string }[] = isLocalized(column)
    ? locales.map((l) => ({ suffix: l, expression: valueExpression(column, l) }))
    : [{ suffix: '', expression: valueExpression(column) }];
  const statements: string[] = [];
  for (const { suffix, expression } of variants) {
    const tail = suffix ? `_${suffix}` : '';
    statements.push(`create index if not exists ${indexName(column.id, `s${tail}`)} on contents (${expression}, id) ${where}`);
    if (STRING_TYPES.has(column.type) && column.type !== 'slug') {
      statements.push(
        `create index if not exists ${indexName(column.id, `t${tail}`)} on contents using gin (${expression} gin_trgm_ops) ${where}`,
      );
    }
    // A slug's uniqueness is enforced by the `contents.slug` column's own index.
    if (column.settings.unique && column.type !== 'slug') {
      statements.push(`create unique index if not exists ${indexName(column.id, `u${tail}`)} on contents (${expression}) ${where}`);
    }
  }
  return statements;
}

/** Drops every index of a column, whatever its settings were. */
export const dropIndexesStatement = (columnId: string) =>
  `do $$ declare r record; begin
     for r in select indexname from pg_indexes where tablename = 'contents' and indexname like ${literal(`c_${columnId.replace(/-/g, '')}`)} || '\\_%'
     loop execute format('drop index if exists %I', r.indexname); end loop;
   end $$`;
