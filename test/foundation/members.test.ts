import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  MISSING_ID,
  TOKEN_SHAPE,
  createProject,
  createWorkspace,
  expectCreated,
  expectError,
  expectNoContent,
  invite,
  outsider,
  uniqueEmail,
  type Person,
} from './helpers.js';

let t: TestApi;
let ws: string;
let ownerMemberId: string;
let admin: Person;
let member: Person;
let stranger: Person;

const MEMBER_KEYS = ['accountId', 'createdAt', 'email', 'id', 'name', 'role'];
const membersPath = (id: string) => `/workspaces/${id}/members`;

async function listMembers(workspaceId: string, token?: string) {
  const res = await t.call('GET', `/v1${membersPath(workspaceId)}?size=1000`, { token });
  expect(res.status, res.text).toBe(200);
  return res.json.list as { id: string; accountId: string; email: string; role: string }[];
}

beforeAll(async () => {
  t = await startTestApi();
  ws = await createWorkspace(t, 'Members');
  admin = await invite(t, ws, 'ADMIN');
  member = await invite(t, ws, 'MEMBER');
  stranger = await outsider(t);
  ownerMemberId = (await listMembers(ws)).find((m) => m.role === 'OWNER')!.id;
});
afterAll(() => t?.close());

describe('GET members', () => {
  it('any member lists them; no role → 403; unknown workspace → 404', async () => {
    for (const token of [undefined, admin.token, member.token]) {
      const list = await listMembers(ws, token);
      expect(list.map((m) => m.role).sort()).toEqual(['ADMIN', 'MEMBER', 'OWNER']);
      for (const m of list) expect(Object.keys(m).sort()).toEqual(MEMBER_KEYS);
      expect(list.find((m) => m.accountId === member.accountId)).toMatchObject({ id: member.memberId, email: member.email, role: 'MEMBER' });
    }
    expectError(await t.call('GET', `/v1${membersPath(ws)}`, { token: stranger.token }), 403, 'FORBIDDEN');
    expectError(await t.call('GET', `/v1${membersPath(MISSING_ID)}`), 404, 'NOT_FOUND');
  });
});

