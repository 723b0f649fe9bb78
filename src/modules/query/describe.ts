import { COLUMN_TYPES, type ColumnDef, type ColumnType } from '../tables/table-def.js';
import { columnKind, fieldKind, isSortableColumn } from './expressions.js';
import { OPERATORS_BY_KIND } from './operators.js';
import { MAX_FILTERS } from './parse-filter.js';
import { MAX_SORT_KEYS } from './parse-sort.js';
import { OUTPUT_SYSTEM_FIELDS, SYSTEM_FIELDS, type Operator } from './types.js';

/*
 * The documentation of the list parameters (`fields`, `sort`, `filter`, `op`), written from the
 * parser's own tables so that the reference cannot drift from what the parser accepts. Used by
 * the `/v1` reference (any table) and by the per-project documents (one table's columns).
 */

/** The operators a column takes in `filter` (docs/contents.md#list-queries). */
export const operatorsOf = (column: ColumnDef): readonly Operator[] => OPERATORS_BY_KIND[columnKind(column)];

const code = (items: readonly string[]) => items.map((s) => `\`${s}\``).join(', ');

/** Column types grouped by the operators they take, e.g. "`eq`, `neq`: boolean, select". */
function operatorsByType(): string {
  const groups = new Map<string, ColumnType[]>();
  for (const type of COLUMN_TYPES) {
    const operators = code(operatorsOf({ id: '', name: 'x', type, settings: {} }));
    groups.set(operators, [...(groups.get(operators) ?? []), type]);
  }
  return [...groups].map(([operators, types]) => `- ${types.join(', ')}: ${operators}`).join('\n');
}

/** System fields grouped the same way, e.g. "- system fields createdAt, updatedAt: ...". */
function systemOperators(): string {
  const groups = new Map<string, string[]>();
  for (const name of SYSTEM_FIELDS) {
    const operators = code(OPERATORS_BY_KIND[fieldKind({ source: 'system', name })]);
    groups.set(operators, [...(groups.get(operators) ?? []), name]);
  }
  return [...groups].map(([operators, names]) => `- system fields ${code(names)}: ${operators}`).join('\n');
}

export const FIELDS_DESCRIPTION =
  `Comma-separated column names and system fields (${code(OUTPUT_SYSTEM_FIELDS)}); \`id\` is always returned, ` +
  'selected columns stay under `data`, fields not asked for are absent. `data.<name>` names a column that shares a system field’s name; ' +
  '`data.*` names every column (`fields=data.*`: `id` and `data` only, the leanest shape of a large page). ' +
  '`hasDraft` (whether a published row has a pending draft) is never returned to read keys.';

export const SORT_DESCRIPTION =
  `JSON array of up to ${MAX_SORT_KEYS} sort keys \`{ "i": field, "o": "asc" | "desc", "l"?: locale }\`. ` +
  '`i` is a column (not json or multiple) or `slug`, `status`, `createdAt`, `updatedAt`, `publishedAt`, `publishAt`, `id`; ' +
  '`o` defaults to `asc`; `l` picks the locale of a localized column (default: the project’s default locale). ' +
  'Default `[{"i":"createdAt","o":"desc"}]`, or `[{"i":"_relevance","o":"desc"}]` with a `search`; ties are broken by `id`; nulls sort last. ' +
  '`_relevance` (with `search` only) sorts by how well rows match the search.';

export const FILTER_DESCRIPTION =
  `JSON array of up to ${MAX_FILTERS} conditions \`{ "i": field, "w": operator, "v": value, "l"?: locale }\`, combined by \`op\`. ` +
  'A value is a string, coerced to the field’s type (`"12"`, `"true"`, `"2026-01-01"`), or a JSON value of the field’s own type ' +
  '(a number for number and integer fields, `true`/`false` for boolean ones). Anything else is 400 `INVALID_QUERY`: a string ' +
  'that cannot be coerced, another JSON type (`true` for a number, `12` for a text), `null`, an object, an array where one value is expected.\n\n' +
  'Operators: `eq`, `neq`, `gt`, `gte`, `lt`, `lte` (compare, `v` one value); `contains`, `ncontains`, `startsWith`, `endsWith` ' +
  '(text, case-insensitive, `v` a string); `in`, `nin` (`v` a JSON array of values or a comma-separated string: `"5"` is the list of one value 5); ' +
  '`between` (`v` `[a, b]` or `"a,b"`, inclusive); `null` (`v` `true`/`"true"`: no value, `false`/`"false"`: a value).\n\nBy column type:\n' +
  `${operatorsByType()}\n` +
  `${systemOperators()}\n\n` +
  'On multiple select, reference and file columns, `eq`/`in` match rows holding the value(s) among theirs. ' +
  'Read keys only ever see PUBLISHED rows, whatever the filter.';

export const EXPAND_DESCRIPTION =
  'Comma-separated reference and file columns to return as objects instead of ids, dotted through references up to depth 3 ' +
  '(`author,author.company,cover`). A referenced row comes as a read of it would (same `locale`); `multiple` columns give arrays in ' +
  'stored order. Rows the caller may not see (non-PUBLISHED ones for read keys) or that no longer exist are null, or left out of arrays. ' +
  '`fields` may name fields inside expanded paths (`fields=title,author.name`).';

export const SEARCH_DESCRIPTION =
  'Full-text search over the text, longtext, slug, email and url columns (PostgreSQL text search, `simple` configuration: ' +
  'words lower-cased, no stemming). Web-search syntax: words must all occur, `"exact phrase"`, `or` between alternatives, ' +
  '`-word` to exclude; the last word also matches as a prefix (`ferr` finds ferry). Localized columns are searched in `locale` ' +
  'when given, else in every locale. Combines with `filter` by AND; without `sort`, results come by relevance, then `id`.';

export const OP_DESCRIPTION = 'How the `filter` conditions combine: `and` (default) or `or`';

export const SORT_EXAMPLE = '[{"i":"createdAt","o":"desc"}]';
export const FILTER_EXAMPLE = '[{"i":"status","w":"eq","v":"PUBLISHED"},{"i":"createdAt","w":"gte","v":"2026-01-01T00:00:00Z"}]';

/** The `sort` description of one table: which of its columns can be sort keys. */
export function tableSortDescription(columns: ColumnDef[]): string {
  const sortable = columns.filter(isSortableColumn).map((c) => c.name);
  return `${SORT_DESCRIPTION}\n\nSortable columns of this table: ${sortable.length ? code(sortable) : 'none'}.`;
}

/** The `filter` description of one table: the operators each of its columns takes. */
export function tableFilterDescription(columns: ColumnDef[]): string {
  const lines = columns.map((c) => `- \`${c.name}\` (${c.type}${c.settings.multiple ? ', multiple' : ''}): ${code(operatorsOf(c))}`);
  return `${FILTER_DESCRIPTION}\n\nColumns of this table:\n${lines.join('\n') || '(none)'}`;
}
