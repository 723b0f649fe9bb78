/*
 * Whether a changed row can change a cached list result, decided from the row's images before
 * and after the change (change-log.ts) and the list's parsed query, without the database.
 * Every function mirrors what the compiled SQL does (query/compile-where.ts, compile.ts) and
 * answers `null` ("cannot tell") wherever JavaScript might disagree with PostgreSQL (case
 * folding outside ASCII, text order under an unknown collation, values of an unexpected JSON
 * type); the caller then recomputes. So a wrong "unaffected" needs a wrong mirror, never a guess.
 */
import { isLocalized, isMultiple } from '../tables/table-def.js';
import { fieldIsMultiple, fieldIsNullable, fieldKind, hasTextKey, textKey } from './expressions.js';
import { parseInstant } from './coerce.js';
import type { FieldRef, Filter, ListQuery, Scalar, SortKey } from './types.js';
import type { RowChange, RowImage } from '../contents/list-cache/change-log.js';

/** How the database orders text: by code point (a C or C.UTF-8 collation) or in a way we do not mirror. */
export type TextOrder = 'codepoint' | 'unknown';

/** What a cached list depends on: which rows match, in which order, and who reads it. */
export interface ListShape {
  query: Pick<ListQuery, 'filters' | 'op' | 'sort'> & Partial<Pick<ListQuery, 'search'>>;
  publicOnly: boolean;
}

/** A page's extent: the sort position of its last row and of the first row after it. */
export interface PageBounds {
  /** Null for an empty page. */
  last: SortPosition | null;
  /** Null on the last page (nothing follows). */
  next: SortPosition | null;
}

/** A row's place in the list's order: its sort-key values (`_k0`, `_k1`, ... of the select) and id. */
export interface SortPosition {
  keys: unknown[];
  id: string;
}

const UNKNOWN = Symbol('unknown');
type Value = Scalar | null | readonly unknown[] | typeof UNKNOWN;

/** `2026-01-02T03:04:05.123456+02:00` → `2026-01-02T01:04:05.123456Z`, the change log's form. */
export function utcMicros(text: string): string | null {
  const instant = parseInstant(text);
  if (!instant) return null;
  const fraction = /\.(\d+)/.exec(text.replace(/^[^T ]*/, ''))?.[1] ?? '';
  return `${new Date(instant.ms).toISOString().slice(0, 23)}${fraction.padEnd(6, '0').slice(3, 6)}Z`;
}

/**
 * The value the SQL expression of `field` has for `row` (fieldExpression), or UNKNOWN. Multiple
 * columns give an array: absent, JSON null and `[]` behave alike under every operator.
 */
function valueOf(field: FieldRef, row: RowImage): Value {
  if (field.source === 'system') return row[field.name] ?? null;
  // Text-search relevance and the fields of other tables' rows are PostgreSQL's to tell.
  if (field.source === 'relevance' || field.source === 'related') return UNKNOWN;
  const { column } = field;
  const raw = row.data[column.name];
  if (isMultiple(column)) return raw === undefined || raw === null ? [] : Array.isArray(raw) ? raw : UNKNOWN;
  if (isLocalized(column)) {
    // `data->'name'->>'fr'`: NULL unless the value is an object holding a string there.
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
    const inLocale = (raw as Record<string, unknown>)[field.locale!];
    return inLocale === undefined || inLocale === null ? null : typeof inLocale === 'string' ? inLocale : UNKNOWN;
  }
  switch (column.type) {
    case 'number':
    case 'integer':
      return typeof raw === 'number' ? raw : null;
    case 'boolean':
      return typeof raw === 'boolean' ? raw : null;
    case 'json':
      // Only `null` applies to json columns, and it tests `data->>'name'`: JSON null is null.
      return raw === undefined || raw === null ? null : [raw];
    default:
      return raw === undefined || raw === null ? null : typeof raw === 'string' ? raw : UNKNOWN;
  }
}

const isAscii = (s: string) => /^[\x20-\x7e]*$/.test(s);

