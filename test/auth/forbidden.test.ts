import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  MISSING_ID,
  buildWorld,
  createKey,
  createProject,
  createTable,
  createWorkspace,
  expectCreated,
  expectError,
  expectNoContent,
  expectStatus,
  listTables,
  person,
  tablesPath,
  uniq,
  type Person,
  type World,
} from './fixture.js';

/** Every 403 cause (docs/reliability.md#errors, docs/concepts.md#credentials-and-roles), and 403 before 404/400. */

let t: TestApi;
let w: World;
let editor: Person;
let viewer: Person;
let noRole: Person;

const tableNames = async (projectId: string) =>
  ((await t.call('GET', `${tablesPath(projectId)}?size=1000`)).json.list as { key: string; name: string }[]).map((x) => `${x.key}:${x.name}`).sort();
const badJson = { raw: '{"key": ', headers: { 'content-type': 'application/json' } };

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  editor = await person(t, w.workspaceId, w.projectId, 'EDITOR');
  viewer = await person(t, w.workspaceId, w.projectId, 'VIEWER');
  noRole = await person(t, w.workspaceId);
});
afterAll(() => t?.close());

describe('key permission', () => {
  it('a read key may GET; its POST/PUT/DELETE are 403 and change nothing', async () => {
    const table = await createTable(t, w.projectId);
    const token = w.readKey.key;
    expectStatus(await listTables(t, w.projectId, token), 200);
    expectStatus(await t.call('GET', `${tablesPath(w.projectId)}/${table.id}`, { token }), 200);
    const before = await tableNames(w.projectId);
    expectError(await t.call('POST', tablesPath(w.projectId), { token, body: { key: uniq('t').toLowerCase(), name: 'x' } }), 403, 'FORBIDDEN');
    expectError(await t.call('PUT', `${tablesPath(w.projectId)}/${table.id}`, { token, body: { name: 'changed' } }), 403, 'FORBIDDEN');
    expectError(await t.call('DELETE', `${tablesPath(w.projectId)}/${table.id}`, { token }), 403, 'FORBIDDEN');
    expectError(await t.call('DELETE', `${tablesPath(w.projectId)}/${table.key}`, { token }), 403, 'FORBIDDEN');
    expect(await tableNames(w.projectId)).toEqual(before);
    expectStatus(await t.call('GET', `${tablesPath(w.projectId)}/${table.id}`, { token }), 200);
  });

  it('a read key writing to a missing table, or with a malformed body, is 403 (not 404/400)', async () => {
    const token = w.readKey.key;
    expectError(await t.call('PUT', `${tablesPath(w.projectId)}/no_such_table`, { token, body: { name: 'x' } }), 403, 'FORBIDDEN');
    expectError(await t.call('DELETE', `${tablesPath(w.projectId)}/${MISSING_ID}`, { token }), 403, 'FORBIDDEN');
    expectError(await t.call('POST', tablesPath(w.projectId), { token, ...badJson }), 403, 'FORBIDDEN');
    expectError(await t.call('POST', tablesPath(w.projectId), { token, body: { key: 'BAD KEY' } }), 403, 'FORBIDDEN');
  });

  it('a read_write key may create, update and delete tables', async () => {
    const token = w.writeKey.key;
    const created = await createTable(t, w.projectId, { token });
    const updated = expectStatus(await t.call('PUT', `${tablesPath(w.projectId)}/${created.id}`, { token, body: { name: 'Renamed' } }), 200);
    expect(updated).toMatchObject({ id: created.id, key: created.key, name: 'Renamed' });
    expectNoContent(await t.call('DELETE', `${tablesPath(w.projectId)}/${created.key}`, { token }));
    expectError(await t.call('GET', `${tablesPath(w.projectId)}/${created.id}`, { token }), 404, 'NOT_FOUND');
  });
});

describe('key of another project', () => {
  it('is 403 on an existing project B, a missing UUID and a non-UUID id; nothing is created in B', async () => {
    for (const token of [w.readKey.key, w.writeKey.key]) {
      for (const pid of [w.otherProjectId, MISSING_ID, 'not-a-project', MISSING_ID.toUpperCase()]) {
        expectError(await listTables(t, pid, token), 403, 'FORBIDDEN');
        expectError(await t.call('GET', `${tablesPath(pid)}/some_table`, { token }), 403, 'FORBIDDEN');
        expectError(await t.call('POST', tablesPath(pid), { token, body: { key: 'intruder', name: 'x' } }), 403, 'FORBIDDEN');
        expectError(await t.call('POST', tablesPath(pid), { token, ...badJson }), 403, 'FORBIDDEN');
      }
    }
    expect(await tableNames(w.otherProjectId)).toEqual([]);
  });
});

