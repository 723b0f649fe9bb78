import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { MISSING_ID, createProject, createWorkspace, expectCreated, expectError, expectNoContent, invite, type Person } from '../foundation/helpers.js';

/**
 * Who may copy a project (docs/concepts.md#copying-a-project): an ADMIN of the workspace the copy
 * is created in who is also ADMIN of the source project, in the same workspace or another. A
 * source the caller cannot see (unknown, deleted, or in a workspace it is not a member of) is
 * 404; one it holds a lesser role in is 403.
 */
let t: TestApi;
let ws: string;
let sourceId: string;
let viewer: Person;
let projectAdmin: Person;
let wsMember: Person;
/** Each person's own workspace, where it is OWNER. */
const own = new Map<string, string>();

const copy = (workspaceId: string, body: Record<string, unknown>, token?: string) =>
  t.call('POST', `/v1/workspaces/${workspaceId}/projects`, { token, body: { name: 'Copy', ...body } });

beforeAll(async () => {
  t = await startTestApi();
  ws = await createWorkspace(t, 'Source');
  sourceId = await createProject(t, ws, { name: 'Source', locales: ['en', 'de'] });
  expectCreated(await t.call('POST', `/v1/${sourceId}/tables`, { body: { key: 'items', name: 'Items' } }));
  [viewer, projectAdmin, wsMember] = [await invite(t, ws, 'MEMBER'), await invite(t, ws, 'MEMBER'), await invite(t, ws, 'MEMBER')];
  for (const [who, role] of [
    [viewer, 'VIEWER'],
    [projectAdmin, 'ADMIN'],
  ] as const) {
    expectCreated(await t.call('POST', `/v1/workspaces/${ws}/projects/${sourceId}/members`, { body: { accountId: who.accountId, role } }));
  }
  for (const who of [viewer, projectAdmin, wsMember]) own.set(who.accountId, await createWorkspace(t, 'Mine', who.token));
});
afterAll(() => t?.close());

describe('copying a project: who may', () => {
  it('a workspace OWNER copies within the workspace; locales come from the source', async () => {
    const made = expectCreated(await copy(ws, { from: { projectId: sourceId } }));
    expect(made).toMatchObject({ workspaceId: ws, locales: ['en', 'de'], defaultLocale: 'en' });
  });

  it('a project ADMIN who is not a workspace ADMIN copies into a workspace of its own', async () => {
    const target = own.get(projectAdmin.accountId)!;
    const made = expectCreated(await copy(target, { from: { projectId: sourceId } }, projectAdmin.token));
    expect(made.workspaceId).toBe(target);
    const tables = await t.call('GET', `/v1/${made.id}/tables`, { token: projectAdmin.token });
    expect(tables.json.list.map((x: { key: string }) => x.key)).toEqual(['items']);
  });

  it('a project VIEWER (or a member without a project role) of the source: 403', async () => {
    expectError(await copy(own.get(viewer.accountId)!, { from: { projectId: sourceId } }, viewer.token), 403, 'FORBIDDEN');
    expectError(await copy(own.get(wsMember.accountId)!, { from: { projectId: sourceId, contents: true } }, wsMember.token), 403, 'FORBIDDEN');
  });

  it('a source in a workspace the caller is not a member of, an unknown or a deleted one: 404', async () => {
    const stranger = await createWorkspace(t, 'Stranger');
    const strangerProject = await createProject(t, stranger, { name: 'Elsewhere' });
    // The projectAdmin is no member of the workspace "Stranger".
    expectError(await copy(own.get(projectAdmin.accountId)!, { from: { projectId: strangerProject } }, projectAdmin.token), 404, 'NOT_FOUND');
    expectError(await copy(ws, { from: { projectId: MISSING_ID } }), 404, 'NOT_FOUND');
    const doomed = await createProject(t, ws, { name: 'Doomed' });
    expectNoContent(await t.call('DELETE', `/v1/workspaces/${ws}/projects/${doomed}`));
    expectError(await copy(ws, { from: { projectId: doomed } }), 404, 'NOT_FOUND');
  });

  it('creating in a workspace the caller is only a MEMBER of stays 403, whatever the source', async () => {
    expectError(await copy(ws, { from: { projectId: sourceId } }, projectAdmin.token), 403, 'FORBIDDEN');
  });

  it('refuses locales with from (422), and from fields of the wrong JSON type (400)', async () => {
    const error = expectError(await copy(ws, { locales: ['en'], from: { projectId: sourceId } }), 422, 'VALIDATION_ERROR');
    expect(error.details!.map((d) => d.field)).toEqual(['locales']);
    expectError(await copy(ws, { defaultLocale: 'de', from: { projectId: sourceId } }), 422, 'VALIDATION_ERROR');
    expectError(await copy(ws, { from: { projectId: sourceId, contents: 'true' } }), 400, 'BAD_REQUEST');
    expectError(await copy(ws, { from: { projectId: sourceId, contents: 1 } }), 400, 'BAD_REQUEST');
    expectError(await copy(ws, { from: { projectId: 'not-a-uuid' } }), 400, 'BAD_REQUEST');
    expectError(await copy(ws, { from: {} }), 400, 'BAD_REQUEST');
  });
});
