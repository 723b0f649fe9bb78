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
let wsAdmin: Person;
let viewer: Person; // workspace MEMBER, project VIEWER on `shared`
let editor: Person; // workspace MEMBER, project EDITOR on `shared`
let padmin: Person; // workspace MEMBER, project ADMIN on `shared`
let plain: Person; // workspace MEMBER, no project role
let stranger: Person;
let shared: string;
let hidden: string;

const PROJECT_KEYS = ['createdAt', 'defaultLocale', 'description', 'id', 'locales', 'name', 'updatedAt', 'workspaceId'];
const projects = (id = ws) => `/workspaces/${id}/projects`;

async function addToProject(projectId: string, who: Person, role: string) {
  const res = await t.call('POST', `/v1${projects()}/${projectId}/members`, { body: { accountId: who.accountId, role } });
  expect(res.status, res.text).toBe(201);
}

async function listIds(token?: string): Promise<string[]> {
  const res = await t.call('GET', `/v1${projects()}?size=1000`, { token });
  expect(res.status, res.text).toBe(200);
  return res.json.list.map((p: { id: string }) => p.id);
}

beforeAll(async () => {
  t = await startTestApi();
  ws = await createWorkspace(t, 'Projects');
  wsAdmin = await invite(t, ws, 'ADMIN');
  [viewer, editor, padmin, plain] = [await invite(t, ws, 'MEMBER'), await invite(t, ws, 'MEMBER'), await invite(t, ws, 'MEMBER'), await invite(t, ws, 'MEMBER')];
  stranger = await outsider(t);
  shared = await createProject(t, ws, { name: 'Shared' });
  hidden = await createProject(t, ws, { name: 'Hidden' });
  await addToProject(shared, viewer, 'VIEWER');
  await addToProject(shared, editor, 'EDITOR');
  await addToProject(shared, padmin, 'ADMIN');
});
afterAll(() => t?.close());

describe('POST projects', () => {
  it('creates with defaults: locales ["en"], defaultLocale "en", description ""', async () => {
    const res = await t.call('POST', `/v1${projects()}`, { body: { name: 'Blog' } });
    const body = expectCreated(res, projects());
    expect(Object.keys(body).sort()).toEqual(PROJECT_KEYS);
    expect(body).toMatchObject({ workspaceId: ws, name: 'Blog', description: '', locales: ['en'], defaultLocale: 'en' });
    expect(body.updatedAt).toBe(body.createdAt);
  });

  it('defaultLocale defaults to locales[0]; an explicit one is kept', async () => {
    const a = await t.call('POST', `/v1${projects()}`, { body: { name: 'A', locales: ['fr', 'de'], description: 'Docs' } });
    expect(a.json).toMatchObject({ locales: ['fr', 'de'], defaultLocale: 'fr', description: 'Docs' });
    const b = await t.call('POST', `/v1${projects()}`, { body: { name: 'B', locales: ['fr', 'pt-BR'], defaultLocale: 'pt-BR' } });
    expect(b.status).toBe(201);
    expect(b.json).toMatchObject({ locales: ['fr', 'pt-BR'], defaultLocale: 'pt-BR' });
  });

  it('a defaultLocale not in locales → 422 VALIDATION_ERROR on defaultLocale', async () => {
    for (const body of [{ name: 'X', locales: ['en', 'fr'], defaultLocale: 'de' }, { name: 'X', defaultLocale: 'fr' }]) {
      const error = expectError(await t.call('POST', `/v1${projects()}`, { body }), 422, 'VALIDATION_ERROR');
      expect((error.details as { field: string }[])[0].field).toBe('defaultLocale');
    }
  });

  it('malformed locales or name → 400 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ name: 'X', locales: [] }, 'locales'],
      [{ name: 'X', locales: ['not a locale'] }, 'locales'],
      [{ name: 'X', locales: [5] }, 'locales'],
      [{ name: 'X', defaultLocale: 5 }, 'defaultLocale'],
      [{ name: 'X', description: false }, 'description'],
      [{ locales: ['en'] }, 'name'],
    ];
    for (const [body, field] of cases) {
      expect(expectError(await t.call('POST', `/v1${projects()}`, { body }), 400, 'BAD_REQUEST').message, JSON.stringify(body)).toContain(field);
    }
  });

  it('workspace ADMIN creates; MEMBER (even a project ADMIN elsewhere) or no role → 403; unknown workspace → 404', async () => {
    expect((await t.call('POST', `/v1${projects()}`, { token: wsAdmin.token, body: { name: 'By admin' } })).status).toBe(201);
    for (const who of [plain, padmin, stranger]) {
      expectError(await t.call('POST', `/v1${projects()}`, { token: who.token, body: { name: 'No' } }), 403, 'FORBIDDEN');
    }
    expectError(await t.call('POST', `/v1${projects(MISSING_ID)}`, { body: { name: 'No' } }), 404, 'NOT_FOUND');
  });
});

