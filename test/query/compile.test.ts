import { describe, expect, it } from 'vitest';
import {
  columnExpression,
  columnIndexExpressions,
  columnSortExpression,
  columnUniqueExpression,
  compileListQuery,
  encodeCursor,
  literal,
  parseListQuery,
  type RawListParams,
  type SqlQuery,
} from '../../src/modules/query/index.js';
import { ALL_OPS, FIELD_MATRIX, PROJECT, TABLE_ID, json, sampleFilter, testTable } from './fixtures.js';
import { PUBLISHED_ONLY } from '../../src/modules/tables/table-def.js';

const table = testTable();
const col = (name: string) => {
  const c = table.columns.find((x) => x.name === name);
  if (!c) throw new Error(name);
  return c;
};
const compile = (raw: RawListParams, publicOnly = false) =>
  compileListQuery(parseListQuery(raw, table, PROJECT), { tableId: TABLE_ID, rows: publicOnly ? PUBLISHED_ONLY : null });
const filtered = (...items: unknown[]) => compile({ filter: json(items) }).select;

/** Every `$n` in the text is within the values, and every value is used. */
function expectPlaceholdersMatch(q: SqlQuery): void {
  const used = new Set([...q.text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
  expect([...used].sort((a, b) => a - b)).toEqual(q.values.map((_, i) => i + 1));
}

describe('expressions (shared with the index DDL)', () => {
  it('uses exactly the agreed expression per type', () => {
    // String columns sort by a 256-character prefix: a btree entry cannot hold a long value.
    expect(columnSortExpression(col('title'))).toBe(`left((data->>'title'), 256)`);
    expect(columnSortExpression(col('name'), 'fr')).toBe(`left((data->'name'->>'fr'), 256)`);
    expect(columnUniqueExpression(col('title'))).toBe(`md5((data->>'title'))`);
    expect(columnUniqueExpression(col('price'))).toBe(`(case when jsonb_typeof(data->'price') = 'number' then (data->>'price')::float8 end)`);
    expect(columnSortExpression(col('price'))).toBe(`(case when jsonb_typeof(data->'price') = 'number' then (data->>'price')::float8 end)`);
    expect(columnSortExpression(col('qty'))).toBe(`(case when jsonb_typeof(data->'qty') = 'number' then (data->>'qty')::float8 end)`);
    expect(columnSortExpression(col('active'))).toBe(`(case when jsonb_typeof(data->'active') = 'boolean' then (data->>'active')::boolean end)`);
    expect(columnSortExpression(col('day'))).toBe(`(data->>'day')`);
    expect(columnSortExpression(col('at'))).toBe(`(data->>'at')`);
    expect(columnSortExpression(col('category'))).toBe(`(data->>'category')`);
    expect(columnSortExpression(col('author'))).toBe(`(data->>'author')`);
    expect(columnExpression(col('tags'))).toBe(`(data->'tags')`);
    expect(() => columnSortExpression(col('tags'))).toThrow();
    expect(() => columnSortExpression(col('meta'))).toThrow();
    expect(() => columnExpression(col('name'))).toThrow(/locale/);
  });

  it('lists index expressions per column', () => {
    expect(columnIndexExpressions(col('name'), ['en', 'fr']).map((x) => `${x.method}:${x.expression}`)).toEqual([
      `btree:left((data->'name'->>'en'), 256)`, `gin:(data->'name'->>'en')`, `btree:left((data->'name'->>'fr'), 256)`, `gin:(data->'name'->>'fr')`,
    ]);
    expect(columnIndexExpressions(col('price'), ['en'])).toEqual([{ expression: `(case when jsonb_typeof(data->'price') = 'number' then (data->>'price')::float8 end)`, method: 'btree', opclass: null }]);
    expect(columnIndexExpressions(col('tags'), ['en'])).toEqual([{ expression: `(data->'tags')`, method: 'gin', opclass: 'jsonb_path_ops' }]);
    expect(columnIndexExpressions(col('meta'), ['en'])).toEqual([]);
  });

  it('literal() embeds names as they are and escapes anything else into one string literal', () => {
    expect(literal('title_2')).toBe(`'title_2'`);
    expect(literal('pt-BR')).toBe(`'pt-BR'`);
    expect(literal(`fr'); drop table contents; --`)).toBe(`'fr''); drop table contents; --'`);
    expect(literal('a\\b')).toBe(` E'a\\\\b'`);
  });
});

describe('statement shape', () => {
  it('default: table scope, createdAt desc with id tie-break, size + 1, offset', () => {
    const { select, count } = compile({});
    expect(select.text).toBe(
      'select id, status, slug, created_at as "createdAt", updated_at as "updatedAt", published_at as "publishedAt", ' +
        `publish_at as "publishAt", version, draft is not null as "hasDraft", data as data, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "_k0" ` +
        'from contents where table_id = $1::uuid order by created_at desc, id desc limit $2::int8 offset $3::int8',
    );
    expect(select.values).toEqual([TABLE_ID, 21, 0]);
    expect(count).toEqual({ text: 'select count(*)::float8 as total, pg_current_snapshot()::text as snapshot from contents where table_id = $1::uuid', values: [TABLE_ID] });
  });

  it('offset is (page - 1) * size', () => {
    expect(compile({ page: 4, size: 25 }).select.values.slice(-2)).toEqual([26, 75]);
  });

  it('a view of PUBLISHED rows always adds status = PUBLISHED, also to the count and whatever the filter', () => {
    const { select, count } = compile({ filter: json([{ i: 'status', w: 'eq', v: 'DRAFT' }]) }, true);
    expect(select.text).toContain(`where table_id = $1::uuid and (status = 'PUBLISHED') and ((status = $2::text))`);
    expect(count?.text).toContain(`status = 'PUBLISHED'`);
  });

  it('withCount=false gives no count', () => {
    expect(compile({ withCount: false }).count).toBeNull();
  });

  it('op=or joins the filters inside parentheses', () => {
    const { text, values } = compile({ filter: json([{ i: 'qty', w: 'eq', v: 1 }, { i: 'title', w: 'eq', v: 'a' }]), op: 'or' }).select;
    expect(text).toContain(`where table_id = $1::uuid and (((case when jsonb_typeof(data->'qty') = 'number' then (data->>'qty')::float8 end) = $2::float8) or (left((data->>'title'), 256) = $3::text and (data->>'title') = $4::text))`);
    expect(values.slice(0, 4)).toEqual([TABLE_ID, 1, 'a', 'a']);
  });

  it('sort: NULLS LAST on nullable keys, id in the last direction, one _k per key', () => {
    const { text } = compile({ sort: json([{ i: 'name', o: 'desc', l: 'fr' }, { i: 'createdAt', o: 'asc' }]) }).select;
    expect(text).toContain(`order by left((data->'name'->>'fr'), 256) desc nulls last, created_at asc, id asc limit`);
    expect(text).toContain(`left((data->'name'->>'fr'), 256) as "_k0", to_char(created_at`);
    expect(compile({ sort: json([{ i: 'id', o: 'desc' }, { i: 'price' }]) }).select.text).toContain(
      `order by id desc, (case when jsonb_typeof(data->'price') = 'number' then (data->>'price')::float8 end) asc nulls last limit`,
    );
  });
});

describe('filters', () => {
  it('never inlines a value', () => {
    const evil = `'; drop table contents; --`;
    for (const w of ['eq', 'neq', 'contains', 'ncontains', 'startsWith', 'endsWith', 'in', 'nin']) {
      const q = filtered({ i: 'title', w, v: w.endsWith('in') ? [evil] : evil });
      expect(q.text).not.toContain('drop table');
      expect(JSON.stringify(q.values)).toContain('drop table');
      expectPlaceholdersMatch(q);
    }
    const multi = filtered({ i: 'tags', w: 'in', v: [evil, 'x'] });
    expect(multi.text).not.toContain('drop');
    expect(multi.values).toContain(JSON.stringify([evil]));
  });

  it('compiles every operator on every field it applies to, placeholders matching values', () => {
    for (const field of FIELD_MATRIX) {
      for (const w of ALL_OPS.filter((op) => field.ops.includes(op))) {
        const { select, count } = compile({ filter: json([sampleFilter(field.i, w, field.sample)]), withCount: true });
        expectPlaceholdersMatch(select);
        if (count) expectPlaceholdersMatch(count);
        expect(select.text).not.toContain('?');
      }
    }
  });

  it('text operators are ILIKE with %, _ and \\ escaped; eq is exact', () => {
    const q = (w: string) => filtered({ i: 'title', w, v: '50%_a\\b' });
    expect(q('contains').text).toContain(`(data->>'title') ilike $2::text escape '\\'`);
    expect(q('contains').values[1]).toBe('%50\\%\\_a\\\\b%');
    expect(q('startsWith').values[1]).toBe('50\\%\\_a\\\\b%');
    expect(q('endsWith').values[1]).toBe('%50\\%\\_a\\\\b');
    expect(q('ncontains').text).toContain(`((data->>'title') is null or (data->>'title') not ilike $2::text escape '\\')`);
    // eq is exact, and also compares the indexed prefix so that the sort index serves it.
    expect(q('eq').text).toContain(`(left((data->>'title'), 256) = $2::text and (data->>'title') = $3::text)`);
    const long = `${'é'.repeat(255)}😀${'x'.repeat(300)}`;
    expect(filtered({ i: 'title', w: 'eq', v: long }).values.slice(1, 3)).toEqual([`${'é'.repeat(255)}😀`, long]);
    expect(filtered({ i: 'title', w: 'in', v: [long, `${long}y`] }).text).toContain(
      `(left((data->>'title'), 256) = any($2::text[]) and (data->>'title') = any($3::text[]))`,
    );
  });

  it('negations include nulls; not-null system columns skip the null test', () => {
    expect(filtered({ i: 'price', w: 'neq', v: 1 }).text).toContain(`((case when jsonb_typeof(data->'price') = 'number' then (data->>'price')::float8 end) is null or (case when jsonb_typeof(data->'price') = 'number' then (data->>'price')::float8 end) <> $2::float8)`);
    expect(filtered({ i: 'qty', w: 'nin', v: [1, 2] }).text).toContain(`<> all($2::float8[])`);
    expect(filtered({ i: 'status', w: 'neq', v: 'DRAFT' }).text).toContain(`((status <> $2::text))`);
  });

  it('in uses = any with an array parameter; between is inclusive', () => {
    const q = filtered({ i: 'category', w: 'in', v: 'a,b' });
    expect(q.text).toContain(`(data->>'category') = any($2::text[])`);
    expect(q.values[1]).toEqual(['a', 'b']);
    expect(filtered({ i: 'createdAt', w: 'between', v: ['2026-01-01', '2026-02-01'] }).text).toContain(
      'created_at between $2::timestamptz and $3::timestamptz',
    );
    expect(filtered({ i: 'id', w: 'in', v: ['0190f5c2-3b4a-7c6d-8e9f-0a1b2c3d4e5f'] }).text).toContain('id = any($2::uuid[])');
  });

  it('multiple columns use jsonb containment; null covers absent and empty arrays', () => {
    const eq = filtered({ i: 'tags', w: 'eq', v: 'x' });
    expect(eq.text).toContain(`(data->'tags') @> $2::jsonb`);
    expect(eq.values[1]).toBe('["x"]');
    expect(filtered({ i: 'tags', w: 'in', v: ['x', 'y'] }).text).toContain(`((data->'tags') @> $2::jsonb or (data->'tags') @> $3::jsonb)`);
    expect(filtered({ i: 'tags', w: 'nin', v: ['x'] }).text).toContain(`((data->'tags') is null or not (data->'tags') @> $2::jsonb)`);
    expect(filtered({ i: 'tags', w: 'null', v: true }).text).toContain(`((data->'tags') is null or (data->'tags') in ('[]'::jsonb, 'null'::jsonb))`);
  });

  it('null on json tests ->> so that a stored JSON null counts as null', () => {
    expect(filtered({ i: 'meta', w: 'null', v: true }).text).toContain(`((data->>'meta') is null)`);
    expect(filtered({ i: 'name', w: 'null', v: false, l: 'fr' }).text).toContain(`((data->'name'->>'fr') is not null)`);
  });
});

describe('projection', () => {
  it('fields builds data from the asked columns only, keeping absent ones absent', () => {
    const { text } = compile({ fields: 'price,status,title' }).select;
    expect(text).toContain(
      `((case when (data->'title') is not null then jsonb_build_object('title', (data->'title')) else '{}'::jsonb end) || ` +
        `(case when (data->'price') is not null then jsonb_build_object('price', (data->'price')) else '{}'::jsonb end) || ` +
        `(case when (data->'status') is not null then jsonb_build_object('status', (data->'status')) else '{}'::jsonb end)) as data`,
    );
  });

  it('no data at all when no column is asked for', () => {
    expect(compile({ fields: 'createdAt' }).select.text).not.toMatch(/ as data/);
  });

  it('locale picks the value with a fallback to the default locale', () => {
    const { text } = compile({ locale: 'fr' }).select;
    expect(text).toContain(`((data - 'name' - 'body') || (case when to_jsonb(coalesce(data->'name'->>'fr', data->'name'->>'en')) is not null`);
    expect(compile({ locale: 'en', fields: 'name' }).select.text).toContain(`to_jsonb(data->'name'->>'en')`);
    expect(compile({ locale: 'fr', fields: 'title' }).select.text).toContain(`jsonb_build_object('title', (data->'title'))`);
  });
});

describe('keyset', () => {
  const id = '0190f5c2-3b4a-7c6d-8e9f-0a1b2c3d4e5f';
  const withCursor = (raw: RawListParams, k: Record<string, unknown>) => {
    const cursor = encodeCursor(parseListQuery(raw, table, PROJECT), { id, ...k });
    return compileListQuery(parseListQuery({ ...raw, cursor }, table, PROJECT), { tableId: TABLE_ID });
  };

  it('default sort: a row comparison, no offset; the count ignores the cursor', () => {
    const { select, count } = withCursor({ size: 7 }, { _k0: '2026-01-01T00:00:00.123456Z' });
    expect(select.text).toContain('where table_id = $1::uuid and ((created_at, id) < ($2::timestamptz, $3::uuid)) order by created_at desc, id desc limit $4::int8');
    expect(select.text).not.toContain('offset');
    expect(select.values).toEqual([TABLE_ID, '2026-01-01T00:00:00.123456Z', id, 8]);
    expect(count?.text).not.toContain('created_at,');
  });

  it('mixed directions and nullable keys: an expanded OR with nulls last', () => {
    const sort = json([{ i: 'price', o: 'desc' }, { i: 'title', o: 'asc' }]);
    const { text, values } = withCursor({ sort }, { _k0: 5, _k1: 'Beta' }).select;
    expect(text).toContain(
      `(((case when jsonb_typeof(data->'price') = 'number' then (data->>'price')::float8 end) < $2::float8 or (case when jsonb_typeof(data->'price') = 'number' then (data->>'price')::float8 end) is null)) or ` +
        `((case when jsonb_typeof(data->'price') = 'number' then (data->>'price')::float8 end) = $2::float8 and (left((data->>'title'), 256) > $3::text or left((data->>'title'), 256) is null)) or ` +
        `((case when jsonb_typeof(data->'price') = 'number' then (data->>'price')::float8 end) = $2::float8 and left((data->>'title'), 256) = $3::text and id > $4::uuid))`,
    );
    expect(values.slice(1, 4)).toEqual([5, 'Beta', id]);
  });

  it('a null cursor value: only nulls can follow within that key', () => {
    const { text } = withCursor({ sort: json([{ i: 'price', o: 'asc' }]) }, { _k0: null }).select;
    expect(text).toContain(`(((case when jsonb_typeof(data->'price') = 'number' then (data->>'price')::float8 end) is null and id > $2::uuid))`);
  });
});
