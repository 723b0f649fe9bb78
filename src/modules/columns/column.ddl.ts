import { createHash } from 'node:crypto';
import { sqlLiteral as literal } from '../../db/sql-literal.js';
import { columnExpression, columnSortExpression, columnUniqueExpression, searchDocument, searchIndexLocales } from '../query/index.js';
import { isLocalized, isMultiple, STRING_TYPES, type ColumnDef, type TableDef } from '../tables/table-def.js';

/*
 * Per-column indexes on the shared `contents` table, each partial on its table. The indexed
 * expressions come from the query engine (`columnSortExpression`, `columnUniqueExpression`,
 * `columnExpression`), so they are exactly the text the list queries use and the planner can
 * match them. String values can be as long as a request body, far more than a btree entry
 * holds (2,704 bytes): their btree indexes hold a prefix (sort, equality) or an md5 (unique),
 * never the whole value. Table ids and index names are embedded as literals escaped by
 * db/sql-literal.ts.
 */



const STATISTICS_TYPES: ReadonlySet<ColumnDef['type']> = new Set(['number', 'integer', 'date', 'datetime', 'boolean', 'select', 'reference', 'file']);

/** `c_<column id without dashes>_<suffix>`: at most 63 characters, and traceable to the column. */
export function indexName(columnId: string, suffix: string): string {
  return `c_${columnId.replace(/-/g, '')}_${suffix.replace(/-/g, '_').toLowerCase()}`.slice(0, 63);
}


/** The CREATE INDEX statements a column needs: sort/compare, contains (trigram), unique. */
export function createIndexStatements(tableId: string, column: ColumnDef, locales: string[]): string[] {
  const where = `where table_id = ${literal(tableId)}`;
  if (column.type === 'json') return [];
  if (isMultiple(column)) {
    return [`create index if not exists ${indexName(column.id, 'g')} on contents using gin (${columnExpression(column)} jsonb_path_ops) ${where}`];
  }
  const variants: { suffix: string; locale: string | null }[] = isLocalized(column)
    ? locales.map((l) => ({ suffix: l, locale: l }))
    : [{ suffix: '', locale: null }];
  const statements: string[] = [];
  for (const { suffix, locale } of variants) {
    const tail = suffix ? `_${suffix}` : '';
    const expression = columnExpression(column, locale);
    statements.push(
      `create index if not exists ${indexName(column.id, `s${tail}`)} on contents (${columnSortExpression(column, locale)}, id) ${where}`,
    );
    if (STRING_TYPES.has(column.type) && column.type !== 'slug') {
      statements.push(
        `create index if not exists ${indexName(column.id, `t${tail}`)} on contents using gin (${expression} gin_trgm_ops) ${where}`,
      );
    }
    // Partial indexes give the planner no statistics on their expressions; without these it
    // guesses 0.5% for `category = 'c'` and sorts thousands of rows instead of walking the
    // sort index (measured: 22 ms → 0.7 ms on 100,000 rows). For a reference, they tell how
    // many rows hold one id, so that a filter through it (`author.name eq`) starts from the few
    // matching referenced rows instead of walking the whole table in sort order. Text columns
    // are left out: a default estimate keeps `contains` on the trigram index, which suits it best.
    if (STATISTICS_TYPES.has(column.type)) {
      statements.push(`create statistics if not exists ${indexName(column.id, `x${tail}`)} on ${expression} from contents`);
    }
    // A slug's uniqueness is enforced by the `contents.slug` column's own index.
    if (column.settings.unique && column.type !== 'slug') {
      statements.push(
        `create unique index if not exists ${indexName(column.id, `u${tail}`)} on contents (${columnUniqueExpression(column, locale)}) ${where}`,
      );
    }
  }
  return statements;
}

/**
 * A retired index keeps working until it is dropped, but under a name of its own
 * (`x<8 hex>_<former name without its first letter>`), out of the way of a new index of the
 * same name. Renaming takes a SHARE UPDATE EXCLUSIVE lock, which neither reads nor writes wait
 * for, where DROP INDEX inside a transaction takes ACCESS EXCLUSIVE on the shared `contents`
 * table and holds it to the commit: every read of every project would wait for the rest of the
 * change (an index build over a large table). `dropRetiredIndexes` drops them, concurrently,
 * once the change has committed.
 */
const retire = (nameVariable: string) =>
  `execute format('alter index %I rename to %I', ${nameVariable}, 'x' || substr(md5(random()::text), 1, 8) || substr(${nameVariable}, 2))`;

/** The retired indexes waiting to be dropped (see `retire`). */
export const RETIRED_INDEX = /^x[0-9a-f]{8}_[a-z0-9_]+$/;
export const retiredIndexesStatement = `select indexname from pg_indexes where tablename = 'contents' and indexname ~ '^x[0-9a-f]{8}_'`;
export const RETIRED_LOCK_TIMEOUT = `set lock_timeout = '200ms'`;
export const RESET_LOCK_TIMEOUT = 'reset lock_timeout';
/** Outside any transaction; `name` matches RETIRED_INDEX (checked by the caller). */
export const dropConcurrentlyStatement = (name: string) => `drop index concurrently if exists ${name}`;

/**
 * Removes every index and statistics object of a column, whatever its settings were. Unique
 * indexes (suffix `u`) are dropped at once: their constraint must end with the change. The
 * others are retired (see `retire`).
 */
export const dropIndexesStatement = (columnId: string) => {
  const prefix = `${literal(`c_${columnId.replace(/-/g, '')}`)} || '\\_%'`;
  return `do $$ declare r record; begin
     for r in select indexname from pg_indexes where tablename = 'contents' and indexname like ${prefix}
     loop
       if substr(r.indexname, 36, 1) = 'u' then execute format('drop index if exists %I', r.indexname);
       else ${retire('r.indexname')}; end if;
     end loop;
     for r in select stxname from pg_statistic_ext where stxname like ${prefix}
     loop execute format('drop statistics if exists %I', r.stxname); end loop;
   end $$`;
};

/**
 * The full-text search indexes of a table (docs/contents.md#search): a GIN index on its search document, and
 * one per locale when a searchable column is localized (query/search.ts). Each index
 * is named after a hash of its expression, so a change that leaves the document as it was (a
 * new number column, a new label) rebuilds nothing; indexes of a former document are retired.
 */
export function searchIndexStatements(table: Pick<TableDef, 'id' | 'columns'>, locales: string[]): string[] {
  const prefix = `s_${table.id.replace(/-/g, '')}`;
  const wanted = searchIndexLocales(table, locales).flatMap((locale) => {
    const document = searchDocument(table, locale);
    if (!document) return [];
    const name = `${prefix}_${createHash('sha256').update(document).digest('hex').slice(0, 16)}`;
    return [{ name, create: `create index if not exists ${name} on contents using gin (${document}) where table_id = ${literal(table.id)}` }];
  });
  const keep = wanted.length > 0 ? wanted.map((w) => literal(w.name)).join(', ') : `''`;
  const dropOthers = `do $$ declare r record; begin
     for r in select indexname from pg_indexes where tablename = 'contents' and indexname like ${literal(prefix)} || '\\_%' and indexname not in (${keep})
     loop ${retire('r.indexname')}; end loop;
   end $$`;
  return [dropOthers, ...wanted.map((w) => w.create)];
}
