import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CredentialResolver } from '../../src/auth/credentials.js';
import type { AccountPrincipal } from '../../src/auth/principal.js';
import { authorizeProject } from '../../src/auth/project-access.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { until } from '../helpers/until.js';
import { KEY_FIELDS, person } from '../auth/fixture.js';
import { buildWorld, createTable, expectBadRequest, expectCreated, expectError, expectNoContent, expectStatus, GHOST, type World } from '../contents/fixture.js';

/** Granting custom roles to API keys and project members (docs/roles.md#granting-a-role). */

let t: TestApi;
let w: World;
let otherProjectId: string;
let db: pg.Client;

const rolesPath = (projectId = w.projectId) => `/v1/${projectId}/roles`;
const keysPath = () => `/v1/${w.projectId}/api-keys`;
const membersPath = () => `/v1/workspaces/${w.workspaceId}/projects/${w.projectId}/members`;
const RULES = [{ table: '*', actions: ['read'] }];

let counter = 0;
const newRole = async (projectId = w.projectId, rules: unknown[] = RULES) =>
  expectCreated(await t.call('POST', rolesPath(projectId), { body: { name: `role-${++counter}`, rules } }));
const postKey = (body: Record<string, unknown>) => t.call('POST', keysPath(), { body: { name: `key-${++counter}`, ...body } });
const putKey = (id: string, body: Record<string, unknown>) => t.call('PUT', `${keysPath()}/${id}`, { body });
/** A 422 whose one detail names `field`. */
const expect422 = (res: Awaited<ReturnType<TestApi['call']>>, field: string) => {
  const error = expectError(res, 422, 'VALIDATION_ERROR');
  expect(error.details!.map((d) => d.field), res.text).toEqual([field]);
  return error;
};
const keyCount = async () => Number((await db.query('select count(*) as n from api_key where project_id = $1', [w.projectId])).rows[0].n);

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  await createTable(w, [{ name: 'title', type: 'text' }]);
  otherProjectId = expectCreated(await t.call('POST', `/v1/workspaces/${w.workspaceId}/projects`, { body: { name: 'Other' } })).id;
  db = new pg.Client({ connectionString: t.db.url });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await t?.close();
});

describe('API keys', () => {
  it('created with roleId: permission null, roleId set, in every answer', async () => {
    const role = await newRole();
    const created = expectCreated(await postKey({ roleId: role.id }), `/${w.projectId}/api-keys`);
    expect(Object.keys(created).sort()).toEqual([...KEY_FIELDS, 'key'].sort());
    expect(created).toMatchObject({ permission: null, roleId: role.id });
    const listed = expectStatus(await t.call('GET', `${keysPath()}?size=1000`), 200).list;
    expect(listed.find((k: { id: string }) => k.id === created.id)).toMatchObject({ permission: null, roleId: role.id });
    const withPermission = listed.find((k: { permission: string | null }) => k.permission === 'read');
    expect(withPermission.roleId).toBeNull();
    // An upper-case id names the same role.
    expect(expectCreated(await postKey({ roleId: role.id.toUpperCase() })).roleId).toBe(role.id);
  });

  it('both, neither, an unknown role, another project’s, a built-in name: 422 naming the field; nothing created', async () => {
    const role = await newRole();
    const foreign = await newRole(otherProjectId);
    const before = await keyCount();
    expect422(await postKey({ permission: 'read', roleId: role.id }), 'roleId');
    expect422(await postKey({}), 'permission');
    expect422(await postKey({ permission: null, roleId: null }), 'permission');
    expect422(await postKey({ roleId: GHOST }), 'roleId');
    expect422(await postKey({ roleId: 'nope' }), 'roleId');
    expect422(await postKey({ roleId: foreign.id }), 'roleId');
    for (const builtIn of ['ADMIN', 'EDITOR', 'VIEWER']) {
      expect(expect422(await postKey({ roleId: builtIn }), 'roleId').details![0].message).toContain('permission');
    }
    expectBadRequest(await postKey({ roleId: 12 }), 'roleId');
    expect(await keyCount()).toBe(before);
  });

  it('an update switches a key between a permission and a role', async () => {
    const role = await newRole();
    const key = expectCreated(await postKey({ permission: 'read' }));
    expect(expectStatus(await putKey(key.id, { roleId: role.id }), 200)).toMatchObject({ permission: null, roleId: role.id });
    expect(expectStatus(await putKey(key.id, { name: 'renamed' }), 200)).toMatchObject({ name: 'renamed', permission: null, roleId: role.id });
    expect(expectStatus(await putKey(key.id, { permission: 'read_write', roleId: null }), 200)).toMatchObject({ permission: 'read_write', roleId: null });
    expect(expectStatus(await putKey(key.id, { roleId: null }), 200)).toMatchObject({ permission: 'read_write', roleId: null });
    expect422(await putKey(key.id, { permission: 'read', roleId: role.id }), 'roleId');
    expect422(await putKey(key.id, { permission: null }), 'permission');
    expect422(await putKey(key.id, { roleId: (await newRole(otherProjectId)).id }), 'roleId');
    expect422(await putKey(key.id, { roleId: 'EDITOR' }), 'roleId');
    expect(expectStatus(await t.call('GET', `${keysPath()}?size=1000`), 200).list.find((k: { id: string }) => k.id === key.id)).toMatchObject({
      permission: 'read_write',
      roleId: null,
    });
  });
});

