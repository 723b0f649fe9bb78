/*
 * The list query evaluated on one row in JavaScript, without the database: whether the row
 * matches (the WHERE clause of compile-where.ts, each operator's test beside its SQL in
 * operators.ts) and where it sorts (the ORDER BY of compile.ts). The list cache
 * (contents/list-cache/) decides from it whether a changed row can change a cached result.
 * Every function mirrors what the compiled SQL does and answers `null` ("cannot tell") wherever
 * JavaScript might disagree with PostgreSQL (case folding outside ASCII, text order under an
 * unknown collation, values of an unexpected JSON type); the caller then asks the database. So a
 * wrong "unaffected" needs a wrong mirror, never a guess.
 */
import { isLocalized, isMultiple, type RowScope } from '../tables/table-def.js';
import { fieldIsMultiple, fieldKind, hasTextKey, textKey } from './expressions.js';
import { compareScalars, operatorOf, type TestedValue } from './operators.js';
import type { FieldRef, Filter, ListQuery, Scalar, SortKey, SystemField } from './types.js';

/**
 * A row as the evaluator reads it: its system fields, timestamps in UTC microseconds (the form of
 * the change log, contents/list-cache/change-log.ts, and of the sort keys), and its data.
 */
export type RowValues = Record<SystemField, string | null> & { id: string; status: string; data: Record<string, unknown> };

/** How the database orders text: by code point (a C or C.UTF-8 collation) or in a way we do not mirror. */
export type TextOrder = 'codepoint' | 'unknown';

/** What a cached list depends on: which rows match, in which order, and who reads it. */
export interface ListShape {
  query: Pick<ListQuery, 'filters' | 'op' | 'sort'> & Partial<Pick<ListQuery, 'search'>>;
  /** The rows the reader may see (absent: every row). */
  rows?: Pick<RowScope, 'matches'> | null;
}

/** A row's place in the list's order: its sort-key values (`_k0`, `_k1`, ... of the select) and id. */
export interface SortPosition {
  keys: unknown[];
  id: string;
}

const UNKNOWN = Symbol('unknown');
type Value = Scalar | null | readonly unknown[] | typeof UNKNOWN;

/**
 * The value the SQL expression of `field` has for `row` (fieldExpression), or UNKNOWN. Multiple
 * columns give an array: absent, JSON null and `[]` behave alike under every operator.
 */
function valueOf(field: FieldRef, row: RowValues): Value {
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

/** One filter on one row: its operator's test (operators.ts), or null when it cannot be told here. */
function filterMatches(filter: Filter, row: RowValues): boolean | null {
  const value = valueOf(filter.field, row);
  if (value === UNKNOWN) return null;
  const operator = operatorOf(filter);
  if (!fieldIsMultiple(filter.field)) return operator.test(filter, value as TestedValue, filter.field);
  return operator.multiple ? operator.multiple.test(filter, value as readonly unknown[]) : null;
}

/** Whether `row` is in the list's matching set (filters combined by `op`, among the rows the reader sees). */
export function rowMatches(shape: ListShape, row: RowValues): boolean | null {
  const visible = shape.rows ? shape.rows.matches(row) : true;
  if (visible === false) return false;
  // Whether a row matches a text search is PostgreSQL's to tell: such lists are loaded again.
  if (shape.query.search) return null;
  const matched = filtersMatch(shape.query, row);
  return matched === false ? false : visible === null || matched === null ? null : true;
}

/** The filters combined by `op` on one row (true without filters), null when it cannot be told. */
export function filtersMatch({ filters, op }: Pick<ListQuery, 'filters' | 'op'>, row: RowValues): boolean | null {
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

/** A sort key's value for `row`, as the ORDER BY expression computes it (text keys: a prefix). */
function sortValueOf(key: SortKey, row: RowValues): Value {
  const value = valueOf(key.field, row);
  if (typeof value === 'string' && key.field.source === 'column' && hasTextKey(key.field.column)) return textKey(value);
  return value;
}

/**
 * The values of the list's sort-key columns (`_k0`, `_k1`, …) that the compiled select would
 * return for `row`, or null when one of them cannot be told here.
 */
export function sortKeysOf(sort: SortKey[], row: RowValues): unknown[] | null {
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
export function comparePosition(sort: SortKey[], row: RowValues, position: SortPosition, textOrder: TextOrder): number | null {
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