describe('POST members (invite)', () => {
  it('an unknown e-mail creates the account; the 201 carries its working accessToken once', async () => {
    const email = uniqueEmail('new');
    const res = await t.call('POST', `/v1${membersPath(ws)}`, { body: { email, role: 'MEMBER' } });
    const body = expectCreated(res, membersPath(ws));
    expect(Object.keys(body).sort()).toEqual([...MEMBER_KEYS, 'accessToken'].sort());
    expect(body).toMatchObject({ email, role: 'MEMBER', name: email.split('@')[0] });
    expect(body.accessToken).toMatch(TOKEN_SHAPE);
    const me = await t.call('GET', '/v1/accounts/me', { token: body.accessToken });
    expect(me.json).toMatchObject({ id: body.accountId, email });
    // Never shown again.
    const listed = (await t.call('GET', `/v1${membersPath(ws)}?size=1000`)).text;
    expect(listed).not.toContain(body.accessToken);
    expect(listed).not.toContain('accessToken');
  });

  it('a known account (any case of its e-mail) gets no accessToken', async () => {
    const other = await createWorkspace(t, 'Other');
    const res = await t.call('POST', `/v1${membersPath(other)}`, { body: { email: member.email.toUpperCase(), role: 'ADMIN' } });
    const body = expectCreated(res, membersPath(other));
    expect(body).toMatchObject({ accountId: member.accountId, email: member.email, role: 'ADMIN' });
    expect(body).not.toHaveProperty('accessToken');
    // The same token now reaches both workspaces, with different roles.
    expect((await t.call('GET', `/v1/workspaces/${other}`, { token: member.token })).json.role).toBe('ADMIN');
    expect((await t.call('GET', `/v1/workspaces/${ws}`, { token: member.token })).json.role).toBe('MEMBER');
  });

  it('already a member → 409 CONFLICT', async () => {
    for (const email of [member.email, member.email.toUpperCase(), t.adminEmail]) {
      expectError(await t.call('POST', `/v1${membersPath(ws)}`, { body: { email, role: 'ADMIN' } }), 409, 'CONFLICT');
    }
    expect(await listMembers(ws)).toHaveLength(4);
  });

  it('concurrent invites of one new e-mail: into two workspaces both succeed (one token); into one, 201 + 409', async () => {
    for (let round = 0; round < 4; round++) {
      const [a, b] = [await createWorkspace(t, 'Race A'), await createWorkspace(t, 'Race B')];
      const email = uniqueEmail('race');
      const two = await Promise.all([a, b].map((w) => t.call('POST', `/v1${membersPath(w)}`, { body: { email, role: 'MEMBER' } })));
      expect(two.map((r) => r.status), two.map((r) => r.text).join(' | ')).toEqual([201, 201]);
      expect(two[0].json.accountId).toBe(two[1].json.accountId);
      expect(two.filter((r) => r.json.accessToken).length).toBe(1);
      const again = uniqueEmail('race-same');
      const one = await Promise.all([a, a].map((w) => t.call('POST', `/v1${membersPath(w)}`, { body: { email: again, role: 'MEMBER' } })));
      expect(one.map((r) => r.status).sort()).toEqual([201, 409]);
      expect(one.find((r) => r.status === 409)!.json.error.code).toBe('CONFLICT');
    }
  });

  it('ADMIN invites MEMBER and ADMIN, but not OWNER (403)', async () => {
    for (const role of ['MEMBER', 'ADMIN']) {
      const res = await t.call('POST', `/v1${membersPath(ws)}`, { token: admin.token, body: { email: uniqueEmail(), role } });
      expect(res.status, res.text).toBe(201);
      expect(res.json.role).toBe(role);
    }
    const email = uniqueEmail('would-be-owner');
    expectError(await t.call('POST', `/v1${membersPath(ws)}`, { token: admin.token, body: { email, role: 'OWNER' } }), 403, 'FORBIDDEN');
    expect((await listMembers(ws)).map((m) => m.email)).not.toContain(email);
  });

  it('MEMBER or no role → 403; OWNER grants OWNER', async () => {
    expectError(await t.call('POST', `/v1${membersPath(ws)}`, { token: member.token, body: { email: uniqueEmail(), role: 'MEMBER' } }), 403, 'FORBIDDEN');
    expectError(await t.call('POST', `/v1${membersPath(ws)}`, { token: stranger.token, body: { email: uniqueEmail(), role: 'MEMBER' } }), 403, 'FORBIDDEN');
    const owner2 = await invite(t, ws, 'OWNER');
    expect((await t.call('GET', `/v1/workspaces/${ws}`, { token: owner2.token })).json.role).toBe('OWNER');
  });
});