describe('project members', () => {
  it('role: a custom role’s id (answered as role), switched to a built-in and back; unknown 422, malformed 400', async () => {
    const role = await newRole();
    const who = await person(t, w.workspaceId);
    const member = expectCreated(await t.call('POST', membersPath(), { body: { accountId: who.accountId, role: role.id } }));
    expect(member).toMatchObject({ accountId: who.accountId, role: role.id });
    const listed = expectStatus(await t.call('GET', `${membersPath()}?size=1000`), 200).list;
    expect(listed.find((m: { id: string }) => m.id === member.id).role).toBe(role.id);
    expect(expectStatus(await t.call('PUT', `${membersPath()}/${member.id}`, { body: { role: 'EDITOR' } }), 200).role).toBe('EDITOR');
    expect(expectStatus(await t.call('PUT', `${membersPath()}/${member.id}`, { body: { role: role.id.toUpperCase() } }), 200).role).toBe(role.id);

    expect422(await t.call('PUT', `${membersPath()}/${member.id}`, { body: { role: GHOST } }), 'role');
    expect422(await t.call('PUT', `${membersPath()}/${member.id}`, { body: { role: (await newRole(otherProjectId)).id } }), 'role');
    const other = await person(t, w.workspaceId);
    expect422(await t.call('POST', membersPath(), { body: { accountId: other.accountId, role: GHOST } }), 'role');
    expectBadRequest(await t.call('POST', membersPath(), { body: { accountId: other.accountId, role: 'OWNER' } }), 'role');
    expect(expectStatus(await t.call('GET', `${membersPath()}?size=1000`), 200).list.find((m: { id: string }) => m.id === member.id).role).toBe(role.id);
  });
});

