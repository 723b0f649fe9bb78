import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type CallResult, type TestApi } from '../helpers/api.js';
import { buildWorld, contentsPath, createRow, createTable, type Table, type World } from '../contents/fixture.js';
import { anyString, jsonValue, PROTOTYPE_KEYS, runs, seed, SQL_LOOKING } from './arbitraries.js';
import { callWithin, expectHandled, snapshot } from './fixture.js';
import { matches, modelFilter, rowData, rowStatus, sortedIds, type ModelRow } from './list-model.js';

/**
 * Property tests of the contents list query (docs/contents.md#list-queries): random and malicious filter, sort,
 * fields, page, size, cursor, op, locale and withCount are answered 200 or 400 INVALID_QUERY
 * (never a 5xx, never a hang); valid-by-construction queries return exactly what a model of
 * the docs say; read keys never see a non-public row; and nothing is written.
 */

let t: TestApi;
let w: World;
let table: Table;
const rows: ModelRow[] = [];
let before: Record<string, string>;

const COLUMNS = ['price', 'qty', 'body', 'flag', 'kind', 'title', 'meta', 'data.price'];
const SYSTEM = ['id', 'slug', 'status', 'createdAt', 'updatedAt', 'publishedAt', 'publishAt'];
const OPERATORS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'contains', 'ncontains', 'startsWith', 'endsWith', 'in', 'nin', 'between', 'null'];

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  table = await createTable(w, [
    { name: 'price', type: 'number' },
    { name: 'qty', type: 'integer' },
    { name: 'body', type: 'text' },
    { name: 'flag', type: 'boolean' },
    { name: 'kind', type: 'select', settings: { options: ['a', 'b', 'c'] } },
    { name: 'title', type: 'text', settings: { localized: true } },
    { name: 'meta', type: 'json' },
  ]);
  const samples = fc.sample(fc.tuple(rowData, rowStatus), { numRuns: 40, seed: seed() });
  for (const [data, status] of samples) {
    const created = await createRow(w, table.key, data, { status });
    rows.push({ id: created.id, status, data });
  }
  before = await snapshot(t);
});
afterAll(async () => {
  // Reads only: nothing of the database changed.
  if (before) expect(await snapshot(t)).toEqual(before);
  await t?.close();
});

const listPath = (params: Record<string, string>) => `${contentsPath(w, table.key)}?${new URLSearchParams(params)}`;
const publicIds = () => new Set(rows.filter((r) => r.status === 'PUBLISHED').map((r) => r.id));

/**
 * 200 with the list envelope, or 400 INVALID_QUERY; a read key's rows are all public. 431 is
 * the answer to a request line over HEADER_MAX_BYTES (16 KiB), and only to that.
 */
function expectListAnswer(res: CallResult, params: Record<string, string>, readKey: boolean) {
  const context = `GET ?${new URLSearchParams(params)}`.slice(0, 400);
  if (res.status === 431) {
    expect(listPath(params).length, `${context}: a 431 for a short request line`).toBeGreaterThan(15_000);
    return;
  }
  expectHandled(res, context);
  expect([200, 400], context).toContain(res.status);
  if (res.status === 400) {
    expect(res.json.error.code, context).toBe('INVALID_QUERY');
    return;
  }
  const { list, pagination } = res.json;
  expect(Array.isArray(list), context).toBe(true);
  expect(list.length, context).toBeLessThanOrEqual(pagination.size);
  for (const item of list) expect(rows.some((r) => r.id === item.id), context).toBe(true);
  if (readKey) for (const item of list) expect(publicIds().has(item.id), `${context}: non-public row ${item.id} shown to a read key`).toBe(true);
}

const name = fc.oneof(fc.constantFrom(...COLUMNS, ...SYSTEM, ...PROTOTYPE_KEYS), anyString, fc.jsonValue({ maxDepth: 1 }));
const filterItem = fc.record(
  {
    i: name,
    w: fc.oneof(fc.constantFrom(...OPERATORS), anyString, fc.jsonValue({ maxDepth: 1 })),
    v: fc.oneof(jsonValue, anyString, fc.array(fc.oneof(jsonValue, anyString), { maxLength: 4 }), fc.constantFrom(...SQL_LOOKING)),
    l: fc.oneof(fc.constantFrom('en', 'fr', 'de', ''), anyString),
  },
  { requiredKeys: [] },
);
const sortItem = fc.record({ i: name, o: fc.oneof(fc.constantFrom('asc', 'desc', 'DESC', 'up'), anyString), l: fc.constantFrom('en', 'fr', 'xx') }, { requiredKeys: [] });
/** A JSON parameter: well-shaped but hostile arrays, any JSON, any text, absurd depth. */
const jsonParam = <T>(item: fc.Arbitrary<T>) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.array(item, { maxLength: 25 }).map((items) => JSON.stringify(items)) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: anyString },
    // Deep but short enough for the 16 KiB request line once percent-encoded.
    { weight: 1, arbitrary: fc.integer({ min: 65, max: 2_000 }).map((depth) => `[{"i":"price","w":"in","v":${'['.repeat(depth)}${']'.repeat(depth)}}]`) },
  );
const integerText = fc.oneof(fc.integer({ min: -5, max: 2000 }).map(String), fc.constantFrom('1e3', '0x10', '1.5', ' 7', '', '-0', '010', '+3', '9007199254740993', 'NaN', 'Infinity'), anyString);

