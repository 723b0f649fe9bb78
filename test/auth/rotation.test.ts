import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  KEY_FIELDS,
  KEY_SHAPE,
  MISSING_ID,
  buildWorld,
  createKey,
  expectBadRequest,
  expectError,
  expectStatus,
  listTables,
  type World,
} from './fixture.js';
import { clockReaches, until } from '../helpers/until.js';

/** POST /v1/{projectId}/api-keys/{apiKeyId}/rotate { graceSeconds?: 0..86400 } (docs/concepts.md#api-keys); actions answer 200. */

let t: TestApi;
let w: World;

const rotate = (id: string, body: unknown) => t.call('POST', `/v1/${w.projectId}/api-keys/${id}/rotate`, { body });
const get = (key: string) => listTables(t, w.projectId, key);

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
});
afterAll(() => t?.close());

describe('rotate', () => {
  it('answers 200 with the same record and a new key and prefix; both work during the grace, the old one is 401 after it', async () => {
    const k = await createKey(t, w.projectId, 'read', { allowedHosts: [] });
    expectStatus(await get(k.key), 200);
    const t0 = Date.now();
    const res = await rotate(k.id, { graceSeconds: 2 });
    const t1 = Date.now();
    const r = expectStatus(res, 200);
    expect(res.headers.get('location')).toBeNull();
    expect(Object.keys(r).sort()).toEqual([...KEY_FIELDS, 'key'].sort());
    expect(r).toMatchObject({ id: k.id, name: k.name, permission: 'read', active: true });
    expect(r.key).toMatch(KEY_SHAPE);
    expect(r.key).not.toBe(k.key);
    expect(r.prefix).toBe(r.key.slice(0, 12));
    expect(r.prefix).not.toBe(k.prefix);

    // The list shows the new prefix and never either value.
    const list = await t.call('GET', `/v1/${w.projectId}/api-keys?size=1000`);
    expect(list.text).not.toContain(r.key);
    expect(list.text).not.toContain(k.key);
    expect(list.json.list.find((x: { id: string }) => x.id === k.id).prefix).toBe(r.prefix);

    expectStatus(await get(r.key), 200);
    expectStatus(await get(k.key), 200);
    // One second into the 2 s grace, the old value still works...
    await clockReaches(t0 + 1000, 'one second into the grace');
    expectStatus(await get(k.key), 200);
    // ...and it is refused at the latest 2 s after the grace ended.
    const refused = await until(async () => {
      const res = await get(k.key);
      return res.status === 200 ? false : { res, at: Date.now() };
    }, t1 + 2000 + 2000 - Date.now());
    expectError(refused.res, 401, 'UNAUTHORIZED');
    expect(refused.at).toBeGreaterThanOrEqual(t0 + 2000 - 50);
    expectStatus(await get(r.key), 200);
  });

  it('graceSeconds 0 refuses the old value at once', async () => {
    const k = await createKey(t, w.projectId, 'read_write');
    expectStatus(await get(k.key), 200);
    const r = expectStatus(await rotate(k.id, { graceSeconds: 0 }), 200);
    expectError(await get(k.key), 401, 'UNAUTHORIZED');
    expectStatus(await get(r.key), 200);
  });

  it('without graceSeconds the old value keeps working (default grace), and a second rotation drops the first value', async () => {
    const k = await createKey(t, w.projectId, 'read');
    const r1 = expectStatus(await rotate(k.id, {}), 200);
    expectStatus(await get(k.key), 200);
    expectStatus(await get(r1.key), 200);
    const r2 = expectStatus(await rotate(k.id, { graceSeconds: 60 }), 200);
    expect(new Set([k.key, r1.key, r2.key]).size).toBe(3);
    expectStatus(await get(r2.key), 200);
    expectStatus(await get(r1.key), 200);
    // A value already in its grace is dropped by the next rotation (only one previous value).
    expectError(await get(k.key), 401, 'UNAUTHORIZED');
  });

  it('a rotated key keeps its permission, hosts, active flag and expiry', async () => {
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const k = await createKey(t, w.projectId, 'read', { allowedHosts: ['app.example.org'], expiresAt });
    const r = expectStatus(await rotate(k.id, { graceSeconds: 0 }), 200);
    expect(r).toMatchObject({ permission: 'read', allowedHosts: ['app.example.org'], active: true });
    expect(new Date(r.expiresAt).getTime()).toBe(new Date(expiresAt).getTime());
    expectError(await get(r.key), 403, 'FORBIDDEN');
    expectStatus(await listTables(t, w.projectId, r.key, { origin: 'https://app.example.org' }), 200);
    expectError(await t.call('POST', `/v1/${w.projectId}/tables`, { token: r.key, headers: { origin: 'https://app.example.org' }, body: { key: 'x', name: 'x' } }), 403, 'FORBIDDEN');
  });

  it('the grace value of a deactivated or deleted key is refused too', async () => {
    const k = await createKey(t, w.projectId, 'read');
    const r = expectStatus(await rotate(k.id, { graceSeconds: 600 }), 200);
    expectStatus(await t.call('PUT', `/v1/${w.projectId}/api-keys/${k.id}`, { body: { active: false } }), 200);
    expectError(await get(k.key), 401, 'UNAUTHORIZED');
    expectError(await get(r.key), 401, 'UNAUTHORIZED');
    expectStatus(await t.call('DELETE', `/v1/${w.projectId}/api-keys/${k.id}`), 204);
    expectError(await get(k.key), 401, 'UNAUTHORIZED');
  });

  it('invalid graceSeconds is 400 BAD_REQUEST naming the field, and nothing rotates', async () => {
    const k = await createKey(t, w.projectId, 'read');
    for (const graceSeconds of ['5', 90_000, -1, 1.5, null, true]) {
      expectBadRequest(await rotate(k.id, { graceSeconds }), 'graceSeconds');
    }
    expectStatus(await get(k.key), 200);
    const listed = (await t.call('GET', `/v1/${w.projectId}/api-keys?size=1000`)).json.list.find((x: { id: string }) => x.id === k.id);
    expect(listed.prefix).toBe(k.prefix);
    // The bounds themselves are accepted.
    expectStatus(await rotate(k.id, { graceSeconds: 86_400 }), 200);
  });

  it('rotate of a missing key is 404; API keys and non-admins get 403', async () => {
    expectError(await rotate(MISSING_ID, { graceSeconds: 0 }), 404, 'NOT_FOUND');
    const k = await createKey(t, w.projectId, 'read');
    for (const token of [w.readKey.key, w.writeKey.key, k.key]) {
      expectError(await t.call('POST', `/v1/${w.projectId}/api-keys/${k.id}/rotate`, { token, body: { graceSeconds: 0 } }), 403, 'FORBIDDEN');
    }
    expectStatus(await get(k.key), 200);
  });
});
