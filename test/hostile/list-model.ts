import fc from 'fast-check';

/**
 * A small model of filtering and sorting for the property tests: valid-by-construction
 * queries over known rows, and what they must return (written from docs/contents.md#list-queries and its
 * operator table, not from the implementation).
 */

export interface ModelRow {
  id: string;
  status: 'DRAFT' | 'PUBLISHED' | 'ARCHIVED';
  data: { price?: number; qty?: number; body?: string; flag?: boolean; kind?: string };
}

/** Words whose `%`, `_` and `\` must match literally in contains/startsWith/endsWith. */
const WORDS = ['Alpha', 'beta', 'GAMMA', 'delta epsilon', '50%_off', 'a_b', 'back\\slash', 'ünïcode'];
const PRICES = [-5, 0, 0.5, 10, 10.25, 99.99, 100];
const KINDS = ['a', 'b', 'c'];

/** The data of one seeded row (absent keys are absent values). */
export const rowData = fc.record(
  {
    price: fc.constantFrom(...PRICES),
    qty: fc.integer({ min: -3, max: 3 }),
    body: fc.constantFrom(...WORDS),
    flag: fc.boolean(),
    kind: fc.constantFrom(...KINDS),
  },
  { requiredKeys: [] },
);
export const rowStatus = fc.constantFrom('PUBLISHED', 'PUBLISHED', 'DRAFT', 'ARCHIVED') as fc.Arbitrary<ModelRow['status']>;

type Column = keyof ModelRow['data'];
export interface ModelFilter {
  i: Column | 'status';
  w: string;
  v: unknown;
}

/** `v` as a string half of the time (docs/contents.md#list-queries: coerced to the column's type). */
const maybeString = <T>(arb: fc.Arbitrary<T>) => fc.tuple(arb, fc.boolean()).map(([v, s]) => (s ? String(v) : v));
const pair = <T>(arb: fc.Arbitrary<T>) => fc.tuple(arb, arb);

const numberFilter = (i: 'price' | 'qty', values: fc.Arbitrary<number>): fc.Arbitrary<ModelFilter> =>
  fc.oneof(
    fc.record({ i: fc.constant(i), w: fc.constantFrom('eq', 'neq', 'gt', 'gte', 'lt', 'lte'), v: maybeString(values) }),
    fc.record({ i: fc.constant(i), w: fc.constant('between'), v: pair(values) }),
    fc.record({ i: fc.constant(i), w: fc.constantFrom('in', 'nin'), v: fc.array(values, { minLength: 1, maxLength: 3 }) }),
  );

export const modelFilter: fc.Arbitrary<ModelFilter> = fc.oneof(
  numberFilter('price', fc.constantFrom(...PRICES, 5, 50)),
  numberFilter('qty', fc.integer({ min: -4, max: 4 })),
  fc.record({
    i: fc.constant('body' as const),
    w: fc.constantFrom('eq', 'neq', 'contains', 'ncontains', 'startsWith', 'endsWith'),
    v: fc.oneof(fc.constantFrom(...WORDS), fc.constantFrom(...WORDS).chain((word) => fc.tuple(fc.nat(word.length), fc.nat(word.length)).map(([a, b]) => word.slice(Math.min(a, b), Math.max(a, b) + 1))), fc.constantFrom('%', '_', '\\', 'ALPHA', 'ün')),
  }),
  fc.record({ i: fc.constant('flag' as const), w: fc.constantFrom('eq', 'neq'), v: maybeString(fc.boolean()) }),
  fc.record({ i: fc.constant('kind' as const), w: fc.constantFrom('eq', 'neq'), v: fc.constantFrom(...KINDS) }),
  fc.record({ i: fc.constant('kind' as const), w: fc.constantFrom('in', 'nin'), v: fc.array(fc.constantFrom(...KINDS), { minLength: 1, maxLength: 3 }) }),
  fc.record({ i: fc.constantFrom('price', 'qty', 'body', 'flag', 'kind') as fc.Arbitrary<Column>, w: fc.constant('null'), v: fc.boolean() }),
  fc.record({ i: fc.constant('status' as const), w: fc.constantFrom('eq', 'neq'), v: fc.constantFrom('PUBLISHED', 'draft', 'ARCHIVED') }),
);

const coerce = (filter: ModelFilter, v: unknown): unknown => {
  if (filter.i === 'price' || filter.i === 'qty') return Number(v);
  if (filter.i === 'flag') return v === true || v === 'true';
  if (filter.i === 'status') return String(v).toUpperCase();
  return v;
};

/** Whether `row` matches one filter, by the rules of docs/contents.md#list-queries. */
export function matches(row: ModelRow, filter: ModelFilter): boolean {
  const value = filter.i === 'status' ? row.status : row.data[filter.i];
  const present = value !== undefined && value !== null;
  const lower = (s: unknown) => String(s).toLowerCase();
  switch (filter.w) {
    case 'null':
      return filter.v ? !present : present;
    case 'eq':
      return present && value === coerce(filter, filter.v);
    case 'neq': // the exact complement: absent values match
      return !(present && value === coerce(filter, filter.v));
    case 'gt':
      return present && (value as number) > (coerce(filter, filter.v) as number);
    case 'gte':
      return present && (value as number) >= (coerce(filter, filter.v) as number);
    case 'lt':
      return present && (value as number) < (coerce(filter, filter.v) as number);
    case 'lte':
      return present && (value as number) <= (coerce(filter, filter.v) as number);
    case 'between': {
      const [a, b] = (filter.v as unknown[]).map((x) => coerce(filter, x) as number);
      return present && (value as number) >= a && (value as number) <= b;
    }
    case 'in':
      return present && (filter.v as unknown[]).map((x) => coerce(filter, x)).includes(value);
    case 'nin':
      return !(present && (filter.v as unknown[]).map((x) => coerce(filter, x)).includes(value));
    case 'contains':
      return present && lower(value).includes(lower(filter.v));
    case 'ncontains':
      return !(present && lower(value).includes(lower(filter.v)));
    case 'startsWith':
      return present && lower(value).startsWith(lower(filter.v));
    case 'endsWith':
      return present && lower(value).endsWith(lower(filter.v));
    default:
      throw new Error(`model has no operator ${filter.w}`);
  }
}

/** Ids in the documented order for one number sort key: nulls last, ties by id in the key's direction. */
export function sortedIds(rows: ModelRow[], key: 'price' | 'qty', direction: 'asc' | 'desc'): string[] {
  const sign = direction === 'asc' ? 1 : -1;
  // PostgreSQL orders uuids byte by byte, which is the order of their lower-case hex text.
  const byId = (a: ModelRow, b: ModelRow) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  return [...rows]
    .sort((a, b) => {
      const [x, y] = [a.data[key], b.data[key]];
      if (x === undefined || y === undefined) return x === y ? sign * byId(a, b) : x === undefined ? 1 : -1;
      return x !== y ? sign * (x - y) : sign * byId(a, b);
    })
    .map((r) => r.id);
}
