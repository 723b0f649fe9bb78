import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, toCallResult, type CallResult, type TestApi } from '../helpers/api.js';
import { startInProcess, type SecondApi } from '../auth/second-process.js';
import { buildWorld, columnsPath, contentsPath, createRow, createTable, expectStatus, putRow, roleKey, tablesPath, type Table, type World } from '../contents/fixture.js';

/**
 * docs/scaling-out.md#http-caches-and-purging: every listed GET answers a strong ETag decided
 * from the change counters; `If-None-Match` with it is 304 without a body; a write changes it
 * (the old tag gets 200 again). Read keys' answers are public for shared caches with surrogate
 * keys; other callers' private.
 */
let t: TestApi;
let w: World;
let authors: Table;
let posts: Table;
let second: SecondApi;
let fileId: string;
let rowId: string;

beforeAll(async () => {
  t = await startTestApi({ CDN_MAX_AGE: '30' });
  w = await buildWorld(t);
  authors = await createTable(w, [{ name: 'name', type: 'text' }]);
  posts = await createTable(w, [
    { name: 'title', type: 'text' },
    { name: 'author', type: 'reference', settings: { table: authors.id } },
  ]);
  const author = await createRow(w, authors.id, { name: 'Ada' }, { status: 'PUBLISHED' });
  rowId = (await createRow(w, posts.id, { title: 'One', author: author.id }, { status: 'PUBLISHED' })).id;
  await t.call('POST', `/v1/${w.projectId}/categories`, { body: { name: 'News' } });
  await t.call('POST', `/v1/${w.projectId}/variables`, { body: { key: 'site', value: 'x' } });
  await t.call('POST', `/v1/${w.projectId}/translations`, { body: { key: 'hello', locale: 'en', value: 'Hello' } });
  const form = new FormData();
  form.append('file', new Blob(['abc'], { type: 'text/plain' }), 'a.txt');
  const uploaded = await toCallResult(await fetch(`${t.url}/v1/${w.projectId}/files`, { method: 'POST', body: form, headers: { authorization: `Bearer ${w.writeKey}` } }));
  fileId = expectStatus(uploaded, 201).id;
  second = await startInProcess(t, { CDN_MAX_AGE: '30' });
});
afterAll(async () => {
  await second?.close();
  await t?.close();
});

const get = (path: string, token: string, headers: Record<string, string> = {}, on = t.call) => on('GET', path, { token, headers });

/** 200 with a strong ETag, then 304 with no body for it. */
async function expectConditional(path: string, token = w.readKey): Promise<CallResult> {
  const first = expectOk(await get(path, token));
  const tag = first.headers.get('etag')!;
  expect(tag).toMatch(/^"[^"]+"$/);
  const again = await get(path, token, { 'if-none-match': tag });
  expect(again.status, `${path}: ${again.text}`).toBe(304);
  expect(again.text).toBe('');
  expect(again.headers.get('etag')).toBe(tag);
  return first;
}

function expectOk(res: CallResult): CallResult {
  expect(res.status, res.text).toBe(200);
  return res;
}

