import { expect } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { TOKEN_SHAPE } from '../helpers/expect.js';
export { TOKEN_SHAPE, UUID_SHAPE, expectCreated, expectError, expectNoContent } from '../helpers/expect.js';

/** A well-formed UUID that names nothing. */
export const MISSING_ID = '00000000-0000-7000-8000-000000000000';

let counter = 0;
/** A unique e-mail address for this test process. */
export const uniqueEmail = (label = 'user') => `${label}-${process.pid}-${Date.now()}-${++counter}@example.com`;

export interface Person {
  token: string;
  accountId: string;
  memberId: string;
  email: string;
}

export async function createWorkspace(t: TestApi, name = 'Workspace', token?: string): Promise<string> {
  const res = await t.call('POST', '/v1/workspaces', { token, body: { name } });
  expect(res.status, res.text).toBe(201);
  return res.json.id as string;
}

/** Invites a brand-new account into the workspace and returns its token and ids. */
export async function invite(t: TestApi, workspaceId: string, role: string, token?: string): Promise<Person> {
  const email = uniqueEmail(role.toLowerCase());
  const res = await t.call('POST', `/v1/workspaces/${workspaceId}/members`, { token, body: { email, role } });
  expect(res.status, res.text).toBe(201);
  expect(res.json.accessToken).toMatch(TOKEN_SHAPE);
  return { token: res.json.accessToken, accountId: res.json.accountId, memberId: res.json.id, email };
}

/** A new account that belongs to no workspace of interest (invited into a scratch workspace). */
export async function outsider(t: TestApi): Promise<Person> {
  const scratch = await createWorkspace(t, 'Scratch');
  return invite(t, scratch, 'MEMBER');
}

export async function createProject(t: TestApi, workspaceId: string, body: Record<string, unknown> = {}, token?: string): Promise<string> {
  const res = await t.call('POST', `/v1/workspaces/${workspaceId}/projects`, { token, body: { name: 'Project', ...body } });
  expect(res.status, res.text).toBe(201);
  return res.json.id as string;
}