describe('deleting a granted role', () => {
  it('409 saying to whom it is granted; 204 once the grants are revoked', async () => {
    const role = await newRole();
    const [k1, k2] = [expectCreated(await postKey({ roleId: role.id })), expectCreated(await postKey({ roleId: role.id }))];
    const who = await person(t, w.workspaceId);
    const member = expectCreated(await t.call('POST', membersPath(), { body: { accountId: who.accountId, role: role.id } }));
    const refused = expectError(await t.call('DELETE', `${rolesPath()}/${role.id}`), 409, 'CONFLICT');
    expect(refused.message).toContain('granted to 2 API keys and 1 member');

    expectStatus(await putKey(k1.id, { permission: 'read' }), 200);
    expectNoContent(await t.call('DELETE', `${keysPath()}/${k2.id}`));
    expect(expectError(await t.call('DELETE', `${rolesPath()}/${role.id}`), 409, 'CONFLICT').message).toContain('granted to 1 member');
    expectStatus(await t.call('PUT', `${membersPath()}/${member.id}`, { body: { role: 'VIEWER' } }), 200);
    expectNoContent(await t.call('DELETE', `${rolesPath()}/${role.id}`));

    const keyOnly = await newRole();
    expectCreated(await postKey({ roleId: keyOnly.id }));
    expect(expectError(await t.call('DELETE', `${rolesPath()}/${keyOnly.id}`), 409, 'CONFLICT').message).toContain('granted to 1 API key');
  });

  it('the database refuses it too, and a grant of another project’s role; a purged project takes roles and grants together', async () => {
    const role = await newRole();
    const key = expectCreated(await postKey({ roleId: role.id }));
    // restrict_violation: the foreign key is `on delete restrict`.
    await expect(db.query('delete from role where id = $1', [role.id])).rejects.toMatchObject({ code: '23001' });
    const foreign = await newRole(otherProjectId);
    await expect(db.query('update api_key set role_id = $1 where id = $2', [foreign.id, key.id])).rejects.toMatchObject({ code: '23503' });
    await expect(db.query('update api_key set permission = $1 where id = $2', ['read', key.id])).rejects.toMatchObject({ code: '23514' });

    const ws = expectCreated(await t.call('POST', '/v1/workspaces', { body: { name: 'Purged' } }));
    const project = expectCreated(await t.call('POST', `/v1/workspaces/${ws.id}/projects`, { body: { name: 'Purged' } }));
    const granted = await newRole(project.id);
    expectCreated(await t.call('POST', `/v1/${project.id}/api-keys`, { body: { name: 'k', roleId: granted.id } }));
    const who = await person(t, ws.id);
    expectCreated(await t.call('POST', `/v1/workspaces/${ws.id}/projects/${project.id}/members`, { body: { accountId: who.accountId, role: granted.id } }));
    // What the purge worker does at the end (src/modules/purge): one delete, cascading.
    await db.query('delete from project where id = $1', [project.id]);
    expect((await db.query('select count(*) as n from role where id = $1', [granted.id])).rows[0].n).toBe('0');
  });
});

describe('what a custom role lets its holder reach', () => {
  it('a key: tables and reads yes; logs, schema, admin and project-level writes 403', async () => {
    const key = expectCreated(await postKey({ roleId: (await newRole()).id })).key as string;
    const as = (method: string, path: string, body?: unknown) => t.call(method, `/v1/${w.projectId}${path}`, { token: key, body });
    expectStatus(await as('GET', '/tables'), 200);
    expectStatus(await as('GET', '/categories'), 200);
    expectStatus(await as('GET', '/variables'), 200);
    for (const [method, path, body] of [
      ['GET', '/logs'],
      ['POST', '/categories', { name: 'News' }],
      ['POST', '/variables', { key: 'greeting', value: 'hi' }],
      ['POST', '/tables', { key: 'more', name: 'More' }],
      ['GET', '/api-keys'],
      ['GET', '/roles'],
    ] as [string, string, unknown][]) {
      const error = expectError(await as(method, path, body), 403, 'FORBIDDEN');
      if (path !== '/api-keys' && path !== '/roles') expect(error.message, `${method} ${path}`).toContain('grants table rows only');
    }
  });

  it('a member: the same, and it sees the project and its members as a VIEWER does', async () => {
    const who = await person(t, w.workspaceId);
    expectCreated(await t.call('POST', membersPath(), { body: { accountId: who.accountId, role: (await newRole()).id } }));
    const as = (method: string, path: string, body?: unknown) => t.call(method, path, { token: who.token, body });
    expectStatus(await as('GET', `/v1/${w.projectId}/tables`), 200);
    expectStatus(await as('GET', `/v1/workspaces/${w.workspaceId}/projects/${w.projectId}`), 200);
    expectStatus(await as('GET', membersPath()), 200);
    expectError(await as('GET', `/v1/${w.projectId}/logs`), 403, 'FORBIDDEN');
    expectError(await as('POST', `/v1/${w.projectId}/categories`, { name: 'News' }), 403, 'FORBIDDEN');
    expectError(await as('POST', `/v1/${w.projectId}/tables`, { key: 'more', name: 'More' }), 403, 'FORBIDDEN');
    expectError(await as('GET', `/v1/${w.projectId}/roles`), 403, 'FORBIDDEN');
    expectError(await as('PUT', `/v1/workspaces/${w.workspaceId}/projects/${w.projectId}`, { name: 'Mine' }), 403, 'FORBIDDEN');
    expectError(await as('POST', membersPath(), { accountId: who.accountId, role: 'ADMIN' }), 403, 'FORBIDDEN');
  });
});

