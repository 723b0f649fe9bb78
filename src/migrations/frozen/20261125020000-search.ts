import { createHash } from 'node:crypto';

/*
 * The index statements of Migration20261125020000_search, frozen: a later change to the columns
 * module or the query engine must not change what this migration creates. They are the columns
 * module's `searchIndexStatements` and `createIndexStatements` (src/modules/columns/column.ddl.ts)
 * with the expressions of the query engine (src/modules/contents/query/search.ts,
 * expressions.ts) as they were, reduced to what the migration creates: a table's search
 * document indexes, and the indexes and statistics of its reference and file columns. Index
 * names and definitions are exactly those the columns module builds, so its later statements
 * find the indexes they expect (test/foundation/frozen-migrations.test.ts compares both).
 */

/** A live column as the migration reads it from `content_column`. */
export interface StoredColumn {
  id: string;
  name: string;
  type: string;
  settings: { localized?: boolean; multiple?: boolean; unique?: boolean };
}

const STRING_TYPES: ReadonlySet<string> = new Set(['text', 'longtext', 'email', 'url', 'slug']);
const LOCALIZABLE_TYPES: ReadonlySet<string> = new Set(['text', 'longtext', 'url']);
const isLocalized = (c: StoredColumn) => LOCALIZABLE_TYPES.has(c.type) && c.settings.localized === true;
const isSearchable = (c: StoredColumn) => STRING_TYPES.has(c.type);

const COLUMN_NAME = /^[A-Za-z][A-Za-z0-9_]{0,62}$/;
const LOCALE_CODE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

/** `'name'`: a column name or locale code as an SQL string literal; anything else is a bug. */
function nameLiteral(value: string): string {
  if (!COLUMN_NAME.test(value) && !LOCALE_CODE.test(value)) {
    throw new Error(`refusing to embed ${JSON.stringify(value)} in SQL`);
  }
  return `'${value}'`;
}

/** An id (or a name made of ids) as an SQL string literal. */
function idLiteral(value: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(value)) throw new Error(`unsafe SQL literal: ${value}`);
  return `'${value}'`;
}

/** Characters of each column's value that the document holds (a tsvector holds at most 1 MB). */
const SEARCH_TEXT_CHARS = 100_000;

/** A column's text in the document: its value, one locale's, or every locale's (contents_search_text). */
function columnText(column: StoredColumn, locale: string | null): string {
  const name = nameLiteral(column.name);
  if (!isLocalized(column)) return `coalesce(left(data->>${name}, ${SEARCH_TEXT_CHARS}), '')`;
  if (locale) return `coalesce(left(data->${name}->>${nameLiteral(locale)}, ${SEARCH_TEXT_CHARS}), '')`;
  return `coalesce(contents_search_text(data->${name}), '')`;
}

/** The text-search document of a row (null without a searchable column), for every locale or one. */
function searchDocument(columns: StoredColumn[], locale: string | null): string | null {
  const searchable = columns.filter(isSearchable);
  if (searchable.length === 0) return null;
  const perLocale = locale !== null && searchable.some(isLocalized) ? locale : null;
  return `to_tsvector('simple', ${searchable.map((c) => columnText(c, perLocale)).join(` || ' ' || `)})`;
}

/**
 * The search document indexes of a table: one for every locale's document, and one per locale
 * when a searchable column is localized, each named after a hash of its expression; a
 * statement first drops the table's search indexes that are not among them.
 */
export function searchIndexStatements(table: { id: string; columns: StoredColumn[] }, locales: string[]): string[] {
  const prefix = `s_${table.id.replace(/-/g, '')}`;
  const documentLocales = table.columns.some((c) => isSearchable(c) && isLocalized(c)) ? [null, ...locales] : [null];
  const wanted = documentLocales.flatMap((locale) => {
    const document = searchDocument(table.columns, locale);
    if (!document) return [];
    const name = `${prefix}_${createHash('sha256').update(document).digest('hex').slice(0, 16)}`;
    return [{ name, create: `create index if not exists ${name} on contents using gin (${document}) where table_id = ${idLiteral(table.id)}` }];
  });
  const keep = wanted.length > 0 ? wanted.map((w) => idLiteral(w.name)).join(', ') : `''`;
  const dropOthers = `do $$ declare r record; begin
     for r in select indexname from pg_indexes where tablename = 'contents' and indexname like ${idLiteral(prefix)} || '\\_%' and indexname not in (${keep})
     loop execute format('drop index if exists %I', r.indexname); end loop;
   end $$`;
  return [dropOthers, ...wanted.map((w) => w.create)];
}

/** `c_<column id without dashes>_<suffix>`: traceable to the column. */
const indexName = (columnId: string, suffix: string) => `c_${columnId.replace(/-/g, '')}_${suffix}`;

/**
 * The indexes and statistics of a reference or file column: a jsonb GIN index when it holds
 * several ids; otherwise a sort index, statistics for the planner, and a unique index when the
 * column is unique.
 */
export function referenceIndexStatements(tableId: string, column: StoredColumn): string[] {
  if (column.type !== 'reference' && column.type !== 'file') throw new Error(`not a reference or file column: ${column.type}`);
  const where = `where table_id = ${idLiteral(tableId)}`;
  const name = nameLiteral(column.name);
  if (column.settings.multiple === true) {
    return [`create index if not exists ${indexName(column.id, 'g')} on contents using gin ((data->${name}) jsonb_path_ops) ${where}`];
  }
  const expression = `(data->>${name})`;
  const statements = [
    `create index if not exists ${indexName(column.id, 's')} on contents (${expression}, id) ${where}`,
    `create statistics if not exists ${indexName(column.id, 'x')} on ${expression} from contents`,
  ];
  if (column.settings.unique) {
    statements.push(`create unique index if not exists ${indexName(column.id, 'u')} on contents (${expression}) ${where}`);
  }
  return statements;
}