describe('ETags and 304', () => {
  it('answers every listed GET with a strong ETag and 304 for it', async () => {
    const p = `/v1/${w.projectId}`;
    const paths = [
      contentsPath(w, posts.id),
      `${contentsPath(w, posts.id)}?expand=author`,
      `${contentsPath(w, posts.id)}?search=One`,
      `${contentsPath(w, posts.id)}?filter=${encodeURIComponent(JSON.stringify([{ i: 'title', w: 'eq', v: 'One' }]))}`,
      contentsPath(w, posts.id, rowId),
      `${contentsPath(w, posts.id, rowId)}?expand=author`,
      tablesPath(w),
      tablesPath(w, posts.id),
      columnsPath(w, posts.id),
      columnsPath(w, posts.id, 'title'),
      `${p}/categories`,
      `${p}/variables`,
      `${p}/translations`,
      `${p}/files`,
      `${p}/files/${fileId}`,
    ];
    for (const path of paths) await expectConditional(path);
    // Account tokens and read_write keys too, privately.
    for (const token of [w.writeKey, t.adminToken]) {
      const res = await expectConditional(contentsPath(w, posts.id), token);
      expect(res.headers.get('cache-control')).toBe('private, no-cache');
      // Nothing purges what no shared cache keeps.
      expect(res.headers.get('surrogate-key')).toBeNull();
      expect(res.headers.get('cache-tag')).toBeNull();
    }
  });

  it('keeps the read of one row at "<id>:<version>" and answers 304 for it', async () => {
    const res = await expectConditional(contentsPath(w, posts.id, rowId));
    expect(res.headers.get('etag')).toMatch(new RegExp(`^"${rowId}:\\d+"$`));
  });

  it('changes the tag on a write: the old tag gets 200 again, on either process', async () => {
    const listPath = contentsPath(w, posts.id);
    const itemPath = contentsPath(w, posts.id, rowId);
    const list = expectOk(await get(listPath, w.readKey));
    const item = expectOk(await get(itemPath, w.readKey));
    expect((await get(listPath, w.readKey, { 'if-none-match': list.headers.get('etag')! }, second.call)).status).toBe(304);
    expectStatus(await putRow(w, posts.id, rowId, { data: { title: 'Two' } }), 200);
    for (const on of [t.call, second.call]) {
      const fresh = expectOk(await get(listPath, w.readKey, { 'if-none-match': list.headers.get('etag')! }, on));
      expect(fresh.json.list[0].data.title).toBe('Two');
      expect(fresh.headers.get('etag')).not.toBe(list.headers.get('etag'));
      const one = expectOk(await get(itemPath, w.readKey, { 'if-none-match': item.headers.get('etag')! }, on));
      expect(one.json.data.title).toBe('Two');
    }
  });

  it('changes the tag of an expanding list when the referenced table changes, not of a plain one', async () => {
    const plain = expectOk(await get(contentsPath(w, posts.id), w.readKey));
    const expanding = expectOk(await get(`${contentsPath(w, posts.id)}?expand=author`, w.readKey));
    await createRow(w, authors.id, { name: 'Grace' }, { status: 'PUBLISHED' });
    expect((await get(contentsPath(w, posts.id), w.readKey, { 'if-none-match': plain.headers.get('etag')! })).status).toBe(304);
    expect((await get(`${contentsPath(w, posts.id)}?expand=author`, w.readKey, { 'if-none-match': expanding.headers.get('etag')! })).status).toBe(200);
  });

  it('changes the tags of resources when they change', async () => {
    const p = `/v1/${w.projectId}`;
    const before = await Promise.all([`${p}/categories`, `${p}/variables`, `${p}/translations`, `${p}/files`, columnsPath(w, posts.id)].map((path) => get(path, w.readKey)));
    await t.call('POST', `${p}/categories`, { body: { name: 'Sport' } });
    await t.call('POST', `${p}/variables`, { body: { key: 'other', value: 1 } });
    await t.call('POST', `${p}/translations`, { body: { key: 'bye', locale: 'en', value: 'Bye' } });
    expectStatus(await t.call('PUT', `${p}/files/${fileId}`, { body: { name: 'b.txt' } }), 200);
    await t.call('POST', columnsPath(w, posts.id), { body: { name: 'extra', type: 'text' } });
    const after = await Promise.all([`${p}/categories`, `${p}/variables`, `${p}/translations`, `${p}/files`, columnsPath(w, posts.id)].map((path, i) => get(path, w.readKey, { 'if-none-match': before[i].headers.get('etag')! })));
    expect(after.map((res) => res.status)).toEqual([200, 200, 200, 200, 200]);
  });

  it('gives another view another tag: a role key does not get a read key’s 304', async () => {
    const role = await roleKey(w, [{ table: posts.key, actions: ['read'] }]);
    const read = expectOk(await get(contentsPath(w, posts.id), w.readKey));
    const other = await get(contentsPath(w, posts.id), role.key, { 'if-none-match': read.headers.get('etag')! });
    expect(other.status).toBe(200);
    expect(other.headers.get('cache-control')).toBe('private, no-cache');
  });

  it('answers a draft read without a 304 and drafts change private tags', async () => {
    const draftPath = `${contentsPath(w, posts.id, rowId)}?version=draft`;
    const first = expectOk(await get(draftPath, w.writeKey));
    expect((await get(draftPath, w.writeKey, { 'if-none-match': first.headers.get('etag')! })).status).toBe(200);
    const list = expectOk(await get(contentsPath(w, posts.id), w.writeKey));
    expectStatus(await putRow(w, posts.id, rowId, { data: { title: 'Draft title' }, draft: true }), 200);
    expect((await get(contentsPath(w, posts.id), w.writeKey, { 'if-none-match': list.headers.get('etag')! })).status).toBe(200);
  });
});

describe('the OpenAPI documents', () => {
  it('document If-None-Match, 304 and the cache headers of cacheable GETs, and only of those', async () => {
    const doc = (await t.call('GET', '/v1/openapi.json', { token: null })).json;
    const list = doc.paths['/{projectId}/tables/{tableId}/contents'].get;
    expect(list.parameters.map((p: { name: string }) => p.name)).toContain('If-None-Match');
    expect(Object.keys(list.responses)).toContain('304');
    expect(Object.keys(list.responses['200'].headers)).toEqual(expect.arrayContaining(['ETag', 'Cache-Control', 'Vary', 'Surrogate-Key', 'Cache-Tag']));
    expect(Object.keys(doc.paths['/{projectId}/categories'].get.responses)).toContain('304');
    expect(Object.keys(doc.paths['/{projectId}/api-keys'].get.responses)).not.toContain('304');
    const project = (await t.call('GET', `/v1/${w.projectId}/openapi.json`, { token: w.readKey })).json;
    const rows = Object.entries(project.paths as Record<string, { get?: { responses: Record<string, unknown> } }>).filter(([path]) => path.endsWith('/contents'));
    expect(rows.length).toBeGreaterThan(0);
    for (const [, item] of rows) expect(Object.keys(item.get!.responses)).toContain('304');
  });
});

describe('cache headers', () => {
  it('makes read keys’ answers public with surrogate keys, and says what they depend on', async () => {
    const res = expectOk(await get(`${contentsPath(w, posts.id)}?expand=author`, w.readKey));
    expect(res.headers.get('cache-control')).toBe('public, max-age=0, s-maxage=30');
    expect(res.headers.get('vary')).toContain('Authorization, Origin');
    const keys = res.headers.get('surrogate-key')!.split(' ');
    expect(keys).toEqual(expect.arrayContaining([`p:${w.projectId}`, `t:${posts.id}`, `l:${posts.id}`, `l:${authors.id}`]));
    expect(res.headers.get('cache-tag')).toBe(res.headers.get('surrogate-key'));
    const one = expectOk(await get(contentsPath(w, posts.id, rowId), w.readKey));
    expect(one.headers.get('surrogate-key')!.split(' ')).toEqual(expect.arrayContaining([`p:${w.projectId}`, `t:${posts.id}`, `r:${rowId}`]));
  });

  it('sends no cache headers with errors', async () => {
    const res = await get(contentsPath(w, posts.id, '0190b0a0-0000-7000-8000-00000000c0de'), w.readKey);
    expect(res.status).toBe(404);
    expect(res.headers.get('cache-control')).toBeNull();
  });
});
