import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors/app-error.js';
import { encodeCursor, parseListQuery, type ListQuery, type RawListParams } from '../../src/modules/query/index.js';
import { ALL_OPS, FIELD_MATRIX, PROJECT, json, sampleFilter, testTable } from './fixtures.js';

const table = testTable();
const parse = (raw: RawListParams): ListQuery => parseListQuery(raw, table, PROJECT);

/** The parse must fail with 400 INVALID_QUERY and this message (or a message matching it). */
function refused(raw: RawListParams, message: string | RegExp): void {
  let error: unknown = null;
  try {
    parse(raw);
  } catch (e) {
    error = e;
  }
  if (!(error instanceof AppError)) throw new Error(`expected INVALID_QUERY for ${JSON.stringify(raw)}, got ${String(error)}`);
  expect([error.status, error.errorCode]).toEqual([400, 'INVALID_QUERY']);
  if (typeof message === 'string') expect(error.message).toBe(message);
  else expect(error.message).toMatch(message);
}

const filterOf = (...items: unknown[]) => ({ filter: json(items) });
const oneFilter = (item: unknown) => parse(filterOf(item)).filters[0];
const UUID = '0190f5c2-3b4a-7c6d-8e9f-0a1b2c3d4e5f';

describe('defaults and paging', () => {
  it('fills the defaults', () => {
    const q = parse({});
    expect(q).toMatchObject({ page: 1, size: 20, withCount: true, filters: [], op: 'and', locale: null, cursor: null, defaultLocale: 'en' });
    expect(q.sort).toEqual([{ field: { source: 'system', name: 'createdAt' }, direction: 'desc' }]);
    expect(q.projection.all).toBe(true);
    expect(q.projection.system).toEqual(['slug', 'status', 'createdAt', 'updatedAt', 'publishedAt', 'publishAt', 'version', 'hasDraft']);
    expect(q.projection.columns.map((c) => c.name)).toEqual(table.columns.map((c) => c.name));
    expect(q.tableId).toBe(table.id);
  });

  it('takes page, size and withCount', () => {
    expect(parse({ page: 3, size: 1000, withCount: false })).toMatchObject({ page: 3, size: 1000, withCount: false });
  });

  it('guards page and size even though zod checks them upstream', () => {
    for (const page of [0, -1, 1.5, Number.NaN]) refused({ page }, `page: must be an integer of at least 1, got ${page}`);
    for (const size of [0, 1001, 2.5, Number.POSITIVE_INFINITY]) refused({ size }, /^size: must be an integer from 1 to 1000/);
  });
});

describe('operators per type', () => {
  for (const field of FIELD_MATRIX) {
    it(`${field.i}: accepts ${field.ops.join(', ')} and refuses the rest`, () => {
      for (const w of ALL_OPS) {
        const raw = filterOf(sampleFilter(field.i, w, field.sample));
        if (field.ops.includes(w)) expect(parse(raw).filters[0].op).toBe(w);
        else refused(raw, `filter[0].w: operator "${w}" does not apply to ${field.describe}`);
      }
    });
  }

  it('names the offending filter by its position', () => {
    refused(filterOf({ i: 'title', w: 'eq', v: 'a' }, { i: 'price', w: 'contains', v: '1' }),
      'filter[1].w: operator "contains" does not apply to number column "price"');
    refused(filterOf({ i: 'active', w: 'contains', v: 'tru' }), 'filter[0].w: operator "contains" does not apply to boolean column "active"');
  });

  it('refuses unknown and missing operators', () => {
    refused(filterOf({ i: 'qty', w: 'like', v: 1 }), 'filter[0].w: unknown operator "like"');
    refused(filterOf({ i: 'qty', w: 'EQ', v: 1 }), 'filter[0].w: unknown operator "EQ"');
    refused(filterOf({ i: 'qty', v: 1 }), 'filter[0].w: missing operator');
    refused(filterOf({ i: 'qty', w: 3, v: 1 }), 'filter[0].w: unknown operator 3');
  });
});

