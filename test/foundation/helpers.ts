import { expect } from 'vitest';
import type { CallResult, TestApi } from '../helpers/api.js';

export const TOKEN_SHAPE = /^tat_[A-Za-z0-9]{43}$/;
export const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A well-formed UUID that names nothing. */
export const MISSING_ID = '00000000-0000-7000-8000-000000000000';

let counter = 0;
/** A unique e-mail address for this test process. */
export const uniqueEmail = (label = 'user') => `${label}-${process.pid}-${Date.now()}-${++counter}@example.com`;

/** Asserts the SPEC §3 error body (details null except for 422) and returns it. */
export function expectError(res: CallResult, status: number, code: string) {
  expect({ status: res.status, body: res.json }, res.text).toMatchObject({ status, body: { error: { code } } });
  const error = res.json.error as { code: string; message: string; details: unknown };
  expect(Object.keys(res.json)).toEqual(['error']);
  expect(typeof error.message).toBe('string');
  expect(error.message.length).toBeGreaterThan(0);
  if (status === 422) {
    expect(Array.isArray(error.details)).toBe(true);
  } else {
    expect(error.details).toBeNull();
  }
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('x-request-id')).toBeTruthy();
  return error;
}

/** Asserts a 201 with a Location under /v1 ending in the new id, and returns the body. */
export function expectCreated(res: CallResult, collectionPath: string) {
  expect(res.status, res.text).toBe(201);
  expect(res.json.id).toMatch(UUID_SHAPE);
  expect(res.headers.get('location')).toBe(`/v1${collectionPath}/${res.json.id}`);
  return res.json;
}

/** Asserts a 204 with an empty body. */
export function expectNoContent(res: CallResult) {
  expect(res.status, res.text).toBe(204);
  expect(res.text).toBe('');
}

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
