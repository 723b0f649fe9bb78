/**
 * The filter operators, one entry each: the kinds of value it applies to (the parser refuses it
 * on any other), its SQL (compile-where.ts builds the WHERE clause from it) and its test in
 * JavaScript (evaluate.ts, which the list cache runs on changed rows instead of the database).
 * The SQL and its mirror stand side by side, and an operator cannot be added without both:
 * test/query/sql.test.ts runs every operator through both on the same rows and expects the same
 * matches. A test answers null ("cannot tell") wherever JavaScript might disagree with
 * PostgreSQL (case folding outside ASCII, values of an unexpected JSON type).
 */
import { parseInstant } from './coerce.js';
import { fieldExpression, fieldHasTextKey, fieldIsNullable, fieldKind, fieldSortExpression, literal, textKey } from './expressions.js';
import type { FieldRef, Filter, Operator, Scalar, ValueKind } from './types.js';

/** What an operator's SQL is written with, for the field of one filter (compile-where.ts). */
export interface SqlOperand {
  field: FieldRef;
  /** The field's expression (fieldExpression). */
  e: string;
  /** The SQL type the field's values are compared as (sqlType). */
  type: string;
  /** A placeholder for `value` cast to `cast` (Params.add): user values never go into the text. */
  add(value: unknown, cast: string): string;
}

/**
 * A single-valued field's value as the SQL expression has it, for the tests: null when the
 * expression is NULL; a json column's value is `[value]`, which only the null test reads.
 */
export type TestedValue = Scalar | null | readonly unknown[];

export interface OperatorDef<F extends Filter = Filter> {
  /** The kinds of value it applies to. */
  kinds: readonly ValueKind[];
  /** Its SQL on a single-valued field. */
  sql(filter: F, on: SqlOperand): string;
  /** What its SQL answers for a row whose field has `value`, or null when that cannot be told here. */
  test(filter: F, value: TestedValue, field: FieldRef): boolean | null;
  /**
   * On multiple select/reference/file columns (jsonb arrays): its SQL by jsonb containment, which a
   * GIN index on `(data->'name')` serves, and its test on the array (absent, JSON null and `[]`
   * are the empty array). Absent for operators that do not apply to them.
   */
  multiple?: {
    sql(filter: F, on: SqlOperand): string;
    test(filter: F, values: readonly unknown[]): boolean;
  };
}

// SQL

/** `%`, `_` and `\` match themselves in a LIKE pattern escaped with `\`. */
const escapeLike = (value: string): string => value.replace(/[\\%_]/g, (c) => `\\${c}`);

const LIKE_PATTERNS = {
  contains: (v: string) => `%${escapeLike(v)}%`,
  ncontains: (v: string) => `%${escapeLike(v)}%`,
  startsWith: (v: string) => `${escapeLike(v)}%`,
  endsWith: (v: string) => `%${escapeLike(v)}`,
};

/** `e ilike <pattern>` of a text operator. */
const ilike = (on: SqlOperand, op: keyof typeof LIKE_PATTERNS, value: string) => `${on.e} ilike ${on.add(LIKE_PATTERNS[op](value), 'text')} escape '\\'`;

/** `(e is null or <cond>)` when e can be null: negations match absent values (see parse.ts). */
const orNull = (on: SqlOperand, cond: string) => (fieldIsNullable(on.field) ? `(${on.e} is null or ${cond})` : cond);

/**
 * Equality on a string column: the exact comparison, and the same on the text key (the value's
 * first characters) that the column's sort index holds, so that the index finds the candidates.
 */
function textEquality(on: SqlOperand, values: string[]): string {
  const key = fieldSortExpression(on.field);
  if (values.length === 1) return `${key} = ${on.add(textKey(values[0]), 'text')} and ${on.e} = ${on.add(values[0], 'text')}`;
  return `${key} = any(${on.add([...new Set(values.map(textKey))], 'text[]')}) and ${on.e} = any(${on.add(values, 'text[]')})`;
}

/** The null test: json columns test `->>` so that a stored JSON null counts as null. */
function nullTest(field: FieldRef, isNull: boolean): string {
  if (field.source === 'column' && field.column.type === 'json') {
    return `(data->>${literal(field.column.name)}) is ${isNull ? '' : 'not '}null`;
  }
  return `${fieldExpression(field)} is ${isNull ? '' : 'not '}null`;
}

/** multiple columns: `e @> '[v]'`, and any of several values. */
const contains = (on: SqlOperand, v: Scalar) => `${on.e} @> ${on.add(JSON.stringify([v]), 'jsonb')}`;
const containsAny = (on: SqlOperand, values: Scalar[]) => (values.length === 1 ? contains(on, values[0]) : `(${values.map((v) => contains(on, v)).join(' or ')})`);
const isEmpty = (on: SqlOperand) => `(${on.e} is null or ${on.e} in ('[]'::jsonb, 'null'::jsonb))`;