describe('GET projects (list)', () => {
  it('OWNER and ADMIN see every project; a MEMBER only those they belong to', async () => {
    const all = await listIds();
    expect(all).toEqual(expect.arrayContaining([shared, hidden]));
    expect(await listIds(wsAdmin.token)).toEqual(all);
    for (const who of [viewer, editor, padmin]) expect(await listIds(who.token)).toEqual([shared]);
    expect(await listIds(plain.token)).toEqual([]);
    const res = await t.call('GET', `/v1${projects()}`, { token: viewer.token });
    expect(res.json.pagination).toEqual({ page: 1, size: 20, total: 1, pages: 1, hasNext: false });
    expect(Object.keys(res.json.list[0]).sort()).toEqual(PROJECT_KEYS);
  });

  it('no role → 403; unknown workspace → 404', async () => {
    expectError(await t.call('GET', `/v1${projects()}`, { token: stranger.token }), 403, 'FORBIDDEN');
    expectError(await t.call('GET', `/v1${projects(MISSING_ID)}`), 404, 'NOT_FOUND');
  });
});

describe('GET projects/{id}', () => {
  it('project VIEWER and up (workspace OWNER/ADMIN included) read it', async () => {
    for (const token of [undefined, wsAdmin.token, viewer.token, editor.token, padmin.token]) {
      const res = await t.call('GET', `/v1${projects()}/${shared}`, { token });
      expect(res.status, res.text).toBe(200);
      expect(res.json).toMatchObject({ id: shared, workspaceId: ws, name: 'Shared' });
    }
  });

  it('a MEMBER without a project role or an outsider → 403; unknown, malformed or foreign id → 404', async () => {
    expectError(await t.call('GET', `/v1${projects()}/${shared}`, { token: plain.token }), 403, 'FORBIDDEN');
    expectError(await t.call('GET', `/v1${projects()}/${hidden}`, { token: viewer.token }), 403, 'FORBIDDEN');
    expectError(await t.call('GET', `/v1${projects()}/${shared}`, { token: stranger.token }), 403, 'FORBIDDEN');
    expectError(await t.call('GET', `/v1${projects()}/${MISSING_ID}`), 404, 'NOT_FOUND');
    expectError(await t.call('GET', `/v1${projects()}/not-a-uuid`), 404, 'NOT_FOUND');
    // A workspace MEMBER learns that a project does not exist; an outsider only that they have no role.
    expectError(await t.call('GET', `/v1${projects()}/${MISSING_ID}`, { token: plain.token }), 404, 'NOT_FOUND');
    expectError(await t.call('GET', `/v1${projects()}/${MISSING_ID}`, { token: stranger.token }), 403, 'FORBIDDEN');
    const otherWs = await createWorkspace(t, 'Other');
    const foreign = await createProject(t, otherWs);
    // A project addressed under the wrong workspace does not exist there.
    expectError(await t.call('GET', `/v1${projects()}/${foreign}`), 404, 'NOT_FOUND');
    expectError(await t.call('GET', `/v1${projects(otherWs)}/${shared}`), 404, 'NOT_FOUND');
  });
});

