import { itemHolds, viewOf, type Holder, type View } from './policy.js';
import { findRow, SCHEMA, SEARCHABLE, type Item, type Row, type TableName, type Wire, type World } from './schema.js';

/*
 * What the read surfaces answer a role, per the model (docs/contents.md#list-queries,
 * docs/roles.md#rules): the same rows, columns and errors a list, a read of one row, an export,
 * `expand`, `search` and `referrers` give, filtered in JavaScript from every row.
 */

export interface Query {
  sort?: { i: string; o: 'asc' | 'desc' }[];
  filter?: Item[];
  op?: 'and' | 'or';
  fields?: string[];
  search?: string;
  expand?: boolean;
}

/** An answer: a status, and the body (200) or the error's code and, where the model knows it, message. */
export type Answer = { status: number; body?: unknown; code?: string; message?: string };

const SYSTEM = ['id', 'slug', 'status', 'createdAt', 'updatedAt', 'publishedAt', 'publishAt'];
/** `version` is output only: `fields` names it, filters and sorts do not. */
const OUTPUT_SYSTEM = [...SYSTEM.slice(1), 'version'];
const forbidden: Answer = { status: 403, code: 'FORBIDDEN' };
const notFound: Answer = { status: 404, code: 'NOT_FOUND' };
const invalid = (message: string): Answer => ({ status: 400, code: 'INVALID_QUERY', message });

/** The first name the role may not use, in the order the API parses: expand, fields, sort, filter (a hidden name is an unknown one). */
function queryError(holder: Holder, world: World, view: View, query: Query): Answer | null {
  const known = (name: string) => SYSTEM.includes(name) || view.columns.includes(name);
  if (query.expand && !view.columns.includes('author')) return invalid('expand: "author": unknown column "author"');
  for (const name of query.fields ?? []) if (name !== 'hasDraft' && name !== 'version' && !known(name)) return invalid(`fields: unknown field "${name}"`);
  for (const [k, key] of (query.sort ?? []).entries()) if (!known(key.i)) return invalid(`sort[${k}].i: unknown field "${key.i}"`);
  for (const [k, item] of (query.filter ?? []).entries()) {
    const [head, tail] = item.i.split('.');
    if (tail === undefined) {
      if (!known(head)) return invalid(`filter[${k}].i: unknown field "${head}"`);
    } else if (!view.columns.includes(head)) {
      return invalid(`filter[${k}].i: "${head}" is not a reference column of table "${world.tables[view.table].key}"`);
    } else if (!SYSTEM.includes(tail) && !viewOf(holder, world, 'authors').columns.includes(tail)) {
      return invalid(`filter[${k}].i: unknown field "${tail}"`);
    }
  }
  return null;
}

/** Whether a search word (the last word matches as a prefix) occurs in a readable text column. */
function searchHolds(row: Row, view: View, word: string): boolean {
  const texts = view.columns
    .filter((c) => SEARCHABLE.includes(SCHEMA[view.table][c]))
    .flatMap((c) => {
      const value = row.wire.data[c];
      return value && typeof value === 'object' ? Object.values(value) : [value];
    });
  const tokens = texts.filter((t) => typeof t === 'string').flatMap((t) => (t as string).toLowerCase().split(/[^a-z0-9]+/));
  return tokens.some((token) => token.startsWith(word.toLowerCase()));
}

/** Sorting puts nulls last in both directions; the sort ends with `id`. */
function order(sort: Query['sort']) {
  const keys = sort ?? [{ i: 'id', o: 'asc' }];
  return (a: Row, b: Row): number => {
    for (const key of keys) {
      const [x, y] = key.i === 'id' ? [a.wire.id, b.wire.id] : [a.wire.data[key.i] ?? null, b.wire.data[key.i] ?? null];
      if (x === y) continue;
      if (x === null) return 1;
      if (y === null) return -1;
      const c = (x as number | string) < (y as number | string) ? -1 : 1;
      return key.o === 'desc' ? -c : c;
    }
    return 0;
  };
}