describe('value coercion', () => {
  it('coerces strings to the column type', () => {
    expect(oneFilter({ i: 'price', w: 'eq', v: '10.5' })).toMatchObject({ value: 10.5 });
    expect(oneFilter({ i: 'price', w: 'gt', v: ' -1e2 ' })).toMatchObject({ value: -100 });
    expect(oneFilter({ i: 'qty', w: 'gte', v: '2' })).toMatchObject({ value: 2 });
    expect(oneFilter({ i: 'qty', w: 'gte', v: 2 })).toMatchObject({ value: 2 });
    expect(oneFilter({ i: 'active', w: 'eq', v: 'false' })).toMatchObject({ value: false });
    expect(oneFilter({ i: 'active', w: 'eq', v: 'TRUE' })).toMatchObject({ value: true });
    expect(oneFilter({ i: 'active', w: 'eq', v: true })).toMatchObject({ value: true });
    expect(oneFilter({ i: 'title', w: 'eq', v: '12' })).toMatchObject({ value: '12' });
    expect(oneFilter({ i: 'day', w: 'lt', v: '2024-02-29' })).toMatchObject({ value: '2024-02-29' });
    expect(oneFilter({ i: 'author', w: 'eq', v: UUID.toUpperCase() })).toMatchObject({ value: UUID });
    expect(oneFilter({ i: 'id', w: 'eq', v: UUID })).toMatchObject({ value: UUID });
    expect(oneFilter({ i: 'status', w: 'eq', v: 'published' })).toMatchObject({ value: 'PUBLISHED' });
  });

  it('normalises datetimes to the stored UTC millisecond form', () => {
    const at = (v: string) => oneFilter({ i: 'at', w: 'gte', v });
    expect(at('2026-01-02T03:04:05+02:00')).toMatchObject({ value: '2026-01-02T01:04:05.000Z' });
    expect(at('2026-01-02T03:04:05.123456Z')).toMatchObject({ value: '2026-01-02T03:04:05.123Z' });
    expect(at('2026-01-02')).toMatchObject({ value: '2026-01-02T00:00:00.000Z' });
    expect(at('2026-01-02T03:04')).toMatchObject({ value: '2026-01-02T03:04:00.000Z' });
    expect(at('2026-01-01T00:30:00-01:00')).toMatchObject({ value: '2026-01-01T01:30:00.000Z' });
  });

  it('keeps microseconds and an explicit offset for timestamp system fields', () => {
    const ts = (v: string) => oneFilter({ i: 'createdAt', w: 'gte', v });
    expect(ts('2026-01-02T03:04:05.123456Z')).toMatchObject({ value: '2026-01-02T03:04:05.123456Z' });
    expect(ts('2026-01-02T03:04:05+0200')).toMatchObject({ value: '2026-01-02T03:04:05+02:00' });
    expect(ts('2026-01-02')).toMatchObject({ value: '2026-01-02T00:00:00Z' });
  });

  it('refuses values that cannot be coerced, naming the part and the column', () => {
    refused(filterOf({ i: 'price', w: 'gt', v: 'abc' }), 'filter[0].v: "abc" is not a number (number column "price")');
    refused(filterOf({ i: 'price', w: 'gt', v: '' }), /^filter\[0\]\.v: "" is not a number/);
    refused(filterOf({ i: 'price', w: 'gt', v: '0x10' }), /is not a number/);
    refused(filterOf({ i: 'price', w: 'gt', v: true }), 'filter[0].v: true is a JSON boolean; number values are a number or a string (number column "price")');
    refused(filterOf({ i: 'qty', w: 'eq', v: '2.5' }), 'filter[0].v: "2.5" is not an integer (integer column "qty")');
    refused(filterOf({ i: 'qty', w: 'eq', v: 2.5 }), /is not an integer/);
    refused(filterOf({ i: 'active', w: 'eq', v: 'yes' }), 'filter[0].v: "yes" is not true or false (boolean column "active")');
    refused(filterOf({ i: 'day', w: 'eq', v: '2026-02-30' }), /is not a date YYYY-MM-DD/);
    refused(filterOf({ i: 'day', w: 'eq', v: '2026-01-02T00:00:00Z' }), /is not a date YYYY-MM-DD/);
    for (const v of ['yesterday', '2026-13-01', '2026-01-01T25:00:00Z', '2026-01-01T10:00:00+16:00']) {
      refused(filterOf({ i: 'at', w: 'gt', v }), /^filter\[0\]\.v: .* is not an ISO-8601 date-time \(datetime column "at"\)$/);
    }
    refused(filterOf({ i: 'createdAt', w: 'gt', v: 'now' }), /is not an ISO-8601 date-time \(system field "createdAt"\)/);
    refused(filterOf({ i: 'author', w: 'eq', v: 'abc' }), 'filter[0].v: "abc" is not a UUID (reference column "author")');
    refused(filterOf({ i: 'id', w: 'in', v: [UUID, 'nope'] }), 'filter[0].v[1]: "nope" is not a UUID (system field "id")');
    refused(filterOf({ i: 'status', w: 'eq', v: 'LIVE' }), /^filter\[0\]\.v: "LIVE" is not a status/);
    refused(filterOf({ i: 'title', w: 'eq', v: { a: 1 } }), /^filter\[0\]\.v: must be a single text value/);
    refused(filterOf({ i: 'title', w: 'eq', v: ['a'] }), /^filter\[0\]\.v: must be a single text value/);
    refused(filterOf({ i: 'title', w: 'eq', v: null }), /^filter\[0\]\.v: null is not a value/);
    refused(filterOf({ i: 'title', w: 'eq' }), 'filter[0].v: missing value');
  });

  it('takes a string or a JSON value of the field’s own type, nothing else', () => {
    const wrongType: [Record<string, unknown>, string | RegExp][] = [
      [{ i: 'title', w: 'eq', v: 12 }, 'filter[0].v: 12 is a JSON number; text values are a string (text column "title")'],
      [{ i: 'title', w: 'contains', v: false }, 'filter[0].v: false is a JSON boolean; text values are a string (text column "title")'],
      [{ i: 'qty', w: 'eq', v: false }, 'filter[0].v: false is a JSON boolean; integer values are a number or a string (integer column "qty")'],
      [{ i: 'active', w: 'eq', v: 1 }, 'filter[0].v: 1 is a JSON number; boolean values are a boolean or a string (boolean column "active")'],
      [{ i: 'at', w: 'gt', v: 1700000000 }, 'filter[0].v: 1700000000 is a JSON number; datetime values are a string (datetime column "at")'],
      [{ i: 'day', w: 'eq', v: 20260101 }, /^filter\[0\]\.v: 20260101 is a JSON number; date values are a string/],
      [{ i: 'category', w: 'eq', v: 1 }, 'filter[0].v: 1 is a JSON number; text values are a string (select column "category")'],
      [{ i: 'status', w: 'eq', v: true }, /^filter\[0\]\.v: true is a JSON boolean; status values are a string/],
      [{ i: 'createdAt', w: 'gte', v: 0 }, /^filter\[0\]\.v: 0 is a JSON number; timestamp values are a string/],
      [{ i: 'price', w: 'eq', v: {} }, 'filter[0].v: must be a single number value (number column "price")'],
      [{ i: 'active', w: 'eq', v: [true] }, 'filter[0].v: must be a single boolean value (boolean column "active")'],
      [{ i: 'qty', w: 'eq', v: [1, 2] }, 'filter[0].v: must be a single integer value (integer column "qty")'],
      [{ i: 'qty', w: 'in', v: [1, true] }, /^filter\[0\]\.v\[1\]: true is a JSON boolean/],
      [{ i: 'qty', w: 'in', v: [1, [2]] }, /^filter\[0\]\.v\[1\]: must be a single integer value/],
      [{ i: 'price', w: 'between', v: [1, {}] }, /^filter\[0\]\.v\[1\]: must be a single number value/],
      [{ i: 'title', w: 'in', v: {} }, 'filter[0].v: in takes a JSON array or a comma-separated string, got a JSON object'],
    ];
    for (const [item, message] of wrongType) refused(filterOf(item), message);
    // String forms are still coerced, on every operator.
    expect(oneFilter({ i: 'active', w: 'eq', v: 'true' })).toMatchObject({ value: true });
    expect(oneFilter({ i: 'price', w: 'in', v: '5' })).toMatchObject({ values: [5] });
    expect(oneFilter({ i: 'price', w: 'between', v: '1,2.5' })).toMatchObject({ values: [1, 2.5] });
    expect(oneFilter({ i: 'qty', w: 'in', v: ['1', 2] })).toMatchObject({ values: [1, 2] });
  });

  it('limits value strings to 1000 characters and refuses NUL', () => {
    expect(oneFilter({ i: 'title', w: 'contains', v: 'a'.repeat(1000) })).toMatchObject({ value: 'a'.repeat(1000) });
    refused(filterOf({ i: 'title', w: 'contains', v: 'a'.repeat(1001) }), 'filter[0].v: is longer than 1000 characters (text column "title")');
    refused(filterOf({ i: 'title', w: 'in', v: ['a', 'b'.repeat(1001)] }), /^filter\[0\]\.v\[1\]: is longer than 1000/);
    refused(filterOf({ i: 'title', w: 'eq', v: 'a\u0000b' }), /NUL/);
  });

  it('in/nin take a JSON array or a comma-separated string', () => {
    expect(oneFilter({ i: 'category', w: 'in', v: ['a', 'b'] })).toMatchObject({ values: ['a', 'b'] });
    expect(oneFilter({ i: 'category', w: 'nin', v: 'b, c' })).toMatchObject({ values: ['b', 'c'] });
    expect(oneFilter({ i: 'qty', w: 'in', v: '1,2,2' })).toMatchObject({ values: [1, 2] });
    expect(oneFilter({ i: 'qty', w: 'in', v: '3' })).toMatchObject({ values: [3] });
    refused(filterOf({ i: 'qty', w: 'in', v: 3 }), 'filter[0].v: in takes a JSON array or a comma-separated string, got a JSON number');
    refused(filterOf({ i: 'active', w: 'nin', v: true }), 'filter[0].v: nin takes a JSON array or a comma-separated string, got a JSON boolean');
    refused(filterOf({ i: 'qty', w: 'in', v: null }), 'filter[0].v: in takes a JSON array or a comma-separated string, got a JSON null');
    refused(filterOf({ i: 'category', w: 'in', v: [] }), 'filter[0].v: needs at least one value');
    refused(filterOf({ i: 'category', w: 'in', v: '' }), 'filter[0].v: needs at least one value');
    refused(filterOf({ i: 'qty', w: 'in', v: '1,x' }), 'filter[0].v[1]: "x" is not an integer (integer column "qty")');
    expect(oneFilter({ i: 'qty', w: 'in', v: Array.from({ length: 1000 }, (_, i) => i) })).toMatchObject({ op: 'in' });
    refused(filterOf({ i: 'qty', w: 'in', v: Array.from({ length: 1001 }, (_, i) => i) }), 'filter[0].v: at most 1000 values');
  });

  it('between takes [a, b] or "a,b"', () => {
    expect(oneFilter({ i: 'price', w: 'between', v: [5.5, '9.5'] })).toMatchObject({ values: [5.5, 9.5] });
    expect(oneFilter({ i: 'day', w: 'between', v: '2026-01-01,2026-01-31' })).toMatchObject({ values: ['2026-01-01', '2026-01-31'] });
    for (const v of [[1], [1, 2, 3], '1', '1,2,3', 5]) {
      refused(filterOf({ i: 'price', w: 'between', v }), 'filter[0].v: between takes two values, [a, b] or "a,b"');
    }
    refused(filterOf({ i: 'price', w: 'between', v: [1, 'x'] }), /^filter\[0\]\.v\[1\]: "x" is not a number/);
  });

  it('null takes true/false or their strings', () => {
    expect(oneFilter({ i: 'note', w: 'null', v: true })).toMatchObject({ isNull: true });
    expect(oneFilter({ i: 'note', w: 'null', v: 'false' })).toMatchObject({ isNull: false });
    expect(oneFilter({ i: 'meta', w: 'null', v: 'TRUE' })).toMatchObject({ isNull: true });
    for (const v of ['yes', 1, null]) refused(filterOf({ i: 'note', w: 'null', v }), 'filter[0].v: must be true or false for the null operator');
  });
});