describe('API keys on account-level endpoints', () => {
  it('/accounts/me and /workspaces/** are 403 for read and read_write keys', async () => {
    const wid = w.workspaceId;
    for (const token of [w.readKey.key, w.writeKey.key]) {
      expectError(await t.call('GET', '/v1/accounts/me', { token }), 403, 'FORBIDDEN');
      expectError(await t.call('PUT', '/v1/accounts/me', { token, body: { name: 'Key' } }), 403, 'FORBIDDEN');
      expectError(await t.call('GET', '/v1/workspaces', { token }), 403, 'FORBIDDEN');
      expectError(await t.call('POST', '/v1/workspaces', { token, body: { name: 'By key' } }), 403, 'FORBIDDEN');
      expectError(await t.call('GET', `/v1/workspaces/${wid}`, { token }), 403, 'FORBIDDEN');
      expectError(await t.call('GET', `/v1/workspaces/${wid}/members`, { token }), 403, 'FORBIDDEN');
      expectError(await t.call('GET', `/v1/workspaces/${wid}/projects`, { token }), 403, 'FORBIDDEN');
      expectError(await t.call('GET', `/v1/workspaces/${wid}/projects/${w.projectId}`, { token }), 403, 'FORBIDDEN');
      expectError(await t.call('GET', `/v1/workspaces/${wid}/projects/${w.projectId}/members`, { token }), 403, 'FORBIDDEN');
      expectError(await t.call('DELETE', `/v1/workspaces/${wid}/projects/${w.projectId}`, { token }), 403, 'FORBIDDEN');
      // 403 before 404: a missing workspace is still 403 for a key.
      expectError(await t.call('GET', `/v1/workspaces/${MISSING_ID}`, { token }), 403, 'FORBIDDEN');
      // The project's own api-keys are account-only too.
      expectError(await t.call('GET', `/v1/${w.projectId}/api-keys`, { token }), 403, 'FORBIDDEN');
    }
    const list = (await t.call('GET', '/v1/workspaces?size=1000')).json.list as { name: string }[];
    expect(list.map((x) => x.name)).not.toContain('By key');
    expectStatus(await t.call('GET', `/v1/workspaces/${wid}/projects/${w.projectId}`), 200);
  });
});

