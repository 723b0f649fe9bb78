import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  buildWorld, columnsPath, contentsPath, createRow, createTable, expectBadRequest, expectConflict, expectCreated, expectError,
  expectNoContent, expectStatus, GHOST, ISO_UTC, list, postRow, putRow, tablesPath, uniq, type World,
} from './fixture.js';

let t: TestApi;
let w: World;

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
});
afterAll(async () => t?.close());

describe('tables', () => {
  it('create answers 201 with Location and the full table; defaultStatus defaults to PUBLISHED', async () => {
    const key = uniq('articles');
    const res = await t.call('POST', tablesPath(w), { body: { key, name: 'Articles', description: 'News' } });
    const table = expectCreated(res, `/${w.projectId}/tables`);
    expect(Object.keys(table).sort()).toEqual(['createdAt', 'defaultStatus', 'description', 'id', 'key', 'name', 'settings', 'updatedAt']);
    expect(table).toMatchObject({ key, name: 'Articles', description: 'News', defaultStatus: 'PUBLISHED' });
    expect(table.createdAt).toMatch(ISO_UTC);
    expect(table.updatedAt).toMatch(ISO_UTC);
    expect(expectStatus(await t.call('GET', res.headers.get('location')!), 200)).toEqual(table);
  });

  it('key rules: pattern violations are 400 naming key; a missing key or name is 400', async () => {
    for (const key of ['Articles', '1abc', '_a', 'a-b', 'a b', '', 'a'.repeat(64), 'é']) {
      expectBadRequest(await t.call('POST', tablesPath(w), { body: { key, name: 'x' } }), 'key');
    }
    expectBadRequest(await t.call('POST', tablesPath(w), { body: { name: 'x' } }), 'key');
    expectBadRequest(await t.call('POST', tablesPath(w), { body: { key: uniq() } }), 'name');
    expectBadRequest(await t.call('POST', tablesPath(w), { body: { key: uniq(), name: 'x', defaultStatus: 'LIVE' } }), 'defaultStatus');
    expectCreated(await t.call('POST', tablesPath(w), { body: { key: 'a' + '_9'.repeat(31), name: 'longest key' } }));
  });

  it('duplicate key is 409 CONFLICT naming key, on create and on rename', async () => {
    const a = await createTable(w);
    const b = await createTable(w);
    expectConflict(await t.call('POST', tablesPath(w), { body: { key: a.key, name: 'again' } }), 'key');
    expectConflict(await t.call('PUT', tablesPath(w, b.id), { body: { key: a.key } }), 'key');
  });

  it('the key stands for the id in every table, column and contents path', async () => {
    const table = await createTable(w, [{ name: 'title', type: 'text' }]);
    const k = table.key;
    expect(expectStatus(await t.call('GET', tablesPath(w, k)), 200).id).toBe(table.id);
    expect(expectStatus(await t.call('PUT', tablesPath(w, k), { body: { name: 'Renamed' } }), 200).name).toBe('Renamed');
    // columns
    const col = expectCreated(await t.call('POST', columnsPath(w, k), { body: { name: 'body', type: 'longtext' } }), `/${w.projectId}/tables/${k}/columns`);
    expect(expectStatus(await t.call('GET', columnsPath(w, k)), 200).list.map((c: { name: string }) => c.name)).toEqual(['title', 'body']);
    expect(expectStatus(await t.call('GET', columnsPath(w, k, col.id)), 200).name).toBe('body');
    expect(expectStatus(await t.call('PUT', columnsPath(w, k, col.id), { body: { label: 'Body' } }), 200).label).toBe('Body');
    expectNoContent(await t.call('DELETE', columnsPath(w, k, col.id)));
    // contents
    const row = await createRow(w, k, { title: 'by key' });
    expect(expectStatus(await t.call('GET', contentsPath(w, k, row.id), { token: w.readKey }), 200).id).toBe(row.id);
    expect(expectStatus(await putRow(w, k, row.id, { data: { title: 'changed' } }), 200).data.title).toBe('changed');
    expect((await list(w, k, w.readKey)).list.map((r) => r.id)).toEqual([row.id]);
    expectNoContent(await t.call('DELETE', contentsPath(w, k, row.id), { token: w.writeKey }));
    expectNoContent(await t.call('DELETE', tablesPath(w, k)));
    expectError(await t.call('GET', tablesPath(w, table.id)), 404, 'NOT_FOUND');
  });

  it('a renamed key addresses the table at once; the old key is 404', async () => {
    const table = await createTable(w);
    const key = uniq('renamed');
    expect(expectStatus(await t.call('PUT', tablesPath(w, table.key), { body: { key } }), 200).key).toBe(key);
    expect(expectStatus(await t.call('GET', tablesPath(w, key)), 200).id).toBe(table.id);
    expectError(await t.call('GET', tablesPath(w, table.key)), 404, 'NOT_FOUND');
    expectError(await t.call('GET', contentsPath(w, table.key)), 404, 'NOT_FOUND');
  });

  it('PUT is partial: absent fields keep their values', async () => {
    const table = await createTable(w, [], { description: 'd', defaultStatus: 'DRAFT' });
    const up = expectStatus(await t.call('PUT', tablesPath(w, table.id), { body: { name: 'Only name' } }), 200);
    expect(up).toMatchObject({ id: table.id, key: table.key, name: 'Only name', description: 'd', defaultStatus: 'DRAFT' });
  });

  it('list is paginated and in creation order', async () => {
    const body = expectStatus(await t.call('GET', `${tablesPath(w)}?size=2&page=1`, { token: w.readKey }), 200);
    expect(body.list).toHaveLength(2);
    expect(body.pagination).toMatchObject({ page: 1, size: 2 });
    expect(body.pagination.total).toBeGreaterThanOrEqual(2);
    expect(body.pagination.pages).toBe(Math.ceil(body.pagination.total / 2));
  });

  it('delete is 204; then the table, its columns and its contents are 404; the key can be reused', async () => {
    const table = await createTable(w, [{ name: 'title', type: 'text' }]);
    const row = await createRow(w, table.id, { title: 'gone' });
    expectNoContent(await t.call('DELETE', tablesPath(w, table.id)));
    for (const token of [undefined, w.writeKey, w.readKey]) {
      expectError(await t.call('GET', tablesPath(w, table.id), { token }), 404, 'NOT_FOUND');
      expectError(await t.call('GET', tablesPath(w, table.key), { token }), 404, 'NOT_FOUND');
      expectError(await t.call('GET', columnsPath(w, table.id), { token }), 404, 'NOT_FOUND');
      expectError(await t.call('GET', contentsPath(w, table.id), { token }), 404, 'NOT_FOUND');
      expectError(await t.call('GET', contentsPath(w, table.id, row.id), { token }), 404, 'NOT_FOUND');
    }
    expectError(await t.call('DELETE', tablesPath(w, table.id)), 404, 'NOT_FOUND');
    expectError(await postRow(w, table.id, { data: { title: 'x' } }), 404, 'NOT_FOUND');
    expectError(await putRow(w, table.id, row.id, { data: { title: 'x' } }), 404, 'NOT_FOUND');
    const tables = expectStatus(await t.call('GET', `${tablesPath(w)}?size=1000`), 200);
    expect(tables.list.some((x: { id: string }) => x.id === table.id)).toBe(false);
    const again = expectCreated(await t.call('POST', tablesPath(w), { body: { key: table.key, name: 'again' } }));
    expect(again.id).not.toBe(table.id);
    expect((await list(w, table.key, w.writeKey)).pagination.total).toBe(0);
  });

  it('unknown table id or key is 404 NOT_FOUND', async () => {
    expectError(await t.call('GET', tablesPath(w, GHOST)), 404, 'NOT_FOUND');
    expectError(await t.call('GET', tablesPath(w, 'no_such_table')), 404, 'NOT_FOUND');
    expectError(await t.call('PUT', tablesPath(w, 'no_such_table'), { body: { name: 'x' } }), 404, 'NOT_FOUND');
    expectError(await t.call('DELETE', tablesPath(w, GHOST)), 404, 'NOT_FOUND');
  });

  it('defaultStatus is applied to new rows that name no status', async () => {
    const drafts = await createTable(w, [{ name: 'title', type: 'text' }], { defaultStatus: 'DRAFT' });
    const row = await createRow(w, drafts.id, { title: 'draft by default' });
    expect(row.status).toBe('DRAFT');
    expect(row.publishedAt).toBeNull();
    expect((await createRow(w, drafts.id, { title: 'explicit' }, { status: 'PUBLISHED' })).status).toBe('PUBLISHED');
    expectStatus(await t.call('PUT', tablesPath(w, drafts.id), { body: { defaultStatus: 'ARCHIVED' } }), 200);
    expect((await createRow(w, drafts.id, { title: 'archived by default' })).status).toBe('ARCHIVED');
    const published = await createTable(w, [{ name: 'title', type: 'text' }]);
    const pub = await createRow(w, published.key, { title: 'p' });
    expect(pub.status).toBe('PUBLISHED');
    expect(pub.publishedAt).toMatch(ISO_UTC);
  });

  it('read keys may read tables but not create, change or delete them (403, even for unknown tables)', async () => {
    const table = await createTable(w);
    expectStatus(await t.call('GET', tablesPath(w, table.id), { token: w.readKey }), 200);
    expectError(await t.call('POST', tablesPath(w), { token: w.readKey, body: { key: uniq(), name: 'x' } }), 403, 'FORBIDDEN');
    expectError(await t.call('PUT', tablesPath(w, table.id), { token: w.readKey, body: { name: 'x' } }), 403, 'FORBIDDEN');
    expectError(await t.call('DELETE', tablesPath(w, table.id), { token: w.readKey }), 403, 'FORBIDDEN');
    expectError(await t.call('DELETE', tablesPath(w, 'no_such_table'), { token: w.readKey }), 403, 'FORBIDDEN');
    expectError(await t.call('POST', columnsPath(w, 'no_such_table'), { token: w.readKey, body: { name: 'a', type: 'text' } }), 403, 'FORBIDDEN');
  });

  it('unknown table with a malformed body is 404 (check order 404 before 400)', async () => {
    expectError(await t.call('PUT', tablesPath(w, 'no_such_table'), { body: { key: 'Bad Key!' } }), 404, 'NOT_FOUND');
    expectError(await t.call('POST', columnsPath(w, 'no_such_table'), { body: { name: '1', type: 'nope' } }), 404, 'NOT_FOUND');
    expectError(await t.call('POST', contentsPath(w, 'no_such_table'), { token: w.writeKey, body: {} }), 404, 'NOT_FOUND');
    expectError(
      await t.call('POST', contentsPath(w, 'no_such_table'), { token: w.writeKey, raw: '{not json', headers: { 'content-type': 'application/json' } }),
      404,
      'NOT_FOUND',
    );
  });
});
