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
let ws: string;
let projectId: string;
let wsAdmin: Person;
let padmin: Person;
let editor: Person;
let viewer: Person;
let plain: Person;
let stranger: Person;
let viewerRow: string;

const MEMBER_KEYS = ['accountId', 'createdAt', 'email', 'id', 'name', 'role'];
const pm = (pid = projectId) => `/workspaces/${ws}/projects/${pid}/members`;

async function add(who: Person, role: string, token?: string) {
  const res = await t.call('POST', `/v1${pm()}`, { token, body: { accountId: who.accountId, role } });
  return expectCreated(res, pm());
}

async function rows(token?: string) {
  const res = await t.call('GET', `/v1${pm()}?size=1000`, { token });
  expect(res.status, res.text).toBe(200);
  return res.json.list as { id: string; accountId: string; email: string; role: string }[];
}

beforeAll(async () => {
  t = await startTestApi();
  ws = await createWorkspace(t, 'Project members');
  projectId = await createProject(t, ws, { name: 'Site' });
  wsAdmin = await invite(t, ws, 'ADMIN');
  [padmin, editor, viewer, plain] = [await invite(t, ws, 'MEMBER'), await invite(t, ws, 'MEMBER'), await invite(t, ws, 'MEMBER'), await invite(t, ws, 'MEMBER')];
  stranger = await outsider(t);
  await add(padmin, 'ADMIN');
  await add(editor, 'EDITOR');
  viewerRow = (await add(viewer, 'VIEWER')).id;
});
afterAll(() => t?.close());

describe('GET project members', () => {
  it('project VIEWER and up list them; the wire shape is the member shape', async () => {
    for (const token of [undefined, wsAdmin.token, padmin.token, editor.token, viewer.token]) {
      const list = await rows(token);
      expect(list.map((m) => m.role).sort()).toEqual(['ADMIN', 'EDITOR', 'VIEWER']);
    }
    const list = await rows();
    for (const m of list) expect(Object.keys(m).sort()).toEqual(MEMBER_KEYS);
    expect(list.find((m) => m.accountId === viewer.accountId)).toMatchObject({ id: viewerRow, email: viewer.email, role: 'VIEWER' });
  });

  it('a MEMBER without a project role or an outsider → 403; unknown project → 404', async () => {
    expectError(await t.call('GET', `/v1${pm()}`, { token: plain.token }), 403, 'FORBIDDEN');
    expectError(await t.call('GET', `/v1${pm()}`, { token: stranger.token }), 403, 'FORBIDDEN');
    expectError(await t.call('GET', `/v1${pm(MISSING_ID)}`), 404, 'NOT_FOUND');
  });
});

