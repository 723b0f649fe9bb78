/**
 * Runs the compiled SQL against PostgreSQL: each operator's result set, op=or, sorts with nulls
 * and ties, offset and keyset pagination, publicOnly, projection, locale fallback and count.
 * Expectations are computed in JS from the seeded rows. The query's JavaScript evaluation
 * (evaluate.ts, which the list cache trusts instead of the database) must match the same rows.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  columnSortExpression,
  compileListQuery,
  encodeCursor,
  pageOf,
  OPERATORS,
  parseListQuery,
  rowMatches,
  sortKeysOf,
  toListItem,
  type ListRow,
  type RawListParams,
  type RowValues,
} from '../../src/modules/query/index.js';
import { sqlLiteral } from '../../src/db/sql-literal.js';
import { JsonbArrayWriter, jsonbArray } from '../../src/db/jsonb-param.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { ALL_OPS, FIELD_MATRIX, PROJECT, json, sampleFilter, testTable } from './fixtures.js';
import { PUBLISHED_ONLY } from '../../src/modules/tables/table-def.js';

const TABLE_ID = randomUUID();
const OTHER_TABLE_ID = randomUUID();
const PROJECT_ID = randomUUID();
const table = testTable(TABLE_ID);

const WORDS = ['Alpha', 'Beta', 'Gamma', 'Delta', 'Omega'];
const NOTES = ['100% pure', 'snake_case', 'back\\slash', 'Plain Text'];
const REFS = [randomUUID(), randomUUID(), randomUUID()];
const pad = (n: number) => String(n).padStart(2, '0');

interface Row {
  i: number;
  id: string;
  status: string;
  slug: string | null;
  createdAt: string;
  publishedAt: string | null;
  publishAt: string | null;
  data: Record<string, unknown>;
}

/** Row i: every column is absent on some rows; prices and createdAt have ties. */
function dataOf(i: number): Record<string, unknown> {
  const d: Record<string, unknown> = { title: `${WORDS[i % 5]} ${pad(i)}`, status: `s${i % 2}` };
  if (i % 4 === 0) d.name = { en: `E${pad(i)}`, fr: `F${pad(29 - i)}` };
  if (i % 4 === 1) d.name = { en: `E${pad(i)}` };
  if (i % 4 === 2) d.name = { fr: `F${pad(29 - i)}` };
  if (i % 6 !== 5) d.price = ((i * 7) % 13) + 0.25;
  if (i % 10 !== 9) d.qty = i % 4;
  if (i % 3 !== 2) d.active = i % 2 === 0;
  if (i % 8 !== 7) d.day = `2026-01-${pad(1 + ((i * 3) % 28))}`;
  if (i % 9 !== 4) d.at = new Date(Date.UTC(2026, 2, 1) + (i % 2 ? 1 : -1) * i * 37 * 60_000).toISOString();
  if (i % 10 !== 0) d.category = ['a', 'b', 'c'][i % 3];
  if (i % 5 === 1) d.tags = [];
  else if (i % 5 !== 0) d.tags = ['x', 'y', 'z'].filter((_, j) => ((i >> j) & 1) === 1);
  if (i % 4 === 0) d.author = REFS[i % 3];
  if (i % 3 === 0) d.authors = [REFS[i % 3], REFS[(i + 1) % 3]];
  if (i % 6 === 0) d.meta = { k: i, nested: null };
  else if (i % 6 === 1) d.meta = null;
  if (i % 3 !== 0) d.note = NOTES[i % 4];
  return d;
}

/** createdAt with microseconds; rows 10, 11 and 12 share one (ties go by id). */
function createdAtOf(i: number): string {
  const s = i === 11 || i === 12 ? 10 : i;
  const micro = String((s * 123_457) % 1_000_000).padStart(6, '0');
  return `${new Date(Date.UTC(2026, 0, 1) + s * 1000).toISOString().slice(0, 19)}.${micro}Z`;
}

const statusOf = (i: number) =>
  i % 7 === 3 ? 'DRAFT' : i % 11 === 5 ? 'ARCHIVED' : i === 20 ? 'SCHEDULED' : 'PUBLISHED';

const ROWS: Row[] = Array.from({ length: 30 }, (_, i) => {
  const status = statusOf(i);
  const createdAt = createdAtOf(i);
  return {
    i,
    id: randomUUID(),
    status,
    slug: i % 5 === 4 ? null : `item-${pad(i)}`,
    createdAt,
    publishedAt: status === 'PUBLISHED' ? createdAt : null,
    publishAt: i === 20 ? '2030-01-01T00:00:00.000000Z' : null,
    data: dataOf(i),
  };
});
const PUBLISHED = ROWS.filter((r) => r.status === 'PUBLISHED');

let db: TestDatabase;
let client: pg.Client;

