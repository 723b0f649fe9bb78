import { randomInt } from 'node:crypto';
import { expect } from 'vitest';
import type { CallOptions, TestApi } from '../helpers/api.js';
import { TOKEN_SHAPE, expectCreated } from '../helpers/expect.js';
export { TOKEN_SHAPE, UUID_SHAPE, expectBadRequest, expectCreated, expectError, expectNoContent, expectStatus } from '../helpers/expect.js';

/** Shared helpers of the test/auth suite. */

export const KEY_SHAPE = /^tak_[A-Za-z0-9]{43}$/;
/** A well-formed UUID that names nothing. */
export const MISSING_ID = '0190b0a0-0000-7000-8000-000000000000';
/** The API key wire shape (docs/concepts.md#api-keys) (without `key`, which create and rotate add). */
export const KEY_FIELDS = ['active', 'allowedHosts', 'createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'permission', 'prefix', 'roleId'];

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** A well-formed credential that names nothing. */
export const randomSecret = (prefix: 'tak_' | 'tat_') => prefix + Array.from({ length: 43 }, () => BASE62[randomInt(62)]).join('');

let counter = 0;
export const uniq = (label: string) => `${label}_${process.pid}_${Date.now().toString(36)}_${++counter}`;

export interface Person {
  token: string;
  accountId: string;
  email: string;
}

export interface ApiKeyRecord {
  id: string;
  key: string;
  name: string;
  permission: 'read' | 'read_write';
  prefix: string;
  allowedHosts: string[];
  active: boolean;
  expiresAt: string | null;
}

export interface World {
  workspaceId: string;
  projectId: string;
  /** A second project of the same workspace. */
  otherProjectId: string;
  readKey: ApiKeyRecord;
  writeKey: ApiKeyRecord;
}

export async function createWorkspace(t: TestApi, name = 'Auth', token?: string): Promise<string> {
  const res = await t.call('POST', '/v1/workspaces', { token, body: { name } });
  expect(res.status, res.text).toBe(201);
  return res.json.id as string;
}

export async function createProject(t: TestApi, workspaceId: string, name = 'Project'): Promise<string> {
  const res = await t.call('POST', `/v1/workspaces/${workspaceId}/projects`, { body: { name } });
  expect(res.status, res.text).toBe(201);
  return res.json.id as string;
}

/** Invites a new account as workspace MEMBER; with `projectRole`, also adds it to the project. */
export async function person(t: TestApi, workspaceId: string, projectId?: string, projectRole?: 'ADMIN' | 'EDITOR' | 'VIEWER'): Promise<Person> {
  const email = `${uniq('p').toLowerCase()}@example.com`;
  const res = await t.call('POST', `/v1/workspaces/${workspaceId}/members`, { body: { email, role: 'MEMBER' } });
  expect(res.status, res.text).toBe(201);
  expect(res.json.accessToken).toMatch(TOKEN_SHAPE);
  const who = { token: res.json.accessToken as string, accountId: res.json.accountId as string, email };
  if (projectId && projectRole) {
    const added = await t.call('POST', `/v1/workspaces/${workspaceId}/projects/${projectId}/members`, {
      body: { accountId: who.accountId, role: projectRole },
    });
    expect(added.status, added.text).toBe(201);
  }
  return who;
}

/** Creates an API key with the admin token (201 asserted). */
export async function createKey(
  t: TestApi,
  projectId: string,
  permission: 'read' | 'read_write',
  extra: Record<string, unknown> = {},
): Promise<ApiKeyRecord> {
  const res = await t.call('POST', `/v1/${projectId}/api-keys`, { body: { name: uniq('key'), permission, ...extra } });
  expect(res.status, res.text).toBe(201);
  expect(res.json.key).toMatch(KEY_SHAPE);
  return res.json as ApiKeyRecord;
}

export const tablesPath = (projectId: string) => `/v1/${projectId}/tables`;

/** GET the project's tables with a credential and optional extra headers. */
export const listTables = (t: TestApi, projectId: string, token: string | null, headers: Record<string, string> = {}) =>
  t.call('GET', tablesPath(projectId), { token, headers });

/** Creates a table with the admin token and returns it. */
export async function createTable(t: TestApi, projectId: string, options: CallOptions = {}) {
  const key = uniq('t').toLowerCase();
  const res = await t.call('POST', tablesPath(projectId), { body: { key, name: 'Table' }, ...options });
  return expectCreated(res, `/${projectId}/tables`) as { id: string; key: string; name: string };
}

/** A workspace with two projects, and a read and a read_write key of the first. */
export async function buildWorld(t: TestApi): Promise<World> {
  const workspaceId = await createWorkspace(t);
  const projectId = await createProject(t, workspaceId, 'A');
  const otherProjectId = await createProject(t, workspaceId, 'B');
  const readKey = await createKey(t, projectId, 'read');
  const writeKey = await createKey(t, projectId, 'read_write');
  return { workspaceId, projectId, otherProjectId, readKey, writeKey };
}
