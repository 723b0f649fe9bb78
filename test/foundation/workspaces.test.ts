import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  MISSING_ID,
  createProject,
  createWorkspace,
  expectCreated,
  expectError,
  expectNoContent,
  invite,
  outsider,
  type Person,
} from './helpers.js';

let t: TestApi;
let workspaceId: string;
let admin: Person;
let member: Person;
let stranger: Person;

const WORKSPACE_KEYS = ['createdAt', 'id', 'name', 'role', 'updatedAt'];

beforeAll(async () => {
  t = await startTestApi();
  workspaceId = await createWorkspace(t, 'Main');
  admin = await invite(t, workspaceId, 'ADMIN');
  member = await invite(t, workspaceId, 'MEMBER');
  stranger = await outsider(t);
});
afterAll(() => t?.close());

const ids = (list: { id: string }[]) => list.map((w) => w.id);

describe('POST /v1/workspaces', () => {
  it('creates: 201, Location, the caller is OWNER', async () => {
    const res = await t.call('POST', '/v1/workspaces', { body: { name: '  Acme  ' } });
    const body = expectCreated(res, '/workspaces');
    expect(Object.keys(body).sort()).toEqual(WORKSPACE_KEYS);
    expect(body).toMatchObject({ name: 'Acme', role: 'OWNER' });
    expect(new Date(body.createdAt).toISOString()).toBe(body.createdAt);
    expect(body.updatedAt).toBe(body.createdAt);
    const members = await t.call('GET', `/v1/workspaces/${body.id}/members`);
    expect(members.json.list).toHaveLength(1);
    expect(members.json.list[0]).toMatchObject({ email: t.adminEmail, role: 'OWNER' });
  });

  it('any account can create one and becomes its OWNER', async () => {
    const res = await t.call('POST', '/v1/workspaces', { token: member.token, body: { name: 'Mine' } });
    const body = expectCreated(res, '/workspaces');
    expect(body.role).toBe('OWNER');
    const got = await t.call('GET', `/v1/workspaces/${body.id}`, { token: member.token });
    expect(got.json.role).toBe('OWNER');
    // The platform admin has no role in it.
    expectError(await t.call('GET', `/v1/workspaces/${body.id}`), 403, 'FORBIDDEN');
  });
});

describe('GET /v1/workspaces', () => {
  it('lists only the caller’s workspaces, each with the caller’s role', async () => {
    const mine = await t.call('GET', '/v1/workspaces', { token: member.token });
    expect(mine.status).toBe(200);
    const entry = mine.json.list.find((w: { id: string }) => w.id === workspaceId);
    expect(entry).toMatchObject({ id: workspaceId, name: 'Main', role: 'MEMBER' });
    expect(Object.keys(entry).sort()).toEqual(WORKSPACE_KEYS);
    for (const w of mine.json.list) expect((await t.call('GET', `/v1/workspaces/${w.id}`, { token: member.token })).status).toBe(200);

    const asAdmin = await t.call('GET', '/v1/workspaces', { token: admin.token });
    expect(asAdmin.json.list).toEqual([expect.objectContaining({ id: workspaceId, role: 'ADMIN' })]);
    expect(asAdmin.json.pagination).toMatchObject({ total: 1, pages: 1, hasNext: false });

    const asStranger = await t.call('GET', '/v1/workspaces', { token: stranger.token });
    expect(ids(asStranger.json.list)).not.toContain(workspaceId);
    expect(asStranger.json.pagination.total).toBe(1);
  });
});

describe('GET /v1/workspaces/{id}', () => {
  it('any role reads it, with its own role', async () => {
    for (const [token, role] of [[undefined, 'OWNER'], [admin.token, 'ADMIN'], [member.token, 'MEMBER']] as const) {
      const res = await t.call('GET', `/v1/workspaces/${workspaceId}`, { token });
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ id: workspaceId, name: 'Main', role });
    }
  });

  it('no role → 403; unknown or malformed id → 404', async () => {
    expectError(await t.call('GET', `/v1/workspaces/${workspaceId}`, { token: stranger.token }), 403, 'FORBIDDEN');
    expectError(await t.call('GET', `/v1/workspaces/${MISSING_ID}`), 404, 'NOT_FOUND');
    expectError(await t.call('GET', `/v1/workspaces/${MISSING_ID}`, { token: stranger.token }), 404, 'NOT_FOUND');
    expectError(await t.call('GET', '/v1/workspaces/not-a-uuid'), 404, 'NOT_FOUND');
  });
});