async function insertRow(tableId: string, r: Row, extraData: Record<string, unknown> = {}) {
  await client.query(
    `insert into contents (id, project_id, table_id, status, slug, data, publish_at, published_at, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $9)`,
    [r.id, PROJECT_ID, tableId, r.status, r.slug, JSON.stringify({ ...r.data, ...extraData }), r.publishAt, r.publishedAt, r.createdAt],
  );
}

beforeAll(async () => {
  db = await createTestDatabase();
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const workspaceId = randomUUID();
  await client.query(`insert into workspace (id, name, created_at, updated_at) values ($1, 'W', now(), now())`, [workspaceId]);
  await client.query(
    `insert into project (id, workspace_id, name, locales, default_locale, created_at, updated_at)
     values ($1, $2, 'P', '{en,fr}', 'en', now(), now())`,
    [PROJECT_ID, workspaceId],
  );
  for (const [id, key] of [[TABLE_ID, 'things'], [OTHER_TABLE_ID, 'others']]) {
    await client.query(`insert into content_table (id, project_id, key, name, created_at, updated_at) values ($1, $2, $3, $3, now(), now())`, [id, PROJECT_ID, key]);
  }
  // Row 0 also carries the key of a deleted column that the purge job has not removed yet.
  for (const r of ROWS) await insertRow(TABLE_ID, r, r.i === 0 ? { ghost: 'boo' } : {});
  for (const r of ROWS.slice(0, 3)) await insertRow(OTHER_TABLE_ID, { ...r, id: randomUUID() });
});

afterAll(async () => {
  await client?.end();
  await db?.drop();
});

/** Runs a list query; every one also runs with its values inlined as literals (what an export's COPY runs), with the same rows. */
async function run(raw: RawListParams, publicOnly = false) {
  const query = parseListQuery(raw, table, PROJECT);
  const { select, count } = compileListQuery(query, { tableId: TABLE_ID, rows: publicOnly ? PUBLISHED_ONLY : null });
  const rows: ListRow[] = (await client.query(select.text, select.values)).rows;
  const inlined = compileListQuery(query, { tableId: TABLE_ID, rows: publicOnly ? PUBLISHED_ONLY : null }, { inlineValues: true }).select;
  expect(inlined.values).toEqual([]);
  expect((await client.query(inlined.text)).rows, inlined.text).toEqual(rows);
  const total: number | null = count ? (await client.query(count.text, count.values)).rows[0].total : null;
  return { query, rows, total, page: pageOf(query, rows) };
}

const idsOf = (rows: { id: string }[]) => rows.map((r) => r.id);
const sortedIds = (rows: { id: string }[]) => idsOf(rows).sort();

/** The filter finds exactly the rows `pred` holds for (and counts them). */
async function expectFilter(filter: unknown[], pred: (d: Record<string, unknown>, r: Row) => boolean, extra: RawListParams = {}) {
  const { rows, total } = await run({ size: 1000, filter: json(filter), ...extra });
  const expected = sortedIds(ROWS.filter((r) => pred(r.data, r)));
  expect(sortedIds(rows), `${json(filter)} ${json(extra)}`).toEqual(expected);
  expect(total).toBe(expected.length);
  return expected.length;
}

type SortValue = string | number | boolean | null;
/** The oracle's order: keys with nulls last in both directions, then id in the last direction. */
function ordered(keys: [(r: Row) => SortValue, 1 | -1][], rows: Row[] = ROWS): string[] {
  const lastDir = keys[keys.length - 1][1];
  return [...rows]
    .sort((a, b) => {
      for (const [get, dir] of keys) {
        const [x, y] = [get(a), get(b)];
        if (x === y) continue;
        if (x === null) return 1;
        if (y === null) return -1;
        return (x < y ? -1 : 1) * dir;
      }
      return (a.id < b.id ? -1 : 1) * lastDir;
    })
    .map((r) => r.id);
}
const v = (name: string) => (r: Row): SortValue => {
  const value = r.data[name];
  return value === undefined ? null : (value as SortValue);
};
const fr = (r: Row): SortValue => (r.data.name as { fr?: string } | undefined)?.fr ?? null;
const has = (d: Record<string, unknown>, k: string) => d[k] !== undefined && d[k] !== null;
const lc = (x: unknown) => String(x).toLowerCase();
const tags = (d: Record<string, unknown>) => (Array.isArray(d.tags) ? (d.tags as string[]) : []);

