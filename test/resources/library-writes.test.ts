import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  buildWorld, createRow, createTable, expectBadRequest, expectConflict, expectCreated, expectError, expectNoContent, expectStatus, GHOST, roleKey, type World,
} from '../contents/fixture.js';
import { filesPath, upload } from './fixture.js';

/**
 * The writes the console's library pages make (docs/resources.md): categories renamed, moved and
 * deleted, variables changed and deleted, the file list's `search`, and a file's `used-by`.
 */

let t: TestApi;
let w: World;
const categories = (id?: string) => `/v1/${w.projectId}/categories${id ? `/${id}` : ''}`;
const variables = (id?: string) => `/v1/${w.projectId}/variables${id ? `/${id}` : ''}`;

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
});
afterAll(async () => t?.close());

describe('categories: rename, move, delete', () => {
  it('renames and moves; a move under itself or a descendant is 422; null moves to the top', async () => {
    const make = async (name: string, parentId?: string) =>
      expectCreated(await t.call('POST', categories(), { token: w.writeKey, body: { name, ...(parentId ? { parentId } : {}) } }));
    const news = await make('News');
    const sport = await make('Sport', news.id);
    const tennis = await make('Tennis', sport.id);

    const renamed = expectStatus(await t.call('PUT', categories(sport.id), { token: w.writeKey, body: { name: 'Sports', slug: 'sports' } }), 200);
    expect(renamed).toMatchObject({ id: sport.id, name: 'Sports', slug: 'sports', parentId: news.id });

    expectError(await t.call('PUT', categories(news.id), { token: w.writeKey, body: { parentId: tennis.id } }), 422, 'VALIDATION_ERROR');
    expectError(await t.call('PUT', categories(news.id), { token: w.writeKey, body: { parentId: news.id } }), 422, 'VALIDATION_ERROR');
    expectError(await t.call('PUT', categories(news.id), { token: w.writeKey, body: { parentId: GHOST } }), 422, 'VALIDATION_ERROR');

    const moved = expectStatus(await t.call('PUT', categories(tennis.id), { token: w.writeKey, body: { parentId: news.id } }), 200);
    expect(moved.parentId).toBe(news.id);
    const top = expectStatus(await t.call('PUT', categories(tennis.id), { token: w.writeKey, body: { parentId: null } }), 200);
    expect(top.parentId).toBeNull();
    expect(expectStatus(await t.call('GET', categories(tennis.id), { token: w.readKey }), 200)).toEqual(top);
  });

  it('409 for a slug taken by another category; 404 for an unknown one; 403 for a read key', async () => {
    const a = expectCreated(await t.call('POST', categories(), { token: w.writeKey, body: { name: 'Alpha' } }));
    expectCreated(await t.call('POST', categories(), { token: w.writeKey, body: { name: 'Beta' } }));
    expectConflict(await t.call('PUT', categories(a.id), { token: w.writeKey, body: { slug: 'beta' } }), 'slug');
    expectError(await t.call('PUT', categories(GHOST), { token: w.writeKey, body: { name: 'x' } }), 404, 'NOT_FOUND');
    expectError(await t.call('PUT', categories(a.id), { token: w.readKey, body: { name: 'x' } }), 403, 'FORBIDDEN');
    expectBadRequest(await t.call('PUT', categories(a.id), { token: w.writeKey, body: { name: 12 } }), 'name');
  });

  it('deleting a category makes its subcategories top-level', async () => {
    const parent = expectCreated(await t.call('POST', categories(), { token: w.writeKey, body: { name: 'Parent to delete' } }));
    const child = expectCreated(await t.call('POST', categories(), { token: w.writeKey, body: { name: 'Orphan', parentId: parent.id } }));
    expectNoContent(await t.call('DELETE', categories(parent.id), { token: w.writeKey }));
    expectError(await t.call('GET', categories(parent.id)), 404, 'NOT_FOUND');
    expect(expectStatus(await t.call('GET', categories(child.id)), 200).parentId).toBeNull();
    expectError(await t.call('DELETE', categories(parent.id), { token: w.writeKey }), 404, 'NOT_FOUND');
  });
});

