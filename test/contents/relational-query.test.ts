import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { buildWorld, contentsPath, createRow, createTable, expectStatus, putRow, type Table, type World } from './fixture.js';

/**
 * Relational filters and sorts (docs/contents.md#filters-and-sorts-through-references) (`author.name`, up to 3 references deep) and the array
 * semantics of `multiple` columns, against every operator, for each credential kind, with the
 * cache and cursors.
 */
let t: TestApi;
let w: World;
let countries: Table;
let companies: Table;
let authors: Table;
let posts: Table;
const id: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  countries = await createTable(w, [{ name: 'code', type: 'text' }]);
  companies = await createTable(w, [
    { name: 'name', type: 'text' },
    { name: 'country', type: 'reference', settings: { table: countries.id } },
  ]);
  authors = await createTable(w, [
    { name: 'name', type: 'text', settings: { localized: true } },
    { name: 'age', type: 'integer' },
    { name: 'company', type: 'reference', settings: { table: companies.id } },
    { name: 'tags', type: 'select', settings: { options: ['a', 'b', 'c'], multiple: true } },
  ]);
  posts = await createTable(w, [
    { name: 'title', type: 'text' },
    { name: 'author', type: 'reference', settings: { table: authors.id } },
    { name: 'editors', type: 'reference', settings: { table: authors.id, multiple: true } },
    { name: 'labels', type: 'select', settings: { options: ['x', 'y', 'z'], multiple: true } },
  ]);
  id.fr = (await createRow(w, countries.id, { code: 'FR' })).id;
  id.de = (await createRow(w, countries.id, { code: 'DE' })).id;
  id.acme = (await createRow(w, companies.id, { name: 'Acme', country: id.fr })).id;
  id.bolt = (await createRow(w, companies.id, { name: 'Bolt', country: id.de })).id;
  id.ada = (await createRow(w, authors.id, { name: { en: 'Ada', fr: 'Adèle' }, age: 36, company: id.acme, tags: ['a', 'b'] })).id;
  id.bob = (await createRow(w, authors.id, { name: { en: 'Bob' }, age: 52, company: id.bolt, tags: ['c'] })).id;
  id.cyd = (await createRow(w, authors.id, { name: { en: 'Cyd' }, age: 20, company: id.acme }, { status: 'DRAFT' })).id;
  const post = async (title: string, data: Record<string, unknown>) => (id[title] = (await createRow(w, posts.id, { title, ...data })).id);
  await post('p1', { author: id.ada, editors: [id.bob], labels: ['x', 'y'] });
  await post('p2', { author: id.bob, editors: [id.ada, id.cyd], labels: [] });
  await post('p3', { author: id.cyd, editors: [id.cyd], labels: ['z'] });
  await post('p4', { labels: ['x'] });
});
afterAll(async () => {
  await t?.close();
});

/** Titles of the posts a list returns (sorted by title unless a sort is given), and its total. */
async function titles(query: Record<string, unknown>, token = w.writeKey): Promise<{ titles: string[]; total: number }> {
  const params = new URLSearchParams();
  if (!query.sort) params.set('sort', '[{"i":"title"}]');
  for (const [k, v] of Object.entries(query)) params.set(k, typeof v === 'string' ? v : JSON.stringify(v));
  const body = expectStatus(await t.call('GET', `${contentsPath(w, posts.id)}?${params}`, { token }), 200);
  const names = Object.fromEntries(Object.entries(id).map(([name, value]) => [value, name]));
  return { titles: body.list.map((row: { id: string }) => names[row.id]), total: body.pagination.total };
}
const only = async (filter: unknown[], token?: string) => (await titles({ filter }, token)).titles;

