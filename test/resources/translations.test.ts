import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { person } from '../auth/fixture.js';
import {
  buildWorld, expectBadRequest, expectConflict, expectCreated, expectError, expectNoContent, expectStatus, expectValidation, GHOST, ISO_UTC,
  type World,
} from '../contents/fixture.js';
import { clockPast } from '../helpers/until.js';

/** Translations: list, create, update, delete (docs/resources.md#translations). Project locales: en, fr. */

let t: TestApi;
let w: World;
const path = (id?: string) => `/v1/${w.projectId}/translations${id ? `/${id}` : ''}`;
const create = (body: Record<string, unknown>, token: string | null = w.writeKey) => t.call('POST', path(), { token, body });

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
});
afterAll(async () => t?.close());

describe('create', () => {
  it('201 with Location and the wire shape; GET by Location answers it', async () => {
    const res = await create({ key: 'home.title', locale: 'fr', value: 'Bienvenue' });
    const tr = expectCreated(res, `/${w.projectId}/translations`);
    expect(Object.keys(tr).sort()).toEqual(['createdAt', 'id', 'key', 'locale', 'updatedAt', 'value']);
    expect(tr).toMatchObject({ key: 'home.title', locale: 'fr', value: 'Bienvenue' });
    expect(tr.createdAt).toMatch(ISO_UTC);
    expect(expectStatus(await t.call('GET', res.headers.get('location')!, { token: w.readKey }), 200)).toEqual(tr);
  });

  it('422 for a locale that is not a project locale; 400 for missing or mistyped fields', async () => {
    expectValidation(await create({ key: 'k', locale: 'de', value: 'Hallo' }), ['locale']);
    expectBadRequest(await create({ locale: 'en', value: 'x' }), 'key');
    expectBadRequest(await create({ key: 'k', value: 'x' }), 'locale');
    expectBadRequest(await create({ key: 'k', locale: 'en' }), 'value');
    expectBadRequest(await create({ key: 'k', locale: 'en', value: 5 }), 'value');
    expectBadRequest(await create({ key: '', locale: 'en', value: 'x' }), 'key');
  });

  it('409 CONFLICT naming key and locale for a taken (key, locale); another locale is fine', async () => {
    expectCreated(await create({ key: 'dup', locale: 'en', value: 'One' }));
    expectConflict(await create({ key: 'dup', locale: 'en', value: 'Two' }), 'locale');
    expectCreated(await create({ key: 'dup', locale: 'fr', value: 'Un' }));
  });

  it('10 parallel creates of one (key, locale): one 201, nine 409', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => create({ key: 'race', locale: 'en', value: `v${i}` })));
    expect(results.map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(409)]);
  });
});

describe('update and delete', () => {
  it('PUT is partial and answers the full object; updatedAt moves', async () => {
    const tr = expectCreated(await create({ key: 'greeting', locale: 'en', value: 'Hi' }));
    await clockPast(tr.updatedAt);
    const updated = expectStatus(await t.call('PUT', path(tr.id), { token: w.writeKey, body: { value: 'Hello' } }), 200);
    expect(updated).toMatchObject({ id: tr.id, key: 'greeting', locale: 'en', value: 'Hello', createdAt: tr.createdAt });
    expect(updated.updatedAt > tr.updatedAt).toBe(true);
    const moved = expectStatus(await t.call('PUT', path(tr.id), { token: w.writeKey, body: { locale: 'fr', key: 'salut' } }), 200);
    expect(moved).toMatchObject({ key: 'salut', locale: 'fr', value: 'Hello' });
  });

  it('PUT: 404 unknown id, 422 bad locale, 409 onto a taken (key, locale), 400 wrong type', async () => {
    const a = expectCreated(await create({ key: 'pa', locale: 'en', value: 'A' }));
    expectCreated(await create({ key: 'pb', locale: 'en', value: 'B' }));
    expectError(await t.call('PUT', path(GHOST), { body: { value: 'x' } }), 404, 'NOT_FOUND');
    expectError(await t.call('PUT', path('nope'), { body: { value: 'x' } }), 404, 'NOT_FOUND');
    expectValidation(await t.call('PUT', path(a.id), { body: { locale: 'xx' } }), ['locale']);
    expectConflict(await t.call('PUT', path(a.id), { body: { key: 'pb' } }), 'key');
    expectBadRequest(await t.call('PUT', path(a.id), { body: { value: false } }), 'value');
    // 404 wins over a bad body (docs/reliability.md#errors).
    expectError(await t.call('PUT', path(GHOST), { body: { value: false } }), 404, 'NOT_FOUND');
  });

  it('DELETE is 204, then 404', async () => {
    const tr = expectCreated(await create({ key: 'gone', locale: 'en', value: 'Bye' }));
    expectNoContent(await t.call('DELETE', path(tr.id), { token: w.writeKey }));
    expectError(await t.call('GET', path(tr.id)), 404, 'NOT_FOUND');
    expectError(await t.call('DELETE', path(tr.id)), 404, 'NOT_FOUND');
    // The (key, locale) is free again.
    expectCreated(await create({ key: 'gone', locale: 'en', value: 'Back' }));
  });
});