describe('variables: change and delete', () => {
  it('changes the value (any JSON, null included) and the description; the key stays', async () => {
    const v = expectCreated(await t.call('POST', variables(), { token: w.writeKey, body: { key: 'site.banner', value: { on: true } } }));
    const changed = expectStatus(await t.call('PUT', variables(v.id), { token: w.writeKey, body: { value: [1, 'two'], description: 'The banner' } }), 200);
    expect(changed).toMatchObject({ key: 'site.banner', value: [1, 'two'], description: 'The banner' });
    expect(expectStatus(await t.call('PUT', variables(v.id), { token: w.writeKey, body: { value: null } }), 200).value).toBeNull();
    expect(expectStatus(await t.call('PUT', variables(v.id), { token: w.writeKey, body: { value: 'false' } }), 200).value).toBe('false');
    expectError(await t.call('PUT', variables(v.id), { token: w.readKey, body: { value: 1 } }), 403, 'FORBIDDEN');
    expectNoContent(await t.call('DELETE', variables(v.id), { token: w.writeKey }));
    expectError(await t.call('GET', variables(v.id)), 404, 'NOT_FOUND');
  });
});

describe('files: search and used-by', () => {
  it('search lists the files whose name contains the text, any case, % and _ taken literally', async () => {
    for (const name of ['Hero-Banner.png', 'banner_small.png', 'logo.svg', '100%.txt']) {
      expect((await upload(w, { bytes: name, filename: name, type: 'text/plain' })).status).toBe(201);
    }
    const names = async (search: string) =>
      (expectStatus(await t.call('GET', `${filesPath(w)}?search=${encodeURIComponent(search)}`), 200).list as { name: string }[]).map((f) => f.name).sort();
    expect(await names('BANNER')).toEqual(['Hero-Banner.png', 'banner_small.png']);
    expect(await names('%')).toEqual(['100%.txt']);
    expect(await names('r_s')).toEqual(['banner_small.png']);
    // A custom role's `$files` list (its own SQL) searches too.
    const role = await roleKey(w, [{ table: '$files', actions: ['read'], where: [{ i: 'mimeType', w: 'startsWith', v: 'text/' }] }]);
    const scoped = expectStatus(await t.call('GET', `${filesPath(w)}?search=banner`, { token: role.key }), 200);
    expect(scoped.list.map((f: { name: string }) => f.name).sort()).toEqual(['Hero-Banner.png', 'banner_small.png']);
    expect(scoped.pagination.total).toBe(2);
    // Newest first on request, in both lists.
    const newest = expectStatus(await t.call('GET', `${filesPath(w)}?sort=-createdAt&size=2`), 200);
    expect(newest.list.map((f: { name: string }) => f.name)).toEqual(['100%.txt', 'logo.svg']);
    const scopedNewest = expectStatus(await t.call('GET', `${filesPath(w)}?sort=-createdAt&size=1`, { token: role.key }), 200);
    expect(scopedNewest.list.map((f: { name: string }) => f.name)).toEqual(['100%.txt']);
  });

  it('used-by lists the rows holding a file that the caller reads, newest first', async () => {
    const file = expectCreated(await upload(w, { bytes: 'cover', filename: 'cover.png', type: 'image/png' }));
    const table = await createTable(w, [
      { name: 'title', type: 'text' },
      { name: 'cover', type: 'file' },
      { name: 'gallery', type: 'file', settings: { multiple: true } },
    ]);
    const published = await createRow(w, table.key, { title: 'A', cover: file.id }, { status: 'PUBLISHED' });
    const draft = await createRow(w, table.key, { title: 'B', gallery: [file.id] }, { status: 'DRAFT' });
    await createRow(w, table.key, { title: 'C' }, { status: 'PUBLISHED' });

    const all = expectStatus(await t.call('GET', `${filesPath(w, file.id)}/used-by`), 200);
    expect(all.hasMore).toBe(false);
    expect(all.list.map((r: { id: string }) => r.id)).toEqual([draft.id, published.id]);
    expect(all.list[0]).toEqual({ tableId: table.id, id: draft.id, slug: null, status: 'DRAFT' });

    // A read key reads PUBLISHED rows only: the draft is not told.
    const read = expectStatus(await t.call('GET', `${filesPath(w, file.id)}/used-by`, { token: w.readKey }), 200);
    expect(read.list.map((r: { id: string }) => r.id)).toEqual([published.id]);

    // A role that reads the table without its file columns, and every file: no row is told.
    const blind = await roleKey(w, [
      { table: table.key, actions: ['read'], fields: { read: ['title'] } },
      { table: '$files', actions: ['read'] },
    ]);
    expect(expectStatus(await t.call('GET', `${filesPath(w, file.id)}/used-by`, { token: blind.key }), 200).list).toEqual([]);
    // Without a `$files` read rule the file's metadata is not the role's: 403, as for reading it.
    const rowsOnly = await roleKey(w, [{ table: table.key, actions: ['read'] }]);
    expectError(await t.call('GET', `${filesPath(w, file.id)}/used-by`, { token: rowsOnly.key }), 403, 'FORBIDDEN');
    expectError(await t.call('GET', `${filesPath(w, GHOST)}/used-by`), 404, 'NOT_FOUND');
  });
});