/** ILIKE of the compiled filters, where JavaScript's case folding is PostgreSQL's (ASCII). */
function like(op: 'contains' | 'ncontains' | 'startsWith' | 'endsWith', value: string, pattern: string): boolean | null {
  if (!isAscii(value) || !isAscii(pattern)) return null;
  const [v, p] = [value.toLowerCase(), pattern.toLowerCase()];
  if (op === 'startsWith') return v.startsWith(p);
  if (op === 'endsWith') return v.endsWith(p);
  return v.includes(p);
}

/** Filter values as the SQL compares them: timestamps in UTC microseconds. */
function comparable(field: FieldRef, value: Scalar): Scalar | null {
  return fieldKind(field) === 'timestamp' && typeof value === 'string' ? utcMicros(value) : value;
}

function compareScalars(a: Scalar, b: Scalar): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** One filter on one row: true, false, or null when it cannot be told here. */
function filterMatches(filter: Filter, row: RowImage): boolean | null {
  const value = valueOf(filter.field, row);
  if (value === UNKNOWN) return null;
  if (filter.op === 'null') {
    const empty = value === null || (Array.isArray(value) && value.length === 0);
    return filter.isNull === empty;
  }
  if (Array.isArray(value)) return fieldIsMultiple(filter.field) ? multipleMatches(filter, value) : null;
  const v = value as Scalar | null;
  const negated = filter.op === 'neq' || filter.op === 'nin' || filter.op === 'ncontains';
  if (v === null) return negated && fieldIsNullable(filter.field);
  switch (filter.op) {
    case 'contains':
    case 'ncontains':
    case 'startsWith':
    case 'endsWith': {
      const hit = like(filter.op, String(v), filter.value);
      return hit === null ? null : filter.op === 'ncontains' ? !hit : hit;
    }
    case 'in':
    case 'nin': {
      const values = filter.values.map((x) => comparable(filter.field, x));
      if (values.includes(null)) return null;
      const hit = values.some((x) => compareScalars(v, x!) === 0);
      return filter.op === 'in' ? hit : !hit;
    }
    case 'between': {
      const [lo, hi] = filter.values.map((x) => comparable(filter.field, x));
      if (lo === null || hi === null) return null;
      return compareScalars(v, lo) >= 0 && compareScalars(v, hi) <= 0;
    }
    default: {
      const x = comparable(filter.field, filter.value);
      if (x === null) return null;
      const c = compareScalars(v, x);
      return { eq: c === 0, neq: c !== 0, gt: c > 0, gte: c >= 0, lt: c < 0, lte: c <= 0 }[filter.op];
    }
  }
}

/** jsonb containment of one value (`e @> [v]`) on multiple columns. */
function multipleMatches(filter: Filter, array: readonly unknown[]): boolean | null {
  const has = (x: Scalar) => array.includes(x);
  switch (filter.op) {
    case 'eq':
      return has(filter.value);
    case 'neq':
      return !has(filter.value);
    case 'in':
      return filter.values.some(has);
    case 'nin':
      return !filter.values.some(has);
    default:
      return null;
  }
}

/** Whether `row` is in the list's matching set (filters combined by `op`, read keys PUBLISHED only). */
export function rowMatches(shape: ListShape, row: RowImage): boolean | null {
  if (shape.publicOnly && row.status !== 'PUBLISHED') return false;
  // Whether a row matches a text search is PostgreSQL's to tell: such lists are loaded again.
  if (shape.query.search) return null;
  const { filters, op } = shape.query;
  let unknown = false;
  for (const filter of filters) {
    const hit = filterMatches(filter, row);
    if (hit === null) unknown = true;
    else if (op === 'and' && !hit) return false;
    else if (op === 'or' && hit) return true;
  }
  if (unknown) return null;
  return op === 'and' || filters.length === 0;
}

