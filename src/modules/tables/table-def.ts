/**
 * A table's definition: its column types and settings (docs/contents.md#tables-and-columns), read by the columns module
 * (definition, DDL), the contents module (validation) and the list query engine (filters, sorts,
 * projections). It lives here, below both columns and contents, so that neither imports the other
 * for it.
 */
export const COLUMN_TYPES = [
  'text',
  'longtext',
  'number',
  'integer',
  'boolean',
  'date',
  'datetime',
  'email',
  'url',
  'select',
  'json',
  'slug',
  'reference',
  'file',
] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

export interface ColumnSettings {
  required?: boolean;
  unique?: boolean;
  defaultValue?: unknown;
  /** text, longtext: bounds on the length in Unicode code points. */
  minText?: number;
  maxText?: number;
  /** text: a regular expression the whole value must match. */
  pattern?: string;
  /** text, longtext, url: values are `{ "<locale>": value }`. */
  localized?: boolean;
  /** number, integer: inclusive bounds. */
  min?: number;
  max?: number;
  /** select: the allowed values (required). */
  options?: string[];
  /** select, reference, file: an array of values. */
  multiple?: boolean;
  /** slug: the text column a missing slug is derived from. */
  source?: string;
  /** reference: the id of the referenced table in the same project (required). */
  table?: string;
  /** reference: what deleting a referenced row does to the referencing rows (docs/contents.md#references); absent is setNull. */
  onDelete?: 'setNull' | 'restrict' | 'cascade';
  /** longtext: how the value is meant to be read (`markdown` is edited with a preview in the console). */
  format?: 'plain' | 'markdown';
}

/** A column as the contents module and the query engine see it. */
export interface ColumnDef {
  id: string;
  /** Matches ^[A-Za-z][A-Za-z0-9_]{0,62}$, so it is safe inside SQL literals. */
  name: string;
  type: ColumnType;
  settings: ColumnSettings;
}

/** A table with its live columns, in position order. */
export interface TableDef {
  id: string;
  projectId: string;
  key: string;
  defaultStatus: 'DRAFT' | 'SCHEDULED' | 'PUBLISHED' | 'ARCHIVED';
  columns: ColumnDef[];
  /** Names of deleted columns whose values the purge job has not removed yet: never shown. */
  hiddenKeys: string[];
  /** Changes whenever a column is added, changed or removed (a cache key part). */
  schemaKey: string;
  /**
   * Set on one caller's view of the table (docs/roles.md#one-enforcement-path): the rows it may
   * read. Absent: every row. A view's `columns` are the columns it may read.
   */
  rows?: RowScope;
}

/**
 * A row as a RowScope's JavaScript test reads it: the list engine's row values (system
 * timestamps as UTC text with microseconds, the change log's form).
 */
export interface ScopedRow {
  id: string;
  status: string;
  data: Record<string, unknown>;
}

/**
 * Which rows of a table a caller may read, once as SQL and once in JavaScript, both saying the
 * same thing.
 */
export interface RowScope {
  /**
   * A condition on one `contents` row, its columns unqualified and its values inlined (no
   * parameters), so that it fits in any statement or subquery over `contents`.
   */
  sql: string;
  /** The condition on a row in JavaScript; null when it cannot be told here (the database decides). */
  matches: (row: ScopedRow) => boolean | null;
  /** Identifies the condition (cache keys, cursors): equal keys, equal conditions. */
  key: string;
  /**
   * Whether the condition reads system timestamps: `matches` then needs them in the change log's
   * form (UTC microseconds), which a row read for the wire does not carry.
   */
  timestamps?: boolean;
}

/** The rows read keys see: PUBLISHED ones (docs/concepts.md#credentials-and-roles). */
export const PUBLISHED_ONLY: RowScope = {
  sql: `status = 'PUBLISHED'`,
  matches: (row) => row.status === 'PUBLISHED',
  key: 'published',
};

export const COLUMN_NAME = /^[A-Za-z][A-Za-z0-9_]{0,62}$/;

/**
 * How each type is stored in `contents.data` (jsonb, key = column name; absent = null):
 * strings for text-like types, `date` as `YYYY-MM-DD`, `datetime` normalised to UTC
 * `YYYY-MM-DDTHH:mm:ss.sssZ` (so that text order is time order), numbers as JSON numbers,
 * booleans, `select` a string (an array of strings when `multiple`), `reference`/`file` a
 * UUID string (an array when `multiple`), `json` any JSON. Localized columns hold an object
 * `{ "<locale>": value }`.
 */
export const STRING_TYPES: ReadonlySet<ColumnType> = new Set(['text', 'longtext', 'email', 'url', 'slug']);
export const LOCALIZABLE_TYPES: ReadonlySet<ColumnType> = new Set(['text', 'longtext', 'url']);

export const isMultiple = (c: ColumnDef) =>
  (c.type === 'select' || c.type === 'reference' || c.type === 'file') && c.settings.multiple === true;
export const isLocalized = (c: ColumnDef) => LOCALIZABLE_TYPES.has(c.type) && c.settings.localized === true;
/** A table's slug column (at most one), whose value the row's `slug` holds. */
export const slugColumnOf = (table: Pick<TableDef, 'columns'>): ColumnDef | undefined => table.columns.find((c) => c.type === 'slug');
