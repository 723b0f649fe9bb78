import { invalidQuery } from '../../errors/app-error.js';
import type { TableDef } from '../tables/table-def.js';
import { coerceFlag, coerceScalar } from './coerce.js';
import { fieldKind } from './expressions.js';
import { OPERATORS_BY_KIND } from './operators.js';
import { describeField, parseJsonArray, resolveFieldRef, type JsonObject } from './parse-common.js';
import { OPERATORS, type FieldRef, type Filter, type Operator, type ParseContext, type Scalar, type ValueKind } from './types.js';

export const MAX_FILTERS = 20;
/** Most values one `in`/`nin` takes (as many as the largest page). */
export const MAX_LIST_VALUES = 1000;

const isOperator = (w: unknown): w is Operator => typeof w === 'string' && (OPERATORS as readonly string[]).includes(w);

function coerce(part: string, field: FieldRef, kind: ValueKind, raw: unknown, project: ParseContext): Scalar {
  const placeholder = typeof raw === 'string' ? project.placeholders?.get(raw) : undefined;
  const value = placeholder ? placeholder(kind) : raw;
  if (value === null && placeholder) throw invalidQuery(`${part}: "${raw as string}" cannot stand for a value of ${describeField(field)}`);
  const result = coerceScalar(kind, value);
  if (!result.ok) throw invalidQuery(`${part}: ${result.reason} (${describeField(field)})`);
  return result.value;
}

/**
 * `in`/`nin` values: a JSON array, or a comma-separated string whose items are trimmed;
 * so `"5"` is the list of one value 5. A bare number or boolean is neither, and is refused.
 */
function listItems(part: string, w: 'in' | 'nin', raw: unknown): unknown[] {
  const items = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',').map((s) => s.trim()) : null;
  if (!items) throw invalidQuery(`${part}: ${w} takes a JSON array or a comma-separated string, got a JSON ${raw === null ? 'null' : typeof raw}`);
  if (items.length === 0 || (typeof raw === 'string' && raw.trim() === '')) throw invalidQuery(`${part}: needs at least one value`);
  if (items.length > MAX_LIST_VALUES) throw invalidQuery(`${part}: at most ${MAX_LIST_VALUES} values`);
  return items;
}

function parseOne(item: JsonObject, index: number, table: TableDef, project: ParseContext): Filter {
  const part = `filter[${index}]`;
  const field = resolveFieldRef(part, item, table, project);
  const w = item.w;
  if (w === undefined) throw invalidQuery(`${part}.w: missing operator`);
  if (!isOperator(w)) throw invalidQuery(`${part}.w: unknown operator ${JSON.stringify(w)?.slice(0, 100)}`);
  const kind = fieldKind(field);
  if (!OPERATORS_BY_KIND[kind].includes(w)) {
    throw invalidQuery(`${part}.w: operator "${w}" does not apply to ${describeField(field)}`);
  }
  const vPart = `${part}.v`;
  if (!('v' in item) || item.v === undefined) throw invalidQuery(`${vPart}: missing value`);
  const v = item.v;
  switch (w) {
    case 'null': {
      const isNull = coerceFlag(v);
      if (isNull === null) throw invalidQuery(`${vPart}: must be true or false for the null operator`);
      return { field, op: w, isNull };
    }
    case 'in':
    case 'nin': {
      const values = listItems(vPart, w, v).map((x, i) => coerce(`${vPart}[${i}]`, field, kind, x, project));
      return { field, op: w, values: [...new Set(values)] };
    }
    case 'between': {
      const pair = Array.isArray(v) ? v : typeof v === 'string' ? v.split(',').map((s) => s.trim()) : null;
      if (!pair || pair.length !== 2) throw invalidQuery(`${vPart}: between takes two values, [a, b] or "a,b"`);
      return { field, op: w, values: [coerce(`${vPart}[0]`, field, kind, pair[0], project), coerce(`${vPart}[1]`, field, kind, pair[1], project)] };
    }
    case 'contains':
    case 'ncontains':
    case 'startsWith':
    case 'endsWith':
      return { field, op: w, value: String(coerce(vPart, field, kind, v, project)) };
    default:
      if (v === null) throw invalidQuery(`${vPart}: null is not a value; use {"w":"null","v":true}`);
      return { field, op: w, value: coerce(vPart, field, kind, v, project) };
  }
}

/** `filter`: a JSON array of `{ i, w, v, l? }` (docs/contents.md#list-queries), at most MAX_FILTERS of them. */
export function parseFilters(raw: string | undefined, table: TableDef, project: ParseContext): Filter[] {
  const items = parseJsonArray('filter', raw, ['i', 'w', 'v', 'l']);
  if (items.length > MAX_FILTERS) throw invalidQuery(`filter: at most ${MAX_FILTERS} filters`);
  return items.map((item, index) => parseOne(item, index, table, project));
}

/** `op`: `and` (default, when absent) or `or`, in any case; an empty value is neither. */
export function parseOp(raw: string | undefined): 'and' | 'or' {
  if (raw === undefined) return 'and';
  const op = raw.trim().toLowerCase();
  if (op !== 'and' && op !== 'or') throw invalidQuery(`op: must be "and" or "or", got ${JSON.stringify(raw.slice(0, 100))}`);
  return op;
}
