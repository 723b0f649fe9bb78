import type { ColumnDef, TableDef } from '../tables/table-def.js';

/** The list parameters as the router hands them over (strings straight from the query string). */
export interface RawListParams {
  page?: number;
  size?: number;
  fields?: string;
  sort?: string;
  filter?: string;
  op?: string;
  cursor?: string;
  locale?: string;
  withCount?: boolean;
  search?: string;
}

/** `search` (search.ts). */
export interface Search {
  /** The text as given (trimmed). */
  text: string;
  /** Whether the last word also matches as a prefix (not after a closing quote). */
  prefix: boolean;
}

export interface ProjectLocales {
  locales: string[];
  defaultLocale: string;
}

/** What parsing a list query knows besides the table: the project's locales and, for dotted paths, more. */
export interface ParseContext extends ProjectLocales {
  /** The tables reference columns point at (dotted `i` paths, docs/contents.md#filters-and-sorts-through-references), by id. */
  related?: ReadonlyMap<string, TableDef>;
  /**
   * Callers that may not see drafts (docs/contents.md#drafts-of-published-rows): `hasDraft` is
   * dropped from the projection. Which referenced rows a dotted path sees is the `rows` of the
   * `related` tables (the caller's views of them).
   */
  hideDrafts?: boolean;
  /**
   * Words that stand for a value known only later (a role rule's `"$me"` and `"$now"`,
   * docs/roles.md#rules): a filter value equal to one is replaced, before coercion, by what the
   * function gives for the field's kind; null means the word cannot stand for such a field (400).
   */
  placeholders?: ReadonlyMap<string, (kind: ValueKind) => Scalar | null>;
}

/** One step of a dotted path: a reference column, and the table it points at (its `rows`: the ones the caller sees). */
export interface Hop {
  column: ColumnDef;
  table: TableDef;
}

/** Row fields that are not columns (docs/contents.md#contents), by their wire names. */
export const SYSTEM_FIELDS = ['id', 'slug', 'status', 'createdAt', 'updatedAt', 'publishedAt', 'publishAt'] as const;
export type SystemField = (typeof SYSTEM_FIELDS)[number];
/**
 * The system fields `fields` can ask for; `id` is always returned. `version` (docs/contents.md#concurrent-edits)
 * and `hasDraft` (docs/contents.md#drafts-of-published-rows) are output only (no filter, no
 * sort), `hasDraft` never for read keys.
 */
export type OutputSystemField = Exclude<SystemField, 'id'> | 'version' | 'hasDraft';
export const OUTPUT_SYSTEM_FIELDS: readonly OutputSystemField[] = ['slug', 'status', 'createdAt', 'updatedAt', 'publishedAt', 'publishAt', 'version', 'hasDraft'];

export const STATUSES = ['DRAFT', 'SCHEDULED', 'PUBLISHED', 'ARCHIVED'] as const;

/** A field of the listed table itself. `locale` is set exactly for localized columns. */
export type DirectField = { source: 'system'; name: SystemField } | { source: 'column'; column: ColumnDef; locale: string | null };

/** A field a filter or sort key addresses. */
export type FieldRef =
  | DirectField
  /** `author.name`: a field of the row a reference column points at, through up to 3 hops. */
  | { source: 'related'; via: Hop[]; field: DirectField }
  /** `_relevance`: how well a row matches `search` (a sort key only, with a search). */
  | { source: 'relevance' };

/**
 * What a field's values are, for operator applicability and coercion:
 * `text` the string types that take the text operators, `option` select values (exact only),
 * `timestamp` the timestamptz system fields, `uuid` ids (system id, reference, file).
 */
export type ValueKind =
  | 'text'
  | 'option'
  | 'number'
  | 'integer'
  | 'boolean'
  | 'date'
  | 'datetime'
  | 'timestamp'
  | 'uuid'
  | 'status'
  | 'json';

export type Scalar = string | number | boolean;

export const COMPARISON_OPERATORS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte'] as const;
export const TEXT_OPERATORS = ['contains', 'ncontains', 'startsWith', 'endsWith'] as const;
export const LIST_OPERATORS = ['in', 'nin'] as const;
export const OPERATORS = [...COMPARISON_OPERATORS, ...TEXT_OPERATORS, ...LIST_OPERATORS, 'between', 'null'] as const;
export type Operator = (typeof OPERATORS)[number];

/** One validated filter; every value is already coerced to the field's type. */
export type Filter =
  | { field: FieldRef; op: (typeof COMPARISON_OPERATORS)[number]; value: Scalar }
  | { field: FieldRef; op: (typeof TEXT_OPERATORS)[number]; value: string }
  | { field: FieldRef; op: (typeof LIST_OPERATORS)[number]; values: Scalar[] }
  | { field: FieldRef; op: 'between'; values: [Scalar, Scalar] }
  | { field: FieldRef; op: 'null'; isNull: boolean };

export type Direction = 'asc' | 'desc';

export interface SortKey {
  field: FieldRef;
  direction: Direction;
}

/** A cursor value: the sort-key values of the last row seen (`_k0`, `_k1`, …) and its id. */
export type CursorValue = string | number | boolean | null;
export interface CursorPosition {
  values: CursorValue[];
  id: string;
}

export interface Projection {
  /** True when `fields` was not given: every live column and every system field. */
  all: boolean;
  /** System fields to return besides `id` (all of them when `all`), in SYSTEM_FIELDS order. */
  system: OutputSystemField[];
  /** Columns to return under `data` (every live column when `all`), in table order. */
  columns: ColumnDef[];
}

export interface ListQuery {
  tableId: string;
  /** 1 whenever a cursor is used. */
  page: number;
  size: number;
  withCount: boolean;
  projection: Projection;
  /** Never empty: `[createdAt desc]` when no sort was given. The id tie-break is implicit. */
  sort: SortKey[];
  filters: Filter[];
  /** How `filters` combine; always `and` when there are fewer than two filters. */
  op: 'and' | 'or';
  /** `locale` of the read: localized columns come back as plain values in it. */
  locale: string | null;
  defaultLocale: string;
  cursor: CursorPosition | null;
  /** Full-text search (search.ts); null without one. */
  search: Search | null;
  /** The table's search document in the search's locale (null without a search or a searchable column). */
  searchDocument: string | null;
  /** Hash of table + sort + filters + op + search; a cursor carries it and must match. */
  fingerprint: string;
}

export interface SqlQuery {
  text: string;
  values: unknown[];
}
