import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { MISSING_ID, createProject, createWorkspace, expectError } from './helpers.js';

/** docs/concepts.md#credentials-and-roles: `/accounts/me` and `/workspaces/**` take account tokens only; any API key gets 403. */
let t: TestApi;
let ws: string;
let projectId: string;
const keys: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestApi();
  ws = await createWorkspace(t, 'Keys');
  projectId = await createProject(t, ws, { name: 'Keyed' });
  for (const permission of ['read', 'read_write']) {
    const res = await t.call('POST', `/v1/${projectId}/api-keys`, { body: { name: permission, permission } });
    expect(res.status, res.text).toBe(201);
    expect(res.json.key).toMatch(/^tak_[A-Za-z0-9]{43}$/);
    keys[permission] = res.json.key;
  }
});
afterAll(() => t?.close());

describe.each(['read', 'read_write'])('a %s API key on account-level endpoints', (permission) => {
  const cases = (): [string, string, unknown?][] => [
    ['GET', '/v1/accounts/me'],
    ['PUT', '/v1/accounts/me', { name: 'Key' }],
    ['GET', '/v1/workspaces'],
    ['POST', '/v1/workspaces', { name: 'By key' }],
    ['GET', `/v1/workspaces/${ws}`],
    ['PUT', `/v1/workspaces/${ws}`, { name: 'By key' }],
    ['DELETE', `/v1/workspaces/${ws}`],
    ['GET', `/v1/workspaces/${ws}/members`],
    ['POST', `/v1/workspaces/${ws}/members`, { email: 'k@example.com', role: 'MEMBER' }],
    ['GET', `/v1/workspaces/${ws}/projects`],
    ['GET', `/v1/workspaces/${ws}/projects/${projectId}`],
    ['PUT', `/v1/workspaces/${ws}/projects/${projectId}`, { name: 'By key' }],
    ['GET', `/v1/workspaces/${ws}/projects/${projectId}/members`],
    // Even where the workspace does not exist: 403 comes before 404.
    ['GET', `/v1/workspaces/${MISSING_ID}`],
  ];

  it('→ 403 FORBIDDEN everywhere, and nothing changes', async () => {
    for (const [method, path, body] of cases()) {
      const res = await t.call(method, path, { token: keys[permission], body });
      expectError(res, 403, 'FORBIDDEN');
    }
    const got = await t.call('GET', `/v1/workspaces/${ws}`);
    expect(got.json.name).toBe('Keys');
    expect((await t.call('GET', `/v1/workspaces/${ws}/projects/${projectId}`)).json.name).toBe('Keyed');
  });

  it('→ 403 before a malformed body is looked at', async () => {
    const res = await t.call('PUT', `/v1/workspaces/${ws}`, { token: keys[permission], raw: '{bad', headers: { 'content-type': 'application/json' } });
    expectError(res, 403, 'FORBIDDEN');
  });
});