describe('values inlined as literals', () => {
  const tricky = ["it's", "''", 'back\\slash', '\\', "E'\\x41'", '$1', '{a,b}', 'a"b', 'NULL', '', ' spaced ', 'ünïcødé 🎉', 'line\nbreak', '%_'];
  it('read back as the parameter would: text, arrays of text, numbers, booleans, null', async () => {
    const cases: [unknown, string][] = [
      ...tricky.map((value) => [value, 'text'] as [unknown, string]),
      [tricky, 'text[]'],
      [[null, 'x', 'y,z'], 'text[]'],
      [[1.5, -2, 1e21], 'float8[]'],
      [-0.125, 'float8'],
      [12345678901234, 'int8'],
      [true, 'boolean'],
      [false, 'boolean'],
      [null, 'text'],
      ['0190c0de-0000-7000-8000-000000000000', 'uuid'],
      ['2026-11-26T07:00:00.123456Z', 'timestamptz'],
    ];
    for (const [value, cast] of cases) {
      const asParameter = (await client.query(`select $1::${cast} as v`, [value])).rows[0].v;
      const asLiteral = (await client.query(`select ${sqlLiteral(value)}::${cast} as v`)).rows[0].v;
      expect(asLiteral, `${JSON.stringify(value)}::${cast}`).toEqual(asParameter);
    }
  });

  it('sends a JSON array as a binary jsonb parameter that PostgreSQL reads like the JSON text', async () => {
    const items = [{ a: 'Wörld ✓ 🎉', b: ['x', null, 1.5], c: { 'k"ey': 'line\nbreak\\' } }, 'plain', 0, null, []];
    const writer = new JsonbArrayWriter();
    // The writer's buffer grows, then is reused for a shorter array: nothing of the longer one may show.
    for (const value of [items, [], [items[0]], items, ['x']]) {
      const texts = value.map((v) => JSON.stringify(v));
      const asText = (await client.query(`select $1::jsonb as v`, [JSON.stringify(value)])).rows[0].v;
      expect((await client.query(`select $1::jsonb as v`, [jsonbArray(texts)])).rows[0].v).toEqual(asText);
      expect((await client.query(`select $1::jsonb as v`, [writer.write(texts)])).rows[0].v).toEqual(asText);
    }
  });

  it('refuses values it has no literal for', () => {
    expect(() => sqlLiteral(Number.NaN)).toThrow(TypeError);
    expect(() => sqlLiteral({ a: 1 })).toThrow(TypeError);
  });
});

describe('every applicable operator runs on every field type', () => {
  it('compiles to valid SQL for the whole matrix', async () => {
    for (const field of FIELD_MATRIX) {
      for (const w of ALL_OPS.filter((op) => field.ops.includes(op))) {
        await expect(run({ filter: json([sampleFilter(field.i, w, field.sample)]) }), `${field.i} ${w}`).resolves.toBeDefined();
      }
    }
  });
});

