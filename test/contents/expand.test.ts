import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { buildWorld, contentsPath, createRow, createTable, expectError, expectStatus, putRow, type Table, type World } from './fixture.js';

/**
 * `expand` (docs/contents.md#expand) on read one and list: references and files as objects, dotted to depth 3,
 * with `locale`, `fields` inside, visibility per credential, deleted targets, and a number of
 * statements that does not grow with the page.
 */
let t: TestApi;
let w: World;
let companies: Table;
let authors: Table;
let articles: Table;
const id: Record<string, string> = {};
let fileId: string;

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  companies = await createTable(w, [{ name: 'name', type: 'text', settings: { localized: true } }]);
  authors = await createTable(w, [
    { name: 'name', type: 'text' },
    { name: 'company', type: 'reference', settings: { table: companies.id } },
  ]);
  const form = new FormData();
  form.append('file', new Blob([Buffer.from('GIF89a')], { type: 'image/gif' }), 'cover.gif');
  const upload = await fetch(`${t.url}/v1/${w.projectId}/files`, { method: 'POST', headers: { authorization: `Bearer ${w.writeKey}` }, body: form });
  expect(upload.status).toBe(201);
  fileId = ((await upload.json()) as { id: string }).id;
  articles = await createTable(w, [
    { name: 'title', type: 'text' },
    { name: 'author', type: 'reference', settings: { table: authors.id } },
    { name: 'editors', type: 'reference', settings: { table: authors.id, multiple: true } },
    { name: 'cover', type: 'file' },
  ]);
  id.acme = (await createRow(w, companies.id, { name: { en: 'Acme', fr: 'Acmé' } })).id;
  id.ada = (await createRow(w, authors.id, { name: 'Ada', company: id.acme })).id;
  id.bob = (await createRow(w, authors.id, { name: 'Bob' })).id;
  id.hidden = (await createRow(w, authors.id, { name: 'Hidden' }, { status: 'DRAFT' })).id;
  id.one = (await createRow(w, articles.id, { title: 'One', author: id.ada, editors: [id.bob, id.hidden, id.ada], cover: fileId })).id;
  id.two = (await createRow(w, articles.id, { title: 'Two', author: id.hidden })).id;
});
afterAll(async () => {
  await t?.close();
});

const get = (query: string, token = w.writeKey) => t.call('GET', `${contentsPath(w, articles.id, id.one)}?${query}`, { token });
const listOf = async (query: string, token = w.writeKey) =>
  expectStatus(await t.call('GET', `${contentsPath(w, articles.id)}?sort=${encodeURIComponent('[{"i":"title"}]')}&${query}`, { token }), 200).list;

