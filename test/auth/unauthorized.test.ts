import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  MISSING_ID,
  buildWorld,
  createKey,
  expectError,
  expectNoContent,
  expectStatus,
  listTables,
  randomSecret,
  tablesPath,
  type World,
} from './fixture.js';
import { until } from '../helpers/until.js';

/** Every 401 cause (docs/reliability.md#errors), and 401 before 403/404/400. */

let t: TestApi;
let w: World;

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
});
afterAll(() => t?.close());

const withHeader = (authorization: string, path = tablesPath(w.projectId)) => t.call('GET', path, { token: null, headers: { authorization } });

describe('malformed or missing credentials', () => {
  it('no Authorization header is 401 on project, account and workspace endpoints', async () => {
    for (const path of [tablesPath(w.projectId), '/v1/accounts/me', '/v1/workspaces', `/v1/workspaces/${w.workspaceId}`, `/v1/${w.projectId}/api-keys`]) {
      expectError(await t.call('GET', path, { token: null }), 401, 'UNAUTHORIZED');
    }
  });

  it('a value without the `Bearer ` prefix is 401 (bare key, Token scheme, Basic)', async () => {
    for (const secret of [w.readKey.key, t.adminToken]) {
      expectError(await withHeader(secret), 401, 'UNAUTHORIZED');
      expectError(await withHeader(`Token ${secret}`), 401, 'UNAUTHORIZED');
      expectError(await withHeader(`Basic ${Buffer.from(`${secret}:`).toString('base64')}`), 401, 'UNAUTHORIZED');
      expectError(await withHeader(`Bearer${secret}`), 401, 'UNAUTHORIZED');
    }
    // The same values with the prefix work: the refusals above are about the prefix only.
    expectStatus(await withHeader(`Bearer ${w.readKey.key}`), 200);
    expectStatus(await withHeader(`Bearer ${t.adminToken}`, '/v1/accounts/me'), 200);
  });

  it('an unknown, well-formed tak_ or tat_ value is 401', async () => {
    expectError(await listTables(t, w.projectId, randomSecret('tak_')), 401, 'UNAUTHORIZED');
    expectError(await listTables(t, w.projectId, randomSecret('tat_')), 401, 'UNAUTHORIZED');
    expectError(await t.call('GET', '/v1/accounts/me', { token: randomSecret('tat_') }), 401, 'UNAUTHORIZED');
  });

  it('malformed values are 401', async () => {
    const key = w.readKey.key;
    for (const value of [
      'Bearer ',
      'Bearer',
      `Bearer ${key.slice(0, -1)}`,
      `Bearer ${key}x`,
      `Bearer ${key.replace('tak_', 'tok_')}`,
      `Bearer ${key} extra`,
      'Bearer tak_',
      `Bearer ${'x'.repeat(5000)}`,
      'Bearer null',
    ]) {
      expectError(await withHeader(value), 401, 'UNAUTHORIZED');
    }
  });
});