describe('filters', () => {
  it('eq is exact on numbers, text (case-sensitive), booleans, references', async () => {
    expect(await expectFilter([{ i: 'price', w: 'eq', v: 3.25 }], (d) => d.price === 3.25)).toBeGreaterThan(1);
    expect(await expectFilter([{ i: 'title', w: 'eq', v: 'Gamma 07' }], (d) => d.title === 'Gamma 07')).toBe(1);
    await expectFilter([{ i: 'title', w: 'eq', v: 'gamma 07' }], () => false);
    await expectFilter([{ i: 'active', w: 'eq', v: 'true' }], (d) => d.active === true);
    await expectFilter([{ i: 'author', w: 'eq', v: REFS[1].toUpperCase() }], (d) => d.author === REFS[1]);
    await expectFilter([{ i: 'data.status', w: 'eq', v: 's1' }], (d) => d.status === 's1');
  });

  it('negations are complements: rows without a value match them', async () => {
    await expectFilter([{ i: 'active', w: 'neq', v: false }], (d) => d.active !== false);
    await expectFilter([{ i: 'category', w: 'neq', v: 'a' }], (d) => d.category !== 'a');
    await expectFilter([{ i: 'category', w: 'nin', v: 'a,b' }], (d) => d.category !== 'a' && d.category !== 'b');
    await expectFilter([{ i: 'note', w: 'ncontains', v: 'TEXT' }], (d) => !lc(d.note ?? '').includes('text'));
    await expectFilter([{ i: 'title', w: 'ncontains', v: 'MEG' }], (d) => !lc(d.title).includes('meg'));
  });

  it('gt, gte, lt, lte and between (inclusive) on numbers, dates and datetimes', async () => {
    await expectFilter([{ i: 'price', w: 'gt', v: '7.25' }], (d) => has(d, 'price') && Number(d.price) > 7.25);
    await expectFilter([{ i: 'price', w: 'gte', v: 7.25 }], (d) => has(d, 'price') && Number(d.price) >= 7.25);
    await expectFilter([{ i: 'qty', w: 'lt', v: 2 }], (d) => has(d, 'qty') && Number(d.qty) < 2);
    await expectFilter([{ i: 'qty', w: 'lte', v: '1' }], (d) => has(d, 'qty') && Number(d.qty) <= 1);
    await expectFilter([{ i: 'price', w: 'between', v: [3.25, 7.25] }], (d) => has(d, 'price') && Number(d.price) >= 3.25 && Number(d.price) <= 7.25);
    await expectFilter([{ i: 'day', w: 'gte', v: '2026-01-15' }], (d) => has(d, 'day') && String(d.day) >= '2026-01-15');
    await expectFilter([{ i: 'day', w: 'between', v: '2026-01-04,2026-01-10' }], (d) => has(d, 'day') && String(d.day) >= '2026-01-04' && String(d.day) <= '2026-01-10');
    const midnight = Date.UTC(2026, 2, 1);
    await expectFilter([{ i: 'at', w: 'lt', v: '2026-03-01T01:00:00+01:00' }], (d) => has(d, 'at') && Date.parse(String(d.at)) < midnight);
    await expectFilter([{ i: 'at', w: 'gte', v: '2026-03-01' }], (d) => has(d, 'at') && Date.parse(String(d.at)) >= midnight);
  });

  it('text operators are case-insensitive and match %, _ and \\ literally', async () => {
    await expectFilter([{ i: 'title', w: 'contains', v: 'ALP' }], (d) => lc(d.title).includes('alp'));
    await expectFilter([{ i: 'title', w: 'startsWith', v: 'gam' }], (d) => lc(d.title).startsWith('gam'));
    await expectFilter([{ i: 'title', w: 'endsWith', v: '7' }], (d) => String(d.title).endsWith('7'));
    expect(await expectFilter([{ i: 'note', w: 'contains', v: '%' }], (d) => d.note === '100% pure')).toBeGreaterThan(0);
    expect(await expectFilter([{ i: 'note', w: 'contains', v: '_' }], (d) => d.note === 'snake_case')).toBeGreaterThan(0);
    expect(await expectFilter([{ i: 'note', w: 'contains', v: '\\' }], (d) => d.note === 'back\\slash')).toBeGreaterThan(0);
    await expectFilter([{ i: 'note', w: 'startsWith', v: '100%' }], (d) => d.note === '100% pure');
    await expectFilter([{ i: 'note', w: 'endsWith', v: 'e_case' }], (d) => d.note === 'snake_case');
    await expectFilter([{ i: 'note', w: 'endsWith', v: 'ecase' }], () => false);
  });

  it('in and nin with arrays and comma-separated strings', async () => {
    await expectFilter([{ i: 'category', w: 'in', v: ['a', 'b'] }], (d) => d.category === 'a' || d.category === 'b');
    await expectFilter([{ i: 'category', w: 'in', v: 'b,c' }], (d) => d.category === 'b' || d.category === 'c');
    await expectFilter([{ i: 'qty', w: 'in', v: '0,3' }], (d) => d.qty === 0 || d.qty === 3);
    await expectFilter([{ i: 'qty', w: 'nin', v: [0, 3] }], (d) => d.qty !== 0 && d.qty !== 3);
  });

  it('null: absent, JSON null (json) and empty arrays (multiple) are null', async () => {
    await expectFilter([{ i: 'note', w: 'null', v: true }], (d) => d.note === undefined);
    await expectFilter([{ i: 'note', w: 'null', v: 'false' }], (d) => d.note !== undefined);
    await expectFilter([{ i: 'price', w: 'null', v: true }], (d) => d.price === undefined);
    expect(await expectFilter([{ i: 'meta', w: 'null', v: true }], (d) => d.meta === undefined || d.meta === null)).toBeGreaterThan(20);
    await expectFilter([{ i: 'meta', w: 'null', v: false }], (d) => has(d, 'meta'));
    await expectFilter([{ i: 'tags', w: 'null', v: true }], (d) => tags(d).length === 0);
    await expectFilter([{ i: 'tags', w: 'null', v: false }], (d) => tags(d).length > 0);
  });

  it('multiple columns: eq/in contain, neq/nin contain none', async () => {
    await expectFilter([{ i: 'tags', w: 'eq', v: 'x' }], (d) => tags(d).includes('x'));
    await expectFilter([{ i: 'tags', w: 'in', v: ['y', 'z'] }], (d) => tags(d).includes('y') || tags(d).includes('z'));
    await expectFilter([{ i: 'tags', w: 'neq', v: 'z' }], (d) => !tags(d).includes('z'));
    await expectFilter([{ i: 'tags', w: 'nin', v: 'x,y' }], (d) => !tags(d).includes('x') && !tags(d).includes('y'));
    await expectFilter([{ i: 'authors', w: 'eq', v: REFS[0].toUpperCase() }], (d) => Array.isArray(d.authors) && d.authors.includes(REFS[0]));
  });

  it('localized: l picks the locale, default otherwise, never a fallback', async () => {
    const name = (d: Record<string, unknown>) => (d.name ?? {}) as { en?: string; fr?: string };
    await expectFilter([{ i: 'name', w: 'eq', v: 'F05', l: 'fr' }], (d) => name(d).fr === 'F05');
    await expectFilter([{ i: 'name', w: 'eq', v: 'F05' }], () => false);
    await expectFilter([{ i: 'name', w: 'eq', v: 'E04' }], (d) => name(d).en === 'E04');
    await expectFilter([{ i: 'name', w: 'startsWith', v: 'f', l: 'fr' }], (d) => name(d).fr !== undefined);
    await expectFilter([{ i: 'name', w: 'null', v: true, l: 'fr' }], (d) => name(d).fr === undefined);
    await expectFilter([{ i: 'name', w: 'neq', v: 'E01' }], (d) => name(d).en !== 'E01');
  });

  it('system fields: id, status, slug, timestamps (microseconds)', async () => {
    await expectFilter([{ i: 'id', w: 'eq', v: ROWS[3].id }], (_, r) => r.i === 3);
    await expectFilter([{ i: 'id', w: 'nin', v: [ROWS[3].id, ROWS[4].id] }], (_, r) => r.i !== 3 && r.i !== 4);
    await expectFilter([{ i: 'status', w: 'in', v: 'draft,archived' }], (_, r) => r.status === 'DRAFT' || r.status === 'ARCHIVED');
    await expectFilter([{ i: 'slug', w: 'null', v: true }], (_, r) => r.slug === null);
    await expectFilter([{ i: 'slug', w: 'neq', v: 'item-01' }], (_, r) => r.slug !== 'item-01');
    await expectFilter([{ i: 'slug', w: 'startsWith', v: 'ITEM-1' }], (_, r) => r.slug?.startsWith('item-1') === true);
    await expectFilter([{ i: 'createdAt', w: 'gte', v: ROWS[28].createdAt }], (_, r) => r.i >= 28);
    await expectFilter([{ i: 'createdAt', w: 'eq', v: ROWS[10].createdAt }], (_, r) => [10, 11, 12].includes(r.i));
    await expectFilter([{ i: 'createdAt', w: 'lt', v: '2026-01-01T00:00:05Z' }], (_, r) => r.i < 5);
    await expectFilter([{ i: 'publishedAt', w: 'null', v: true }], (_, r) => r.publishedAt === null);
    await expectFilter([{ i: 'publishAt', w: 'gt', v: '2029-12-31' }], (_, r) => r.i === 20);
  });

  it('and by default, or with op=or', async () => {
    const a = { i: 'title', w: 'startsWith', v: 'alp' };
    const b = { i: 'category', w: 'eq', v: 'c' };
    await expectFilter([a, b], (d) => lc(d.title).startsWith('alp') && d.category === 'c');
    await expectFilter([a, b], (d) => lc(d.title).startsWith('alp') || d.category === 'c', { op: 'or' });
  });

  it('only rows of the table', async () => {
    const { rows, total } = await run({ size: 1000 });
    expect(sortedIds(rows)).toEqual(sortedIds(ROWS));
    expect(total).toBe(30);
  });
});