/** A row as the role reads it: its readable columns, the fields asked for, `hasDraft` only with drafts. */
export function shape(wire: Wire, view: View, fields: string[] | undefined): Record<string, unknown> {
  const columns = fields ? view.columns.filter((c) => fields.includes(c)) : view.columns;
  const data = Object.fromEntries(columns.filter((c) => Object.hasOwn(wire.data, c)).map((c) => [c, wire.data[c]]));
  const out: Record<string, unknown> = { id: wire.id };
  for (const f of OUTPUT_SYSTEM) if (!fields || fields.includes(f)) out[f] = wire[f as keyof Wire];
  if (!fields || columns.length > 0) out.data = data;
  if (view.drafts && (!fields || fields.includes('hasDraft'))) out.hasDraft = wire.hasDraft ?? false;
  return out;
}

/** `expand=author`: the author as reading it answers the role, null when the role does not read it. */
function expandAuthor(item: Record<string, unknown>, holder: Holder, world: World): Record<string, unknown> {
  const data = item.data as Record<string, unknown> | undefined;
  if (!data || !Object.hasOwn(data, 'author')) return item;
  const view = viewOf(holder, world, 'authors');
  const author = findRow(world, 'authors', data.author);
  return { ...item, data: { ...data, author: author && view.visible(author) ? shape(author.wire, view, undefined) : null } };
}

/** Every row a list answers, in order, as items; or the error it answers. */
export function listAll(holder: Holder, world: World, table: TableName, query: Query): Answer & { items?: Record<string, unknown>[] } {
  const view = viewOf(holder, world, table);
  if (!view.readable) return forbidden;
  const error = queryError(holder, world, view, query);
  if (error) return error;
  const authors = viewOf(holder, world, 'authors');
  const holds = (row: Row, item: Item) => itemHolds(item, row, table, world, holder.me, (a) => authors.visible(a));
  const filters = query.filter ?? [];
  const rows = world.rows[table]
    .filter((row) => view.visible(row))
    .filter((row) => filters.length === 0 || (query.op === 'or' ? filters.some((f) => holds(row, f)) : filters.every((f) => holds(row, f))))
    .filter((row) => query.search === undefined || searchHolds(row, view, query.search))
    .sort(order(query.sort));
  const fields = query.fields && query.expand ? [...query.fields, 'author'] : query.fields;
  const items = rows.map((row) => shape(row.wire, view, fields)).map((item) => (query.expand ? expandAuthor(item, holder, world) : item));
  return { status: 200, items };
}

/** `GET .../contents/{id}` with `fields`, `expand` and `version`. */
export function readOne(holder: Holder, world: World, table: TableName, id: string, query: Query & { draft?: boolean }): Answer {
  const view = viewOf(holder, world, table);
  if (!view.readable) return forbidden;
  if (query.draft && !view.drafts) return forbidden;
  const row = findRow(world, table, id);
  if (!row || !view.visible(row)) return notFound;
  const error = queryError(holder, world, view, { fields: query.fields, expand: query.expand });
  if (error) return error;
  const fields = query.fields && query.expand ? [...query.fields, 'author'] : query.fields;
  const item = shape(query.draft ? (row.draft ?? row.wire) : row.wire, view, fields);
  return { status: 200, body: query.expand ? expandAuthor(item, holder, world) : item };
}

/** `GET .../authors/contents/{id}/referrers`: the posts holding the author that the role reads, through a readable `author`. */
export function referrers(holder: Holder, world: World, id: string): Answer {
  const view = viewOf(holder, world, 'authors');
  if (!view.readable) return forbidden;
  const author = findRow(world, 'authors', id);
  if (!author || !view.visible(author)) return notFound;
  const posts = viewOf(holder, world, 'posts');
  if (!posts.columns.includes('author')) return { status: 200, body: [] };
  const count = world.rows.posts.filter((p) => posts.visible(p) && p.wire.data.author === id).length;
  const { id: tableId, key: tableKey } = world.tables.posts;
  return { status: 200, body: count > 0 ? [{ tableId, tableKey, column: 'author', count }] : [] };
}