describe('POST project members', () => {
  it('by accountId or by e-mail (any case): 201, Location, full member', async () => {
    const a = await invite(t, ws, 'MEMBER');
    const byId = await add(a, 'EDITOR', padmin.token);
    expect(Object.keys(byId).sort()).toEqual(MEMBER_KEYS);
    expect(byId).toMatchObject({ accountId: a.accountId, email: a.email, role: 'EDITOR' });
    expect((await t.call('GET', `/v1/workspaces/${ws}/projects/${projectId}`, { token: a.token })).status).toBe(200);

    const b = await invite(t, ws, 'MEMBER');
    const res = await t.call('POST', `/v1${pm()}`, { token: wsAdmin.token, body: { email: b.email.toUpperCase(), role: 'VIEWER' } });
    expect(expectCreated(res, pm())).toMatchObject({ accountId: b.accountId, email: b.email, role: 'VIEWER' });
  });

  it('workspace OWNER/ADMIN may be added too', async () => {
    const ws2Admin = await invite(t, ws, 'ADMIN');
    expect((await add(ws2Admin, 'VIEWER')).role).toBe('VIEWER');
    // Still project ADMIN through the workspace role.
    const res = await t.call('PUT', `/v1/workspaces/${ws}/projects/${projectId}`, { token: ws2Admin.token, body: {} });
    expect(res.status).toBe(200);
  });

  it('an account outside the workspace → 422 on accountId or email', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ accountId: stranger.accountId, role: 'VIEWER' }, 'accountId'],
      [{ accountId: MISSING_ID, role: 'VIEWER' }, 'accountId'],
      [{ email: stranger.email, role: 'VIEWER' }, 'email'],
      [{ email: 'nobody-at-all@example.com', role: 'VIEWER' }, 'email'],
    ];
    for (const [body, field] of cases) {
      const error = expectError(await t.call('POST', `/v1${pm()}`, { body }), 422, 'VALIDATION_ERROR');
      expect((error.details as { field: string }[])[0].field, JSON.stringify(body)).toBe(field);
    }
    expect((await rows()).map((m) => m.accountId)).not.toContain(stranger.accountId);
  });

  it('already a project member → 409 CONFLICT', async () => {
    expectError(await t.call('POST', `/v1${pm()}`, { body: { accountId: editor.accountId, role: 'VIEWER' } }), 409, 'CONFLICT');
    expectError(await t.call('POST', `/v1${pm()}`, { body: { email: editor.email, role: 'ADMIN' } }), 409, 'CONFLICT');
    expect((await rows()).find((m) => m.accountId === editor.accountId)!.role).toBe('EDITOR');
  });

  it('malformed body → 400 naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ role: 'VIEWER' }, 'accountId'],
      [{ accountId: plain.accountId, role: 'OWNER' }, 'role'],
      [{ accountId: plain.accountId }, 'role'],
      [{ accountId: 'not-a-uuid', role: 'VIEWER' }, 'accountId'],
      [{ email: 'nope', role: 'VIEWER' }, 'email'],
      [{ accountId: 5, role: 'VIEWER' }, 'accountId'],
    ];
    for (const [body, field] of cases) {
      expect(expectError(await t.call('POST', `/v1${pm()}`, { body }), 400, 'BAD_REQUEST').message, JSON.stringify(body)).toContain(field);
    }
  });

  it('EDITOR, VIEWER, plain MEMBER, outsider → 403 (before any body check)', async () => {
    for (const who of [editor, viewer, plain, stranger]) {
      expectError(await t.call('POST', `/v1${pm()}`, { token: who.token, body: { accountId: plain.accountId, role: 'VIEWER' } }), 403, 'FORBIDDEN');
      expectError(await t.call('POST', `/v1${pm()}`, { token: who.token, body: { role: 'NOPE' } }), 403, 'FORBIDDEN');
    }
  });
});

describe('workspace role changes', () => {
  it('a workspace ADMIN demoted to MEMBER loses implicit project ADMIN but keeps an explicit project role', async () => {
    const a = await invite(t, ws, 'ADMIN');
    const b = await invite(t, ws, 'ADMIN');
    await add(b, 'EDITOR');
    for (const who of [a, b]) {
      const res = await t.call('PUT', `/v1/workspaces/${ws}/members/${who.memberId}`, { body: { role: 'MEMBER' } });
      expect(res.status, res.text).toBe(200);
    }
    expectError(await t.call('GET', `/v1/workspaces/${ws}/projects/${projectId}`, { token: a.token }), 403, 'FORBIDDEN');
    expect((await t.call('GET', `/v1/workspaces/${ws}/projects/${projectId}`, { token: b.token })).status).toBe(200);
    expectError(await t.call('PUT', `/v1/workspaces/${ws}/projects/${projectId}`, { token: b.token, body: {} }), 403, 'FORBIDDEN');
  });
});