describe('publicOnly', () => {
  it('hides non-PUBLISHED rows whatever the filter says', async () => {
    const all = await run({ size: 1000 }, true);
    expect(sortedIds(all.rows)).toEqual(sortedIds(PUBLISHED));
    expect(all.total).toBe(PUBLISHED.length);
    for (const v of ['DRAFT', 'ARCHIVED', 'SCHEDULED']) {
      const hidden = await run({ filter: json([{ i: 'status', w: 'eq', v }]) }, true);
      expect([hidden.rows.length, hidden.total]).toEqual([0, 0]);
    }
    const orEscape = await run({ filter: json([{ i: 'status', w: 'eq', v: 'DRAFT' }, { i: 'qty', w: 'null', v: false }]), op: 'or', size: 1000 }, true);
    expect(orEscape.rows.every((r) => r.status === 'PUBLISHED')).toBe(true);
  });
});

describe('the JavaScript mirror of the SQL (evaluate.ts, the list cache) matches the same rows', () => {
  /** A seeded row as the change log records it: timestamps in UTC microseconds, as seeded. */
  const imageOf = (r: Row): RowValues => ({
    id: r.id,
    status: r.status,
    slug: r.slug,
    createdAt: r.createdAt,
    updatedAt: r.createdAt,
    publishedAt: r.publishedAt,
    publishAt: r.publishAt,
    data: r.data,
  });

  /** The distinct scalar values field `i` has in the seeded rows (the items of multiple columns). */
  function valuesOf(i: string): (string | number | boolean)[] {
    const get = (r: Row): unknown => {
      if (i === 'id' || i === 'slug' || i === 'status' || i === 'createdAt' || i === 'publishedAt' || i === 'publishAt') return r[i];
      if (i === 'updatedAt') return r.createdAt;
      if (i === 'name') return (r.data.name as { en?: string } | undefined)?.en;
      return r.data[i === 'data.status' ? 'status' : i];
    };
    const values = ROWS.flatMap((r) => [get(r)].flat()).filter((v): v is string | number | boolean => ['string', 'number', 'boolean'].includes(typeof v));
    return [...new Set(values)].sort((a, b) => (typeof a === 'number' && typeof b === 'number' ? a - b : String(a) < String(b) ? -1 : 1));
  }

  /** Filters of operator `w` on field `i`: values the rows hold (first, middle, last) and the matrix's sample. */
  function filtersOf(i: string, w: string, sample: string): Record<string, unknown>[] {
    if (w === 'null') return [true, false].map((v) => ({ i, w, v }));
    const held = valuesOf(i);
    const picks = [...new Set([held[0], held[Math.floor(held.length / 2)], held.at(-1), sample])].filter((v) => v !== undefined);
    return picks.map((v, n) => {
      const text = String(v);
      const other = picks[(n + 1) % picks.length];
      switch (w) {
        case 'contains':
        case 'ncontains':
          return { i, w, v: text.slice(1, 4).toUpperCase() };
        case 'startsWith':
          return { i, w, v: text.slice(0, 3).toLowerCase() };
        case 'endsWith':
          return { i, w, v: text.slice(-2) };
        case 'in':
        case 'nin':
          return { i, w, v: [v, other] };
        case 'between':
          return { i, w, v: [v, other].sort((a, b) => (typeof a === 'number' && typeof b === 'number' ? a - b : String(a) < String(b) ? -1 : 1)) };
        default:
          return { i, w, v };
      }
    });
  }

  /** The rows PostgreSQL returns for `filter` and those the mirror says match; every row must be decided. */
  async function compare(filter: Record<string, unknown>[], op: 'and' | 'or', publicOnly: boolean) {
    const { query, rows } = await run({ size: 1000, filter: json(filter), op }, publicOnly);
    const answers = ROWS.map((r) => ({ id: r.id, match: rowMatches({ query, rows: publicOnly ? PUBLISHED_ONLY : null }, imageOf(r)) }));
    const context = `${json(filter)} op=${op} publicOnly=${publicOnly}`;
    expect(answers.filter((a) => a.match === null).map((a) => a.id), `undecided: ${context}`).toEqual([]);
    expect(sortedIds(answers.filter((a) => a.match)), context).toEqual(sortedIds(rows));
    return query;
  }

  it('every operator on every field, with values the rows hold, as one filter, and combined by and/or', async () => {
    const seen = new Set<string>();
    for (const field of FIELD_MATRIX) {
      for (const w of field.ops) {
        for (const [n, filter] of filtersOf(field.i, w, field.sample).entries()) {
          const query = await compare([filter], 'and', n % 2 === 1);
          seen.add(`${w}${query.filters[0].field.source === 'column' && query.filters[0].field.column.settings.multiple ? ' multiple' : ''}`);
          const second = { i: 'qty', w: 'gte', v: 2 };
          await compare([filter, second], n % 2 === 0 ? 'or' : 'and', false);
        }
      }
    }
    // Each operator ran, and each one that applies to multiple columns ran on them too.
    const onMultiple = ['eq', 'neq', 'in', 'nin', 'null'].map((w) => `${w} multiple`);
    expect([...seen].sort()).toEqual([...OPERATORS, ...onMultiple].sort());
  });

  it('the sort keys it computes are the ones the select returns', async () => {
    const sortable = FIELD_MATRIX.filter((f) => !['tags', 'authors', 'gallery', 'meta'].includes(f.i));
    for (const field of sortable) {
      const { query, rows } = await run({ size: 1000, sort: json([{ i: field.i, o: 'desc' }, { i: field.i === 'qty' ? 'price' : 'qty' }]) });
      const byId = new Map(ROWS.map((r) => [r.id, r]));
      for (const row of rows) {
        expect(sortKeysOf(query.sort, imageOf(byId.get(row.id)!)), `${field.i} of row ${row.id}`).toEqual([row._k0, row._k1]);
      }
    }
  });
});

