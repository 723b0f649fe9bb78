import fc from 'fast-check';
import { createTRPCClient, httpBatchLink } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppRouter } from '../../src/trpc/router.js';
import { storageLimitField } from '../../src/modules/contents/rows/uniqueness.js';
import type { TableDef } from '../../src/modules/tables/table-def.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  buildWorld,
  createRow,
  createTable,
  expectConflict,
  expectError,
  expectStatus,
  expectValidation,
  getRow,
  list,
  postRow,
  putRow,
  type Table,
  type World,
} from './fixture.js';

/**
 * Values far longer than a btree index entry (2,704 bytes) in every string column, including
 * the sorted, unique and localized ones: text columns are indexed by a prefix (sort), an md5
 * (uniqueness) and trigrams (contains), so no value up to BODY_MAX_BYTES meets an index limit.
 * Values the database cannot store at all (U+0000, lone surrogates) are 422 naming the field.
 */
let t: TestApi;
let w: World;
let table: Table;
beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  table = await createTable(w, [
    { name: 'title', type: 'text', settings: { unique: true } },
    { name: 'body', type: 'longtext', settings: { localized: true, unique: true } },
    { name: 'note', type: 'text' },
    { name: 'site', type: 'url' },
    { name: 'mail', type: 'email', settings: { unique: true } },
    { name: 'extra', type: 'json' },
  ]);
});
afterAll(() => t?.close());

/** Incompressible ASCII: compression cannot bring it under an index limit. */
function randomText(length: number, seed: number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ';
  let x = seed >>> 0 || 1;
  let out = '';
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out += alphabet[(x >>> 0) % alphabet.length];
  }
  return out;
}

/** Word-like prose: compresses well, but not below the limit once long enough. */
function prose(length: number, seed: number): string {
  const words = randomText(4000, seed).split(' ').filter(Boolean);
  let out = '';
  for (let i = 0; out.length < length; i++) out += `${words[i % words.length]} `;
  return out.slice(0, length);
}

/** Leaves room for the JSON around a value in a body of at most BODY_MAX_BYTES (1 MiB). */
const NEAR_MAX = 1024 * 1024 - 4096;
const filter = (f: unknown[]) => ({ filter: f });
const ids = (body: { list: { id: string }[] }) => body.list.map((r) => r.id);

