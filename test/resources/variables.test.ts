import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { person } from '../auth/fixture.js';
import { buildWorld, expectBadRequest, expectConflict, expectCreated, expectError, expectStatus, GHOST, ISO_UTC, type World } from '../contents/fixture.js';

/** Variables: GET/POST /v1/{projectId}/variables (docs/resources.md#variables). */

let t: TestApi;
let w: World;
const path = () => `/v1/${w.projectId}/variables`;
const create = (body: Record<string, unknown>, token: string | null = w.writeKey) => t.call('POST', path(), { token, body });

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
});
afterAll(async () => t?.close());

describe('create', () => {
  it('201 with Location and the wire shape; GET by Location answers it', async () => {
    const res = await create({ key: 'site.title', value: 'Tabula', description: 'Shown in the header' });
    const variable = expectCreated(res, `/${w.projectId}/variables`);
    expect(Object.keys(variable).sort()).toEqual(['createdAt', 'description', 'id', 'key', 'updatedAt', 'value']);
    expect(variable).toMatchObject({ key: 'site.title', value: 'Tabula', description: 'Shown in the header' });
    expect(variable.createdAt).toMatch(ISO_UTC);
    expect(variable.updatedAt).toMatch(ISO_UTC);
    expect(expectStatus(await t.call('GET', res.headers.get('location')!, { token: w.readKey }), 200)).toEqual(variable);
  });

  it('value is any JSON value, kept with its JSON type', async () => {
    const values: [string, unknown][] = [
      ['n_int', 42], ['n_float', 1.5], ['b_true', true], ['b_false', false], ['nil', null], ['s_num', '42'], ['s_false', 'false'],
      ['arr', [1, 'two', { three: 3 }]], ['obj', { nested: { list: [true, null] }, n: 0 }], ['empty_s', ''],
    ];
    for (const [key, value] of values) {
      const created = expectCreated(await create({ key, value }));
      expect(created.value, key).toEqual(value);
      const listed = expectStatus(await t.call('GET', `${path()}?key=${key}`), 200);
      expect(listed.list[0].value, key).toEqual(value);
    }
  });

  it('400 for a key outside ^[A-Za-z_][A-Za-z0-9_.-]{0,127}$, a missing key or a missing value', async () => {
    for (const key of ['1abc', '-x', 'has space', 'ümlaut', '', `a${'b'.repeat(128)}`, 'a/b']) expectBadRequest(await create({ key, value: 1 }), 'key');
    for (const key of ['_', 'A', 'a.b-c_d', `a${'b'.repeat(127)}`]) expectCreated(await create({ key, value: 1 }));
    expectBadRequest(await create({ value: 1 }), 'key');
    expectBadRequest(await create({ key: 'novalue' }), 'value');
    expectBadRequest(await create({ key: 12, value: 1 }), 'key');
  });

  it('409 CONFLICT naming key when the key exists; keys are case-sensitive', async () => {
    expectCreated(await create({ key: 'dupKey', value: 1 }));
    expectConflict(await create({ key: 'dupKey', value: 2 }), 'key');
    expectCreated(await create({ key: 'DUPKEY', value: 3 }));
  });

  it('10 parallel creates of one key: one 201, nine 409', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => create({ key: 'raceKey', value: i })));
    expect(results.map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(409)]);
  });
});

describe('list', () => {
  it('pagination envelope and ?key= filter', async () => {
    const pr = await t.call('POST', `/v1/workspaces/${w.workspaceId}/projects`, { body: { name: 'Vars' } });
    const base = `/v1/${pr.json.id}/variables`;
    for (const key of ['a', 'b', 'c']) expect((await t.call('POST', base, { body: { key, value: key } })).status).toBe(201);
    const page = expectStatus(await t.call('GET', `${base}?size=2&page=2`), 200);
    expect(page.pagination).toEqual({ page: 2, size: 2, total: 3, pages: 2, hasNext: false });
    expect(page.list.map((v: { key: string }) => v.key)).toEqual(['c']);
    const one = expectStatus(await t.call('GET', `${base}?key=b`), 200);
    expect(one.list.map((v: { key: string }) => v.key)).toEqual(['b']);
    expect(expectStatus(await t.call('GET', `${base}?key=zzz`), 200).pagination.total).toBe(0);
    expectError(await t.call('GET', `${base}?size=0`), 400, 'INVALID_QUERY');
    expectError(await t.call('GET', `${path()}/${GHOST}`), 404, 'NOT_FOUND');
  });
});

describe('access', () => {
  it('401, 403 for read keys and VIEWERs on create, EDITOR may create, 404 unknown project, 405', async () => {
    expectError(await t.call('GET', path(), { token: null }), 401, 'UNAUTHORIZED');
    expectStatus(await t.call('GET', path(), { token: w.readKey }), 200);
    expectError(await create({ key: 'ro', value: 1 }, w.readKey), 403, 'FORBIDDEN');
    const editor = await person(t, w.workspaceId, w.projectId, 'EDITOR');
    const viewer = await person(t, w.workspaceId, w.projectId, 'VIEWER');
    expect((await create({ key: 'byEditor', value: 1 }, editor.token)).status).toBe(201);
    expectError(await create({ key: 'byViewer', value: 1 }, viewer.token), 403, 'FORBIDDEN');
    expectError(await t.call('GET', `/v1/${GHOST}/variables`), 404, 'NOT_FOUND');
    expectError(await t.call('PUT', path(), { body: {} }), 405, 'METHOD_NOT_ALLOWED');
  });
});