describe('sort', () => {
  const cases: [string, RawListParams['sort'], [(r: Row) => SortValue, 1 | -1][]][] = [
    ['default createdAt desc (ties by id desc)', undefined, [[(r) => r.createdAt, -1]]],
    ['createdAt asc (ties by id asc)', json([{ i: 'createdAt', o: 'asc' }]), [[(r) => r.createdAt, 1]]],
    ['price asc, nulls last', json([{ i: 'price', o: 'asc' }]), [[v('price'), 1]]],
    ['price desc, nulls last', json([{ i: 'price', o: 'desc' }]), [[v('price'), -1]]],
    ['qty asc, price desc', json([{ i: 'qty' }, { i: 'price', o: 'desc' }]), [[v('qty'), 1], [v('price'), -1]]],
    ['title asc', json([{ i: 'title' }]), [[v('title'), 1]]],
    ['name fr asc', json([{ i: 'name', l: 'fr' }]), [[fr, 1]]],
    ['active desc, day asc', json([{ i: 'active', o: 'desc' }, { i: 'day' }]), [[v('active'), -1], [v('day'), 1]]],
    ['at desc', json([{ i: 'at', o: 'desc' }]), [[v('at'), -1]]],
    ['category desc, createdAt asc', json([{ i: 'category', o: 'desc' }, { i: 'createdAt' }]), [[v('category'), -1], [(r) => r.createdAt, 1]]],
    ['slug desc', json([{ i: 'slug', o: 'desc' }]), [[(r) => r.slug, -1]]],
    ['publishedAt asc, status desc', json([{ i: 'publishedAt' }, { i: 'status', o: 'desc' }]), [[(r) => r.publishedAt, 1], [(r) => r.status, -1]]],
    ['id desc', json([{ i: 'id', o: 'desc' }]), [[(r) => r.id, -1]]],
  ];
  for (const [name, sort, keys] of cases) {
    it(name, async () => {
      const { rows } = await run({ size: 1000, sort });
      expect(idsOf(rows)).toEqual(ordered(keys));
    });
  }
});

