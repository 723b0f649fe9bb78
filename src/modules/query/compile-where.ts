/**
 * WHERE clauses of the list query: filters, the table/status scope and the keyset predicate.
 * Every user value goes through `Params`, never into the text.
 */
import { literal, fieldExpression, fieldIsMultiple, fieldIsNullable, fieldKind, fieldSortExpression, uuidLiteral } from './expressions.js';
import { operatorOf, type SqlOperand } from './operators.js';
import { isMultiple } from '../tables/table-def.js';
import { sqlLiteral } from '../../db/sql-literal.js';
import type { CursorPosition, FieldRef, Filter, SortKey } from './types.js';

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

/**
 * A filter through references (`author.name eq Ada`, docs/contents.md#filters-and-sorts-through-references): the row's reference is among the
 * ids of the referenced rows that match, one `in (select id ...)` per hop. PostgreSQL runs it as
 * a semi-join: the matching referenced rows first (through their own indexes), then the rows
 * that hold one of them (through the reference column's index). A `multiple` column matches when
 * any of its ids does; only referenced rows the caller sees (each hop table's `rows`) can match.
 */
function relatedPredicate(filter: Filter, field: Extract<FieldRef, { source: 'related' }>, p: Params): string {
  let condition = filterPredicate({ ...filter, field: field.field } as Filter, p);
  for (let i = field.via.length - 1; i >= 0; i--) {
    const { column, table } = field.via[i];
    const visible = table.rows ? ` and (${table.rows.sql})` : '';
    const ids = `select id::text from contents where table_id = ${uuidLiteral(table.id)}${visible} and ${condition}`;
    const name = literal(column.name);
    condition = isMultiple(column)
      ? `exists (select 1 from jsonb_array_elements_text(case when jsonb_typeof(data->${name}) = 'array' then data->${name} end) as ref(id) where ref.id in (${ids}))`
      : `(data->>${name}) in (${ids})`;
  }
  return condition;
}

/** One filter's condition: its operator's SQL (operators.ts) on the field, through references for dotted fields. */
export function filterPredicate(filter: Filter, p: Params): string {
  if (filter.field.source === 'related') return relatedPredicate(filter, filter.field, p);
  const operator = operatorOf(filter);
  const on: SqlOperand = { field: filter.field, e: fieldExpression(filter.field), type: sqlType(filter.field), add: (value, cast) => p.add(value, cast) };
  if (!fieldIsMultiple(filter.field)) return operator.sql(filter, on);
  if (!operator.multiple) throw new Error(`operator ${filter.op} on a multiple column`);
  return operator.multiple.sql(filter, on);
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