describe('the granted role in the request', () => {
  it('a key’s principal carries the role; a changed role reaches another process within 2 s, this one at once', async () => {
    const role = await newRole();
    const key = expectCreated(await postKey({ roleId: role.id })).key as string;
    const header = `Bearer ${key}`;
    // A resolver of its own, with its own cache: another API process.
    const elsewhere = new CredentialResolver(t.api.deps.orm);
    const principal = await elsewhere.resolve(header);
    expect(principal).toMatchObject({ kind: 'apiKey', permission: null, role: { id: role.id, name: role.name, rules: RULES, version: role.updatedAt } });

    const rules = [{ table: '*', actions: ['read', 'update'], statuses: ['PUBLISHED'] }];
    const changed = expectStatus(await t.call('PUT', `${rolesPath()}/${role.id}`, { body: { rules } }), 200);
    const here = await t.api.deps.credentials.resolve(header);
    expect(here.kind === 'apiKey' && here.role).toEqual({ id: role.id, name: role.name, rules, version: changed.updatedAt });
    const started = Date.now();
    await until(async () => {
      const current = await elsewhere.resolve(header);
      return current.kind === 'apiKey' && current.role?.version === changed.updatedAt;
    }, 2000);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await elsewhere.resolve(header)).toMatchObject({ role: { rules } });

    // Switched to a permission: the role is gone from the principal.
    const keyId = (expectStatus(await t.call('GET', `${keysPath()}?size=1000`), 200).list as { id: string; roleId: string | null }[]).find((k) => k.roleId === role.id)!.id;
    expectStatus(await putKey(keyId, { permission: 'read' }), 200);
    expect(await t.api.deps.credentials.resolve(header)).toMatchObject({ permission: 'read', role: null });
  });

  it('authorizeProject hands the role to ProjectAccess: a key’s, a member’s; null for built-in grants', async () => {
    const role = await newRole();
    const access = async (principalOf: () => Promise<Parameters<typeof authorizeProject>[2]>, level: 'read' | 'write' | 'revisions' = 'read') =>
      authorizeProject(t.api.deps, t.api.deps.orm.em.fork(), await principalOf(), {}, w.projectId, level);
    const key = expectCreated(await postKey({ roleId: role.id })).key as string;
    const byKey = () => t.api.deps.credentials.resolve(`Bearer ${key}`);
    for (const level of ['read', 'write', 'revisions'] as const) {
      const granted = await access(byKey, level);
      expect(granted.role).toMatchObject({ id: role.id, rules: RULES });
      expect(granted.rules).toEqual(RULES);
    }
    expect((await access(() => t.api.deps.credentials.resolve(`Bearer ${w.writeKey}`))).role).toBeNull();

    const who = await person(t, w.workspaceId);
    const member = expectCreated(await t.call('POST', membersPath(), { body: { accountId: who.accountId, role: role.id } }));
    const account = async (): Promise<AccountPrincipal> => ({ kind: 'account', accountId: who.accountId, tokenId: 'unused' });
    expect((await access(account, 'write')).role).toEqual({ id: role.id, name: role.name, rules: RULES, version: role.updatedAt });
    expectStatus(await t.call('PUT', `${membersPath()}/${member.id}`, { body: { role: 'EDITOR' } }), 200);
    expect((await access(account, 'write')).role).toBeNull();
  });
});

describe('the OpenAPI document', () => {
  it('tells roleId and a null permission on keys, and a custom role id on members', async () => {
    const doc = expectStatus(await t.call('GET', '/v1/openapi.json'), 200);
    const body = (path: string, method: string) => doc.paths[path][method].requestBody.content['application/json'].schema.properties;
    const key = doc.paths['/{projectId}/api-keys'].post.responses['201'].content['application/json'].schema.properties;
    expect(key.roleId.description).toContain('custom role');
    expect(key.permission.anyOf).toContainEqual({ type: 'null' });
    expect(key.permission.description).toContain('Null when the key holds a custom role');
    expect(body('/{projectId}/api-keys', 'post').roleId.description).toContain('custom role');
    expect(body('/{projectId}/api-keys/{apiKeyId}', 'put').roleId.description).toContain('custom role');
    expect(body('/workspaces/{workspaceId}/projects/{projectId}/members', 'post').role.description).toContain('custom role');
  });
});