/** How a filtered total moves with `change`: -1, 0 or +1, or null when it cannot be told. */
export function countDelta(shape: ListShape, change: RowChange): number | null {
  if (!change.old && !change.new) return null;
  const before = change.old ? rowMatches(shape, change.old) : false;
  const after = change.new ? rowMatches(shape, change.new) : false;
  if (before === null || after === null) return null;
  return Number(after) - Number(before);
}

/** A sort key's value for `row`, as the ORDER BY expression computes it (text keys: a prefix). */
function sortValueOf(key: SortKey, row: RowImage): Value {
  const value = valueOf(key.field, row);
  if (typeof value === 'string' && key.field.source === 'column' && hasTextKey(key.field.column)) return textKey(value);
  return value;
}

/**
 * The values of the list's sort-key columns (`_k0`, `_k1`, …) that the compiled select would
 * return for `row`, or null when one of them cannot be told here.
 */
export function sortKeysOf(sort: SortKey[], row: RowImage): unknown[] | null {
  const keys: unknown[] = [];
  for (const key of sort) {
    const value = sortValueOf(key, row);
    if (value === UNKNOWN || Array.isArray(value)) return null;
    keys.push(value);
  }
  return keys;
}

/** Code point order (UTF-8 byte order), which `<` on UTF-16 strings is not above U+FFFF. */
function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a.charCodeAt(i) === b.charCodeAt(i)) continue;
    const [x, y] = [a.codePointAt(i)!, b.codePointAt(i)!];
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/** Kinds whose values are fixed-format ASCII: their text order is the same under any collation. */
const FIXED_FORMAT = new Set(['timestamp', 'date', 'datetime', 'uuid', 'status']);

function compareKey(key: SortKey, a: unknown, b: unknown, textOrder: TextOrder): number | null {
  // NULLS LAST in both directions (orderByClause).
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  let c: number;
  if (typeof a === 'string' && typeof b === 'string') {
    if (!FIXED_FORMAT.has(fieldKind(key.field)) && textOrder !== 'codepoint') return null;
    c = compareCodePoints(a, b);
  } else if (typeof a === typeof b && (typeof a === 'number' || typeof a === 'boolean')) {
    c = compareScalars(a as Scalar, b as Scalar);
  } else {
    return null;
  }
  return key.direction === 'asc' ? c : -c;
}

/** The order of `row` against a listed position: <0 before it, >0 after, null when it cannot be told. */
export function comparePosition(sort: SortKey[], row: RowImage, position: SortPosition, textOrder: TextOrder): number | null {
  for (let i = 0; i < sort.length; i++) {
    const value = sortValueOf(sort[i], row);
    if (value === UNKNOWN || Array.isArray(value)) return null;
    const c = compareKey(sort[i], value, position.keys[i], textOrder);
    if (c === null || c !== 0) return c;
  }
  if (sort.some((k) => k.field.source === 'system' && k.field.name === 'id')) return 0;
  const c = compareCodePoints(row.id, position.id);
  return sort[sort.length - 1].direction === 'asc' ? c : -c;
}

/**
 * Whether a cached page (and its `hasNext`) is still what the query would return after
 * `change`. Rows sorting after the page's last row cannot move it, except the first row after
 * it leaving (the page may become the last). Pages of the end of the list take any change of a
 * matching row as a change.
 */
export function pageUnaffected(shape: ListShape, bounds: PageBounds, change: RowChange, textOrder: TextOrder): boolean {
  if (!change.old && !change.new) return false;
  const images: [RowImage, 'old' | 'new'][] = [];
  if (change.old) images.push([change.old, 'old']);
  if (change.new) images.push([change.new, 'new']);
  for (const [row, which] of images) {
    const matches = rowMatches(shape, row);
    if (matches === false) continue;
    if (matches === null || !bounds.next || !bounds.last) return false;
    // A row arriving after the last row leaves the page alone; one leaving must come after the next row.
    const bound = which === 'new' ? bounds.last : bounds.next;
    const c = comparePosition(shape.query.sort, row, bound, textOrder);
    if (c === null || c <= 0) return false;
  }
  return true;
}