describe('PUT /v1/workspaces/{id}', () => {
  it('OWNER renames: 200 with the full object and a newer updatedAt', async () => {
    const before = (await t.call('GET', `/v1/workspaces/${workspaceId}`)).json;
    const res = await t.call('PUT', `/v1/workspaces/${workspaceId}`, { body: { name: 'Renamed' } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(WORKSPACE_KEYS);
    expect(res.json).toMatchObject({ id: workspaceId, name: 'Renamed', role: 'OWNER', createdAt: before.createdAt });
    expect(Date.parse(res.json.updatedAt)).toBeGreaterThanOrEqual(Date.parse(before.updatedAt));
    expect((await t.call('GET', `/v1/workspaces/${workspaceId}`, { token: member.token })).json.name).toBe('Renamed');
  });

  it('ADMIN renames; the answer carries the ADMIN role', async () => {
    const res = await t.call('PUT', `/v1/workspaces/${workspaceId}`, { token: admin.token, body: { name: 'By admin' } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ name: 'By admin', role: 'ADMIN' });
  });

  it('an empty body keeps the name', async () => {
    const res = await t.call('PUT', `/v1/workspaces/${workspaceId}`, { body: {} });
    expect(res.status).toBe(200);
    expect(res.json.name).toBe('By admin');
  });

  it('MEMBER or no role → 403; unknown → 404; empty name → 400', async () => {
    expectError(await t.call('PUT', `/v1/workspaces/${workspaceId}`, { token: member.token, body: { name: 'x' } }), 403, 'FORBIDDEN');
    expectError(await t.call('PUT', `/v1/workspaces/${workspaceId}`, { token: stranger.token, body: { name: 'x' } }), 403, 'FORBIDDEN');
    expectError(await t.call('PUT', `/v1/workspaces/${MISSING_ID}`, { body: { name: 'x' } }), 404, 'NOT_FOUND');
    expect(expectError(await t.call('PUT', `/v1/workspaces/${workspaceId}`, { body: { name: '' } }), 400, 'BAD_REQUEST').message).toContain('name');
    expect((await t.call('GET', `/v1/workspaces/${workspaceId}`)).json.name).toBe('By admin');
  });
});

describe('DELETE /v1/workspaces/{id}', () => {
  it('only the OWNER deletes', async () => {
    const doomed = await createWorkspace(t, 'Doomed');
    const a = await invite(t, doomed, 'ADMIN');
    const m = await invite(t, doomed, 'MEMBER');
    expectError(await t.call('DELETE', `/v1/workspaces/${doomed}`, { token: a.token }), 403, 'FORBIDDEN');
    expectError(await t.call('DELETE', `/v1/workspaces/${doomed}`, { token: m.token }), 403, 'FORBIDDEN');
    expectError(await t.call('DELETE', `/v1/workspaces/${doomed}`, { token: stranger.token }), 403, 'FORBIDDEN');
    expect((await t.call('GET', `/v1/workspaces/${doomed}`, { token: a.token })).status).toBe(200);
  });

  it('204 at once; then 404 everywhere below it and gone from every list', async () => {
    const doomed = await createWorkspace(t, 'Doomed');
    const m = await invite(t, doomed, 'MEMBER');
    const projectId = await createProject(t, doomed, { name: 'Inside' });
    expectNoContent(await t.call('DELETE', `/v1/workspaces/${doomed}`));

    for (const token of [undefined, m.token]) {
      expectError(await t.call('GET', `/v1/workspaces/${doomed}`, { token }), 404, 'NOT_FOUND');
      const list = (await t.call('GET', '/v1/workspaces?size=1000', { token })).json;
      expect(ids(list.list)).not.toContain(doomed);
      expect(list.pagination.total).toBe(list.list.length);
    }
    expectError(await t.call('PUT', `/v1/workspaces/${doomed}`, { body: { name: 'x' } }), 404, 'NOT_FOUND');
    expectError(await t.call('DELETE', `/v1/workspaces/${doomed}`), 404, 'NOT_FOUND');
    expectError(await t.call('GET', `/v1/workspaces/${doomed}/members`), 404, 'NOT_FOUND');
    expectError(await t.call('POST', `/v1/workspaces/${doomed}/members`, { body: { email: 'z@example.com', role: 'MEMBER' } }), 404, 'NOT_FOUND');
    expectError(await t.call('GET', `/v1/workspaces/${doomed}/projects`), 404, 'NOT_FOUND');
    expectError(await t.call('GET', `/v1/workspaces/${doomed}/projects/${projectId}`), 404, 'NOT_FOUND');
    expectError(await t.call('PUT', `/v1/workspaces/${doomed}/projects/${projectId}`, { body: { name: 'x' } }), 404, 'NOT_FOUND');
    expectError(await t.call('GET', `/v1/workspaces/${doomed}/projects/${projectId}/members`), 404, 'NOT_FOUND');
    // A former member's token is still a valid credential elsewhere.
    expect((await t.call('GET', '/v1/accounts/me', { token: m.token })).status).toBe(200);
  });
});