describe('dotted filters', () => {
  it('every operator through a single reference', async () => {
    expect(await only([{ i: 'author.age', w: 'eq', v: 36 }])).toEqual(['p1']);
    expect(await only([{ i: 'author.age', w: 'neq', v: 36 }])).toEqual(['p2', 'p3']);
    expect(await only([{ i: 'author.age', w: 'gt', v: 36 }])).toEqual(['p2']);
    expect(await only([{ i: 'author.age', w: 'gte', v: 36 }])).toEqual(['p1', 'p2']);
    expect(await only([{ i: 'author.age', w: 'lt', v: 36 }])).toEqual(['p3']);
    expect(await only([{ i: 'author.age', w: 'lte', v: 36 }])).toEqual(['p1', 'p3']);
    expect(await only([{ i: 'author.age', w: 'between', v: [30, 60] }])).toEqual(['p1', 'p2']);
    expect(await only([{ i: 'author.age', w: 'in', v: [20, 52] }])).toEqual(['p2', 'p3']);
    expect(await only([{ i: 'author.age', w: 'nin', v: [20, 52] }])).toEqual(['p1']);
    expect(await only([{ i: 'author.name', w: 'eq', v: 'Bob' }])).toEqual(['p2']);
    expect(await only([{ i: 'author.name', w: 'eq', v: 'Adèle', l: 'fr' }])).toEqual(['p1']);
    expect(await only([{ i: 'author.name', w: 'contains', v: 'YD' }])).toEqual(['p3']);
    expect(await only([{ i: 'author.name', w: 'ncontains', v: 'b' }])).toEqual(['p1', 'p3']);
    expect(await only([{ i: 'author.name', w: 'startsWith', v: 'a' }])).toEqual(['p1']);
    expect(await only([{ i: 'author.name', w: 'endsWith', v: 'd' }])).toEqual(['p3']);
    expect(await only([{ i: 'author.name', w: 'null', v: false, l: 'fr' }])).toEqual(['p1']);
    expect(await only([{ i: 'author.name', w: 'null', v: true, l: 'fr' }])).toEqual(['p2', 'p3']);
    expect(await only([{ i: 'author.tags', w: 'eq', v: 'b' }])).toEqual(['p1']);
    expect(await only([{ i: 'author.id', w: 'eq', v: id.bob }])).toEqual(['p2']);
    expect(await only([{ i: 'author.status', w: 'eq', v: 'DRAFT' }])).toEqual(['p3']);
  });

  it('through multiple references (any referenced row) and up to three hops', async () => {
    expect(await only([{ i: 'editors.name', w: 'eq', v: 'Cyd' }])).toEqual(['p2', 'p3']);
    expect(await only([{ i: 'editors.age', w: 'gt', v: 40 }])).toEqual(['p1']);
    expect(await only([{ i: 'author.company.name', w: 'eq', v: 'Acme' }])).toEqual(['p1', 'p3']);
    expect(await only([{ i: 'author.company.country.code', w: 'eq', v: 'DE' }])).toEqual(['p2']);
    expect(await only([{ i: 'editors.company.country.code', w: 'in', v: 'FR' }])).toEqual(['p2', 'p3']);
    // Combined with plain filters by `op`.
    expect(await only([{ i: 'author.company.name', w: 'eq', v: 'Acme' }, { i: 'title', w: 'eq', v: 'p1' }])).toEqual(['p1']);
    expect((await titles({ filter: [{ i: 'author.age', w: 'eq', v: 52 }, { i: 'title', w: 'eq', v: 'p4' }], op: 'or' })).titles).toEqual(['p2', 'p4']);
  });

  it('for read keys only public referenced rows can make a row match', async () => {
    expect(await only([{ i: 'author.age', w: 'eq', v: 20 }], w.readKey)).toEqual([]);
    expect(await only([{ i: 'editors.name', w: 'eq', v: 'Cyd' }], w.readKey)).toEqual([]);
    expect(await only([{ i: 'editors.age', w: 'lt', v: 40 }], w.readKey)).toEqual(['p2']);
    expect(await only([{ i: 'author.company.name', w: 'eq', v: 'Acme' }], t.adminToken)).toEqual(['p1', 'p3']);
  });

  it('exact totals, and cached results follow writes to the referenced tables', async () => {
    const filter = [{ i: 'author.company.name', w: 'eq', v: 'Acme' }];
    expect(await titles({ filter })).toEqual({ titles: ['p1', 'p3'], total: 2 });
    expectStatus(await putRow(w, companies.id, id.bolt, { data: { name: 'Acme' } }), 200);
    expect(await titles({ filter })).toEqual({ titles: ['p1', 'p2', 'p3'], total: 3 });
    expectStatus(await putRow(w, authors.id, id.bob, { data: { company: id.acme } }), 200);
    expectStatus(await putRow(w, companies.id, id.bolt, { data: { name: 'Bolt' } }), 200);
    expect(await titles({ filter })).toEqual({ titles: ['p1', 'p2', 'p3'], total: 3 });
    expectStatus(await putRow(w, authors.id, id.bob, { data: { company: id.bolt } }), 200);
    expect(await titles({ filter })).toEqual({ titles: ['p1', 'p3'], total: 2 });
  });

  it('bad paths are 400 INVALID_QUERY', async () => {
    const cases = [
      [{ i: 'title.name', w: 'eq', v: 'x' }],
      [{ i: 'author.nope', w: 'eq', v: 'x' }],
      [{ i: 'labels.x', w: 'eq', v: 'x' }],
      [{ i: 'author.company.country.code.x', w: 'eq', v: 'x' }],
      [{ i: 'author.age', w: 'contains', v: 'x' }],
      [{ i: 'author.name', w: 'eq', v: 'x', l: 'de' }],
    ];
    for (const filter of cases) {
      const res = await t.call('GET', `${contentsPath(w, posts.id)}?filter=${encodeURIComponent(JSON.stringify(filter))}`, { token: w.writeKey });
      expect([res.status, res.json.error?.code], JSON.stringify(filter)).toEqual([400, 'INVALID_QUERY']);
    }
  });
});