describe('filter and sort JSON', () => {
  it('refuses malformed JSON, non-arrays, non-objects and unknown keys', () => {
    refused({ filter: '[{"i":"qty",' }, 'filter: malformed JSON');
    refused({ sort: '[{"i":' }, 'sort: malformed JSON');
    refused({ filter: '{"i":"qty","w":"eq","v":1}' }, 'filter: must be a JSON array of objects');
    refused({ sort: '"title"' }, 'sort: must be a JSON array of objects');
    refused({ filter: '[1]' }, 'filter[0]: must be an object');
    refused({ sort: '[null]' }, 'sort[0]: must be an object');
    refused(filterOf({ i: 'qty', w: 'eq', v: 1, x: 2 }), 'filter[0]: unknown key "x"');
    refused({ sort: json([{ i: 'qty', dir: 'asc' }]) }, 'sort[0]: unknown key "dir"');
  });

  it('treats absent sort/filter and empty arrays as none, and refuses blank values', () => {
    expect(parse({ filter: '[]', sort: '[]' })).toMatchObject({ filters: [] });
    expect(parse({ filter: '[]', sort: '[]' }).sort).toEqual(parse({}).sort);
    refused({ filter: '' }, 'filter: malformed JSON');
    refused({ sort: '  ' }, 'sort: malformed JSON');
  });

  it('limits filters to 20 and sort keys to 5', () => {
    const f = (count: number) => filterOf(...Array.from({ length: count }, () => ({ i: 'qty', w: 'eq', v: 1 })));
    expect(parse(f(20)).filters).toHaveLength(20);
    refused(f(21), 'filter: at most 20 filters');
    const keys = ['title', 'price', 'qty', 'day', 'at', 'category'].map((i) => ({ i, o: 'asc' }));
    expect(parse({ sort: json(keys.slice(0, 5)) }).sort).toHaveLength(5);
    refused({ sort: json(keys) }, 'sort: at most 5 sort keys');
  });

  it('refuses unknown fields in filter and sort', () => {
    refused(filterOf({ i: 'nosuch', w: 'eq', v: 1 }), 'filter[0].i: unknown field "nosuch"');
    refused(filterOf({ i: 'data.nosuch', w: 'eq', v: 1 }), 'filter[0].i: unknown field "data.nosuch"');
    refused(filterOf({ w: 'eq', v: 1 }), 'filter[0].i: must be a field name, got undefined');
    refused({ sort: json([{ i: 'nosuch', o: 'asc' }]) }, 'sort[0].i: unknown field "nosuch"');
    refused({ sort: json([{ i: 5 }]) }, 'sort[0].i: must be a field name, got 5');
  });

  it('sort directions: asc default, any case, nothing else', () => {
    expect(parse({ sort: json([{ i: 'price' }]) }).sort[0].direction).toBe('asc');
    expect(parse({ sort: json([{ i: 'price', o: 'DESC' }]) }).sort[0].direction).toBe('desc');
    refused({ sort: json([{ i: 'price', o: 'up' }]) }, 'sort[0].o: must be "asc" or "desc", got "up"');
    refused({ sort: json([{ i: 'price', o: 1 }]) }, 'sort[0].o: must be "asc" or "desc", got 1');
  });

  it('refuses json and multiple sort keys and duplicates', () => {
    refused({ sort: json([{ i: 'meta' }]) }, 'sort[0].i: cannot sort by json column "meta"');
    refused({ sort: json([{ i: 'tags' }]) }, 'sort[0].i: cannot sort by multiple select column "tags"');
    refused({ sort: json([{ i: 'price' }, { i: 'price', o: 'desc' }]) }, 'sort[1].i: number column "price" is already a sort key');
    expect(parse({ sort: json([{ i: 'name', l: 'en' }, { i: 'name', l: 'fr' }]) }).sort).toHaveLength(2);
  });

  it('system names win over columns; data.<name> reaches the column', () => {
    expect(oneFilter({ i: 'status', w: 'eq', v: 'DRAFT' }).field).toEqual({ source: 'system', name: 'status' });
    const column = oneFilter({ i: 'data.status', w: 'eq', v: 's1' }).field;
    expect(column.source === 'column' && column.column.name).toBe('status');
    expect(parse({ sort: json([{ i: 'data.title' }]) }).sort[0].field).toMatchObject({ source: 'column', locale: null });
  });
});

