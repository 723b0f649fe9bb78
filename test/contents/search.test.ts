import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { addColumn, buildWorld, contentsPath, createRow, createTable, expectError, expectStatus, list, putRow, type Table, type World } from './fixture.js';

/**
 * Full-text search (docs/contents.md#search): `search` on contents lists, its web-search syntax, locales,
 * relevance order, and its combination with filters, cursors, totals, read keys and the cache.
 */
let t: TestApi;
let w: World;
let db: pg.Client;
let posts: Table;
const ids: Record<string, string> = {};
beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  db = new pg.Client({ connectionString: t.db.url });
  await db.connect();
  posts = await createTable(w, [
    { name: 'title', type: 'text', settings: { localized: true } },
    { name: 'body', type: 'longtext' },
    { name: 'rank', type: 'integer' },
  ]);
  const rows: [string, Record<string, unknown>, string?][] = [
    ['ferry', { title: { en: 'The North Sea ferry', fr: 'Le ferry de la mer du Nord' }, body: 'Crossing by ferry, ferry, ferry.', rank: 1 }],
    ['sea', { title: { en: 'Sea views', fr: 'Vues sur la mer' }, body: 'The north coast and the sea.', rank: 2 }],
    ['train', { title: { en: 'Night train', fr: 'Train de nuit' }, body: 'Sleeper trains across the north.', rank: 3 }],
    ['ferrari', { title: { en: 'Ferrari museum' }, body: 'Red cars, no boats.', rank: 4 }],
    ['draft', { title: { en: 'Ferry timetable draft' }, body: 'Not public yet.', rank: 5 }, 'DRAFT'],
  ];
  for (const [name, data, status] of rows) ids[name] = (await createRow(w, posts.id, data, status ? { status } : {})).id;
});
afterAll(async () => {
  await db?.end();
  await t?.close();
});

/** The names of the listed rows, in order. */
async function found(search: string, query: Record<string, unknown> = {}, token = w.writeKey): Promise<string[]> {
  const body = await list(w, posts.id, token, { search, ...query });
  const names = Object.fromEntries(Object.entries(ids).map(([name, id]) => [id, name]));
  return body.list.map((row) => names[row.id] ?? row.id);
}

describe('search syntax', () => {
  it('all words must occur, in any column, any case', async () => {
    expect((await found('north sea')).sort()).toEqual(['ferry', 'sea']);
    expect(await found('SLEEPER North')).toEqual(['train']);
    expect(await found('submarine')).toEqual([]);
  });

  it('"exact phrase", or, -exclusion', async () => {
    expect(await found('"north sea"')).toEqual(['ferry']);
    expect((await found('sleeper or museum')).sort()).toEqual(['ferrari', 'train']);
    expect((await found('north -ferry')).sort()).toEqual(['sea', 'train']);
  });

  it('the last word also matches as a prefix, but not inside a closing phrase', async () => {
    expect((await found('ferr')).sort()).toEqual(['draft', 'ferrari', 'ferry']);
    expect(await found('crossing ferr')).toEqual(['ferry']);
    expect(await found('"ferr"')).toEqual([]);
    // Only the last word: `ferr` alone is no word of any row.
    expect(await found('ferr crossing')).toEqual([]);
  });

  it('localized columns: every locale without `locale`, that locale with it', async () => {
    expect(await found('nuit')).toEqual(['train']);
    expect(await found('nuit', { locale: 'fr' })).toEqual(['train']);
    expect(await found('nuit', { locale: 'en' })).toEqual([]);
    expect(await found('night', { locale: 'fr' })).toEqual([]);
    // Non-localized columns are searched whatever the locale.
    expect(await found('sleeper', { locale: 'fr' })).toEqual(['train']);
  });

  it('punctuation alone matches nothing; bad values are 400 INVALID_QUERY', async () => {
    expect(await found('!!! ...')).toEqual([]);
    for (const search of ['   ', 'x'.repeat(501)]) {
      const res = await t.call('GET', `${contentsPath(w, posts.id)}?search=${encodeURIComponent(search)}`, { token: w.writeKey });
      expect(expectError(res, 400, 'INVALID_QUERY').message).toContain('search');
    }
  });
});

