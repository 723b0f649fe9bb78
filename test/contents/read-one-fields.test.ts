import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTabulaClient } from 'tabula/client';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { buildWorld, contentsPath, createRow, createTable, expectError, expectStatus, getRow, putRow, type Table, type World } from './fixture.js';

/**
 * `fields` on read one (docs/contents.md): the same names and the same answer as on lists, by id
 * and by slug, with `locale`, `version=draft` and dotted names inside `expand`, on both faces.
 */
let t: TestApi;
let w: World;
let authors: Table;
let posts: Table;
const id: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  authors = await createTable(w, [
    { name: 'name', type: 'text' },
    { name: 'bio', type: 'text' },
  ]);
  posts = await createTable(w, [
    { name: 'title', type: 'text', settings: { localized: true } },
    { name: 'slug', type: 'slug', settings: { source: 'title' } },
    { name: 'body', type: 'text' },
    { name: 'author', type: 'reference', settings: { table: authors.id } },
  ]);
  id.ada = (await createRow(w, authors.id, { name: 'Ada', bio: 'Engines' }, { status: 'PUBLISHED' })).id;
  id.post = (await createRow(w, posts.id, { title: { en: 'Hello', fr: 'Bonjour' }, slug: 'hello', body: 'Body', author: id.ada }, { status: 'PUBLISHED' })).id;
});
afterAll(async () => {
  await t?.close();
});

const read = (contentsId: string, query: string, token = w.writeKey) => getRow(w, posts.id, contentsId, token, `?${query}`);
/** The list item of the same row with the same query: what read one must answer. */
const listed = async (query: string, token = w.writeKey) => {
  const filter = encodeURIComponent(JSON.stringify([{ i: 'id', w: 'eq', v: id.post }]));
  const [item] = expectStatus(await t.call('GET', `${contentsPath(w, posts.id)}?filter=${filter}&${query}`, { token }), 200).list;
  return item;
};

describe('read one with fields', () => {
  it('returns id and only the asked-for fields, by id and by slug, as the list does', async () => {
    for (const contentsId of [id.post, 'hello']) {
      const body = expectStatus(await read(contentsId, 'fields=body,status'), 200);
      expect(body).toEqual({ id: id.post, status: 'PUBLISHED', data: { body: 'Body' } });
      expect(body).toEqual(await listed('fields=body,status'));
    }
    // No column asked for: no data at all, as on lists.
    const bare = expectStatus(await read(id.post, 'fields=status,createdAt'), 200);
    expect(bare).toEqual(await listed('fields=status,createdAt'));
    expect(Object.keys(bare).sort()).toEqual(['createdAt', 'id', 'status']);
    // A read key: hasDraft stays out even when asked for.
    expect(expectStatus(await read(id.post, 'fields=title,hasDraft', w.readKey), 200)).toEqual({ id: id.post, data: { title: { en: 'Hello', fr: 'Bonjour' } } });
  });

  it('selects inside expansions with dotted names', async () => {
    const body = expectStatus(await read(id.post, 'expand=author&fields=title,author.name'), 200);
    expect(body).toEqual({ id: id.post, data: { title: { en: 'Hello', fr: 'Bonjour' }, author: { id: id.ada, data: { name: 'Ada' } } } });
    expect(body).toEqual(await listed('expand=author&fields=title,author.name'));
  });

  it('applies locale and version=draft to the selected columns', async () => {
    expect(expectStatus(await read('hello', 'locale=fr&fields=title'), 200)).toEqual({ id: id.post, data: { title: 'Bonjour' } });
    expectStatus(await putRow(w, posts.id, id.post, { data: { body: 'Draft body' }, draft: true }), 200);
    expect(expectStatus(await read(id.post, 'version=draft&locale=fr&fields=title,body,hasDraft'), 200)).toEqual({
      id: id.post,
      hasDraft: true,
      data: { title: 'Bonjour', body: 'Draft body' },
    });
    expect(expectStatus(await read(id.post, 'fields=body'), 200)).toEqual({ id: id.post, data: { body: 'Body' } });
  });

  it('refuses what lists refuse, with 400 INVALID_QUERY, after a 404 for an unknown row', async () => {
    for (const query of ['fields=nope', 'fields=author.name', 'fields=%20,', 'expand=author&fields=author.nope']) {
      expectError(await read(id.post, query), 400, 'INVALID_QUERY');
    }
    expectError(await read('no-such-row', 'fields=nope'), 404, 'NOT_FOUND');
  });

  it('honours fields on the /trpc face too', async () => {
    const client = createTabulaClient({ baseUrl: t.url, token: w.writeKey });
    const row = await client.contents.get.query({ projectId: w.projectId, tableId: posts.id, contentsId: 'hello', expand: 'author', fields: 'author.name,status', locale: 'en' });
    expect(row).toEqual({ id: id.post, status: 'PUBLISHED', data: { author: { id: id.ada, data: { name: 'Ada' } } } });
    await expect(client.contents.get.query({ projectId: w.projectId, tableId: posts.id, contentsId: id.post, fields: 'nope' })).rejects.toMatchObject({
      code: 'INVALID_QUERY',
      status: 400,
    });
  });
});