describe('PUT projects/{id}', () => {
  it('project ADMIN updates: 200 full object; partial (absent fields kept)', async () => {
    const before = (await t.call('GET', `/v1${projects()}/${shared}`)).json;
    const res = await t.call('PUT', `/v1${projects()}/${shared}`, { token: padmin.token, body: { description: 'About' } });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(PROJECT_KEYS);
    expect(res.json).toMatchObject({ ...before, description: 'About', updatedAt: expect.any(String) });
    expect(Date.parse(res.json.updatedAt)).toBeGreaterThanOrEqual(Date.parse(before.updatedAt));
    const renamed = await t.call('PUT', `/v1${projects()}/${shared}`, { token: wsAdmin.token, body: { name: 'Shared 2' } });
    expect(renamed.json).toMatchObject({ name: 'Shared 2', description: 'About' });
  });

  it('locales and defaultLocale change together; a defaultLocale outside locales → 422', async () => {
    const ok = await t.call('PUT', `/v1${projects()}/${shared}`, { body: { locales: ['en', 'fr'], defaultLocale: 'fr' } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json).toMatchObject({ locales: ['en', 'fr'], defaultLocale: 'fr' });
    for (const body of [{ locales: ['en', 'de'] }, { defaultLocale: 'es' }]) {
      const error = expectError(await t.call('PUT', `/v1${projects()}/${shared}`, { body }), 422, 'VALIDATION_ERROR');
      expect((error.details as { field: string }[])[0].field).toBe('defaultLocale');
    }
    expect((await t.call('GET', `/v1${projects()}/${shared}`)).json).toMatchObject({ locales: ['en', 'fr'], defaultLocale: 'fr' });
  });

  it('EDITOR, VIEWER, plain MEMBER, outsider → 403; unknown → 404; bad type → 400', async () => {
    for (const who of [editor, viewer, plain, stranger]) {
      expectError(await t.call('PUT', `/v1${projects()}/${shared}`, { token: who.token, body: { name: 'No' } }), 403, 'FORBIDDEN');
    }
    expectError(await t.call('PUT', `/v1${projects()}/${MISSING_ID}`, { body: { name: 'No' } }), 404, 'NOT_FOUND');
    expect(expectError(await t.call('PUT', `/v1${projects()}/${shared}`, { body: { name: 5 } }), 400, 'BAD_REQUEST').message).toContain('name');
    expect((await t.call('GET', `/v1${projects()}/${shared}`)).json.name).toBe('Shared 2');
  });
});

describe('DELETE projects/{id}', () => {
  it('EDITOR, VIEWER, plain MEMBER, outsider → 403', async () => {
    for (const who of [editor, viewer, plain, stranger]) {
      expectError(await t.call('DELETE', `/v1${projects()}/${shared}`, { token: who.token }), 403, 'FORBIDDEN');
    }
  });

  it('project ADMIN deletes: 204, then 404 and gone from lists', async () => {
    const doomed = await createProject(t, ws, { name: 'Doomed' });
    await addToProject(doomed, padmin, 'ADMIN');
    expectNoContent(await t.call('DELETE', `/v1${projects()}/${doomed}`, { token: padmin.token }));
    expectError(await t.call('GET', `/v1${projects()}/${doomed}`), 404, 'NOT_FOUND');
    expectError(await t.call('GET', `/v1${projects()}/${doomed}`, { token: padmin.token }), 404, 'NOT_FOUND');
    expectError(await t.call('PUT', `/v1${projects()}/${doomed}`, { body: { name: 'x' } }), 404, 'NOT_FOUND');
    expectError(await t.call('DELETE', `/v1${projects()}/${doomed}`), 404, 'NOT_FOUND');
    expectError(await t.call('GET', `/v1${projects()}/${doomed}/members`), 404, 'NOT_FOUND');
    expect(await listIds()).not.toContain(doomed);
    expect(await listIds(padmin.token)).not.toContain(doomed);
  });

  it('workspace OWNER and ADMIN delete any project', async () => {
    for (const token of [undefined, wsAdmin.token]) {
      const doomed = await createProject(t, ws, { name: 'Doomed' });
      expectNoContent(await t.call('DELETE', `/v1${projects()}/${doomed}`, { token }));
      expectError(await t.call('GET', `/v1${projects()}/${doomed}`), 404, 'NOT_FOUND');
    }
  });
});