describe('allowed hosts', () => {
  const get = (key: string, headers: Record<string, string> = {}) => listTables(t, w.projectId, key, headers);

  it('exact entry: matching Origin passes (case-insensitive, port ignored); others are 403', async () => {
    const k = await createKey(t, w.projectId, 'read', { allowedHosts: ['App.Example.org'] });
    expectStatus(await get(k.key, { origin: 'https://app.example.org' }), 200);
    expectStatus(await get(k.key, { origin: 'https://APP.EXAMPLE.ORG:8443' }), 200);
    expectStatus(await get(k.key, { origin: 'http://app.example.org:3000' }), 200);
    for (const origin of ['https://evil.example.org', 'https://sub.app.example.org', 'https://example.org', 'https://app.example.org.evil.net', 'https://xapp.example.org']) {
      expectError(await get(k.key, { origin }), 403, 'FORBIDDEN');
    }
  });

  it('*.example.com matches subdomains only: not the apex, not badexample.com, not example.com.evil.org', async () => {
    const k = await createKey(t, w.projectId, 'read', { allowedHosts: ['*.example.com'] });
    expectStatus(await get(k.key, { origin: 'https://cdn.example.com' }), 200);
    expectStatus(await get(k.key, { origin: 'https://a.b.EXAMPLE.com:444' }), 200);
    for (const origin of ['https://example.com', 'https://badexample.com', 'https://example.com.evil.org', 'https://cdn.example.co']) {
      expectError(await get(k.key, { origin }), 403, 'FORBIDDEN');
    }
  });

  it('Referer is used when Origin is absent; Origin wins when both are present', async () => {
    const k = await createKey(t, w.projectId, 'read', { allowedHosts: ['app.example.org'] });
    expectStatus(await get(k.key, { referer: 'https://app.example.org/page?x=1' }), 200);
    expectStatus(await get(k.key, { referer: 'http://APP.example.org:8080/' }), 200);
    expectError(await get(k.key, { referer: 'https://other.example.net/app.example.org' }), 403, 'FORBIDDEN');
    expectError(await get(k.key, { origin: 'https://evil.example.net', referer: 'https://app.example.org/' }), 403, 'FORBIDDEN');
    expectStatus(await get(k.key, { origin: 'https://app.example.org', referer: 'https://evil.example.net/' }), 200);
  });

  it('neither header (or an unparsable one) is 403; the key is otherwise valid', async () => {
    const k = await createKey(t, w.projectId, 'read', { allowedHosts: ['app.example.org'] });
    expectError(await get(k.key), 403, 'FORBIDDEN');
    expectError(await get(k.key, { origin: 'null' }), 403, 'FORBIDDEN');
    expectError(await get(k.key, { origin: 'app.example.org' }), 403, 'FORBIDDEN');
    // 403 for the host comes before 400 for the body.
    expectError(await t.call('POST', tablesPath(w.projectId), { token: k.key, ...badJson }), 403, 'FORBIDDEN');
  });

  it('the message says whether the header is missing or the host is not allowed', async () => {
    const k = await createKey(t, w.projectId, 'read', { allowedHosts: ['app.example.org'] });
    const missing = 'Origin (or Referer) header missing: this key answers only requests from its allowed hosts';
    const notAllowed = 'Request origin is not in the key’s allowed hosts';
    expect(expectError(await get(k.key), 403, 'FORBIDDEN').message).toBe(missing);
    expect(expectError(await get(k.key, { origin: '' }), 403, 'FORBIDDEN').message).toBe(missing);
    expect(expectError(await t.call('POST', tablesPath(w.projectId), { token: k.key, ...badJson }), 403, 'FORBIDDEN').message).toBe(missing);
    // A header that is present keeps the message it had: a wrong host, or one naming no host.
    expect(expectError(await get(k.key, { origin: 'https://evil.example.net' }), 403, 'FORBIDDEN').message).toBe(notAllowed);
    expect(expectError(await get(k.key, { referer: 'https://other.example.net/' }), 403, 'FORBIDDEN').message).toBe(notAllowed);
    expect(expectError(await get(k.key, { origin: 'null' }), 403, 'FORBIDDEN').message).toBe(notAllowed);
    // The tRPC face answers with the same message.
    const trpc = await t.call('GET', `/trpc/tables.list?input=${encodeURIComponent(JSON.stringify({ projectId: w.projectId }))}`, { token: k.key });
    expect(trpc.status).toBe(403);
    expect(JSON.stringify(trpc.json)).toContain(missing);
  });

  it('a write with a read_write key from an allowed host passes; a read key stays read-only there', async () => {
    const rw = await createKey(t, w.projectId, 'read_write', { allowedHosts: ['*.example.com'] });
    const origin = { origin: 'https://admin.example.com' };
    await createTable(t, w.projectId, { token: rw.key, headers: origin });
    expectError(await t.call('POST', tablesPath(w.projectId), { token: rw.key, body: { key: 'no_origin', name: 'x' } }), 403, 'FORBIDDEN');
    const ro = await createKey(t, w.projectId, 'read', { allowedHosts: ['*.example.com'] });
    expectError(await t.call('POST', tablesPath(w.projectId), { token: ro.key, headers: origin, body: { key: 'ro_write', name: 'x' } }), 403, 'FORBIDDEN');
  });

  it('changing allowedHosts takes effect at once', async () => {
    const k = await createKey(t, w.projectId, 'read');
    expectStatus(await get(k.key), 200);
    expectStatus(await t.call('PUT', `/v1/${w.projectId}/api-keys/${k.id}`, { body: { allowedHosts: ['app.example.org'] } }), 200);
    expectError(await get(k.key), 403, 'FORBIDDEN');
    expectStatus(await get(k.key, { origin: 'https://app.example.org' }), 200);
    expectStatus(await t.call('PUT', `/v1/${w.projectId}/api-keys/${k.id}`, { body: { allowedHosts: [] } }), 200);
    expectStatus(await get(k.key), 200);
  });
});