describe('PUT project members/{memberId}', () => {
  it('project ADMIN changes a role: 200 full member, and the new role takes effect', async () => {
    const p = await invite(t, ws, 'MEMBER');
    const row = await add(p, 'VIEWER');
    expectError(await t.call('PUT', `/v1/workspaces/${ws}/projects/${projectId}`, { token: p.token, body: { name: 'x' } }), 403, 'FORBIDDEN');
    const res = await t.call('PUT', `/v1${pm()}/${row.id}`, { token: padmin.token, body: { role: 'ADMIN' } });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(MEMBER_KEYS);
    expect(res.json).toMatchObject({ id: row.id, accountId: p.accountId, role: 'ADMIN' });
    const upd = await t.call('PUT', `/v1/workspaces/${ws}/projects/${projectId}`, { token: p.token, body: { description: 'now allowed' } });
    expect(upd.status).toBe(200);
    // ...and can now manage members.
    expect((await t.call('PUT', `/v1${pm()}/${row.id}`, { token: p.token, body: { role: 'EDITOR' } })).json.role).toBe('EDITOR');
    expectError(await t.call('PUT', `/v1/workspaces/${ws}/projects/${projectId}`, { token: p.token, body: { name: 'x' } }), 403, 'FORBIDDEN');
  });

  it('EDITOR, VIEWER, plain MEMBER, outsider → 403; unknown or foreign member id → 404; bad role → 400', async () => {
    for (const who of [editor, viewer, plain, stranger]) {
      expectError(await t.call('PUT', `/v1${pm()}/${viewerRow}`, { token: who.token, body: { role: 'ADMIN' } }), 403, 'FORBIDDEN');
    }
    const other = await createProject(t, ws, { name: 'Other' });
    const foreign = await t.call('POST', `/v1${pm(other)}`, { body: { accountId: plain.accountId, role: 'VIEWER' } });
    expect(foreign.status).toBe(201);
    for (const id of [MISSING_ID, 'nope', foreign.json.id]) {
      expectError(await t.call('PUT', `/v1${pm()}/${id}`, { body: { role: 'ADMIN' } }), 404, 'NOT_FOUND');
    }
    expect(expectError(await t.call('PUT', `/v1${pm()}/${viewerRow}`, { body: { role: 'OWNER' } }), 400, 'BAD_REQUEST').message).toContain('role');
    expect((await rows()).find((m) => m.id === viewerRow)!.role).toBe('VIEWER');
  });
});

describe('DELETE project members/{memberId}', () => {
  it('EDITOR, VIEWER (even on themself), plain MEMBER, outsider → 403', async () => {
    for (const who of [editor, viewer, plain, stranger]) {
      expectError(await t.call('DELETE', `/v1${pm()}/${viewerRow}`, { token: who.token }), 403, 'FORBIDDEN');
    }
    expect((await rows()).map((m) => m.id)).toContain(viewerRow);
  });

  it('project ADMIN removes: 204; access is gone; removing again → 404', async () => {
    expectNoContent(await t.call('DELETE', `/v1${pm()}/${viewerRow}`, { token: padmin.token }));
    expect((await rows()).map((m) => m.id)).not.toContain(viewerRow);
    expectError(await t.call('GET', `/v1/workspaces/${ws}/projects/${projectId}`, { token: viewer.token }), 403, 'FORBIDDEN');
    const list = await t.call('GET', `/v1/workspaces/${ws}/projects`, { token: viewer.token });
    expect(list.json.list).toEqual([]);
    expectError(await t.call('DELETE', `/v1${pm()}/${viewerRow}`), 404, 'NOT_FOUND');
    // Still a workspace member.
    expect((await t.call('GET', `/v1/workspaces/${ws}`, { token: viewer.token })).json.role).toBe('MEMBER');
  });

  it('workspace ADMIN removes a project ADMIN', async () => {
    const row = (await rows()).find((m) => m.accountId === padmin.accountId)!;
    expectNoContent(await t.call('DELETE', `/v1${pm()}/${row.id}`, { token: wsAdmin.token }));
    expectError(await t.call('GET', `/v1${pm()}`, { token: padmin.token }), 403, 'FORBIDDEN');
  });
});
