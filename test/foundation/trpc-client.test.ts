import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppRouter } from '../../src/trpc/router.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { MISSING_ID, UUID_SHAPE, createWorkspace, invite, type Person } from './helpers.js';

let t: TestApi;
let member: Person;
let workspaceId: string;

const client = (token: string | null) =>
  createTRPCClient<AppRouter>({
    links: [httpBatchLink({ url: `${t.url}/trpc`, headers: () => (token ? { authorization: `Bearer ${token}` } : {}) })],
  });

/** Runs `fn`, expecting a TRPCClientError, and returns its error data. */
async function failure(fn: () => Promise<unknown>) {
  const error = await fn().then(
    () => {
      throw new Error('expected a TRPCClientError');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TRPCClientError);
  const data = (error as TRPCClientError<AppRouter>).data as unknown as {
    httpStatus: number;
    error: { code: string; message: string; details: unknown };
  };
  expect(data.error.details).toBeNull();
  expect(data).not.toHaveProperty('stack');
  return data;
}

beforeAll(async () => {
  t = await startTestApi();
  workspaceId = await createWorkspace(t, 'Typed');
  member = await invite(t, workspaceId, 'MEMBER');
});
afterAll(() => t?.close());

describe('typed tRPC client', () => {
  it('accounts.me answers the same account as GET /v1/accounts/me', async () => {
    const me = await client(t.adminToken).accounts.me.query({});
    const rest = await t.call('GET', '/v1/accounts/me');
    expect(me).toEqual(rest.json);
    expect(me.email).toBe(t.adminEmail);
  });

  it('workspaces.create and workspaces.list (batched) agree with REST', async () => {
    const c = client(member.token);
    const created = await c.workspaces.create.mutate({ name: 'From tRPC' });
    expect(created).toMatchObject({ name: 'From tRPC', role: 'OWNER' });
    expect(created.id).toMatch(UUID_SHAPE);
    const [list, again] = await Promise.all([c.workspaces.list.query({}), c.workspaces.get.query({ workspaceId: created.id })]);
    expect(list.list.map((w) => [w.id, w.role])).toEqual(
      expect.arrayContaining([
        [workspaceId, 'MEMBER'],
        [created.id, 'OWNER'],
      ]),
    );
    expect(list.pagination).toMatchObject({ page: 1, size: 20, total: 2, pages: 1, hasNext: false });
    expect(again).toEqual(created);
    const rest = await t.call('GET', `/v1/workspaces/${created.id}`, { token: member.token });
    expect(rest.json).toEqual(created);
  });

  it('list paging parameters go through the same validation', async () => {
    const c = client(member.token);
    // `withCount` is typed as a string on the tRPC face (z.stringbool()), so the client sends 'false'.
    const page = await c.workspaces.list.query({ size: 1, withCount: 'false' });
    expect(page.list).toHaveLength(1);
    expect(page.pagination).toEqual({ page: 1, size: 1, total: null, pages: null, hasNext: true });
    const data = await failure(() => c.workspaces.list.query({ size: 1001 }));
    expect(data.httpStatus).toBe(400);
    expect(data.error.code).toBe('INVALID_QUERY');
  });

  it('a role the caller lacks → FORBIDDEN / 403', async () => {
    const data = await failure(() => client(member.token).workspaces.update.mutate({ workspaceId, name: 'Nope' }));
    expect(data.httpStatus).toBe(403);
    expect(data.error.code).toBe('FORBIDDEN');
    expect((await t.call('GET', `/v1/workspaces/${workspaceId}`)).json.name).toBe('Typed');
  });

  it('an unknown workspace → NOT_FOUND / 404', async () => {
    const data = await failure(() => client(t.adminToken).workspaces.get.query({ workspaceId: MISSING_ID }));
    expect(data.httpStatus).toBe(404);
    expect(data.error.code).toBe('NOT_FOUND');
  });

  it('no token → UNAUTHORIZED / 401', async () => {
    const data = await failure(() => client(null).accounts.me.query({}));
    expect(data.httpStatus).toBe(401);
    expect(data.error.code).toBe('UNAUTHORIZED');
  });

  it('a mutation input of the wrong type → BAD_REQUEST / 400 naming the field', async () => {
    const data = await failure(() => client(t.adminToken).workspaces.create.mutate({ name: 5 as unknown as string }));
    expect(data.httpStatus).toBe(400);
    expect(data.error.code).toBe('BAD_REQUEST');
    expect(data.error.message).toContain('name');
  });

  it('a 409 conflict keeps its code', async () => {
    const data = await failure(() => client(t.adminToken).workspaceMembers.invite.mutate({ workspaceId, email: member.email, role: 'MEMBER' }));
    expect(data.httpStatus).toBe(409);
    expect(data.error.code).toBe('CONFLICT');
  });
});