describe('dotted sorts', () => {
  it('through single references, nulls last, with cursors', async () => {
    const sorted = async (sort: unknown[], token?: string) => (await titles({ sort }, token)).titles;
    expect(await sorted([{ i: 'author.age', o: 'asc' }])).toEqual(['p3', 'p1', 'p2', 'p4']);
    expect(await sorted([{ i: 'author.age', o: 'desc' }])).toEqual(['p2', 'p1', 'p3', 'p4']);
    expect(await sorted([{ i: 'author.company.name', o: 'desc' }, { i: 'title', o: 'asc' }])).toEqual(['p2', 'p1', 'p3', 'p4']);
    // For read keys a DRAFT author sorts as none; p3 itself is public.
    expect(await sorted([{ i: 'author.age', o: 'asc' }, { i: 'title', o: 'asc' }], w.readKey)).toEqual(['p1', 'p2', 'p3', 'p4']);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `sort=${encodeURIComponent('[{"i":"author.age","o":"desc"}]')}&size=1${cursor ? `&cursor=${cursor}` : ''}`;
      const body = expectStatus(await t.call('GET', `${contentsPath(w, posts.id)}?${query}`, { token: w.writeKey }), 200);
      seen.push(...body.list.map((row: { id: string }) => row.id));
      cursor = body.pagination.nextCursor;
    } while (cursor);
    expect(seen).toEqual([id.p2, id.p1, id.p3, id.p4]);
  });

  it('not through multiple references', async () => {
    const res = await t.call('GET', `${contentsPath(w, posts.id)}?sort=${encodeURIComponent('[{"i":"editors.age"}]')}`, { token: w.writeKey });
    expect([res.status, res.json.error.code]).toEqual([400, 'INVALID_QUERY']);
  });
});

describe('multiple columns hold arrays', () => {
  it('eq: contains the value; in: any of them; nin: none; null: absent or empty', async () => {
    expect(await only([{ i: 'labels', w: 'eq', v: 'x' }])).toEqual(['p1', 'p4']);
    expect(await only([{ i: 'labels', w: 'in', v: ['y', 'z'] }])).toEqual(['p1', 'p3']);
    expect(await only([{ i: 'labels', w: 'nin', v: ['y', 'z'] }])).toEqual(['p2', 'p4']);
    expect(await only([{ i: 'labels', w: 'null', v: true }])).toEqual(['p2']);
    expect(await only([{ i: 'labels', w: 'null', v: false }])).toEqual(['p1', 'p3', 'p4']);
    expect(await only([{ i: 'editors', w: 'eq', v: id.cyd }])).toEqual(['p2', 'p3']);
    expect(await only([{ i: 'editors', w: 'in', v: [id.bob, id.cyd] }])).toEqual(['p1', 'p2', 'p3']);
    expect(await only([{ i: 'editors', w: 'nin', v: [id.bob] }])).toEqual(['p2', 'p3', 'p4']);
    expect(await only([{ i: 'editors', w: 'null', v: true }])).toEqual(['p4']);
  });
});