const hostileParams = fc.record(
  {
    filter: jsonParam(filterItem),
    sort: jsonParam(sortItem),
    fields: fc.oneof(fc.array(fc.oneof(fc.constantFrom(...COLUMNS, ...SYSTEM), anyString), { maxLength: 8 }).map((names) => names.join(',')), anyString),
    page: integerText,
    size: integerText,
    op: fc.oneof(fc.constantFrom('and', 'or', 'OR', 'xor'), anyString),
    cursor: fc.oneof(anyString, fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v)).toString('base64url'))),
    locale: fc.oneof(fc.constantFrom('en', 'fr', 'de'), anyString),
    withCount: fc.oneof(fc.constantFrom('true', 'false', '0', 'yes'), anyString),
  },
  { requiredKeys: [] },
);

describe('contents list: hostile parameters', () => {
  it('are answered 200 or 400 INVALID_QUERY, never 5xx; a read key sees public rows only', async () => {
    await fc.assert(
      fc.asyncProperty(hostileParams, fc.boolean(), async (params, readKey) => {
        const res = await callWithin(t, 'GET', listPath(params), { token: readKey ? w.readKey : w.writeKey });
        expectListAnswer(res, params, readKey);
      }),
      { numRuns: runs(100), seed: seed(), endOnFailure: true },
    );
  });

  it('page and size: a valid number is echoed as is (never clamped), anything else is 400', async () => {
    await fc.assert(
      fc.asyncProperty(integerText, integerText, async (page, size) => {
        const res = await callWithin(t, 'GET', listPath({ page, size }), { token: w.writeKey });
        expectListAnswer(res, { page, size }, false);
        // Plain decimal only: no sign, leading zero, exponent, hex or spaces; an empty value is refused too.
        const valid = (text: string, max: number) => /^[1-9]\d*$/.test(text) && Number(text) <= max;
        const bothValid = valid(page, Number.MAX_SAFE_INTEGER) && valid(size, 1000);
        expect(res.status, `${page} ${size}`).toBe(bothValid ? 200 : 400);
        if (res.status === 200) expect(res.json.pagination).toMatchObject({ page: Number(page), size: Number(size) });
      }),
      { numRuns: runs(40), seed: seed(), endOnFailure: true },
    );
  });

  it('a tampered cursor is 400 INVALID_QUERY or a valid position, never a 5xx', async () => {
    const params = { sort: '[{"i":"price","o":"asc"},{"i":"body","o":"desc"}]', size: '5' };
    const first = await callWithin(t, 'GET', listPath(params), { token: w.writeKey });
    const cursor = first.json.pagination.nextCursor as string;
    expect(cursor).toBeTruthy();
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { f: string; k: unknown[]; id: string };
    const tampered = fc.oneof(
      fc.tuple(fc.nat(cursor.length - 1), fc.constantFrom('A', '_', '-', '0', '%', '=')).map(([at, c]) => cursor.slice(0, at) + c + cursor.slice(at + 1)),
      fc.record({ f: fc.oneof(fc.constant(decoded.f), anyString), k: fc.oneof(fc.constant(decoded.k), fc.array(jsonValue, { maxLength: 3 }), jsonValue), id: fc.oneof(fc.constant(decoded.id), anyString, jsonValue) }, { requiredKeys: [] })
        .map((payload) => Buffer.from(JSON.stringify(payload)).toString('base64url')),
      fc.constantFrom(cursor + cursor, cursor.slice(1), `${cursor}==`, 'A'.repeat(5000)),
    );
    await fc.assert(
      fc.asyncProperty(tampered, async (bad) => {
        const res = await callWithin(t, 'GET', listPath({ ...params, cursor: bad }), { token: w.writeKey });
        expectListAnswer(res, { ...params, cursor: bad }, false);
      }),
      { numRuns: runs(40), seed: seed(), endOnFailure: true },
    );
  });
});

describe('contents list: valid queries against a model of the documented rules', () => {
  it('return exactly the matching rows, with an exact total; read keys get the public subset', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(modelFilter, { minLength: 1, maxLength: 3 }), fc.constantFrom('and', 'or'), fc.boolean(), async (filters, op, readKey) => {
        const params = { filter: JSON.stringify(filters), op, size: '1000' };
        const res = await callWithin(t, 'GET', listPath(params), { token: readKey ? w.readKey : w.writeKey });
        expect(res.status, `${JSON.stringify(params)}: ${res.text.slice(0, 300)}`).toBe(200);
        const visible = rows.filter((r) => !readKey || r.status === 'PUBLISHED');
        const expected = visible.filter((r) => (op === 'and' ? filters.every((f) => matches(r, f)) : filters.some((f) => matches(r, f))));
        const got = (res.json.list as { id: string }[]).map((x) => x.id).sort();
        expect(got, JSON.stringify(params)).toEqual(expected.map((r) => r.id).sort());
        expect(res.json.pagination.total).toBe(expected.length);
      }),
      { numRuns: runs(60), seed: seed(), endOnFailure: true },
    );
  });

  it('sort by a number key puts nulls last and breaks ties by id, pages and cursors agreeing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('price', 'qty') as fc.Arbitrary<'price' | 'qty'>, fc.constantFrom('asc', 'desc') as fc.Arbitrary<'asc' | 'desc'>, fc.integer({ min: 1, max: 15 }), async (key, o, size) => {
        const sort = JSON.stringify([{ i: key, o }]);
        const ids: string[] = [];
        let cursor: string | null = null;
        do {
          const params: Record<string, string> = { sort, size: String(size), ...(cursor ? { cursor } : {}) };
          const res = await callWithin(t, 'GET', listPath(params), { token: w.writeKey });
          expect(res.status, res.text.slice(0, 300)).toBe(200);
          ids.push(...(res.json.list as { id: string }[]).map((x) => x.id));
          cursor = res.json.pagination.nextCursor;
        } while (cursor && ids.length <= rows.length);
        expect(ids).toEqual(sortedIds(rows, key, o));
      }),
      { numRuns: runs(8), seed: seed(), endOnFailure: true },
    );
  });
});