// JavaScript

const isAscii = (s: string) => /^[\x20-\x7e]*$/.test(s);

/** ILIKE of the compiled filters, where JavaScript's case folding is PostgreSQL's (ASCII). */
function like(op: keyof typeof LIKE_PATTERNS, value: string, pattern: string): boolean | null {
  if (!isAscii(value) || !isAscii(pattern)) return null;
  const [v, p] = [value.toLowerCase(), pattern.toLowerCase()];
  if (op === 'startsWith') return v.startsWith(p);
  if (op === 'endsWith') return v.endsWith(p);
  return v.includes(p);
}

/** `2026-01-02T03:04:05.123456+02:00` → `2026-01-02T01:04:05.123456Z`, the change log's form. */
function utcMicros(text: string): string | null {
  const instant = parseInstant(text);
  if (!instant) return null;
  const fraction = /\.(\d+)/.exec(text.replace(/^[^T ]*/, ''))?.[1] ?? '';
  return `${new Date(instant.ms).toISOString().slice(0, 23)}${fraction.padEnd(6, '0').slice(3, 6)}Z`;
}

/** Filter values as the SQL compares them: timestamps in UTC microseconds. */
function comparable(field: FieldRef, value: Scalar): Scalar | null {
  return fieldKind(field) === 'timestamp' && typeof value === 'string' ? utcMicros(value) : value;
}

export function compareScalars(a: Scalar, b: Scalar): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `v` against a filter value, as the SQL compares them; null when that cannot be told. */
function compareTo(field: FieldRef, v: Scalar, value: Scalar): number | null {
  const x = comparable(field, value);
  return x === null ? null : compareScalars(v, x);
}

/** Whether `v` equals one of `values`, as the SQL compares them; null when that cannot be told. */
function isAmong(field: FieldRef, v: Scalar, values: Scalar[]): boolean | null {
  const xs = values.map((x) => comparable(field, x));
  if (xs.includes(null)) return null;
  return xs.some((x) => compareScalars(v, x!) === 0);
}

const not = (hit: boolean | null) => (hit === null ? null : !hit);
const holds = (c: number | null, test: (c: number) => boolean) => (c === null ? null : test(c));
const isScalar = (value: TestedValue): value is Scalar => value !== null && !Array.isArray(value);

type ScalarTest<F extends Filter> = (filter: F, v: Scalar, field: FieldRef) => boolean | null;

/** The test of an operator that no absent value matches (SQL: NULL compares to nothing). */
const compared =
  <F extends Filter>(test: ScalarTest<F>) =>
  (filter: F, value: TestedValue, field: FieldRef): boolean | null =>
    value === null ? false : isScalar(value) ? test(filter, value, field) : null;

/** The test of a negation: an absent value matches when the field can have none (orNull in SQL). */
const negation =
  <F extends Filter>(test: ScalarTest<F>) =>
  (filter: F, value: TestedValue, field: FieldRef): boolean | null =>
    value === null ? fieldIsNullable(field) : isScalar(value) ? test(filter, value, field) : null;

/** The kinds of value the operators apply to (docs/contents.md#list-queries). */
const VALUES = ['text', 'option', 'number', 'integer', 'date', 'datetime', 'timestamp', 'boolean', 'uuid', 'status'] as const satisfies readonly ValueKind[];
const ORDERED = ['number', 'integer', 'date', 'datetime', 'timestamp'] as const satisfies readonly ValueKind[];
const TEXT = ['text'] as const satisfies readonly ValueKind[];

/** A filter of one operator. */
type FilterOf<O extends Operator> = Filter & { op: O };
type Entries = { [O in Operator]: OperatorDef<FilterOf<O>> };