describe('op', () => {
  it('is and/or in any case, normalised to and below two filters', () => {
    const two = filterOf({ i: 'qty', w: 'eq', v: 1 }, { i: 'qty', w: 'eq', v: 2 });
    expect(parse({ ...two, op: 'OR' }).op).toBe('or');
    expect(parse({ ...two }).op).toBe('and');
    expect(parse({ ...filterOf({ i: 'qty', w: 'eq', v: 1 }), op: 'or' }).op).toBe('and');
    refused({ ...two, op: 'xor' }, 'op: must be "and" or "or", got "xor"');
    refused({ op: 'not' }, 'op: must be "and" or "or", got "not"');
    refused({ ...two, op: '' }, 'op: must be "and" or "or", got ""');
    refused({ op: ' ' }, 'op: must be "and" or "or", got " "');
  });
});

describe('locales', () => {
  it('a localized column without l uses the default locale', () => {
    expect(oneFilter({ i: 'name', w: 'eq', v: 'x' }).field).toMatchObject({ source: 'column', locale: 'en' });
    expect(oneFilter({ i: 'name', w: 'eq', v: 'x', l: 'fr' }).field).toMatchObject({ locale: 'fr' });
    expect(parse({ sort: json([{ i: 'body', o: 'asc', l: 'fr' }]) }).sort[0].field).toMatchObject({ locale: 'fr' });
  });

  it('l only on localized columns, and only a project locale', () => {
    refused(filterOf({ i: 'title', w: 'eq', v: 'x', l: 'fr' }), 'filter[0].l: column "title" is not localized');
    refused(filterOf({ i: 'name', w: 'eq', v: 'x', l: 'de' }), 'filter[0].l: "de" is not a project locale (en, fr)');
    refused(filterOf({ i: 'name', w: 'eq', v: 'x', l: 5 }), 'filter[0].l: 5 is not a project locale (en, fr)');
    refused(filterOf({ i: 'slug', w: 'eq', v: 'x', l: 'fr' }), 'filter[0].l: system field "slug" is not localized');
    refused({ sort: json([{ i: 'price', l: 'en' }]) }, 'sort[0].l: column "price" is not localized');
    expect(oneFilter({ i: 'title', w: 'eq', v: 'x', l: null }).field).toMatchObject({ locale: null });
  });

  it('locale must be a project locale', () => {
    expect(parse({ locale: 'fr' }).locale).toBe('fr');
    refused({ locale: 'de' }, 'locale: "de" is not a project locale (en, fr)');
    refused({ locale: '' }, 'locale: "" is not a project locale (en, fr)');
  });
});

