import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppRouter } from '../../src/trpc/router.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { KEY_SHAPE, MISSING_ID, buildWorld, createKey, person, randomSecret, tablesPath, uniq, type Person, type World } from './fixture.js';

/** The authentication matrix through the typed tRPC client (the same router at /trpc, docs/clients.md#typescript-the-typed-client). */

let t: TestApi;
let w: World;
let editor: Person;

const client = (token: string | null, extra: Record<string, string> = {}) =>
  createTRPCClient<AppRouter>({
    links: [httpBatchLink({ url: `${t.url}/trpc`, headers: () => ({ ...(token ? { authorization: `Bearer ${token}` } : {}), ...extra }) })],
  });

/** Runs `fn`, expecting a TRPCClientError with `status` and `code` in its error data. */
async function fails(fn: () => Promise<unknown>, status: number, code: string) {
  const error = await fn().then(
    (value) => {
      throw new Error(`expected a TRPCClientError, got ${JSON.stringify(value)}`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TRPCClientError);
  const data = (error as TRPCClientError<AppRouter>).data as unknown as {
    httpStatus: number;
    error: { code: string; message: string; details: unknown };
  };
  expect({ httpStatus: data.httpStatus, code: data.error.code }, JSON.stringify(data)).toEqual({ httpStatus: status, code });
  expect(data.error.message.length).toBeGreaterThan(0);
  expect(data.error.details).toBeNull();
  expect(data).not.toHaveProperty('stack');
  return data;
}

const newTable = () => ({ projectId: w.projectId, key: uniq('t').toLowerCase(), name: 'Typed' });

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  editor = await person(t, w.workspaceId, w.projectId, 'EDITOR');
});
afterAll(() => t?.close());