describe('offset pagination', () => {
  it('pages of 7: 7, 7, 7, 7, 2, then none; hasNext from the extra row', async () => {
    const expected = ordered([[(r) => r.createdAt, -1]]);
    const seen: string[] = [];
    for (let page = 1; page <= 6; page += 1) {
      const { page: p, rows, total } = await run({ size: 7, page });
      expect(rows.length).toBe(Math.min(8, Math.max(0, 30 - (page - 1) * 7)));
      expect(p.rows.length).toBe([7, 7, 7, 7, 2, 0][page - 1]);
      expect(p.hasNext).toBe(page < 5);
      expect(p.nextCursor === null).toBe(page >= 5);
      expect(total).toBe(30);
      seen.push(...idsOf(p.rows));
    }
    expect(seen).toEqual(expected);
  });

  it('size equal to the total has no next page; one less has', async () => {
    expect((await run({ size: 30 })).page.hasNext).toBe(false);
    expect((await run({ size: 29 })).page.hasNext).toBe(true);
  });

  it('withCount=false: no total, hasNext still known', async () => {
    const { total, page } = await run({ size: 20, withCount: false });
    expect([total, page.hasNext]).toEqual([null, true]);
  });
});

describe('keyset pagination', () => {
  /** Walks the whole list through nextCursor; every page is also checked against the count. */
  async function walk(raw: RawListParams, publicOnly = false): Promise<string[]> {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 100; pages += 1) {
      const { page, total } = await run({ ...raw, cursor }, publicOnly);
      expect(page.rows.length).toBeLessThanOrEqual(raw.size ?? 20);
      expect(total).not.toBeNull();
      seen.push(...idsOf(page.rows));
      if (page.nextCursor === null) return seen;
      cursor = page.nextCursor;
    }
    throw new Error('more than 100 pages');
  }

  const sorts: (string | undefined)[] = [
    undefined,
    json([{ i: 'createdAt', o: 'asc' }]),
    json([{ i: 'price', o: 'desc' }]),
    json([{ i: 'price', o: 'asc' }, { i: 'createdAt', o: 'desc' }]),
    json([{ i: 'qty', o: 'desc' }, { i: 'price', o: 'asc' }, { i: 'title', o: 'desc' }]),
    json([{ i: 'name', o: 'asc', l: 'fr' }, { i: 'active', o: 'desc' }]),
    json([{ i: 'category', o: 'asc' }, { i: 'day', o: 'desc' }, { i: 'at', o: 'asc' }]),
    json([{ i: 'slug', o: 'desc' }, { i: 'publishedAt', o: 'asc' }]),
    json([{ i: 'status', o: 'asc' }, { i: 'updatedAt', o: 'asc' }]),
    json([{ i: 'id', o: 'asc' }]),
  ];
  for (const sort of sorts) {
    it(`walks every row once in offset order: ${sort ?? 'default'}`, async () => {
      const all = idsOf((await run({ size: 1000, sort })).rows);
      expect(all).toHaveLength(30);
      for (const size of [1, 4, 7]) expect(await walk({ size, sort }), `size ${size}`).toEqual(all);
    });
  }

  it('with filters, op=or and publicOnly', async () => {
    const filter = json([{ i: 'qty', w: 'gte', v: 1 }, { i: 'tags', w: 'eq', v: 'x' }]);
    const sort = json([{ i: 'price', o: 'desc' }, { i: 'title', o: 'asc' }]);
    for (const [op, publicOnly] of [['and', false], ['or', false], ['or', true]] as const) {
      const all = idsOf((await run({ size: 1000, sort, filter, op }, publicOnly)).rows);
      expect(all.length).toBeGreaterThan(3);
      expect(await walk({ size: 3, sort, filter, op }, publicOnly)).toEqual(all);
    }
  });

  it('the first offset page and the cursor continuation together equal the whole order', async () => {
    const sort = json([{ i: 'price', o: 'asc' }]);
    const first = await run({ size: 10, sort });
    const rest = await run({ size: 1000, sort, cursor: first.page.nextCursor ?? undefined });
    expect([...idsOf(first.page.rows), ...idsOf(rest.page.rows)]).toEqual(ordered([[v('price'), 1]]));
  });
});

