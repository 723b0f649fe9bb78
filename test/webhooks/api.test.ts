import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { person } from '../auth/fixture.js';
import { GHOST, buildWorld, createTable, expectBadRequest, expectError, expectValidation, type World } from '../contents/fixture.js';
import { WEBHOOK_ENV, createWebhook, webhooksPath } from './fixture.js';

/** docs/webhooks.md: the webhook endpoints, their wire shape and every refusal. No workers here. */
let t: TestApi;
let w: World;
beforeAll(async () => {
  t = await startTestApi(WEBHOOK_ENV);
  w = await buildWorld(t);
});
afterAll(async () => {
  await t?.close();
});

const SECRET_SHAPE = /^whsec_[A-Za-z0-9+/]{43}=$/;
const FIELDS = ['active', 'createdAt', 'disabledReason', 'events', 'id', 'name', 'tableIds', 'updatedAt', 'url'];
const URL_A = 'http://127.0.0.1:9/a';

describe('webhook CRUD', () => {
  it('create: 201 + Location, the documented shape, a whsec_ secret of 32 random bytes shown once', async () => {
    const res = await t.call('POST', webhooksPath(w), { body: { name: 'Hook', url: URL_A, events: ['contents.created', 'tables.created'] } });
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get('location')).toBe(`${webhooksPath(w)}/${res.json.id}`);
    expect(Object.keys(res.json).sort()).toEqual([...FIELDS, 'secret'].sort());
    expect(res.json).toMatchObject({ name: 'Hook', url: URL_A, events: ['contents.created', 'tables.created'], tableIds: [], active: true, disabledReason: null });
    expect(res.json.secret).toMatch(SECRET_SHAPE);
    expect(Buffer.from(res.json.secret.slice(6), 'base64')).toHaveLength(32);
    expect(res.json.createdAt).toMatch(/Z$/);

    const list = await t.call('GET', `${webhooksPath(w)}?size=1000`);
    expect(list.status).toBe(200);
    const listed = list.json.list.find((x: { id: string }) => x.id === res.json.id);
    expect(Object.keys(listed).sort()).toEqual(FIELDS);
    expect(list.text).not.toContain(res.json.secret);
    expect(list.json.pagination).toMatchObject({ page: 1, size: 1000, total: list.json.list.length, pages: 1, hasNext: false });

    const one = await t.call('GET', webhooksPath(w, res.json.id));
    expect(one.status).toBe(200);
    expect(one.json).toEqual(listed);
  });

  it('name defaults to the URL host; tableIds of the project are kept; events "*" and duplicates', async () => {
    const table = await createTable(w);
    const hook = await createWebhook(w, { url: 'https://hooks.example.com:8443/in', events: ['*', '*'], tableIds: [table.id] });
    expect(hook).toMatchObject({ name: 'hooks.example.com:8443', events: ['*'], tableIds: [table.id] });
  });

  it('PUT is partial; active false then true clears disabledReason; DELETE 204 then 404 everywhere', async () => {
    const hook = await createWebhook(w, { name: 'Before', url: URL_A, events: ['contents.created'] });
    const renamed = await t.call('PUT', webhooksPath(w, hook.id), { body: { name: 'After' } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.json).toMatchObject({ name: 'After', url: URL_A, events: ['contents.created'], active: true });
    expect(renamed.json.secret).toBeUndefined();
    const changed = await t.call('PUT', webhooksPath(w, hook.id), { body: { events: ['files.deleted'], url: 'http://127.0.0.1:9/b', active: false } });
    expect(changed.json).toMatchObject({ events: ['files.deleted'], url: 'http://127.0.0.1:9/b', active: false, disabledReason: null });
    const back = await t.call('PUT', webhooksPath(w, hook.id), { body: { active: true } });
    expect(back.json).toMatchObject({ active: true, disabledReason: null });

    const gone = await t.call('DELETE', webhooksPath(w, hook.id));
    expect(gone.status).toBe(204);
    expect(gone.text).toBe('');
    for (const [method, path] of [
      ['GET', webhooksPath(w, hook.id)],
      ['PUT', webhooksPath(w, hook.id)],
      ['DELETE', webhooksPath(w, hook.id)],
      ['POST', `${webhooksPath(w, hook.id)}/rotate-secret`],
      ['GET', `${webhooksPath(w, hook.id)}/deliveries`],
      ['POST', `${webhooksPath(w, hook.id)}/deliveries/${GHOST}/retry`],
    ] as const) {
      expectError(await t.call(method, path, method === 'PUT' ? { body: { name: 'x' } } : {}), 404, 'NOT_FOUND');
    }
  });

  it('rotate-secret: 200 with a new secret, shown once', async () => {
    const hook = await createWebhook(w, { url: URL_A, events: ['*'] });
    const rotated = await t.call('POST', `${webhooksPath(w, hook.id)}/rotate-secret`);
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.json.secret).toMatch(SECRET_SHAPE);
    expect(rotated.json.secret).not.toBe(hook.secret);
    expect(rotated.json.id).toBe(hook.id);
    const one = await t.call('GET', webhooksPath(w, hook.id));
    expect(one.json.secret).toBeUndefined();
  });

  it('deliveries: the pagination envelope, empty before any event; the rules of every list', async () => {
    const hook = await createWebhook(w, { url: URL_A, events: ['*'] });
    const res = await t.call('GET', `${webhooksPath(w, hook.id)}/deliveries`);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ list: [], pagination: { page: 1, size: 20, total: 0, pages: 0, hasNext: false } });
    expectError(await t.call('GET', `${webhooksPath(w, hook.id)}/deliveries?size=1001`), 400, 'INVALID_QUERY');
    expectError(await t.call('POST', `${webhooksPath(w, hook.id)}/deliveries/${GHOST}/retry`), 404, 'NOT_FOUND');
    expectError(await t.call('POST', `${webhooksPath(w, hook.id)}/deliveries/not-a-uuid/retry`), 404, 'NOT_FOUND');
  });
});

