import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRPCClientError } from '@trpc/client';
// The package's own name: what an application writes (package.json "exports" maps it to client/src).
import { createTabulaClient, TabulaError, type TabulaClient, type TabulaErrorCode } from 'tabula/client';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { UUID_SHAPE } from '../helpers/expect.js';

/** The typed client against a real API: results, batching, and every error kind as a TabulaError. */

let t: TestApi;
let admin: TabulaClient;
let projectId: string;
let readKey: string;
let writeKey: string;

/** Fetch as the client would use it, recording every HTTP request it sends. */
function recordingFetch() {
  const urls: string[] = [];
  const fetchFn: typeof fetch = (input, init) => {
    urls.push(input instanceof Request ? input.url : String(input));
    return fetch(input, init);
  };
  return { urls, fetchFn };
}

/** Runs `fn`, expecting it to reject with a TabulaError of `status` and `code`. */
async function rejection(fn: () => Promise<unknown>, status: number, code: TabulaErrorCode): Promise<TabulaError> {
  const error = await fn().then(
    (value) => {
      throw new Error(`expected ${code}, got ${JSON.stringify(value)}`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TabulaError);
  const typed = error as TabulaError;
  expect({ status: typed.status, code: typed.code, name: typed.name }).toEqual({ status, code, name: 'TabulaError' });
  expect(typed.message.length).toBeGreaterThan(0);
  // Still a tRPC error for tRPC tooling, with the server's error body under data.error.
  expect(typed).toBeInstanceOf(TRPCClientError);
  if (status > 0) expect(typed.requestId).toBeTruthy();
  return typed;
}

beforeAll(async () => {
  t = await startTestApi();
  admin = createTabulaClient({ baseUrl: t.url, token: t.adminToken });
  const workspace = await admin.workspaces.create.mutate({ name: 'Client' });
  const project = await admin.projects.create.mutate({ workspaceId: workspace.id, name: 'Site', locales: ['en', 'fr'] });
  projectId = project.id;
  readKey = (await admin.apiKeys.create.mutate({ projectId, name: 'reader', permission: 'read' })).key;
  writeKey = (await admin.apiKeys.create.mutate({ projectId, name: 'writer', permission: 'read_write' })).key;
  await admin.tables.create.mutate({ projectId, key: 'products', name: 'Products' });
  await admin.columns.create.mutate({ projectId, tableId: 'products', name: 'name', type: 'text', settings: { required: true } });
  await admin.columns.create.mutate({ projectId, tableId: 'products', name: 'sku', type: 'text', settings: { unique: true } });
  await admin.columns.create.mutate({ projectId, tableId: 'products', name: 'price', type: 'number', settings: { min: 0 } });
});
afterAll(() => t?.close());

describe('createTabulaClient', () => {
  it('creates and lists contents with typed inputs and outputs, equal to the REST face', async () => {
    const client = createTabulaClient({ baseUrl: `${t.url}/`, token: writeKey });
    const created = await client.contents.create.mutate({ projectId, tableId: 'products', data: { name: 'Mug', sku: 'MUG-1', price: 9 } });
    expect(created.id).toMatch(UUID_SHAPE);
    expect(created.data).toEqual({ name: 'Mug', sku: 'MUG-1', price: 9 });
    await client.contents.create.mutate({ projectId, tableId: 'products', data: { name: 'Lamp', sku: 'LAMP-1', price: 40 } });

    const page = await client.contents.list.query({
      projectId,
      tableId: 'products',
      filter: JSON.stringify([{ i: 'price', w: 'lt', v: 20 }]),
      sort: JSON.stringify([{ i: 'name', o: 'asc' }]),
    });
    expect(page.list.map((row) => row.data?.name)).toEqual(['Mug']);
    expect(page.pagination).toMatchObject({ page: 1, total: 1, hasNext: false });
    const rest = await t.call('GET', `/v1/${projectId}/tables/products/contents/${created.id}`, { token: writeKey });
    expect(await client.contents.get.query({ projectId, tableId: 'products', contentsId: created.id })).toEqual(rest.json);
  });

  it('sends calls made together in one HTTP request', async () => {
    const { urls, fetchFn } = recordingFetch();
    const client = createTabulaClient({ baseUrl: t.url, token: readKey, fetch: fetchFn });
    const [tables, columns, contents] = await Promise.all([
      client.tables.list.query({ projectId }),
      client.columns.list.query({ projectId, tableId: 'products' }),
      client.contents.list.query({ projectId, tableId: 'products', withCount: 'false' }),
    ]);
    expect(tables.list.map((table) => table.key)).toEqual(['products']);
    expect(columns.list.map((column) => column.name)).toEqual(['name', 'sku', 'price']);
    expect(contents.list.length).toBeGreaterThan(0);
    expect(urls).toHaveLength(1);
    const url = new URL(urls[0]);
    expect(url.pathname).toBe('/trpc/tables.list,columns.list,contents.list');
    expect(url.searchParams.get('batch')).toBe('1');

    // One failing call in a batch fails alone; its neighbours still answer.
    const [ok, failed] = await Promise.allSettled([
      client.tables.get.query({ projectId, tableId: 'products' }),
      client.tables.get.query({ projectId, tableId: 'nope' }),
    ]);
    expect(urls).toHaveLength(2);
    expect(ok).toMatchObject({ status: 'fulfilled', value: { key: 'products' } });
    expect(failed).toMatchObject({ status: 'rejected', reason: { code: 'NOT_FOUND', status: 404 } });
  });

  it('searches, expands references and lists referrers, typed', async () => {
    await admin.tables.create.mutate({ projectId, key: 'reviews', name: 'Reviews' });
    await admin.columns.create.mutate({ projectId, tableId: 'reviews', name: 'product', type: 'reference', settings: { table: 'products', onDelete: 'restrict' } });
    const client = createTabulaClient({ baseUrl: t.url, token: writeKey });
    const lamp = (await client.contents.list.query({ projectId, tableId: 'products', search: 'lam' })).list;
    expect(lamp.map((row) => row.data?.name)).toEqual(['Lamp']);
    const review = await client.contents.create.mutate({ projectId, tableId: 'reviews', data: { product: lamp[0].id } });
    const expanded = await client.contents.get.query({ projectId, tableId: 'reviews', contentsId: review.id, expand: 'product' });
    expect(expanded.data?.product).toMatchObject({ id: lamp[0].id, data: { name: 'Lamp' } });
    const referrers = await client.contents.referrers.query({ projectId, tableId: 'products', contentsId: lamp[0].id });
    expect(referrers).toEqual([{ tableId: expect.stringMatching(UUID_SHAPE), tableKey: 'reviews', column: 'product', count: 1 }]);
    await rejection(() => client.contents.delete.mutate({ projectId, tableId: 'products', contentsId: lamp[0].id }), 409, 'CONFLICT');
  });

  it('drafts a published row, publishes the draft and rolls it back, typed', async () => {
    const client = createTabulaClient({ baseUrl: t.url, token: writeKey });
    const row = { projectId, tableId: 'products' };
    const kettle = await client.contents.create.mutate({ ...row, data: { name: 'Kettle', sku: 'KET-1', price: 30 }, status: 'PUBLISHED' });
    const id = { ...row, contentsId: kettle.id };
    const saved = await client.contents.update.mutate({ ...id, data: { price: 35 }, draft: true });
    expect({ hasDraft: saved.hasDraft, price: saved.data.price }).toEqual({ hasDraft: true, price: 30 });
    expect((await client.contents.get.query({ ...id, version: 'draft' })).data?.price).toBe(35);
    const published = await client.drafts.publish.mutate(id);
    expect({ hasDraft: published.hasDraft, price: published.data.price }).toEqual({ hasDraft: false, price: 35 });
    const history = await client.revisions.list.query(id);
    expect(history.list.map((r) => `${r.version} ${r.action}`)).toEqual(['2 draftPublished', '1 created']);
    const rolledBack = await client.revisions.restore.mutate({ ...id, version: '1' });
    expect(rolledBack.data.price).toBe(30);
    await rejection(() => client.drafts.discard.mutate(id), 404, 'NOT_FOUND');
    const reader = createTabulaClient({ baseUrl: t.url, token: readKey });
    await rejection(() => reader.contents.get.query({ ...id, version: 'draft' }), 403, 'FORBIDDEN');
  });
});

describe('errors are TabulaErrors carrying the error code, status and details', () => {
  it('401 UNAUTHORIZED: an unknown token', async () => {
    const stranger = createTabulaClient({ baseUrl: t.url, token: `tak_${'x'.repeat(43)}` });
    const error = await rejection(() => stranger.tables.list.query({ projectId }), 401, 'UNAUTHORIZED');
    expect(error.details).toBeNull();
  });

  it('403 FORBIDDEN: a read key writing', async () => {
    const reader = createTabulaClient({ baseUrl: t.url, token: readKey });
    await rejection(() => reader.contents.create.mutate({ projectId, tableId: 'products', data: { name: 'X' } }), 403, 'FORBIDDEN');
  });

  it('404 NOT_FOUND: an unknown table', async () => {
    const error = await rejection(() => admin.tables.get.query({ projectId, tableId: 'missing' }), 404, 'NOT_FOUND');
    expect(error.message).toMatch(/not found/i);
  });

  it('422 VALIDATION_ERROR lists every offending field in details', async () => {
    const writer = createTabulaClient({ baseUrl: t.url, token: writeKey });
    const error = await rejection(() => writer.contents.create.mutate({ projectId, tableId: 'products', data: { price: -1 } }), 422, 'VALIDATION_ERROR');
    expect(error.details?.map((d) => d.field).sort()).toEqual(['data.name', 'data.price']);
    for (const detail of error.details ?? []) expect(detail.message.length).toBeGreaterThan(0);
  });

  it('409 CONFLICT: a duplicate unique value, named in the message', async () => {
    const writer = createTabulaClient({ baseUrl: t.url, token: writeKey });
    await writer.contents.create.mutate({ projectId, tableId: 'products', data: { name: 'Cup', sku: 'CUP-1' } });
    const error = await rejection(() => writer.contents.create.mutate({ projectId, tableId: 'products', data: { name: 'Cup 2', sku: 'CUP-1' } }), 409, 'CONFLICT');
    expect(error.message).toContain('data.sku');
  });

  it('400 BAD_REQUEST: input of the wrong type names the field', async () => {
    const error = await rejection(() => admin.tables.create.mutate({ projectId, key: 'Bad Key!', name: 'x' }), 400, 'BAD_REQUEST');
    expect(error.message).toContain('key');
  });

  it('NETWORK_ERROR with status 0 when nothing answers', async () => {
    const closed = await new Promise<number>((resolve) => {
      // A port that was free a moment ago: connecting to it is refused.
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const offline = createTabulaClient({ baseUrl: `http://127.0.0.1:${closed}`, token: t.adminToken });
    await rejection(() => offline.accounts.me.query({}), 0, 'NETWORK_ERROR');
  });

  it('refuses a malformed baseUrl or a missing token at once', () => {
    expect(() => createTabulaClient({ baseUrl: 'localhost:3000', token: 'x' })).toThrow(/baseUrl must/);
    expect(() => createTabulaClient({ baseUrl: 'ftp://example.com', token: 'x' })).toThrow(/http or https/);
    expect(() => createTabulaClient({ baseUrl: t.url, token: '' })).toThrow(/token is required/);
  });
});
