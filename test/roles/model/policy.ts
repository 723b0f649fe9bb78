import { columnsOf, findRow, SCHEMA, tableOfKey, type Item, type Row, type Rule, type Status, type TableName, type World } from './schema.js';

/*
 * The reference model of a role's rules (docs/roles.md#rules), written from the documentation
 * without the API's code: which rows and columns of a table a role reads, and whether a filter
 * item holds for a row. A rule grants, never denies: a row is readable when any read rule holds
 * it (with that rule's statuses; an API key's default is PUBLISHED), a column when any read rule
 * exposes it.
 */

/** Who holds the role: `$me` is this API key's id. */
export interface Holder {
  rules: Rule[];
  me: string;
}

/** What a role reads of one table. */
export interface View {
  table: TableName;
  /** Whether any rule lets it read the table (else 403). */
  readable: boolean;
  /** The readable columns, in table order. */
  columns: string[];
  /** Whether a row is inside the read rules. */
  visible(row: Row): boolean;
  /** Whether it reads pending drafts and `hasDraft`. */
  drafts: boolean;
}

/** The rules naming `table` (its key or `*`). */
export const rulesOn = (holder: Holder, world: World, table: TableName) =>
  holder.rules.filter((r) => r.table === '*' || tableOfKey(world, r.table) === table);

/** The value of field `i` (a system field or a column; `l` the locale of a localized column) in a row. */
function valueOf(row: Row, table: TableName, i: string, l: string | undefined): unknown {
  if (i === 'id') return row.wire.id;
  if (i === 'status') return row.wire.status;
  const value = row.wire.data[i];
  if (SCHEMA[table][i] === 'ltext') return (value as Record<string, unknown> | undefined)?.[l ?? 'en'];
  return value;
}

const present = (v: unknown) => v !== undefined && v !== null;
const lower = (v: unknown) => String(v).toLowerCase();
const list = (v: unknown) => (Array.isArray(v) ? v : String(v).split(','));

/** An operator on a single value (docs/contents.md#list-queries): `neq`, `nin`, `ncontains` are exact complements. */
function scalarHolds(w: string, value: unknown, v: unknown): boolean {
  switch (w) {
    case 'eq':
      return present(value) && value === v;
    case 'neq':
      return !scalarHolds('eq', value, v);
    case 'in':
      return present(value) && list(v).includes(value);
    case 'nin':
      return !scalarHolds('in', value, v);
    case 'gt':
      return present(value) && (value as number) > (v as number);
    case 'gte':
      return present(value) && (value as number) >= (v as number);
    case 'lt':
      return present(value) && (value as number) < (v as number);
    case 'lte':
      return present(value) && (value as number) <= (v as number);
    case 'between':
      return present(value) && (value as number) >= (v as number[])[0] && (value as number) <= (v as number[])[1];
    case 'contains':
      return present(value) && lower(value).includes(lower(v));
    case 'ncontains':
      return !scalarHolds('contains', value, v);
    case 'startsWith':
      return present(value) && lower(value).startsWith(lower(v));
    case 'null':
      return v === true ? !present(value) : present(value);
    default:
      throw new Error(`model: operator ${w}`);
  }
}

/** On a multiple column: `eq` holds the value, `in` any of them, `nin` none, `null` absent or empty. */
function multipleHolds(w: string, value: unknown, v: unknown): boolean {
  const values = Array.isArray(value) ? value : [];
  switch (w) {
    case 'eq':
      return values.includes(v);
    case 'neq':
      return !values.includes(v);
    case 'in':
      return list(v).some((x) => values.includes(x));
    case 'nin':
      return !list(v).some((x) => values.includes(x));
    case 'null':
      return v === true ? values.length === 0 : values.length > 0;
    default:
      throw new Error(`model: operator ${w} on a multiple column`);
  }
}

/** `$me` in a value (or a list's item) is the holder's id. */
const resolveMe = (v: unknown, me: string): unknown => (v === '$me' ? me : Array.isArray(v) ? v.map((x) => resolveMe(x, me)) : v);

/**
 * Whether `item` holds for `row` of `table`. A dotted `author.team` holds when the referenced
 * author is among `reach` (a `where`: any author; a list's filter: the authors the role reads)
 * and the rest of the path holds for it.
 */
export function itemHolds(item: Item, row: Row, table: TableName, world: World, me: string, reach: (author: Row) => boolean): boolean {
  const [head, ...rest] = item.i.split('.');
  if (rest.length > 0) {
    const target = findRow(world, 'authors', row.wire.data[head]);
    return target !== undefined && reach(target) && itemHolds({ ...item, i: rest.join('.') }, target, 'authors', world, me, reach);
  }
  const value = valueOf(row, table, head, item.l);
  const v = resolveMe(item.v, me);
  return SCHEMA[table][head] === 'multi' ? multipleHolds(item.w, value, v) : scalarHolds(item.w, value, v);
}

/** A rule's `where` (all items) on a row; dotted paths reach every existing row, whatever the role reads there. */
export const whereHolds = (rule: Rule, row: Row, table: TableName, world: World, me: string) =>
  (rule.where ?? []).every((item) => itemHolds(item, row, table, world, me, () => true));

/** The statuses a read rule of an API key reads: its own, else PUBLISHED. */
const statusesOf = (rule: Rule): readonly Status[] => rule.statuses ?? ['PUBLISHED'];

/** The column a `fields` entry names (`title.fr` names `title`). */
const columnOf = (entry: string) => entry.split('.')[0];

/**
 * What `holder` reads of `table`. Without a read rule the table is 403; its columns are then
 * those its write rules name (what a write's answer shows), all of them when none limits them.
 */
export function viewOf(holder: Holder, world: World, table: TableName): View {
  const rules = rulesOn(holder, world, table);
  const readers = rules.filter((r) => r.actions.includes('read'));
  const sources = readers.length > 0 ? readers.map((r) => r.fields?.read) : rules.map((r) => r.fields?.write);
  const named = sources.length === 0 || sources.includes(undefined) ? null : new Set(sources.flatMap((s) => s!.map(columnOf)));
  return {
    table,
    readable: readers.length > 0,
    columns: columnsOf(table).filter((c) => !named || named.has(c)),
    visible: (row) => readers.some((r) => statusesOf(r).includes(row.wire.status) && whereHolds(r, row, table, world, holder.me)),
    drafts: readers.some((r) => r.drafts === true),
  };
}