describe('PUT members/{memberId}', () => {
  it('OWNER and ADMIN change a MEMBER’s role: 200 with the full member', async () => {
    const p = await invite(t, ws, 'MEMBER');
    const res = await t.call('PUT', `/v1${membersPath(ws)}/${p.memberId}`, { body: { role: 'ADMIN' } });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(MEMBER_KEYS);
    expect(res.json).toMatchObject({ id: p.memberId, accountId: p.accountId, email: p.email, role: 'ADMIN' });
    expect((await t.call('GET', `/v1/workspaces/${ws}`, { token: p.token })).json.role).toBe('ADMIN');
    const back = await t.call('PUT', `/v1${membersPath(ws)}/${p.memberId}`, { token: admin.token, body: { role: 'MEMBER' } });
    expect(back.json.role).toBe('MEMBER');
    // Now a MEMBER: may no longer rename the workspace.
    expectError(await t.call('PUT', `/v1/workspaces/${ws}`, { token: p.token, body: { name: 'x' } }), 403, 'FORBIDDEN');
  });

  it('ADMIN may not grant OWNER nor change an OWNER (403)', async () => {
    const p = await invite(t, ws, 'MEMBER');
    expectError(await t.call('PUT', `/v1${membersPath(ws)}/${p.memberId}`, { token: admin.token, body: { role: 'OWNER' } }), 403, 'FORBIDDEN');
    expectError(await t.call('PUT', `/v1${membersPath(ws)}/${ownerMemberId}`, { token: admin.token, body: { role: 'MEMBER' } }), 403, 'FORBIDDEN');
    expect((await listMembers(ws)).find((m) => m.id === ownerMemberId)!.role).toBe('OWNER');
  });

  it('MEMBER or no role → 403 (even on themself)', async () => {
    expectError(await t.call('PUT', `/v1${membersPath(ws)}/${member.memberId}`, { token: member.token, body: { role: 'ADMIN' } }), 403, 'FORBIDDEN');
    expectError(await t.call('PUT', `/v1${membersPath(ws)}/${member.memberId}`, { token: stranger.token, body: { role: 'ADMIN' } }), 403, 'FORBIDDEN');
  });

  it('unknown, malformed or other-workspace member id → 404; bad role → 400', async () => {
    const other = await createWorkspace(t, 'Other');
    const foreign = await invite(t, other, 'MEMBER');
    for (const id of [MISSING_ID, 'nope', foreign.memberId]) {
      expectError(await t.call('PUT', `/v1${membersPath(ws)}/${id}`, { body: { role: 'ADMIN' } }), 404, 'NOT_FOUND');
    }
    expect(expectError(await t.call('PUT', `/v1${membersPath(ws)}/${member.memberId}`, { body: { role: 'GOD' } }), 400, 'BAD_REQUEST').message).toContain('role');
  });

  it('the last OWNER cannot be demoted (409); with two OWNERs one can', async () => {
    const solo = await createWorkspace(t, 'Solo');
    const [ownerRow] = await listMembers(solo);
    expectError(await t.call('PUT', `/v1${membersPath(solo)}/${ownerRow.id}`, { body: { role: 'ADMIN' } }), 409, 'CONFLICT');
    const second = await invite(t, solo, 'OWNER');
    const res = await t.call('PUT', `/v1${membersPath(solo)}/${ownerRow.id}`, { token: second.token, body: { role: 'ADMIN' } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.role).toBe('ADMIN');
    expectError(await t.call('PUT', `/v1${membersPath(solo)}/${second.memberId}`, { token: second.token, body: { role: 'MEMBER' } }), 409, 'CONFLICT');
    // Setting OWNER to OWNER is not a demotion.
    expect((await t.call('PUT', `/v1${membersPath(solo)}/${second.memberId}`, { token: second.token, body: { role: 'OWNER' } })).status).toBe(200);
  });
});

describe('DELETE members/{memberId}', () => {
  it('a MEMBER removing someone else → 403', async () => {
    const p = await invite(t, ws, 'MEMBER');
    expectError(await t.call('DELETE', `/v1${membersPath(ws)}/${p.memberId}`, { token: member.token }), 403, 'FORBIDDEN');
    expectError(await t.call('DELETE', `/v1${membersPath(ws)}/${p.memberId}`, { token: stranger.token }), 403, 'FORBIDDEN');
    expect((await listMembers(ws)).map((m) => m.id)).toContain(p.memberId);
  });

  it('a MEMBER may leave: 204, then 403 on the workspace and gone from their list', async () => {
    const p = await invite(t, ws, 'MEMBER');
    expectNoContent(await t.call('DELETE', `/v1${membersPath(ws)}/${p.memberId}`, { token: p.token }));
    expectError(await t.call('GET', `/v1/workspaces/${ws}`, { token: p.token }), 403, 'FORBIDDEN');
    expect((await t.call('GET', '/v1/workspaces', { token: p.token })).json.list).toEqual([]);
    expect((await listMembers(ws)).map((m) => m.id)).not.toContain(p.memberId);
    // Re-invited later: an existing account, so no new token.
    const again = await t.call('POST', `/v1${membersPath(ws)}`, { body: { email: p.email, role: 'MEMBER' } });
    expect(again.status).toBe(201);
    expect(again.json).not.toHaveProperty('accessToken');
    expect((await t.call('GET', `/v1/workspaces/${ws}`, { token: p.token })).status).toBe(200);
  });

  it('ADMIN removes a MEMBER or an ADMIN, not an OWNER', async () => {
    const m = await invite(t, ws, 'MEMBER');
    const a = await invite(t, ws, 'ADMIN');
    expectNoContent(await t.call('DELETE', `/v1${membersPath(ws)}/${m.memberId}`, { token: admin.token }));
    expectNoContent(await t.call('DELETE', `/v1${membersPath(ws)}/${a.memberId}`, { token: admin.token }));
    expectError(await t.call('GET', `/v1/workspaces/${ws}`, { token: m.token }), 403, 'FORBIDDEN');
    expectError(await t.call('DELETE', `/v1${membersPath(ws)}/${ownerMemberId}`, { token: admin.token }), 403, 'FORBIDDEN');
  });

  it('removal also drops the account’s project memberships in that workspace', async () => {
    const p = await invite(t, ws, 'MEMBER');
    const projectId = await createProject(t, ws, { name: 'Shared' });
    const added = await t.call('POST', `/v1/workspaces/${ws}/projects/${projectId}/members`, { body: { accountId: p.accountId, role: 'EDITOR' } });
    expect(added.status, added.text).toBe(201);
    expectNoContent(await t.call('DELETE', `/v1${membersPath(ws)}/${p.memberId}`));
    const pm = await t.call('GET', `/v1/workspaces/${ws}/projects/${projectId}/members`);
    expect(pm.json.list.map((m: { accountId: string }) => m.accountId)).not.toContain(p.accountId);
    // Invited back, the old project role does not come back.
    await t.call('POST', `/v1${membersPath(ws)}`, { body: { email: p.email, role: 'MEMBER' } });
    expectError(await t.call('GET', `/v1/workspaces/${ws}/projects/${projectId}`, { token: p.token }), 403, 'FORBIDDEN');
  });

  it('removal keeps the account’s project memberships in other workspaces', async () => {
    const p = await invite(t, ws, 'MEMBER');
    const other = await createWorkspace(t, 'Elsewhere');
    await t.call('POST', `/v1${membersPath(other)}`, { body: { email: p.email, role: 'MEMBER' } });
    const here = await createProject(t, ws, { name: 'Here' });
    const there = await createProject(t, other, { name: 'There' });
    for (const [w, pid] of [[ws, here], [other, there]]) {
      const res = await t.call('POST', `/v1/workspaces/${w}/projects/${pid}/members`, { body: { accountId: p.accountId, role: 'VIEWER' } });
      expect(res.status, res.text).toBe(201);
    }
    expectNoContent(await t.call('DELETE', `/v1${membersPath(ws)}/${p.memberId}`));
    const res = await t.call('GET', `/v1/workspaces/${other}/projects/${there}`, { token: p.token });
    expect(res.status, res.text).toBe(200);
    expect((await t.call('GET', `/v1/workspaces/${other}/projects`, { token: p.token })).json.list.map((x: { id: string }) => x.id)).toEqual([there]);
  });

  it('the last OWNER cannot leave or be removed (409); with two OWNERs one can leave', async () => {
    const solo = await createWorkspace(t, 'Solo2');
    const [ownerRow] = await listMembers(solo);
    expectError(await t.call('DELETE', `/v1${membersPath(solo)}/${ownerRow.id}`), 409, 'CONFLICT');
    const second = await invite(t, solo, 'OWNER');
    expectNoContent(await t.call('DELETE', `/v1${membersPath(solo)}/${ownerRow.id}`));
    expectError(await t.call('GET', `/v1/workspaces/${solo}`), 403, 'FORBIDDEN');
    expectError(await t.call('DELETE', `/v1${membersPath(solo)}/${second.memberId}`, { token: second.token }), 409, 'CONFLICT');
    // An OWNER removes another OWNER.
    const third = await invite(t, solo, 'OWNER', second.token);
    expectNoContent(await t.call('DELETE', `/v1${membersPath(solo)}/${third.memberId}`, { token: second.token }));
  });

  it('unknown or malformed member id → 404', async () => {
    expectError(await t.call('DELETE', `/v1${membersPath(ws)}/${MISSING_ID}`), 404, 'NOT_FOUND');
    expectError(await t.call('DELETE', `/v1${membersPath(ws)}/xyz`), 404, 'NOT_FOUND');
  });
});
