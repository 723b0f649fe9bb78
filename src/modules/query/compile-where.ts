/**
 * WHERE clauses of the list query: filters, the table/status scope and the keyset predicate.
 * Every user value goes through `Params`, never into the text.
 */
import {
  literal,
  fieldExpression,
  fieldHasTextKey,
  fieldIsMultiple,
  fieldIsNullable,
  fieldKind,
  fieldSortExpression,
  textKey,
  uuidLiteral,
} from './expressions.js';
import { isMultiple } from '../tables/table-def.js';
import { sqlLiteral } from '../../db/sql-literal.js';
import type { CursorPosition, FieldRef, Filter, Scalar, SortKey } from './types.js';

/**
 * Collects values and hands out `$n` placeholders (with a cast, so no type is left to guess).
 * `inline`: writes each value into the text as a cast literal instead, for a statement that takes
 * no parameters (an export's COPY).
 */
export class Params {
  readonly values: unknown[] = [];
  constructor(private readonly inline = false) {}
  add(value: unknown, cast: string): string {
    if (this.inline) return `${sqlLiteral(value)}::${cast}`;
    this.values.push(value);
    return `$${this.values.length}::${cast}`;
  }
}

/** The SQL type a field's values are compared as. */
export function sqlType(field: FieldRef): string {
  if (field.source === 'system' && field.name === 'id') return 'uuid';
  switch (fieldKind(field)) {
    case 'number':
    case 'integer':
      return 'float8';
    case 'boolean':
      return 'boolean';
    case 'timestamp':
      return 'timestamptz';
    default:
      return 'text';
  }
}

/** `%`, `_` and `\` match themselves in a LIKE pattern escaped with `\`. */
export const escapeLike = (value: string): string => value.replace(/[\\%_]/g, (c) => `\\${c}`);

const LIKE_PATTERNS = {
  contains: (v: string) => `%${escapeLike(v)}%`,
  ncontains: (v: string) => `%${escapeLike(v)}%`,
  startsWith: (v: string) => `${escapeLike(v)}%`,
  endsWith: (v: string) => `%${escapeLike(v)}`,
};

/** `(e is null or <cond>)` when e can be null: negations match absent values (see parse.ts). */
const orNull = (field: FieldRef, e: string, cond: string) => (fieldIsNullable(field) ? `(${e} is null or ${cond})` : cond);

/** The null test: json columns test `->>` so that a stored JSON null counts as null. */
function nullTest(field: FieldRef, isNull: boolean): string {
  if (field.source === 'column' && field.column.type === 'json') {
    return `(data->>${literal(field.column.name)}) is ${isNull ? '' : 'not '}null`;
  }
  return `${fieldExpression(field)} is ${isNull ? '' : 'not '}null`;
}

/** multiple select/reference/file: jsonb containment, which a GIN index on `(data->'name')` serves. */
function multiplePredicate(filter: Filter, p: Params): string {
  const e = fieldExpression(filter.field);
  const contains = (v: Scalar) => `${e} @> ${p.add(JSON.stringify([v]), 'jsonb')}`;
  const anyOf = (values: Scalar[]) => (values.length === 1 ? contains(values[0]) : `(${values.map(contains).join(' or ')})`);
  const empty = `(${e} is null or ${e} in ('[]'::jsonb, 'null'::jsonb))`;
  switch (filter.op) {
    case 'eq':
      return contains(filter.value);
    case 'neq':
      return `(${e} is null or not ${contains(filter.value)})`;
    case 'in':
      if (fieldHasTextKey(filter.field)) return textEquality(filter.field, filter.values.map(String), p);
      return anyOf(filter.values);
    case 'nin':
      return `(${e} is null or not ${anyOf(filter.values)})`;
    case 'null':
      return filter.isNull ? empty : `not ${empty}`;
    default:
      throw new Error(`operator ${filter.op} on a multiple column`);
  }
}

/**
 * Equality on a string column: the exact comparison, and the same on the text key (the value's
 * first characters) that the column's sort index holds, so that the index finds the candidates.
 */
function textEquality(field: FieldRef, values: string[], p: Params): string {
  const e = fieldExpression(field);
  const key = fieldSortExpression(field);
  if (values.length === 1) return `${key} = ${p.add(textKey(values[0]), 'text')} and ${e} = ${p.add(values[0], 'text')}`;
  return `${key} = any(${p.add([...new Set(values.map(textKey))], 'text[]')}) and ${e} = any(${p.add(values, 'text[]')})`;
}

/**
 * A filter through references (`author.name eq Ada`, SPEC §12): the row's reference is among the
 * ids of the referenced rows that match, one `in (select id ...)` per hop. PostgreSQL runs it as
 * a semi-join: the matching referenced rows first (through their own indexes), then the rows
 * that hold one of them (through the reference column's index). A `multiple` column matches when
 * any of its ids does; for read keys only PUBLISHED referenced rows can match.
 */