describe('webhook refusals', () => {
  it('400 BAD_REQUEST naming url: not absolute http(s)', async () => {
    for (const url of ['not a url', '/relative/path', 'ftp://example.com/x', 'javascript:alert(1)', 'http://user:pw@example.com/', '']) {
      expectBadRequest(await t.call('POST', webhooksPath(w), { body: { url, events: ['*'] } }), 'url');
    }
    expectBadRequest(await t.call('POST', webhooksPath(w), { body: { events: ['*'] } }), 'url');
    expectBadRequest(await t.call('POST', webhooksPath(w), { body: { url: 42, events: ['*'] } }), 'url');
  });

  it('400 BAD_REQUEST naming events: unknown type, empty, missing, wrong JSON type; other fields too', async () => {
    for (const events of [['contents.exploded'], [], 'contents.created', ['tables.*']]) {
      expectBadRequest(await t.call('POST', webhooksPath(w), { body: { url: URL_A, events } }), 'events');
    }
    expectBadRequest(await t.call('POST', webhooksPath(w), { body: { url: URL_A } }), 'events');
    expectBadRequest(await t.call('POST', webhooksPath(w), { body: { url: URL_A, events: ['*'], active: 'true' } }), 'active');
    expectBadRequest(await t.call('POST', webhooksPath(w), { body: { url: URL_A, events: ['*'], name: 7 } }), 'name');
    for (const tableIds of [['Not a key'], ['a-b'], [7], 'abc']) {
      expectBadRequest(await t.call('POST', webhooksPath(w), { body: { url: URL_A, events: ['*'], tableIds } }), 'tableIds');
    }
    const hook = await createWebhook(w, { url: URL_A, events: ['*'] });
    expectBadRequest(await t.call('PUT', webhooksPath(w, hook.id), { body: { events: ['nope'] } }), 'events');
    expectBadRequest(await t.call('PUT', webhooksPath(w, hook.id), { body: { active: 1 } }), 'active');
    // 404 comes before 400 (docs/reliability.md#errors).
    expectError(await t.call('PUT', webhooksPath(w, GHOST), { body: { events: ['nope'] } }), 404, 'NOT_FOUND');
  });

  it('tableIds may name tables by key: stored and returned as ids, a key and its id once', async () => {
    const [a, b] = [await createTable(w), await createTable(w)];
    const hook = await createWebhook(w, { url: URL_A, events: ['*'], tableIds: [a.key, a.id, b.key] });
    expect(hook.tableIds).toEqual([a.id, b.id]);
    expect((await t.call('GET', webhooksPath(w, hook.id))).json.tableIds).toEqual([a.id, b.id]);
    const res = await t.call('PUT', webhooksPath(w, hook.id), { body: { tableIds: [b.key] } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.tableIds).toEqual([b.id]);
    expect((await t.call('PUT', webhooksPath(w, hook.id), { body: { tableIds: [a.id.toUpperCase()] } })).json.tableIds).toEqual([a.id]);
  });

  it('422 VALIDATION_ERROR field tableIds: an unknown table or one of another project, by id or key', async () => {
    const otherProject = await t.call('POST', `/v1/workspaces/${w.workspaceId}/projects`, { body: { name: 'Other' } });
    const foreign = await t.call('POST', `/v1/${otherProject.json.id}/tables`, { body: { key: 'foreign', name: 'Foreign' } });
    expect(foreign.status, foreign.text).toBe(201);
    const mine = await createTable(w);
    for (const tableIds of [[GHOST], [mine.id, foreign.json.id], ['no_such_table'], [mine.key, 'foreign']]) {
      const res = await t.call('POST', webhooksPath(w), { body: { url: URL_A, events: ['*'], tableIds } });
      expectValidation(res, ['tableIds']);
      expect(res.json.error.details[0].message).toContain(tableIds.at(-1));
    }
    const hook = await createWebhook(w, { url: URL_A, events: ['*'] });
    expectValidation(await t.call('PUT', webhooksPath(w, hook.id), { body: { tableIds: [GHOST] } }), ['tableIds']);
    expectValidation(await t.call('PUT', webhooksPath(w, hook.id), { body: { tableIds: ['no_such_table'] } }), ['tableIds']);
    // A deleted table no longer counts, by id or by key.
    expect((await t.call('DELETE', `/v1/${w.projectId}/tables/${mine.id}`)).status).toBe(204);
    expectValidation(await t.call('PUT', webhooksPath(w, hook.id), { body: { tableIds: [mine.id] } }), ['tableIds']);
    expectValidation(await t.call('PUT', webhooksPath(w, hook.id), { body: { tableIds: [mine.key] } }), ['tableIds']);
  });

  it('403 for API keys (read and read_write) and for accounts below project ADMIN; project ADMIN may', async () => {
    const hook = await createWebhook(w, { url: URL_A, events: ['*'] });
    const editor = await person(t, w.workspaceId, w.projectId, 'EDITOR');
    const viewer = await person(t, w.workspaceId, w.projectId, 'VIEWER');
    const calls = [
      ['GET', webhooksPath(w), undefined],
      ['POST', webhooksPath(w), { url: URL_A, events: ['*'] }],
      ['GET', webhooksPath(w, hook.id), undefined],
      ['PUT', webhooksPath(w, hook.id), { name: 'x' }],
      ['DELETE', webhooksPath(w, hook.id), undefined],
      ['POST', `${webhooksPath(w, hook.id)}/rotate-secret`, undefined],
      ['GET', `${webhooksPath(w, hook.id)}/deliveries`, undefined],
      ['POST', `${webhooksPath(w, hook.id)}/deliveries/${GHOST}/retry`, undefined],
    ] as const;
    for (const token of [w.readKey, w.writeKey, editor.token, viewer.token]) {
      for (const [method, path, body] of calls) expectError(await t.call(method, path, { token, body }), 403, 'FORBIDDEN');
    }
    const admin = await person(t, w.workspaceId, w.projectId, 'ADMIN');
    expect((await t.call('GET', webhooksPath(w), { token: admin.token })).status).toBe(200);
    expect((await t.call('PUT', webhooksPath(w, hook.id), { token: admin.token, body: { name: 'by admin' } })).status).toBe(200);
  });

  it('404 for an unknown project (account token); 401 without a credential', async () => {
    expectError(await t.call('GET', `/v1/${GHOST}/webhooks`), 404, 'NOT_FOUND');
    expectError(await t.call('GET', webhooksPath(w), { token: null }), 401, 'UNAUTHORIZED');
  });

  it('an unknown webhook is 404 before a malformed body is 400/415', async () => {
    const unknown = webhooksPath(w, GHOST);
    const json = { 'content-type': 'application/json' };
    expectError(await t.call('PUT', unknown, { raw: '{not json', headers: json }), 404, 'NOT_FOUND');
    expectError(await t.call('PUT', unknown, { raw: 'a=b', headers: { 'content-type': 'text/plain' } }), 404, 'NOT_FOUND');
    expectError(await t.call('POST', `${unknown}/rotate-secret`, { raw: '{not json', headers: json }), 404, 'NOT_FOUND');
  });
});