describe('typed tRPC client: authentication and roles', () => {
  it('a read key lists tables (same answer as REST); its writes are FORBIDDEN / 403 and change nothing', async () => {
    const c = client(w.readKey.key);
    const list = await c.tables.list.query({ projectId: w.projectId });
    const rest = await t.call('GET', tablesPath(w.projectId), { token: w.readKey.key });
    expect(list).toEqual(rest.json);
    await fails(() => c.tables.create.mutate(newTable()), 403, 'FORBIDDEN');
    const table = await client(t.adminToken).tables.create.mutate(newTable());
    await fails(() => c.tables.update.mutate({ projectId: w.projectId, tableId: table.id, name: 'changed' }), 403, 'FORBIDDEN');
    await fails(() => c.tables.delete.mutate({ projectId: w.projectId, tableId: table.id }), 403, 'FORBIDDEN');
    expect(await c.tables.get.query({ projectId: w.projectId, tableId: table.key })).toEqual(table);
  });

  it('a read_write key creates a table', async () => {
    const input = newTable();
    const created = await client(w.writeKey.key).tables.create.mutate(input);
    expect(created).toMatchObject({ key: input.key, name: 'Typed', defaultStatus: 'PUBLISHED' });
  });

  it('no token, an unknown key and a malformed header are UNAUTHORIZED / 401', async () => {
    await fails(() => client(null).tables.list.query({ projectId: w.projectId }), 401, 'UNAUTHORIZED');
    await fails(() => client(null).accounts.me.query({}), 401, 'UNAUTHORIZED');
    await fails(() => client(randomSecret('tak_')).tables.list.query({ projectId: w.projectId }), 401, 'UNAUTHORIZED');
    await fails(() => client(null, { authorization: w.readKey.key }).tables.list.query({ projectId: w.projectId }), 401, 'UNAUTHORIZED');
    // 401 before 403/404: an unknown key on another, or a missing, project.
    await fails(() => client(randomSecret('tak_')).tables.list.query({ projectId: MISSING_ID }), 401, 'UNAUTHORIZED');
  });

  it('a deactivated key is 401 and works again once reactivated', async () => {
    const k = await createKey(t, w.projectId, 'read');
    const admin = client(t.adminToken);
    await admin.apiKeys.update.mutate({ projectId: w.projectId, apiKeyId: k.id, active: false });
    await fails(() => client(k.key).tables.list.query({ projectId: w.projectId }), 401, 'UNAUTHORIZED');
    await admin.apiKeys.update.mutate({ projectId: w.projectId, apiKeyId: k.id, active: true });
    await client(k.key).tables.list.query({ projectId: w.projectId });
  });

  it('a key on another project is FORBIDDEN / 403, whether or not it exists', async () => {
    for (const projectId of [w.otherProjectId, MISSING_ID, 'not-a-uuid']) {
      await fails(() => client(w.readKey.key).tables.list.query({ projectId }), 403, 'FORBIDDEN');
      await fails(() => client(w.writeKey.key).tables.create.mutate({ ...newTable(), projectId }), 403, 'FORBIDDEN');
    }
  });

  it('API keys on accounts.me, workspaces and apiKeys are FORBIDDEN / 403', async () => {
    for (const token of [w.readKey.key, w.writeKey.key]) {
      const c = client(token);
      await fails(() => c.accounts.me.query({}), 403, 'FORBIDDEN');
      await fails(() => c.workspaces.list.query({}), 403, 'FORBIDDEN');
      await fails(() => c.workspaces.get.query({ workspaceId: w.workspaceId }), 403, 'FORBIDDEN');
      await fails(() => c.apiKeys.list.query({ projectId: w.projectId }), 403, 'FORBIDDEN');
      await fails(() => c.apiKeys.create.mutate({ projectId: w.projectId, name: 'by key', permission: 'read_write' }), 403, 'FORBIDDEN');
    }
  });

  it('allowed hosts apply on /trpc too (Origin header)', async () => {
    const k = await createKey(t, w.projectId, 'read', { allowedHosts: ['*.example.com'] });
    await client(k.key, { origin: 'https://app.example.com' }).tables.list.query({ projectId: w.projectId });
    await fails(() => client(k.key, { origin: 'https://example.com' }).tables.list.query({ projectId: w.projectId }), 403, 'FORBIDDEN');
    await fails(() => client(k.key).tables.list.query({ projectId: w.projectId }), 403, 'FORBIDDEN');
  });

  it('account roles: an EDITOR cannot create tables or manage keys; a missing project is NOT_FOUND / 404', async () => {
    const c = client(editor.token);
    await c.tables.list.query({ projectId: w.projectId });
    await fails(() => c.tables.create.mutate(newTable()), 403, 'FORBIDDEN');
    await fails(() => c.apiKeys.list.query({ projectId: w.projectId }), 403, 'FORBIDDEN');
    await fails(() => client(t.adminToken).tables.list.query({ projectId: MISSING_ID }), 404, 'NOT_FOUND');
  });

  it('apiKeys.create and rotate through tRPC: the key works on REST; bad graceSeconds is BAD_REQUEST / 400', async () => {
    const admin = client(t.adminToken);
    const created = await admin.apiKeys.create.mutate({ projectId: w.projectId, name: 'typed', permission: 'read' });
    expect(created.key).toMatch(KEY_SHAPE);
    expect(created.prefix).toBe(created.key.slice(0, 12));
    expect((await t.call('GET', tablesPath(w.projectId), { token: created.key })).status).toBe(200);
    const data = await fails(
      () => admin.apiKeys.rotate.mutate({ projectId: w.projectId, apiKeyId: created.id, graceSeconds: '5' as unknown as number }),
      400,
      'BAD_REQUEST',
    );
    expect(data.error.message).toContain('graceSeconds');
    const rotated = await admin.apiKeys.rotate.mutate({ projectId: w.projectId, apiKeyId: created.id, graceSeconds: 0 });
    expect(rotated.id).toBe(created.id);
    expect(rotated.key).not.toBe(created.key);
    await fails(() => client(created.key).tables.list.query({ projectId: w.projectId }), 401, 'UNAUTHORIZED');
    await client(rotated.key).tables.list.query({ projectId: w.projectId });
  });

  it('a batch mixing allowed and refused calls answers each one on its own', async () => {
    const c = client(w.readKey.key);
    const [list, create, me] = await Promise.allSettled([
      c.tables.list.query({ projectId: w.projectId }),
      c.tables.create.mutate(newTable()),
      c.accounts.me.query({}),
    ]);
    expect(list.status).toBe('fulfilled');
    for (const r of [create, me]) {
      expect(r.status).toBe('rejected');
      const data = ((r as PromiseRejectedResult).reason as TRPCClientError<AppRouter>).data as unknown as { httpStatus: number; error: { code: string } };
      expect([data.httpStatus, data.error.code]).toEqual([403, 'FORBIDDEN']);
    }
  });
});