describe('list', () => {
  it('pagination and ?locale= / ?key= filters', async () => {
    const pr = await t.call('POST', `/v1/workspaces/${w.workspaceId}/projects`, { body: { name: 'I18n', locales: ['en', 'fr', 'de'], defaultLocale: 'en' } });
    const base = `/v1/${pr.json.id}/translations`;
    for (const [key, locale] of [['a', 'en'], ['a', 'fr'], ['b', 'en'], ['b', 'de'], ['c', 'fr']]) {
      expect((await t.call('POST', base, { body: { key, locale, value: `${key}-${locale}` } })).status).toBe(201);
    }
    const names = (body: { list: { key: string; locale: string }[] }) => body.list.map((x) => `${x.key}/${x.locale}`);
    const all = expectStatus(await t.call('GET', `${base}?size=2`), 200);
    expect(all.pagination).toEqual({ page: 1, size: 2, total: 5, pages: 3, hasNext: true });
    expect(names(expectStatus(await t.call('GET', `${base}?locale=en`), 200))).toEqual(['a/en', 'b/en']);
    expect(names(expectStatus(await t.call('GET', `${base}?key=a`), 200))).toEqual(['a/en', 'a/fr']);
    expect(names(expectStatus(await t.call('GET', `${base}?key=b&locale=de`), 200))).toEqual(['b/de']);
    expectError(await t.call('GET', `${base}?page=-1`), 400, 'INVALID_QUERY');
  });
});

describe('access', () => {
  it('read keys and VIEWERs read but get 403 on every write; EDITORs write; 401; 404 unknown project', async () => {
    const tr = expectCreated(await create({ key: 'acl', locale: 'en', value: 'x' }));
    const viewer = await person(t, w.workspaceId, w.projectId, 'VIEWER');
    const editor = await person(t, w.workspaceId, w.projectId, 'EDITOR');
    for (const token of [w.readKey, viewer.token]) {
      expectStatus(await t.call('GET', path(), { token }), 200);
      expectStatus(await t.call('GET', path(tr.id), { token }), 200);
      expectError(await create({ key: 'ro', locale: 'en', value: 'x' }, token), 403, 'FORBIDDEN');
      expectError(await t.call('PUT', path(tr.id), { token, body: { value: 'y' } }), 403, 'FORBIDDEN');
      expectError(await t.call('DELETE', path(tr.id), { token }), 403, 'FORBIDDEN');
    }
    expectStatus(await t.call('PUT', path(tr.id), { token: editor.token, body: { value: 'by editor' } }), 200);
    expectError(await t.call('GET', path(), { token: null }), 401, 'UNAUTHORIZED');
    expectError(await t.call('DELETE', path(tr.id), { token: null }), 401, 'UNAUTHORIZED');
    expectError(await t.call('GET', `/v1/${GHOST}/translations`), 404, 'NOT_FOUND');
    expectError(await t.call('POST', path(tr.id), { body: {} }), 405, 'METHOD_NOT_ALLOWED');
  });
});
