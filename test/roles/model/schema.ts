/** The schema, the row shapes and the rule shapes the roles model test works with (docs/roles.md#rules). */

export type TableName = 'posts' | 'authors' | 'notes';
export const TABLE_NAMES: readonly TableName[] = ['posts', 'authors', 'notes'];
export type Status = 'DRAFT' | 'SCHEDULED' | 'PUBLISHED' | 'ARCHIVED';
export const STATUSES: readonly Status[] = ['DRAFT', 'SCHEDULED', 'PUBLISHED', 'ARCHIVED'];

/** Column kinds: `ltext` is a localized text column, `ref` a reference to authors, `multi` a multiple select. */
export type Kind = 'text' | 'ltext' | 'number' | 'ref' | 'multi';

/** Columns in table order (a view keeps this order). */
export const SCHEMA: Record<TableName, Record<string, Kind>> = {
  authors: { name: 'text', team: 'text' },
  posts: { title: 'ltext', price: 'number', owner: 'text', secret: 'text', author: 'ref', tags: 'multi' },
  notes: { body: 'text' },
};
export const columnsOf = (table: TableName) => Object.keys(SCHEMA[table]);
export const SEARCHABLE: readonly Kind[] = ['text', 'ltext'];
export const TAGS = ['x1', 'x2', 'x3'];
export const LOCALES = ['en', 'fr'];

/**
 * Words of text values, unique per column and never a prefix of another (a search's last word
 * matches as a prefix), with a letter beyond `f` so that no key id (a UUID, owner values) holds them.
 */
export const WORDS = {
  titleEn: ['kiwi', 'lime', 'mango'],
  titleFr: ['poire', 'prune', 'raisin'],
  secret: ['zebra', 'walrus', 'yak'],
  owner: ['ownx', 'owny'],
  name: ['nora', 'otto', 'piet'],
  team: ['red', 'blue', 'green'],
  body: ['quux'],
};
export const PRICES = [5, 10, 20, 35, 60];

/** A row as the API answers it (an account token: every column, `hasDraft`). */
export interface Wire {
  id: string;
  slug: string | null;
  status: Status;
  data: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  publishedAt: string | null;
  publishAt: string | null;
  /** The row's revision number (docs/contents.md#concurrent-edits), as the API answered it. */
  version: number;
  hasDraft?: boolean;
}

/** A row the model knows: its live object and, with a pending draft, the object `?version=draft` answers. */
export interface Row {
  table: TableName;
  wire: Wire;
  draft: Wire | null;
}

/** A filter item of the list filter language, as a rule's `where` or a list's `filter` holds it. */
export interface Item {
  i: string;
  w: string;
  v: unknown;
  l?: string;
}

export interface Rule {
  table: string;
  actions: string[];
  where?: Item[];
  fields?: { read?: string[]; write?: string[] };
  statuses?: Status[];
  drafts?: boolean;
}

/** The data the model filters: every row by table, the tables' ids and keys. */
export interface World {
  tables: Record<TableName, { id: string; key: string }>;
  rows: Record<TableName, Row[]>;
}

export const findRow = (world: World, table: TableName, id: unknown): Row | undefined =>
  typeof id === 'string' ? world.rows[table].find((r) => r.wire.id === id) : undefined;

export const tableOfKey = (world: World, key: string): TableName | undefined => TABLE_NAMES.find((t) => world.tables[t].key === key);
