/**
 * Contents list query parsing (docs/contents.md#list-queries). Turns the raw
 * parameters into a validated ListQuery; every refusal is 400 INVALID_QUERY naming the bad part
 * (`filter[1].w: operator "contains" does not apply to number column "price"`).
 *
 * The rules in detail:
 * - Names. `i` and `fields` take column names and the system fields id, slug, status, createdAt,
 *   updatedAt, publishedAt, publishAt. A system field name wins over a same-named column;
 *   `data.<name>` always means the column. In `fields`, such a name returns both.
 * - Operators per type: text, longtext, email, url, slug (and system slug): eq, neq, in, nin,
 *   contains, ncontains, startsWith, endsWith, null. number, integer, date, datetime and the
 *   timestamp system fields: eq, neq, in, nin, gt, gte, lt, lte, between, null. boolean, select,
 *   reference, file, system id and status: eq, neq, in, nin, null (the exact operators
 *   apply to every type but json, boolean included). json: null only.
 * - multiple select/reference/file: eq = the array contains the value, in = contains any of the
 *   values, neq/nin = contains none of them; null true = absent or an empty array.
 * - Negations (neq, nin, ncontains) are the exact complement of eq, in, contains: rows where the
 *   value is null or absent DO match them (unlike SQL's three-valued logic). gt/gte/lt/lte/
 *   between/startsWith/endsWith/contains never match a null.
 * - Text: eq/neq/in/nin are exact (case-sensitive); the four text operators are
 *   case-insensitive (ILIKE, with %, _ and \ in the value matched literally).
 * - Coercion of `v` (coerce.ts): a value is a string, coerced to the field's type ("12" → 12,
 *   "true", ISO dates), or a JSON value of the field's own type (a number for number/integer,
 *   true/false for boolean). Any other JSON type is refused: `true` for a number, `12` for a text,
 *   null, an object, an array where one value is expected. Integer columns take integers only.
 *   Dates are `YYYY-MM-DD`. Date-times are ISO-8601; a date alone is midnight UTC and no offset
 *   means UTC; datetime columns compare at millisecond precision, system timestamps at
 *   microseconds. Ids are UUIDs (compared lower case); status is one of the four statuses, any case.
 * - in/nin: a JSON array or a comma-separated string (items trimmed; use the array form for
 *   values containing commas; `"5"` is the one-value list 5), 1 to 1000 values; a bare number or
 *   boolean is refused. between: `[a, b]` or `"a,b"`, inclusive. null: true/false or
 *   "true"/"false".
 * - Empty values: absent parameters take their defaults; an empty `fields`, `sort`, `filter`,
 *   `op`, `locale` or `cursor` is refused (on `/v1`, v1-query.ts refuses every empty parameter).
 * - `l` only on localized columns and only a project locale; without it, the default locale.
 *   Filters and sorts on a locale never fall back to another one.
 * - Sort: `o` is asc (default) or desc. json and multiple columns cannot be sorted. Nulls last
 *   in both directions; ties broken by id in the direction of the last sort key.
 * - Limits: 20 filters, 5 sort keys, 1000 characters per value string, cursors ≤ 16 KiB.
 * - Cursor: replaces `page` (page must then be absent or 1); it must come from a query with the
 *   same table, sort, filter and op (fingerprint), else 400. `size`, `fields` and `locale` may
 *   change between pages.
 * - `op` with fewer than two filters is normalised to `and` (it cannot change the result).
 */
import { invalidQuery } from '../../errors/app-error.js';
import type { TableDef } from '../tables/table-def.js';
import { decodeCursor, queryFingerprint } from './cursor.js';
import { parseFields } from './parse-fields.js';
import { parseFilters, parseOp } from './parse-filter.js';
import { parseSort } from './parse-sort.js';
import { parseSearch, searchDocument } from './search.js';
import type { ListQuery, ParseContext, RawListParams } from './types.js';

export const MAX_PAGE_SIZE = 1000;
export const DEFAULT_PAGE_SIZE = 20;

function positiveInteger(name: 'page' | 'size', value: number | undefined, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1 || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? 'of at least 1' : `from 1 to ${max}`;
    throw invalidQuery(`${name}: must be an integer ${range}, got ${value}`);
  }
  return value;
}

export function parseListQuery(raw: RawListParams, table: TableDef, project: ParseContext): ListQuery {
  const page = positiveInteger('page', raw.page, 1, Number.MAX_SAFE_INTEGER);
  const size = positiveInteger('size', raw.size, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  if (page * size > Number.MAX_SAFE_INTEGER) throw invalidQuery(`page: ${page} is too large`);

  let locale: string | null = null;
  if (raw.locale !== undefined) {
    if (!project.locales.includes(raw.locale)) {
      throw invalidQuery(`locale: "${raw.locale.slice(0, 100)}" is not a project locale (${project.locales.join(', ')})`);
    }
    locale = raw.locale;
  }

  const fields = parseFields(raw.fields, table);
  // Read keys never see drafts, nor whether a row has one (docs/contents.md#drafts-of-published-rows).
  const projection = project.hideDrafts ? { ...fields, system: fields.system.filter((f) => f !== 'hasDraft') } : fields;
  const search = parseSearch(raw.search);
  const sort = parseSort(raw.sort, table, project, search !== null);
  const filters = parseFilters(raw.filter, table, project);
  const parsedOp = parseOp(raw.op);
  const op = filters.length < 2 ? 'and' : parsedOp;
  const document = search ? searchDocument(table, locale) : null;
  const fingerprint = queryFingerprint(table.id, sort, filters, op, search ? [search.text, document ?? ''] : []);

  let cursor = null;
  if (raw.cursor !== undefined) {
    if (raw.page !== undefined && raw.page !== 1) throw invalidQuery(`cursor: cannot be combined with page ${raw.page}`);
    cursor = decodeCursor(raw.cursor, { sort, fingerprint });
  }

  return {
    tableId: table.id,
    page: cursor ? 1 : page,
    size,
    withCount: raw.withCount !== false,
    projection,
    sort,
    filters,
    op,
    locale,
    defaultLocale: project.defaultLocale,
    cursor,
    search,
    searchDocument: document,
    fingerprint,
  };
}