describe('fields', () => {
  const projection = (fields: string) => {
    const p = parse({ fields }).projection;
    return { all: p.all, system: p.system, columns: p.columns.map((c) => c.name) };
  };

  it('splits columns and system fields; id is implicit', () => {
    expect(projection('title,price')).toEqual({ all: false, system: [], columns: ['title', 'price'] });
    expect(projection(' price , title ,,title')).toEqual({ all: false, system: [], columns: ['title', 'price'] });
    expect(projection('updatedAt,title,createdAt,slug')).toEqual({ all: false, system: ['slug', 'createdAt', 'updatedAt'], columns: ['title'] });
    expect(projection('id')).toEqual({ all: false, system: [], columns: [] });
    expect(parse({}).projection).toMatchObject({ all: true });
    refused({ fields: '' }, 'fields: names no field; leave the parameter out for every field');
    refused({ fields: ' , ' }, 'fields: names no field; leave the parameter out for every field');
  });

  it('a name that is both a system field and a column returns both; data.<name> only the column', () => {
    expect(projection('status')).toEqual({ all: false, system: ['status'], columns: ['status'] });
    expect(projection('data.status')).toEqual({ all: false, system: [], columns: ['status'] });
  });

  it('data.* names every column, and system fields only as asked for', () => {
    const every = table.columns.map((c) => c.name);
    expect(projection('data.*')).toEqual({ all: false, system: [], columns: every });
    expect(projection('updatedAt,data.*,title')).toEqual({ all: false, system: ['updatedAt'], columns: every });
    refused({ fields: 'data.x*' }, 'fields: unknown field "data.x*"');
  });

  it('refuses unknown names', () => {
    refused({ fields: 'title,nosuch' }, 'fields: unknown field "nosuch"');
    refused({ fields: 'data' }, 'fields: unknown field "data"');
  });
});