describe('projection and locale', () => {
  const byId = new Map(ROWS.map((r) => [r.id, r]));
  const items = async (raw: RawListParams) => {
    const { query, rows } = await run({ size: 1000, ...raw });
    return rows.map((row) => ({ row: byId.get(row.id), item: toListItem(row, query) }));
  };

  it('fields: only the asked columns under data, absent ones absent, JSON null kept', async () => {
    for (const { row, item } of await items({ fields: 'title,price,meta' })) {
      const expected: Record<string, unknown> = { title: row?.data.title };
      if (row?.data.price !== undefined) expected.price = row.data.price;
      if (row?.data.meta !== undefined) expected.meta = row.data.meta;
      expect(item).toEqual({ id: row?.id, data: expected });
    }
  });

  it('fields: system fields asked for, no data when no column is', async () => {
    for (const { row, item } of await items({ fields: 'slug,createdAt' })) {
      expect(item).toEqual({ id: row?.id, slug: row?.slug, createdAt: new Date(row?.createdAt ?? '').toISOString() });
    }
    // `status` is both a system field and a column of this table: both are returned.
    for (const { row, item } of await items({ fields: 'status' })) {
      expect(item).toEqual({ id: row?.id, status: row?.status, data: { status: row?.data.status } });
    }
  });

  it('without fields: everything, keys of deleted columns dropped', async () => {
    for (const { row, item } of await items({})) {
      expect(item).toEqual({
        id: row?.id,
        slug: row?.slug,
        status: row?.status,
        data: row?.data,
        createdAt: new Date(row?.createdAt ?? '').toISOString(),
        updatedAt: new Date(row?.createdAt ?? '').toISOString(),
        publishedAt: row?.publishedAt ? new Date(row.publishedAt).toISOString() : null,
        publishAt: row?.publishAt ? new Date(row.publishAt).toISOString() : null,
        // Inserted here without revisions: the column's default.
        version: 1,
        hasDraft: false,
      });
    }
  });

  it('locale=fr: plain values in fr, else en, else absent; other columns unchanged', async () => {
    for (const fields of [undefined, 'name,title,meta']) {
      for (const { row, item } of await items({ locale: 'fr', fields })) {
        const name = row?.data.name as { en?: string; fr?: string } | undefined;
        const data = item.data as Record<string, unknown>;
        const expected = name?.fr ?? name?.en;
        if (expected === undefined) expect('name' in data).toBe(false);
        else expect(data.name).toBe(expected);
        expect(data.title).toBe(row?.data.title);
        expect(data.meta).toEqual(row?.data.meta);
        if (!fields) expect(data.tags).toEqual(row?.data.tags);
      }
    }
  });

  it('locale=en: plain en values, rows with only fr have none', async () => {
    for (const { row, item } of await items({ locale: 'en', fields: 'name' })) {
      const en = (row?.data.name as { en?: string } | undefined)?.en;
      expect(item.data).toEqual(en === undefined ? {} : { name: en });
    }
  });
});

describe('index use', () => {
  /** The plan of the page statement, with sequential scans priced out so that any usable index is taken. */
  async function plan(raw: RawListParams, publicOnly = false): Promise<string> {
    const query = parseListQuery(raw, table, PROJECT);
    const { select } = compileListQuery(query, { tableId: TABLE_ID, rows: publicOnly ? PUBLISHED_ONLY : null });
    await client.query('set enable_seqscan = off');
    try {
      const { rows } = await client.query(`explain ${select.text}`, select.values);
      return rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n');
    } finally {
      await client.query('reset enable_seqscan');
    }
  }

  it('the default sort reads the (table_id, status, created_at desc, id desc) index in order, also after a cursor', async () => {
    const p = await plan({ size: 20 }, true);
    expect(p).toContain('contents_table_status_created');
    expect(p).not.toMatch(/\bSort\b/);
    const query = parseListQuery({ size: 5 }, table, PROJECT);
    const cursor = encodeCursor(query, { id: ROWS[9].id, _k0: ROWS[9].createdAt });
    const after = await plan({ size: 5, cursor }, true);
    expect(after).toContain('contents_table_status_created');
    expect(after).toMatch(/Index Cond: .*ROW\(created_at, id\) < ROW/);
    expect(after).not.toMatch(/\bSort\b/);
  });

  it('an index on columnSortExpression serves an ascending sort and an equality filter', async () => {
    const price = table.columns.find((c) => c.name === 'price');
    if (!price) throw new Error('price');
    await client.query(`create index test_price on contents (${columnSortExpression(price)}, id) where table_id = '${TABLE_ID}'`);
    try {
      const sorted = await plan({ size: 5, sort: json([{ i: 'price', o: 'asc' }]) });
      expect(sorted).toContain('test_price');
      expect(sorted).not.toMatch(/\bSort\b/);
      const filtered = await plan({ filter: json([{ i: 'price', w: 'eq', v: 3.25 }]), sort: json([{ i: 'price' }]) });
      expect(filtered).toMatch(/Index Scan using test_price[^\n]*\n *Index Cond: .*END = '3\.25'::double precision/);
    } finally {
      await client.query('drop index test_price');
    }
  });
});