describe('keys that no longer work', () => {
  it('a deleted key is 401 at once', async () => {
    const k = await createKey(t, w.projectId, 'read_write');
    expectStatus(await listTables(t, w.projectId, k.key), 200);
    expectNoContent(await t.call('DELETE', `/v1/${w.projectId}/api-keys/${k.id}`));
    expectError(await listTables(t, w.projectId, k.key), 401, 'UNAUTHORIZED');
    expectError(await t.call('POST', tablesPath(w.projectId), { token: k.key, body: { key: 'after_delete', name: 'x' } }), 401, 'UNAUTHORIZED');
  });

  it('a deactivated key is 401 at once; reactivated it works again', async () => {
    const k = await createKey(t, w.projectId, 'read');
    expectStatus(await listTables(t, w.projectId, k.key), 200);
    const off = expectStatus(await t.call('PUT', `/v1/${w.projectId}/api-keys/${k.id}`, { body: { active: false } }), 200);
    expect(off).toMatchObject({ id: k.id, active: false, name: k.name, permission: 'read' });
    expectError(await listTables(t, w.projectId, k.key), 401, 'UNAUTHORIZED');
    expectStatus(await t.call('PUT', `/v1/${w.projectId}/api-keys/${k.id}`, { body: { active: true } }), 200);
    expectStatus(await listTables(t, w.projectId, k.key), 200);
  });

  it('a key created inactive is 401 until activated', async () => {
    const k = await createKey(t, w.projectId, 'read', { active: false });
    expect(k.active).toBe(false);
    expectError(await listTables(t, w.projectId, k.key), 401, 'UNAUTHORIZED');
    expectStatus(await t.call('PUT', `/v1/${w.projectId}/api-keys/${k.id}`, { body: { active: true } }), 200);
    expectStatus(await listTables(t, w.projectId, k.key), 200);
  });

  it('a key past its expiresAt is 401 (within 1 s of it)', async () => {
    const expiresAt = Date.now() + 1500;
    const k = await createKey(t, w.projectId, 'read', { expiresAt: new Date(expiresAt).toISOString() });
    expectStatus(await listTables(t, w.projectId, k.key), 200);
    const refused = await until(async () => {
      const res = await listTables(t, w.projectId, k.key);
      if (res.status === 200) return false;
      return { res, at: Date.now() };
    }, expiresAt + 1000 - Date.now());
    expectError(refused.res, 401, 'UNAUTHORIZED');
    expect(refused.at).toBeGreaterThanOrEqual(expiresAt - 50);
    // And it stays refused.
    expectError(await listTables(t, w.projectId, k.key), 401, 'UNAUTHORIZED');
  });

  it('an expired key works again when expiresAt is moved or cleared', async () => {
    const k = await createKey(t, w.projectId, 'read', { expiresAt: new Date(Date.now() + 300).toISOString() });
    await until(async () => (await listTables(t, w.projectId, k.key)).status === 401 || false, 1500);
    expectStatus(await t.call('PUT', `/v1/${w.projectId}/api-keys/${k.id}`, { body: { expiresAt: null } }), 200);
    expectStatus(await listTables(t, w.projectId, k.key), 200);
  });
});

describe('401 comes first (401 → 403 → 404 → 400)', () => {
  it('no credential + malformed JSON body is 401, not 400', async () => {
    const res = await t.call('POST', tablesPath(w.projectId), { token: null, raw: '{"key": ', headers: { 'content-type': 'application/json' } });
    expectError(res, 401, 'UNAUTHORIZED');
  });

  it('no credential + wrong content type is 401, not 415', async () => {
    const res = await t.call('POST', tablesPath(w.projectId), { token: null, raw: 'key=x', headers: { 'content-type': 'text/plain' } });
    expectError(res, 401, 'UNAUTHORIZED');
  });

  it('no credential + invalid body fields is 401, not 400', async () => {
    expectError(await t.call('POST', tablesPath(w.projectId), { token: null, body: { key: 'BAD KEY' } }), 401, 'UNAUTHORIZED');
  });

  it('unknown key on another project / a missing project / a missing table is 401, not 403 or 404', async () => {
    const ghost = randomSecret('tak_');
    expectError(await listTables(t, w.otherProjectId, ghost), 401, 'UNAUTHORIZED');
    expectError(await listTables(t, MISSING_ID, ghost), 401, 'UNAUTHORIZED');
    expectError(await t.call('GET', `${tablesPath(w.projectId)}/no_such_table`, { token: ghost }), 401, 'UNAUTHORIZED');
    expectError(await t.call('GET', `/v1/workspaces/${MISSING_ID}`, { token: randomSecret('tat_') }), 401, 'UNAUTHORIZED');
  });

  it('a deleted key on the api-keys endpoints is 401, not 403', async () => {
    const k = await createKey(t, w.projectId, 'read_write');
    expectNoContent(await t.call('DELETE', `/v1/${w.projectId}/api-keys/${k.id}`));
    expectError(await t.call('GET', `/v1/${w.projectId}/api-keys`, { token: k.key }), 401, 'UNAUTHORIZED');
    expectError(await t.call('GET', '/v1/accounts/me', { token: k.key }), 401, 'UNAUTHORIZED');
  });
});
