/**
 * Full-text search of contents lists (docs/contents.md#search): PostgreSQL text search over a table's string
 * columns (text, longtext, slug, email, url), with the web-search syntax (`"exact phrase"`,
 * `or`, `-word`) and the last word also matched as a prefix.
 *
 * In detail:
 * - The `simple` configuration: words are lower-cased and nothing else (no stemming, no stop
 *   words), because a table's language is not known and content is often multilingual.
 * - The document of a row is its searchable columns' values, in table order. Without `locale`,
 *   a localized column contributes every locale's value; with `locale`, only that locale's
 *   (stored value, no fallback, like a filter with `l`).
 * - Relevance is `ts_rank` of that document; rows without a match are not listed.
 * - A search of nothing but punctuation matches no row.
 *
 * The document expression is built here for both sides: the columns module creates a GIN index
 * on exactly this text per table (and per locale when a column is localized), and PostgreSQL
 * uses an expression index only for the same expression.
 */
import { invalidQuery } from '../../errors/app-error.js';
import { isLocalized, STRING_TYPES, type ColumnDef, type TableDef } from '../tables/table-def.js';
import { literal } from './expressions.js';
import type { Search } from './types.js';

export const MAX_SEARCH_LENGTH = 500;


export const isSearchable = (column: ColumnDef): boolean => STRING_TYPES.has(column.type);

/** `search`: trimmed, 1 to MAX_SEARCH_LENGTH characters; null when absent. */
export function parseSearch(raw: string | undefined): Search | null {
  if (raw === undefined) return null;
  const text = raw.trim();
  if (text === '') throw invalidQuery('search: must contain a word');
  if (text.length > MAX_SEARCH_LENGTH) throw invalidQuery(`search: at most ${MAX_SEARCH_LENGTH} characters`);
  if (text.includes('\u0000')) throw invalidQuery('search: must not contain NUL characters');
  return { text, prefix: !text.endsWith('"') };
}

/** Characters of each column's value that the document holds (a tsvector holds at most 1 MB). */
export const SEARCH_TEXT_CHARS = 100_000;

/**
 * A column's text in the document: its value, or one locale's, cut to SEARCH_TEXT_CHARS; every
 * locale's of a localized column through `contents_search_text` (migration
 * Migration20261125020000_search), which joins an object's values.
 */
function columnText(column: ColumnDef, locale: string | null): string {
  const name = literal(column.name);
  if (!isLocalized(column)) return `coalesce(left(data->>${name}, ${SEARCH_TEXT_CHARS}), '')`;
  if (locale) return `coalesce(left(data->${name}->>${literal(locale)}, ${SEARCH_TEXT_CHARS}), '')`;
  return `coalesce(contents_search_text(data->${name}), '')`;
}

/**
 * The text-search document of a row of `table` (null when the table has no searchable column):
 * every locale's values, or one locale's when `locale` is given and a column is localized. One
 * `to_tsvector` over the columns' texts joined by spaces: every insert and update computes it
 * for the search index, so it is kept to one call.
 */
export function searchDocument(table: Pick<TableDef, 'columns'>, locale: string | null): string | null {
  const columns = table.columns.filter(isSearchable);
  if (columns.length === 0) return null;
  const perLocale = locale !== null && columns.some(isLocalized) ? locale : null;
  return `to_tsvector('simple', ${columns.map((c) => columnText(c, perLocale)).join(` || ' ' || `)})`;
}

/** The locales that get a document (and an index) of their own: every one, when a searchable column is localized. */
export const searchIndexLocales = (table: Pick<TableDef, 'columns'>, locales: string[]): (string | null)[] =>
  table.columns.some((c) => isSearchable(c) && isLocalized(c)) ? [null, ...locales] : [null];

/**
 * The tsquery of the search text at parameter `param` (a `$n::text` placeholder). With
 * `prefix`, the last lexeme of the web-search query is marked `:*`. Immutable, so PostgreSQL
 * folds it once and the GIN index serves the match.
 */
export function searchQuery(param: string, prefix: boolean): string {
  const query = `websearch_to_tsquery('simple', ${param})`;
  return prefix ? `(regexp_replace(${query}::text, '''$', ''':*'))::tsquery` : query;
}