describe('account roles in the project', () => {
  it('a workspace member without a project role is 403 (also before 400)', async () => {
    const token = noRole.token;
    expectError(await listTables(t, w.projectId, token), 403, 'FORBIDDEN');
    expectError(await t.call('POST', tablesPath(w.projectId), { token, body: { key: 'x', name: 'x' } }), 403, 'FORBIDDEN');
    expectError(await t.call('POST', tablesPath(w.projectId), { token, ...badJson }), 403, 'FORBIDDEN');
  });

  it('an account of another workspace is 403 on an existing project', async () => {
    const elsewhere = await person(t, await createWorkspace(t, 'Elsewhere'));
    expectError(await listTables(t, w.projectId, elsewhere.token), 403, 'FORBIDDEN');
  });

  it('a VIEWER reads but every write is 403', async () => {
    const table = await createTable(t, w.projectId);
    const token = viewer.token;
    expectStatus(await listTables(t, w.projectId, token), 200);
    expectError(await t.call('POST', tablesPath(w.projectId), { token, body: { key: 'by_viewer', name: 'x' } }), 403, 'FORBIDDEN');
    expectError(await t.call('PUT', `${tablesPath(w.projectId)}/${table.id}`, { token, body: { name: 'x' } }), 403, 'FORBIDDEN');
    expectError(await t.call('DELETE', `${tablesPath(w.projectId)}/${table.id}`, { token }), 403, 'FORBIDDEN');
    expectStatus(await t.call('GET', `${tablesPath(w.projectId)}/${table.id}`, { token }), 200);
  });

  it('an EDITOR may read but not change the schema (tables need project ADMIN)', async () => {
    const table = await createTable(t, w.projectId);
    const token = editor.token;
    expectStatus(await listTables(t, w.projectId, token), 200);
    expectError(await t.call('POST', tablesPath(w.projectId), { token, body: { key: 'by_editor', name: 'x' } }), 403, 'FORBIDDEN');
    expectError(await t.call('PUT', `${tablesPath(w.projectId)}/${table.id}`, { token, body: { name: 'x' } }), 403, 'FORBIDDEN');
    expectError(await t.call('DELETE', `${tablesPath(w.projectId)}/${table.id}`, { token }), 403, 'FORBIDDEN');
    expect((await tableNames(w.projectId)).some((n) => n.startsWith('by_editor'))).toBe(false);
  });

  it('the workspace owner is project ADMIN: creating a table with a malformed body is 400 INVALID_JSON', async () => {
    expectError(await t.call('POST', tablesPath(w.projectId), badJson), 400, 'INVALID_JSON');
  });
});

describe('missing and deleted projects', () => {
  it('account tokens get 404 for a missing or non-UUID project (before 400)', async () => {
    for (const pid of [MISSING_ID, 'not-a-project']) {
      expectError(await listTables(t, pid, t.adminToken), 404, 'NOT_FOUND');
      expectError(await t.call('POST', tablesPath(pid), badJson), 404, 'NOT_FOUND');
      expectError(await t.call('GET', `/v1/${pid}/api-keys`), 404, 'NOT_FOUND');
    }
  });

  it('a deleted project is 404 at once for accounts, and its keys are refused (401) at once', async () => {
    const pid = await createProject(t, w.workspaceId, 'Doomed');
    const key = await createKey(t, pid, 'read');
    const member = await person(t, w.workspaceId, pid, 'VIEWER');
    // Warm every cache first: the refusal must not wait for them to expire.
    expectStatus(await listTables(t, pid, key.key), 200);
    expectStatus(await listTables(t, pid, member.token), 200);
    expectStatus(await listTables(t, pid, t.adminToken), 200);
    expectNoContent(await t.call('DELETE', `/v1/workspaces/${w.workspaceId}/projects/${pid}`));
    expectError(await listTables(t, pid, t.adminToken), 404, 'NOT_FOUND');
    expectError(await listTables(t, pid, member.token), 404, 'NOT_FOUND');
    expectError(await t.call('GET', `/v1/${pid}/api-keys`), 404, 'NOT_FOUND');
    expectError(await listTables(t, pid, key.key), 401, 'UNAUTHORIZED');
    expectError(await t.call('GET', `/v1/workspaces/${w.workspaceId}/projects/${pid}`), 404, 'NOT_FOUND');
  });

  it('a deleted project is 401 for a key that was not used before the delete', async () => {
    const pid = await createProject(t, w.workspaceId, 'Doomed too');
    const key = await createKey(t, pid, 'read_write');
    expectNoContent(await t.call('DELETE', `/v1/workspaces/${w.workspaceId}/projects/${pid}`));
    expectError(await listTables(t, pid, key.key), 401, 'UNAUTHORIZED');
  });

  it('a deleted workspace: its projects are 404 for accounts and their keys 401', async () => {
    const wid = await createWorkspace(t, 'Doomed workspace');
    const pid = await createProject(t, wid, 'Inside');
    const key = await createKey(t, pid, 'read');
    expectStatus(await listTables(t, pid, key.key), 200);
    expectNoContent(await t.call('DELETE', `/v1/workspaces/${wid}`));
    expectError(await listTables(t, pid, t.adminToken), 404, 'NOT_FOUND');
    expectError(await listTables(t, pid, key.key), 401, 'UNAUTHORIZED');
  });

  it('a project created by the admin is reachable by its new key at once', async () => {
    const pid = await createProject(t, w.workspaceId, 'Fresh');
    const key = await createKey(t, pid, 'read_write');
    expectCreated(await t.call('POST', tablesPath(pid), { token: key.key, body: { key: 'fresh', name: 'Fresh' } }), `/${pid}/tables`);
  });
});