/** The operators, in the order the reference lists them (describe.ts). */
export const OPERATOR_DEFS = {
  eq: {
    kinds: VALUES,
    sql: (f, on) => (fieldHasTextKey(on.field) ? textEquality(on, [String(f.value)]) : `${on.e} = ${on.add(f.value, on.type)}`),
    test: compared((f, v, field) => holds(compareTo(field, v, f.value), (c) => c === 0)),
    multiple: { sql: (f, on) => contains(on, f.value), test: (f, values) => values.includes(f.value) },
  },
  neq: {
    kinds: VALUES,
    sql: (f, on) => orNull(on, `${on.e} <> ${on.add(f.value, on.type)}`),
    test: negation((f, v, field) => holds(compareTo(field, v, f.value), (c) => c !== 0)),
    multiple: { sql: (f, on) => `(${on.e} is null or not ${contains(on, f.value)})`, test: (f, values) => !values.includes(f.value) },
  },
  in: {
    kinds: VALUES,
    sql: (f, on) => (fieldHasTextKey(on.field) ? textEquality(on, f.values.map(String)) : `${on.e} = any(${on.add(f.values, `${on.type}[]`)})`),
    test: compared((f, v, field) => isAmong(field, v, f.values)),
    multiple: { sql: (f, on) => containsAny(on, f.values), test: (f, values) => f.values.some((x) => values.includes(x)) },
  },
  nin: {
    kinds: VALUES,
    sql: (f, on) => orNull(on, `${on.e} <> all(${on.add(f.values, `${on.type}[]`)})`),
    test: negation((f, v, field) => not(isAmong(field, v, f.values))),
    multiple: { sql: (f, on) => `(${on.e} is null or not ${containsAny(on, f.values)})`, test: (f, values) => !f.values.some((x) => values.includes(x)) },
  },
  null: {
    kinds: [...VALUES, 'json'] as const,
    sql: (f, on) => nullTest(on.field, f.isNull),
    test: (f, value) => f.isNull === (value === null),
    multiple: { sql: (f, on) => (f.isNull ? isEmpty(on) : `not ${isEmpty(on)}`), test: (f, values) => f.isNull === (values.length === 0) },
  },
  gt: {
    kinds: ORDERED,
    sql: (f, on) => `${on.e} > ${on.add(f.value, on.type)}`,
    test: compared((f, v, field) => holds(compareTo(field, v, f.value), (c) => c > 0)),
  },
  gte: {
    kinds: ORDERED,
    sql: (f, on) => `${on.e} >= ${on.add(f.value, on.type)}`,
    test: compared((f, v, field) => holds(compareTo(field, v, f.value), (c) => c >= 0)),
  },
  lt: {
    kinds: ORDERED,
    sql: (f, on) => `${on.e} < ${on.add(f.value, on.type)}`,
    test: compared((f, v, field) => holds(compareTo(field, v, f.value), (c) => c < 0)),
  },
  lte: {
    kinds: ORDERED,
    sql: (f, on) => `${on.e} <= ${on.add(f.value, on.type)}`,
    test: compared((f, v, field) => holds(compareTo(field, v, f.value), (c) => c <= 0)),
  },
  between: {
    kinds: ORDERED,
    sql: (f, on) => `${on.e} between ${on.add(f.values[0], on.type)} and ${on.add(f.values[1], on.type)}`,
    test: compared((f, v, field) => {
      const [lo, hi] = [compareTo(field, v, f.values[0]), compareTo(field, v, f.values[1])];
      return lo === null || hi === null ? null : lo >= 0 && hi <= 0;
    }),
  },
  contains: {
    kinds: TEXT,
    sql: (f, on) => ilike(on, 'contains', f.value),
    test: compared((f, v) => like('contains', String(v), f.value)),
  },
  ncontains: {
    kinds: TEXT,
    sql: (f, on) => orNull(on, `${on.e} not ilike ${on.add(LIKE_PATTERNS.ncontains(f.value), 'text')} escape '\\'`),
    test: negation((f, v) => not(like('ncontains', String(v), f.value))),
  },
  startsWith: {
    kinds: TEXT,
    sql: (f, on) => ilike(on, 'startsWith', f.value),
    test: compared((f, v) => like('startsWith', String(v), f.value)),
  },
  endsWith: {
    kinds: TEXT,
    sql: (f, on) => ilike(on, 'endsWith', f.value),
    test: compared((f, v) => like('endsWith', String(v), f.value)),
  },
} satisfies Entries;

/** The entry of `filter`'s operator (each entry takes the filters of its own operator). */
export const operatorOf = (filter: Filter): OperatorDef => OPERATOR_DEFS[filter.op] as OperatorDef;

/** Each operator's kinds, a value whose type spells them out for OperatorsByKind (see below). */
const KINDS_OF = kindsOf(OPERATOR_DEFS);
function kindsOf<T extends Record<Operator, { kinds: readonly ValueKind[] }>>(defs: T): { [O in Operator]: T[O]['kinds'] } {
  return Object.fromEntries(Object.entries(defs).map(([op, def]) => [op, def.kinds])) as { [O in Operator]: T[O]['kinds'] };
}
type KindsOf = typeof KINDS_OF;

/**
 * Each kind's operators as a union: the console's filter builder, which imports only types, is
 * checked against it. Written from KINDS_OF, whose declared type holds nothing but the names, so
 * that the client's declarations can carry it (client/build/server-types.mjs).
 */
export type OperatorsByKind = { [K in KindsOf[keyof KindsOf][number]]: { [O in keyof KindsOf]: K extends KindsOf[O][number] ? O : never }[keyof KindsOf] };

const ALL_KINDS: readonly ValueKind[] = [...VALUES, 'json'];
/** Which operators apply to which kind of value, each list in OPERATOR_DEFS order. */
export const OPERATORS_BY_KIND = Object.fromEntries(
  ALL_KINDS.map((kind) => [kind, (Object.keys(KINDS_OF) as Operator[]).filter((op) => (KINDS_OF[op] as readonly ValueKind[]).includes(kind))]),
) as unknown as Record<ValueKind, readonly Operator[]>;