describe('cursor', () => {
  const sort = json([{ i: 'price', o: 'asc' }, { i: 'createdAt', o: 'desc' }]);
  const filter = json([{ i: 'qty', w: 'gte', v: 1 }]);
  const base = parse({ sort, filter, size: 5 });
  const cursor = encodeCursor(base, { id: UUID, _k0: 12.5, _k1: '2026-01-01T00:00:00.123456Z' });

  it('round-trips and replaces page', () => {
    const q = parse({ sort, filter, size: 5, cursor });
    expect(q.cursor).toEqual({ values: [12.5, '2026-01-01T00:00:00.123456Z'], id: UUID });
    expect(q.page).toBe(1);
    expect(parse({ sort, filter, cursor, page: 1 }).cursor).not.toBeNull();
  });

  it('size, fields, locale and equivalent spellings may change', () => {
    const respelled = json([{ i: 'price' }, { i: 'createdAt', o: 'DESC' }]);
    expect(parse({ sort: respelled, filter: json([{ i: 'qty', w: 'gte', v: '1' }]), size: 50, fields: 'title', locale: 'fr', cursor }).cursor).not.toBeNull();
  });

  it('is refused with page ≠ 1, a different sort, filter or op, or when malformed', () => {
    refused({ sort, filter, cursor, page: 2 }, 'cursor: cannot be combined with page 2');
    const different = /^cursor: was issued for a different sort, filter or op/;
    refused({ filter, cursor }, different);
    refused({ sort: json([{ i: 'price', o: 'desc' }, { i: 'createdAt', o: 'desc' }]), filter, cursor }, different);
    refused({ sort, cursor }, different);
    refused({ sort, filter: json([{ i: 'qty', w: 'gte', v: 2 }]), cursor }, different);
    const two = json([{ i: 'qty', w: 'gte', v: 1 }, { i: 'price', w: 'null', v: false }]);
    const andCursor = encodeCursor(parse({ sort, filter: two }), { id: UUID, _k0: 1, _k1: '2026-01-01T00:00:00Z' });
    refused({ sort, filter: two, op: 'or', cursor: andCursor }, different);
    for (const bad of ['', '%%%', 'abc', Buffer.from('{"f":1}').toString('base64url'), 'a'.repeat(20000)]) {
      refused({ sort, filter, cursor: bad }, /^cursor: malformed/);
    }
  });

  it('refuses a cursor of another table', () => {
    const other = parseListQuery({ sort, filter }, testTable('44444444-4444-4444-8444-444444444444'), PROJECT);
    refused({ sort, filter, cursor: encodeCursor(other, { id: UUID, _k0: 1, _k1: '2026-01-01T00:00:00Z' }) }, /different sort/);
  });

  it('refuses cursor values of the wrong type (a tampered cursor)', () => {
    const forged = (k: unknown[], id = UUID) => Buffer.from(JSON.stringify({ f: base.fingerprint, k, id })).toString('base64url');
    expect(parse({ sort, filter, cursor: forged([null, '2026-01-01T00:00:00Z']) }).cursor?.values).toEqual([null, '2026-01-01T00:00:00Z']);
    for (const k of [['12', '2026-01-01T00:00:00Z'], [1, 'yesterday'], [1, null], [1], [1, '2026-01-01T00:00:00Z', 3]]) {
      refused({ sort, filter, cursor: forged(k) }, /^cursor: malformed/);
    }
    refused({ sort, filter, cursor: forged([1, '2026-01-01T00:00:00Z'], 'not-a-uuid') }, /^cursor: malformed/);
  });
});

describe('placeholders', () => {
  const NOW = '2030-05-06T07:08:09.000Z';
  const placeholders = new Map([['$now', (kind: string) => (kind === 'timestamp' ? NOW : null)]]);
  const withPlaceholders = (...items: unknown[]) => parseListQuery(filterOf(...items), table, { ...PROJECT, placeholders });

  it('a value equal to a placeholder takes what it stands for, before coercion, also inside lists', () => {
    expect(withPlaceholders({ i: 'createdAt', w: 'lt', v: '$now' }).filters[0]).toMatchObject({ op: 'lt', value: '2030-05-06T07:08:09.000Z' });
    expect(withPlaceholders({ i: 'createdAt', w: 'between', v: ['2020-01-01', '$now'] }).filters[0]).toMatchObject({ values: ['2020-01-01T00:00:00Z', NOW] });
  });

  it('a placeholder that cannot stand for the field is refused; without placeholders it is a plain string', () => {
    expect(() => withPlaceholders({ i: 'price', w: 'eq', v: '$now' })).toThrow('filter[0].v: "$now" cannot stand for a value of number column "price"');
    expect(oneFilter({ i: 'title', w: 'eq', v: '$now' })).toMatchObject({ value: '$now' });
  });
});
