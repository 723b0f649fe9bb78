import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { person } from '../auth/fixture.js';
import {
  buildWorld, expectBadRequest, expectConflict, expectCreated, expectError, expectStatus, expectValidation, GHOST, ISO_UTC, type World,
} from '../contents/fixture.js';

/** Categories: GET/POST /v1/{projectId}/categories (docs/resources.md#categories). */

let t: TestApi;
let w: World;
const path = () => `/v1/${w.projectId}/categories`;
const create = (body: Record<string, unknown>, token: string | null = w.writeKey) => t.call('POST', path(), { token, body });

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
});
afterAll(async () => t?.close());

describe('create', () => {
  it('201 with Location and the wire shape; slug derived from name; GET by Location answers it', async () => {
    const res = await create({ name: 'Crème Brûlée & Co. News', description: 'All the news' });
    const category = expectCreated(res, `/${w.projectId}/categories`);
    expect(Object.keys(category).sort()).toEqual(['createdAt', 'description', 'id', 'name', 'parentId', 'slug']);
    expect(category).toMatchObject({ name: 'Crème Brûlée & Co. News', slug: 'creme-brulee-co-news', description: 'All the news', parentId: null });
    expect(category.createdAt).toMatch(ISO_UTC);
    expect(expectStatus(await t.call('GET', res.headers.get('location')!, { token: w.readKey }), 200)).toEqual(category);
  });

  it('takes an explicit slug and a parent of the same project', async () => {
    const parent = expectCreated(await create({ name: 'Parent', slug: 'parent-one' }));
    expect(parent.slug).toBe('parent-one');
    const child = expectCreated(await create({ name: 'Child', parentId: parent.id }));
    expect(child).toMatchObject({ parentId: parent.id, slug: 'child', description: '' });
  });

  it('409 CONFLICT naming slug when given or derived slug is taken', async () => {
    expectCreated(await create({ name: 'Dup', slug: 'dup' }));
    expectConflict(await create({ name: 'Other', slug: 'dup' }), 'slug');
    expectConflict(await create({ name: 'dup' }), 'slug');
  });

  it('same slug in another project is fine', async () => {
    expectCreated(await create({ name: 'Shared slug' }));
    const pr = await t.call('POST', `/v1/workspaces/${w.workspaceId}/projects`, { body: { name: 'Other' } });
    const other = await t.call('POST', `/v1/${pr.json.id}/categories`, { body: { name: 'Shared slug' } });
    expect(other.status, other.text).toBe(201);
  });

  it('422 parentId that does not exist (or belongs to another project)', async () => {
    expectValidation(await create({ name: 'Orphan', parentId: GHOST }), ['parentId']);
    const pr = await t.call('POST', `/v1/workspaces/${w.workspaceId}/projects`, { body: { name: 'Foreign' } });
    const foreign = await t.call('POST', `/v1/${pr.json.id}/categories`, { body: { name: 'Foreign' } });
    expectValidation(await create({ name: 'Cross', parentId: foreign.json.id }), ['parentId']);
  });

  it('400 BAD_REQUEST for bad input, naming the field', async () => {
    expectBadRequest(await create({}), 'name');
    expectBadRequest(await create({ name: 42 }), 'name');
    expectBadRequest(await create({ name: 'x', slug: 'Not A Slug' }), 'slug');
    expectBadRequest(await create({ name: 'x', parentId: 'nope' }), 'parentId');
    expectBadRequest(await create({ name: '日本語' }), 'slug');
    expectError(await t.call('POST', path(), { raw: 'name=x', headers: { 'content-type': 'text/plain', authorization: `Bearer ${w.writeKey}` } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectError(await t.call('POST', path(), { raw: '{"name":', headers: { 'content-type': 'application/json' } }), 400, 'INVALID_JSON');
  });

  it('10 parallel creates of one slug: one 201, nine 409', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => create({ name: 'Race', slug: 'race-slug' })));
    expect(results.map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(409)]);
    for (const r of results.filter((x) => x.status === 409)) expectConflict(r, 'slug');
  });
});

describe('list', () => {
  it('pagination envelope, creation order, ?parentId= (and parentId=null for roots)', async () => {
    const pr = await t.call('POST', `/v1/workspaces/${w.workspaceId}/projects`, { body: { name: 'Tree' } });
    const base = `/v1/${pr.json.id}/categories`;
    const root = (await t.call('POST', base, { body: { name: 'Root' } })).json;
    for (const name of ['A', 'B', 'C']) expect((await t.call('POST', base, { body: { name, parentId: root.id } })).status).toBe(201);
    const all = expectStatus(await t.call('GET', `${base}?size=2`), 200);
    expect(all.pagination).toEqual({ page: 1, size: 2, total: 4, pages: 2, hasNext: true });
    expect(all.list.map((c: { name: string }) => c.name)).toEqual(['Root', 'A']);
    const children = expectStatus(await t.call('GET', `${base}?parentId=${root.id}`), 200);
    expect(children.list.map((c: { name: string }) => c.name)).toEqual(['A', 'B', 'C']);
    expect(children.pagination.total).toBe(3);
    const roots = expectStatus(await t.call('GET', `${base}?parentId=null`), 200);
    expect(roots.list.map((c: { name: string }) => c.name)).toEqual(['Root']);
    const uncounted = expectStatus(await t.call('GET', `${base}?page=2&size=3&withCount=false`), 200);
    expect(uncounted.pagination).toEqual({ page: 2, size: 3, total: null, pages: null, hasNext: false });
  });

  it('400 INVALID_QUERY for bad page/size/parentId', async () => {
    for (const q of ['size=1001', 'page=0', 'size=1.5', 'parentId=nope']) expectError(await t.call('GET', `${path()}?${q}`), 400, 'INVALID_QUERY');
  });

  it('404 for an unknown category id', async () => {
    expectError(await t.call('GET', `${path()}/${GHOST}`), 404, 'NOT_FOUND');
    expectError(await t.call('GET', `${path()}/not-an-id`), 404, 'NOT_FOUND');
  });
});

describe('access', () => {
  it('401 without a credential; read key lists but cannot create (403); 404 unknown project', async () => {
    expectError(await t.call('GET', path(), { token: null }), 401, 'UNAUTHORIZED');
    expectError(await create({ name: 'x' }, null), 401, 'UNAUTHORIZED');
    expectStatus(await t.call('GET', path(), { token: w.readKey }), 200);
    expectError(await create({ name: 'By read key' }, w.readKey), 403, 'FORBIDDEN');
    // 403 comes before 400: a read key with a bad body is still 403.
    expectError(await create({ name: 42 }, w.readKey), 403, 'FORBIDDEN');
    expectError(await t.call('GET', `/v1/${GHOST}/categories`), 404, 'NOT_FOUND');
  });

  it('EDITOR may create, VIEWER may only list; 405 for other methods', async () => {
    const editor = await person(t, w.workspaceId, w.projectId, 'EDITOR');
    const viewer = await person(t, w.workspaceId, w.projectId, 'VIEWER');
    expect((await create({ name: 'By editor' }, editor.token)).status).toBe(201);
    expectStatus(await t.call('GET', path(), { token: viewer.token }), 200);
    expectError(await create({ name: 'By viewer' }, viewer.token), 403, 'FORBIDDEN');
    expectError(await t.call('DELETE', path()), 405, 'METHOD_NOT_ALLOWED');
  });
});
