import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  KEY_FIELDS,
  KEY_SHAPE,
  MISSING_ID,
  UUID_SHAPE,
  buildWorld,
  createKey,
  expectBadRequest,
  expectCreated,
  expectError,
  expectNoContent,
  expectStatus,
  listTables,
  person,
  type Person,
  type World,
} from './fixture.js';
import { until } from '../helpers/until.js';

/** API keys (docs/concepts.md#api-keys): wire shape, create/update/delete (docs/concepts.md#conventions), 400 vs 422. */

let t: TestApi;
let w: World;
let editor: Person;
let viewer: Person;
let projectAdmin: Person;

const keys = () => `/${w.projectId}/api-keys`;
const key = (id: string) => `/v1/${w.projectId}/api-keys/${id}`;

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  editor = await person(t, w.workspaceId, w.projectId, 'EDITOR');
  viewer = await person(t, w.workspaceId, w.projectId, 'VIEWER');
  projectAdmin = await person(t, w.workspaceId, w.projectId, 'ADMIN');
});
afterAll(() => t?.close());

describe('create', () => {
  it('answers 201 + Location with the documented shape; key = tak_ + 43 base62; prefix = first 12 chars', async () => {
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const res = await t.call('POST', `/v1${keys()}`, {
      body: { name: 'Website', permission: 'read', allowedHosts: ['App.Example.com', '*.example.org'], expiresAt },
    });
    const k = expectCreated(res, keys());
    expect(Object.keys(k).sort()).toEqual([...KEY_FIELDS, 'key'].sort());
    expect(k.key).toMatch(KEY_SHAPE);
    expect(k.prefix).toBe(k.key.slice(0, 12));
    expect(k).toMatchObject({ name: 'Website', permission: 'read', active: true, lastUsedAt: null });
    expect(k.allowedHosts.map((h: string) => h.toLowerCase()).sort()).toEqual(['*.example.org', 'app.example.com']);
    expect(new Date(k.expiresAt).getTime()).toBe(new Date(expiresAt).getTime());
    expect(new Date(k.createdAt).toISOString()).toBe(k.createdAt);
  });

  it('defaults: allowedHosts [], active true, expiresAt null; two keys never share a value', async () => {
    const a = await createKey(t, w.projectId, 'read_write');
    const b = await createKey(t, w.projectId, 'read_write');
    expect(a).toMatchObject({ permission: 'read_write', allowedHosts: [], active: true, expiresAt: null });
    expect(a.key).not.toBe(b.key);
    expect(a.id).not.toBe(b.id);
  });

  it('the key value is shown once: the list has the prefix but never the value', async () => {
    const k = await createKey(t, w.projectId, 'read');
    const res = await t.call('GET', `/v1${keys()}?size=1000`);
    expect(res.status, res.text).toBe(200);
    expect(res.text).not.toContain(k.key);
    const item = res.json.list.find((x: { id: string }) => x.id === k.id);
    expect(Object.keys(item).sort()).toEqual(KEY_FIELDS);
    expect(item.prefix).toBe(k.prefix);
    for (const x of res.json.list) expect(x).not.toHaveProperty('key');
    expect(res.json.pagination).toMatchObject({ page: 1, size: 1000, total: res.json.list.length, pages: 1, hasNext: false });
  });

  it('lastUsedAt is set after the key is used', async () => {
    const k = await createKey(t, w.projectId, 'read');
    expect((await listTables(t, w.projectId, k.key)).status).toBe(200);
    const used = await until(async () => {
      const list = (await t.call('GET', `/v1${keys()}?size=1000`)).json.list as { id: string; lastUsedAt: string | null }[];
      return list.find((x) => x.id === k.id)?.lastUsedAt ?? false;
    }, 3000);
    expect(new Date(used).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it('invalid input is 400 BAD_REQUEST naming the field', async () => {
    const post = (body: unknown) => t.call('POST', `/v1${keys()}`, { body });
    expectBadRequest(await post({ name: 'x', permission: 'superuser' }), 'permission');
    expectBadRequest(await post({ permission: 'read' }), 'name');
    // Neither permission nor roleId: 422 (docs/roles.md#granting-a-role), after the shape is read.
    expect(expectError(await post({ name: 'x' }), 422, 'VALIDATION_ERROR').details).toEqual([{ field: 'permission', message: expect.any(String) }]);
    expectBadRequest(await post({ name: 123, permission: 'read' }), 'name');
    expectBadRequest(await post({ name: 'x', permission: 'read', active: 'false' }), 'active');
    expectBadRequest(await post({ name: 'x', permission: 'read', allowedHosts: 'app.example.com' }), 'allowedHosts');
    for (const bad of ['https://app.example.com', 'app example.com', 'foo.*.com', '*', 'app.example.com/path', 'app..example.com']) {
      expectBadRequest(await post({ name: 'x', permission: 'read', allowedHosts: [bad] }), 'allowedHosts');
    }
    expectBadRequest(await post({ name: 'x', permission: 'read', expiresAt: 'tomorrow' }), 'expiresAt');
    // Nothing of the above was created.
    const list = (await t.call('GET', `/v1${keys()}?size=1000`)).json.list as { name: string }[];
    expect(list.filter((k) => k.name === 'x')).toEqual([]);
  });

  it('expiresAt in the past is 422 VALIDATION_ERROR on field expiresAt', async () => {
    const res = await t.call('POST', `/v1${keys()}`, {
      body: { name: 'Old', permission: 'read', expiresAt: new Date(Date.now() - 60_000).toISOString() },
    });
    const error = expectError(res, 422, 'VALIDATION_ERROR');
    expect(error.details).toEqual([expect.objectContaining({ field: 'expiresAt', message: expect.any(String) })]);
  });
});

describe('update', () => {
  it('PUT is partial and answers the full object', async () => {
    const k = await createKey(t, w.projectId, 'read', { allowedHosts: ['a.example.com'] });
    const renamed = expectStatus(await t.call('PUT', key(k.id), { body: { name: 'Renamed' } }), 200);
    expect(Object.keys(renamed).sort()).toEqual(KEY_FIELDS);
    expect(renamed).toMatchObject({ id: k.id, name: 'Renamed', permission: 'read', allowedHosts: ['a.example.com'], active: true, prefix: k.prefix });

    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const changed = expectStatus(
      await t.call('PUT', key(k.id), { body: { permission: 'read_write', allowedHosts: ['b.example.com', '*.example.net'], active: false, expiresAt } }),
      200,
    );
    expect(changed).toMatchObject({ id: k.id, name: 'Renamed', permission: 'read_write', allowedHosts: ['b.example.com', '*.example.net'], active: false });
    expect(new Date(changed.expiresAt).getTime()).toBe(new Date(expiresAt).getTime());

    const cleared = expectStatus(await t.call('PUT', key(k.id), { body: { expiresAt: null, allowedHosts: [] } }), 200);
    expect(cleared).toMatchObject({ name: 'Renamed', permission: 'read_write', allowedHosts: [], active: false, expiresAt: null });

    const listed = (await t.call('GET', `/v1${keys()}?size=1000`)).json.list.find((x: { id: string }) => x.id === k.id);
    expect(listed).toEqual(cleared);
  });

  it('a changed permission takes effect at once', async () => {
    const k = await createKey(t, w.projectId, 'read_write');
    const body = { key: 'perm_change', name: 'x' };
    expectStatus(await t.call('PUT', key(k.id), { body: { permission: 'read' } }), 200);
    expectError(await t.call('POST', `/v1/${w.projectId}/tables`, { token: k.key, body }), 403, 'FORBIDDEN');
  });

  it('invalid update input is 400 naming the field; past expiresAt is 422; the key is unchanged', async () => {
    const k = await createKey(t, w.projectId, 'read');
    expectBadRequest(await t.call('PUT', key(k.id), { body: { active: 'false' } }), 'active');
    expectBadRequest(await t.call('PUT', key(k.id), { body: { active: 0 } }), 'active');
    expectBadRequest(await t.call('PUT', key(k.id), { body: { permission: 'admin' } }), 'permission');
    expectBadRequest(await t.call('PUT', key(k.id), { body: { allowedHosts: 'x.example.com' } }), 'allowedHosts');
    expectBadRequest(await t.call('PUT', key(k.id), { body: { allowedHosts: ['http://x.example.com'] } }), 'allowedHosts');
    expectBadRequest(await t.call('PUT', key(k.id), { body: { name: '' } }), 'name');
    const past = new Date(Date.now() - 1000).toISOString();
    const error = expectError(await t.call('PUT', key(k.id), { body: { expiresAt: past } }), 422, 'VALIDATION_ERROR');
    expect(error.details).toEqual([expect.objectContaining({ field: 'expiresAt' })]);
    const listed = (await t.call('GET', `/v1${keys()}?size=1000`)).json.list.find((x: { id: string }) => x.id === k.id);
    expect(listed).toMatchObject({ name: k.name, permission: 'read', active: true, allowedHosts: [], expiresAt: null });
    expectStatus(await listTables(t, w.projectId, k.key), 200);
  });

  it('unknown key id is 404 on PUT, DELETE and rotate', async () => {
    expectError(await t.call('PUT', key(MISSING_ID), { body: { name: 'x' } }), 404, 'NOT_FOUND');
    expectError(await t.call('DELETE', key(MISSING_ID)), 404, 'NOT_FOUND');
    expectError(await t.call('POST', `${key(MISSING_ID)}/rotate`, { body: {} }), 404, 'NOT_FOUND');
    expectError(await t.call('DELETE', key('not-a-uuid')), 404, 'NOT_FOUND');
  });

  it('a key of another project is 404 through this project', async () => {
    const other = await createKey(t, w.otherProjectId, 'read');
    expectError(await t.call('PUT', key(other.id), { body: { name: 'x' } }), 404, 'NOT_FOUND');
    expectError(await t.call('DELETE', key(other.id)), 404, 'NOT_FOUND');
    expectStatus(await listTables(t, w.otherProjectId, other.key), 200);
  });
});

describe('delete', () => {
  it('answers 204, then 404; the key disappears from the list and is refused at once', async () => {
    const k = await createKey(t, w.projectId, 'read_write');
    expectStatus(await listTables(t, w.projectId, k.key), 200);
    expectNoContent(await t.call('DELETE', key(k.id)));
    expectError(await listTables(t, w.projectId, k.key), 401, 'UNAUTHORIZED');
    expectError(await t.call('DELETE', key(k.id)), 404, 'NOT_FOUND');
    expectError(await t.call('PUT', key(k.id), { body: { active: true } }), 404, 'NOT_FOUND');
    const list = (await t.call('GET', `/v1${keys()}?size=1000`)).json.list as { id: string }[];
    expect(list.map((x) => x.id)).not.toContain(k.id);
  });
});

describe('who may manage keys (project ADMIN account tokens only)', () => {
  it('read and read_write API keys get 403 on every api-keys operation', async () => {
    const target = await createKey(t, w.projectId, 'read');
    for (const token of [w.readKey.key, w.writeKey.key]) {
      expectError(await t.call('GET', `/v1${keys()}`, { token }), 403, 'FORBIDDEN');
      expectError(await t.call('POST', `/v1${keys()}`, { token, body: { name: 'k', permission: 'read' } }), 403, 'FORBIDDEN');
      expectError(await t.call('PUT', key(target.id), { token, body: { name: 'hacked' } }), 403, 'FORBIDDEN');
      expectError(await t.call('POST', `${key(target.id)}/rotate`, { token, body: {} }), 403, 'FORBIDDEN');
      expectError(await t.call('DELETE', key(target.id), { token }), 403, 'FORBIDDEN');
      // Of a missing key too: 403 comes before 404.
      expectError(await t.call('DELETE', key(MISSING_ID), { token }), 403, 'FORBIDDEN');
    }
    const list = (await t.call('GET', `/v1${keys()}?size=1000`)).json.list as { id: string; name: string }[];
    expect(list.find((x) => x.id === target.id)?.name).toBe(target.name);
    expectStatus(await listTables(t, w.projectId, target.key), 200);
  });

  it('project EDITOR and VIEWER accounts get 403; a project ADMIN (workspace MEMBER) may', async () => {
    const target = await createKey(t, w.projectId, 'read');
    for (const who of [editor, viewer]) {
      const token = who.token;
      expectError(await t.call('GET', `/v1${keys()}`, { token }), 403, 'FORBIDDEN');
      expectError(await t.call('POST', `/v1${keys()}`, { token, body: { name: 'k', permission: 'read' } }), 403, 'FORBIDDEN');
      expectError(await t.call('PUT', key(target.id), { token, body: { active: false } }), 403, 'FORBIDDEN');
      expectError(await t.call('DELETE', key(target.id), { token }), 403, 'FORBIDDEN');
      expectError(await t.call('POST', `${key(target.id)}/rotate`, { token, body: { graceSeconds: 0 } }), 403, 'FORBIDDEN');
    }
    expectStatus(await listTables(t, w.projectId, target.key), 200);
    const token = projectAdmin.token;
    expectStatus(await t.call('GET', `/v1${keys()}`, { token }), 200);
    const created = expectCreated(await t.call('POST', `/v1${keys()}`, { token, body: { name: 'by padmin', permission: 'read' } }), keys());
    expectStatus(await t.call('PUT', key(created.id), { token, body: { name: 'renamed' } }), 200);
    expectNoContent(await t.call('DELETE', key(created.id), { token }));
  });

  it('an account without a role in the project gets 403', async () => {
    const plain = await person(t, w.workspaceId);
    expectError(await t.call('GET', `/v1${keys()}`, { token: plain.token }), 403, 'FORBIDDEN');
    expectError(await t.call('POST', `/v1${keys()}`, { token: plain.token, body: { name: 'k', permission: 'read' } }), 403, 'FORBIDDEN');
  });

  it('ids are UUIDs and listing is paged', async () => {
    const res = await t.call('GET', `/v1${keys()}?size=1&page=2`);
    expect(res.status, res.text).toBe(200);
    expect(res.json.list).toHaveLength(1);
    expect(res.json.list[0].id).toMatch(UUID_SHAPE);
    expectError(await t.call('GET', `/v1${keys()}?size=1001`), 400, 'INVALID_QUERY');
  });
});