describe('search results', () => {
  it('come by relevance, then id; `_relevance` may be named, and only with a search', async () => {
    // Five mentions of ferry beat one.
    expect(await found('ferry', { locale: 'en' })).toEqual(['ferry', 'draft']);
    expect(await found('ferry', { locale: 'en', sort: [{ i: '_relevance', o: 'asc' }] })).toEqual(['draft', 'ferry']);
    expect(await found('north', { sort: [{ i: 'rank', o: 'desc' }] })).toEqual(['train', 'sea', 'ferry']);
    const res = await t.call('GET', `${contentsPath(w, posts.id)}?sort=${encodeURIComponent('[{"i":"_relevance"}]')}`, { token: w.writeKey });
    expect(expectError(res, 400, 'INVALID_QUERY').message).toContain('_relevance');
    const filtered = await t.call('GET', `${contentsPath(w, posts.id)}?search=x&filter=${encodeURIComponent('[{"i":"_relevance","w":"eq","v":1}]')}`, {
      token: w.writeKey,
    });
    expectError(filtered, 400, 'INVALID_QUERY');
  });

  it('combine with filters (AND), totals and read keys', async () => {
    expect(await found('north', { filter: [{ i: 'rank', w: 'gte', v: 2 }] })).toEqual(expect.arrayContaining(['sea', 'train']));
    expect((await list(w, posts.id, w.writeKey, { search: 'ferr' })).pagination.total).toBe(3);
    expect((await list(w, posts.id, w.readKey, { search: 'ferr' })).pagination.total).toBe(2);
    expect((await found('ferr', {}, w.readKey)).sort()).toEqual(['ferrari', 'ferry']);
    expect((await list(w, posts.id, w.writeKey, { search: 'ferr', filter: [{ i: 'rank', w: 'lt', v: 4 }] })).pagination.total).toBe(1);
  });

  it('page by cursor through every match exactly once, in relevance order', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await t.call('GET', `${contentsPath(w, posts.id)}?search=north&size=1${cursor ? `&cursor=${cursor}` : ''}`, { token: w.writeKey });
      const body = expectStatus(res, 200);
      seen.push(...body.list.map((row: { id: string }) => row.id));
      cursor = body.pagination.nextCursor ?? undefined;
    } while (cursor);
    const all = (await list(w, posts.id, w.writeKey, { search: 'north', size: 10 })).list.map((row) => row.id);
    expect(seen).toEqual(all);
    expect(seen).toHaveLength(3);
    // A cursor of one search does not page another.
    const first = expectStatus(await t.call('GET', `${contentsPath(w, posts.id)}?search=north&size=1`, { token: w.writeKey }), 200);
    const other = await t.call('GET', `${contentsPath(w, posts.id)}?search=sea&size=1&cursor=${first.pagination.nextCursor}`, { token: w.writeKey });
    expectError(other, 400, 'INVALID_QUERY');
  });

  it('cached results follow writes', async () => {
    expect(await found('zeppelin')).toEqual([]);
    expectStatus(await putRow(w, posts.id, ids.sea, { data: { body: 'A zeppelin over the sea.' } }), 200);
    expect(await found('zeppelin')).toEqual(['sea']);
    expect((await list(w, posts.id, w.writeKey, { search: 'zeppelin' })).pagination.total).toBe(1);
    expectStatus(await putRow(w, posts.id, ids.sea, { data: { body: 'The north coast and the sea.' } }), 200);
    expect(await found('zeppelin')).toEqual([]);
  });
});

describe('search indexes', () => {
  const indexesOf = async (tableId: string) =>
    (await db.query(`select indexdef from pg_indexes where indexname like $1 order by indexname`, [`s\\_${tableId.replace(/-/g, '')}\\_%`])).rows.map(
      (r) => r.indexdef as string,
    );

  it('a table has a GIN index on its search document per locale, rebuilt only when the document changes', async () => {
    const table = await createTable(w, [{ name: 'name', type: 'text' }]);
    const [first] = await indexesOf(table.id);
    expect(first).toContain('USING gin');
    expect(await indexesOf(table.id)).toHaveLength(1);
    await addColumn(w, table.id, { name: 'size', type: 'integer' });
    expect(await indexesOf(table.id)).toEqual([first]);
    await addColumn(w, table.id, { name: 'intro', type: 'text', settings: { localized: true } });
    const localized = await indexesOf(table.id);
    // Every locale, en and fr.
    expect(localized).toHaveLength(3);
    expect(localized).not.toContain(first);
    const plain = await createTable(w, [{ name: 'n', type: 'integer' }]);
    expect(await indexesOf(plain.id)).toEqual([]);
    expect((await list(w, plain.id, w.writeKey, { search: 'anything' })).list).toEqual([]);
  });
});