describe('long string values', () => {
  it('stores, reads, sorts and filters text values near BODY_MAX_BYTES', async () => {
    const big = randomText(NEAR_MAX, 1);
    const row = await createRow(w, table.id, { title: big, note: 'n1' });
    const other = await createRow(w, table.id, { title: `${big.slice(0, -1)}#`, note: 'n2' });
    expect((await getRow(w, table.id, row.id)).json.data.title).toBe(big);

    // Filter values are at most 1,000 characters: equality is exact past the 256 indexed ones.
    const mid = randomText(900, 7);
    const midRow = await createRow(w, table.id, { title: mid, note: 'n3' });
    const midOther = await createRow(w, table.id, { title: `${mid.slice(0, 899)}#`, note: 'n4' });
    expect(ids(await list(w, table.id, w.writeKey, filter([{ i: 'title', w: 'eq', v: mid }])))).toEqual([midRow.id]);
    expect(ids(await list(w, table.id, w.writeKey, filter([{ i: 'title', w: 'in', v: [mid, 'x'] }])))).toEqual([midRow.id]);
    expect(ids(await list(w, table.id, w.writeKey, filter([{ i: 'title', w: 'eq', v: big.slice(0, 900) }])))).toEqual([]);
    const tail = big.slice(-40);
    expect(ids(await list(w, table.id, w.writeKey, filter([{ i: 'title', w: 'endsWith', v: tail }])))).toEqual([row.id]);
    expect(ids(await list(w, table.id, w.writeKey, filter([{ i: 'title', w: 'startsWith', v: big.slice(0, 300) }]))).sort()).toEqual(
      [row.id, other.id].sort(),
    );
    expect(ids(await list(w, table.id, w.writeKey, filter([{ i: 'title', w: 'contains', v: big.slice(500_000, 500_040) }]))).length).toBe(2);
    const mine = { i: 'note', w: 'in', v: ['n1', 'n2', 'n3', 'n4'] };
    expect(ids(await list(w, table.id, w.writeKey, filter([{ i: 'title', w: 'neq', v: mid }, mine]))).length).toBe(3);
    expect(ids(await list(w, table.id, w.writeKey, filter([{ i: 'title', w: 'nin', v: [mid] }, mine]))).length).toBe(3);
    expect(ids(await list(w, table.id, w.writeKey, filter([{ i: 'title', w: 'ncontains', v: '#' }, mine]))).sort()).toEqual(
      [row.id, midRow.id].sort(),
    );
    expect(ids(await list(w, table.id, w.writeKey, filter([{ i: 'title', w: 'null', v: false }, mine]))).length).toBe(4);

    // Sorting and cursors: the order is by the first 256 characters, and the cursor carries
    // those, not the megabyte.
    const sortedQuery = { sort: [{ i: 'title', o: 'asc' }], fields: 'note', size: 1, ...filter([mine]) };
    const seen: string[] = [];
    let page = await list(w, table.id, w.writeKey, sortedQuery);
    for (;;) {
      seen.push(...ids(page));
      const cursor = (page.pagination as unknown as { nextCursor: string | null }).nextCursor;
      if (!cursor) break;
      expect(cursor.length).toBeLessThan(2000);
      page = await list(w, table.id, w.writeKey, { ...sortedQuery, cursor });
    }
    const byKeyThenId = [
      { key: big.slice(0, 256), id: row.id },
      { key: big.slice(0, 256), id: other.id },
      { key: mid.slice(0, 256), id: midRow.id },
      { key: mid.slice(0, 256), id: midOther.id },
    ].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.id < b.id ? -1 : 1));
    expect(seen).toEqual(byKeyThenId.map((r) => r.id));

    // Unique is exact: the same megabyte again is 409, on create and on update.
    expectConflict(await postRow(w, table.id, { data: { title: big } }), 'data.title');
    expectConflict(await putRow(w, table.id, other.id, { data: { title: big } }), 'data.title');
  });

  it('takes long prose in localized unique longtext, on create, update and through /trpc', async () => {
    const en = prose(200_000, 2);
    const fr = prose(NEAR_MAX / 2, 3);
    const row = await createRow(w, table.id, { body: { en, fr } });
    const changed = `${fr.slice(0, -1)}!`;
    const updated = expectStatus(await putRow(w, table.id, row.id, { data: { body: { en, fr: changed } } }), 200);
    expect(updated.data.body).toEqual({ en, fr: changed });
    const byLocale = await list(w, table.id, w.writeKey, { locale: 'fr', fields: 'body', ...filter([{ i: 'body', l: 'fr', w: 'startsWith', v: changed.slice(0, 500) }]) });
    expect(byLocale.list).toEqual([{ id: row.id, data: { body: changed } }]);
    expectConflict(await postRow(w, table.id, { data: { body: { en } } }), 'data.body');
    // The same english text in the fr locale is no clash (unique per locale).
    expect((await postRow(w, table.id, { data: { body: { en: 'other', fr: en } } })).status).toBe(201);

    const trpc = createTRPCClient<AppRouter>({
      links: [httpBatchLink({ url: `${t.url}/trpc`, headers: () => ({ authorization: `Bearer ${w.writeKey}` }) })],
    });
    const viaTrpc = await trpc.contents.create.mutate({
      projectId: w.projectId,
      tableId: table.id,
      data: { note: prose(300_000, 4), body: { en: prose(100_000, 5) } },
    });
    expect((viaTrpc.data as { note: string }).note).toHaveLength(300_000);
  });

  it('url and email keep their format bounds as 422 naming the field; json takes any size', async () => {
    expectValidation(await postRow(w, table.id, { data: { site: `https://example.com/${'a'.repeat(3000)}` } }), ['data.site']);
    expectValidation(await postRow(w, table.id, { data: { mail: `${'a'.repeat(400)}@example.com` } }), ['data.mail']);
    // A url of multi-byte characters within the bound is more bytes than an index entry holds.
    const site = `https://example.com/${'😀'.repeat(1000)}`;
    const row = await createRow(w, table.id, { site, extra: { text: randomText(500_000, 6) } });
    expect(ids(await list(w, table.id, w.writeKey, filter([{ i: 'site', w: 'eq', v: site.slice(0, 1000) }])))).toEqual([]);
    expect(ids(await list(w, table.id, w.writeKey, filter([{ i: 'site', w: 'startsWith', v: site.slice(0, 1000) }])))).toEqual([row.id]);
  });

  it('a database size limit still reaching a write names the column (422, not 500)', () => {
    const column = { id: table.columns.title.id, name: 'title', type: 'text' as const, settings: {} };
    const def: TableDef = { id: table.id, projectId: w.projectId, key: table.key, defaultStatus: 'PUBLISHED', columns: [column], hiddenKeys: [], schemaKey: '' };
    const title = column.id.replace(/-/g, '');
    const limit = (message: string) => Object.assign(new Error(message), { code: '54000' });
    expect(storageLimitField(def, limit(`index row size 4032 exceeds btree version 4 maximum 2704 for index "c_${title}_s"`))).toBe('data.title');
    expect(storageLimitField(def, { cause: limit('index row requires 9032 bytes, maximum size is 8191') })).toBe('data');
    expect(storageLimitField(def, Object.assign(new Error('duplicate'), { code: '23505' }))).toBeNull();
  });

  it('characters PostgreSQL cannot store are refused naming the field, never a 500', async () => {
    const refused = async (data: Record<string, unknown>, field: string) => {
      const error = expectError(await postRow(w, table.id, { data }), 400, 'BAD_REQUEST');
      expect(error.message).toContain(field);
    };
    await refused({ note: 'a\u0000b' }, 'data.note');
    await refused({ note: 'a\ud800b' }, 'data.note');
    await refused({ extra: { nested: ['ok', 'x\u0000'] } }, 'data.extra.nested.1');
    await refused({ body: { fr: 'z\u0000' } }, 'data.body.fr');
  });

  it('property: long unicode strings round-trip on create and update, and eq finds them exactly', async () => {
    // A filter value is at most 1,000 UTF-16 units; 260-480 code points exceed the indexed prefix.
    const noNul = (s: string) => s.replace(/\u0000/g, '.');
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'binary', minLength: 260, maxLength: 480 }).map(noNul),
        fc.string({ unit: 'binary', minLength: 3000, maxLength: 20_000 }).map(noNul),
        async (short, long) => {
          n++;
          const created = expectStatus(await postRow(w, table.id, { data: { note: long, title: `${n}:${long}` } }), 201);
          expect(created.data.note).toBe(long);
          const updated = expectStatus(await putRow(w, table.id, created.id, { data: { note: short } }), 200);
          expect(updated.data.note).toBe(short);
          const found = await list(w, table.id, w.writeKey, filter([{ i: 'note', w: 'eq', v: short }]));
          expect(ids(found)).toContain(created.id);
          for (const r of found.list) expect((await getRow(w, table.id, r.id)).json.data.note).toBe(short);
        },
      ),
      { numRuns: Math.min(Number(process.env.STRESS_RUNS ?? 12), 40) },
    );
  }, 120_000);
});