function relatedPredicate(filter: Filter, field: Extract<FieldRef, { source: 'related' }>, p: Params): string {
  let condition = filterPredicate({ ...filter, field: field.field } as Filter, p);
  for (let i = field.via.length - 1; i >= 0; i--) {
    const { column, table } = field.via[i];
    const visible = field.publicOnly ? ` and status = 'PUBLISHED'` : '';
    const ids = `select id::text from contents where table_id = ${uuidLiteral(table.id)}${visible} and ${condition}`;
    const name = literal(column.name);
    condition = isMultiple(column)
      ? `exists (select 1 from jsonb_array_elements_text(case when jsonb_typeof(data->${name}) = 'array' then data->${name} end) as ref(id) where ref.id in (${ids}))`
      : `(data->>${name}) in (${ids})`;
  }
  return condition;
}

export function filterPredicate(filter: Filter, p: Params): string {
  if (filter.field.source === 'related') return relatedPredicate(filter, filter.field, p);
  if (filter.op === 'null') {
    return fieldIsMultiple(filter.field) ? multiplePredicate(filter, p) : nullTest(filter.field, filter.isNull);
  }
  if (fieldIsMultiple(filter.field)) return multiplePredicate(filter, p);
  const e = fieldExpression(filter.field);
  const t = sqlType(filter.field);
  switch (filter.op) {
    case 'eq':
      if (fieldHasTextKey(filter.field)) return textEquality(filter.field, [String(filter.value)], p);
      return `${e} = ${p.add(filter.value, t)}`;
    case 'neq':
      return orNull(filter.field, e, `${e} <> ${p.add(filter.value, t)}`);
    case 'gt':
      return `${e} > ${p.add(filter.value, t)}`;
    case 'gte':
      return `${e} >= ${p.add(filter.value, t)}`;
    case 'lt':
      return `${e} < ${p.add(filter.value, t)}`;
    case 'lte':
      return `${e} <= ${p.add(filter.value, t)}`;
    case 'between':
      return `${e} between ${p.add(filter.values[0], t)} and ${p.add(filter.values[1], t)}`;
    case 'in':
      if (fieldHasTextKey(filter.field)) return textEquality(filter.field, filter.values.map(String), p);
      return `${e} = any(${p.add(filter.values, `${t}[]`)})`;
    case 'nin':
      return orNull(filter.field, e, `${e} <> all(${p.add(filter.values, `${t}[]`)})`);
    case 'ncontains':
      return orNull(filter.field, e, `${e} not ilike ${p.add(LIKE_PATTERNS.ncontains(filter.value), 'text')} escape '\\'`);
    case 'contains':
    case 'startsWith':
    case 'endsWith':
      return `${e} ilike ${p.add(LIKE_PATTERNS[filter.op](filter.value), 'text')} escape '\\'`;
  }
}

/** The filters joined by `op`, in parentheses; null when there are none. */
export function filtersClause(filters: Filter[], op: 'and' | 'or', p: Params): string | null {
  if (filters.length === 0) return null;
  return `(${filters.map((f) => `(${filterPredicate(f, p)})`).join(` ${op} `)})`;
}

/** Whether `id` is already a sort key (then no tie-break is needed). */
export const sortsById = (sort: SortKey[]) => sort.some((k) => k.field.source === 'system' && k.field.name === 'id');

/**
 * Rows strictly after the cursor in `order by k1, …, kn, id` with nulls last in both directions:
 *   (k1 after c1) or (k1 = c1 and k2 after c2) or … or (k1 = c1 and … and kn = cn and id after cid)
 * where "after" is `> c` (asc) or `< c` (desc) or any null, and nothing comes after a null.
 * When every key is a non-null system column in one direction, a row comparison says the same
 * thing in a form the (table_id, created_at desc, id desc) index serves directly.
 */
export function cursorPredicate(sort: SortKey[], cursor: CursorPosition, p: Params): string {
  const tieBreak = !sortsById(sort);
  const lastDirection = sort[sort.length - 1].direction;
  const uniform = sort.every((k) => !fieldIsNullable(k.field) && k.direction === sort[0].direction);
  if (uniform) {
    const left = sort.map((k) => fieldSortExpression(k.field));
    const right = sort.map((k, i) => p.add(cursor.values[i], sqlType(k.field)));
    if (tieBreak) {
      left.push('id');
      right.push(p.add(cursor.id, 'uuid'));
    }
    return `((${left.join(', ')}) ${lastDirection === 'asc' ? '>' : '<'} (${right.join(', ')}))`;
  }
  const equalities: string[] = [];
  const disjuncts: string[] = [];
  sort.forEach((key, i) => {
    const e = fieldSortExpression(key.field);
    const value = cursor.values[i];
    if (value !== null) {
      const param = p.add(value, sqlType(key.field));
      const after = `${e} ${key.direction === 'asc' ? '>' : '<'} ${param}`;
      const afterOrNull = fieldIsNullable(key.field) ? `(${after} or ${e} is null)` : after;
      disjuncts.push([...equalities, afterOrNull].join(' and '));
      equalities.push(`${e} = ${param}`);
    } else {
      equalities.push(`${e} is null`);
    }
  });
  if (tieBreak) {
    disjuncts.push([...equalities, `id ${lastDirection === 'asc' ? '>' : '<'} ${p.add(cursor.id, 'uuid')}`].join(' and '));
  }
  if (disjuncts.length === 0) return 'false';
  return `(${disjuncts.map((d) => `(${d})`).join(' or ')})`;
}