describe('expand', () => {
  it('replaces a reference by the row, as a read of it answers, and a file by the File object', async () => {
    const body = expectStatus(await get('expand=author,cover'), 200);
    const author = expectStatus(await t.call('GET', contentsPath(w, authors.id, id.ada), { token: w.writeKey }), 200);
    expect(body.data.author).toEqual(author);
    expect(body.data.cover).toMatchObject({ id: fileId, name: 'cover.gif', mimeType: 'image/gif', size: 6 });
    expect(body.data.editors).toEqual([id.bob, id.hidden, id.ada]);
  });

  it('multiple columns give arrays in stored order; depth 3 through references', async () => {
    const body = expectStatus(await get('expand=editors.company,author.company'), 200);
    expect(body.data.editors.map((e: { data: { name: string } }) => e.data.name)).toEqual(['Bob', 'Hidden', 'Ada']);
    expect(body.data.editors[2].data.company.data.name).toEqual({ en: 'Acme', fr: 'Acmé' });
    expect(body.data.author.data.company.id).toBe(id.acme);
    expect(body.data.editors[0].data.company).toBeUndefined();
  });

  it('applies `locale` inside, and `fields` with dotted names inside expanded paths', async () => {
    const [one] = await listOf(`expand=author.company&locale=fr&fields=title,author.name,author.company.name`);
    expect(one).toEqual({ id: id.one, data: { title: 'One', author: { id: id.ada, data: { name: 'Ada', company: { id: id.acme, data: { name: 'Acmé' } } } } } });
    const [withCover] = await listOf('expand=cover&fields=cover.name,cover.size');
    expect(withCover).toEqual({ id: id.one, data: { cover: { id: fileId, name: 'cover.gif', size: 6 } } });
  });

  it('read keys never see a non-public row through an expansion; account tokens and write keys do', async () => {
    for (const token of [w.writeKey, t.adminToken]) {
      const [one, two] = await listOf('expand=author,editors', token);
      expect(one.data.editors.map((e: { id: string }) => e.id)).toEqual([id.bob, id.hidden, id.ada]);
      expect(two.data.author.id).toBe(id.hidden);
    }
    const [one, two] = await listOf('expand=author,editors', w.readKey);
    expect(one.data.editors.map((e: { id: string }) => e.id)).toEqual([id.bob, id.ada]);
    expect(two.data.author).toBeNull();
    expect(expectStatus(await t.call('GET', `${contentsPath(w, articles.id, id.two)}?expand=author`, { token: w.readKey }), 200).data.author).toBeNull();
  });

  it('follows writes to the referenced rows at once, and deleted ones expand to null', async () => {
    expect((await listOf('expand=author'))[0].data.author.data.name).toBe('Ada');
    expectStatus(await putRow(w, authors.id, id.ada, { data: { name: 'Ada L.' } }), 200);
    expect((await listOf('expand=author'))[0].data.author.data.name).toBe('Ada L.');
    expectStatus(await putRow(w, authors.id, id.bob, { status: 'DRAFT' }), 200);
    const [one] = await listOf('expand=editors', w.readKey);
    expect(one.data.editors.map((e: { id: string }) => e.id)).toEqual([id.ada]);
    expectStatus(await putRow(w, authors.id, id.bob, { status: 'PUBLISHED' }), 200);
    const gone = await createRow(w, authors.id, { name: 'Gone' });
    const three = await createRow(w, articles.id, { title: 'Three', author: gone.id });
    expect((await listOf('expand=author')).find((a: { id: string }) => a.id === three.id).data.author.data.name).toBe('Gone');
    // Deleted behind the API's back (no onDelete runs): the id stays, the expansion is null.
    const db = new pg.Client({ connectionString: t.db.url });
    await db.connect();
    await db.query('delete from contents where id = $1', [gone.id]).finally(() => db.end());
    for (const token of [w.writeKey, w.readKey]) {
      expect((await listOf('expand=author', token)).find((a: { id: string }) => a.id === three.id).data.author).toBeNull();
    }
    // Through the API, onDelete (setNull) clears the reference itself.
    const left = await createRow(w, authors.id, { name: 'Left' });
    const four = await createRow(w, articles.id, { title: 'Four', author: left.id });
    expect((await t.call('DELETE', contentsPath(w, authors.id, left.id), { token: w.writeKey })).status).toBe(204);
    expect((await listOf('expand=author')).find((a: { id: string }) => a.id === four.id).data.author).toBeUndefined();
  });

  it('bad paths are 400 INVALID_QUERY', async () => {
    const cases = [
      'expand=title',
      'expand=nope',
      'expand=cover.name',
      'expand=author.company.name',
      'expand=author.company.x.y',
      'expand=',
      'expand=,',
      'fields=author.name',
      'expand=author&fields=editors.name',
      'expand=cover&fields=cover.nope',
    ];
    for (const query of cases) {
      const res = await t.call('GET', `${contentsPath(w, articles.id)}?${query}`, { token: w.writeKey });
      expect(res.status, query).toBe(400);
      expect(res.json.error.code, query).toBe('INVALID_QUERY');
    }
    expectError(await get('expand=nope'), 400, 'INVALID_QUERY');
  });

  it('runs a number of statements that does not grow with the page', async () => {
    const many = await createTable(w, [{ name: 'author', type: 'reference', settings: { table: authors.id } }]);
    const people = [];
    for (let i = 0; i < 30; i++) people.push((await createRow(w, authors.id, { name: `P${i}` })).id);
    for (const person of people) await createRow(w, many.id, { author: person });
    const pool = t.api.deps.pool;
    const original = pool.query.bind(pool);
    const statements = async (size: number) => {
      // Cold: nothing of the authors table cached, so every expanded row is loaded.
      t.api.deps.results.rows.drop(authors.id);
      let count = 0;
      pool.query = ((...args: Parameters<typeof pool.query>) => {
        count++;
        return original(...args);
      }) as typeof pool.query;
      try {
        const body = expectStatus(await t.call('GET', `${contentsPath(w, many.id)}?size=${size}&expand=author`, { token: w.writeKey }), 200);
        expect(body.list).toHaveLength(size);
        expect(body.list.every((row: { data: { author: { data: { name: string } } } }) => row.data.author.data.name.startsWith('P'))).toBe(true);
      } finally {
        pool.query = original;
      }
      return count;
    };
    // The fewest of three requests each: the pool also serves background reads (the event
    // feed's, a cache's refresh), which may fall inside one request's window and only add.
    const fewest = async (size: number) => Math.min(await statements(size), await statements(size), await statements(size));
    const small = await fewest(2);
    const large = await fewest(30);
    expect(large).toBe(small);
    expect(large).toBeLessThanOrEqual(6);
  });
});
