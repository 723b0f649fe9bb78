import { createTRPCClient, httpBatchLink } from '@trpc/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import type { AppRouter } from '../../src/trpc/router.js';
import { createLogger } from '../../src/shared/logger.js';
import { startWorkers, type RunningWorkers } from '../../workers/workers.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { until } from '../helpers/until.js';
import { buildWorld, contentsPath, createRow, createTable, expectBadRequest, expectError, expectStatus, getRow, putRow, type Table, type World } from './fixture.js';

/**
 * docs/contents.md#revisions: every kind of change records exactly one revision, in its own statement,
 * with the row's data and status after it and who made it; they are listed newest first, read
 * one by one, refused to read keys, and deleted with their row.
 */
let t: TestApi;
let w: World;
let workers: RunningWorkers;
let db: pg.Client;
let posts: Table;
let writeKeyId: string;
let adminId: string;

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  workers = await startWorkers(loadConfig({ LOG_LEVEL: 'silent' }), t.db.url, createLogger('silent'), ['publisher']);
  db = new pg.Client({ connectionString: t.db.url });
  await db.connect();
  posts = await createTable(w, [{ name: 'title', type: 'text' }]);
  const keys = expectStatus(await t.call('GET', `/v1/${w.projectId}/api-keys`), 200).list as { id: string; name: string }[];
  writeKeyId = keys.find((k) => k.name === 'k-read_write')!.id;
  adminId = expectStatus(await t.call('GET', '/v1/accounts/me'), 200).id;
});
afterAll(async () => {
  await db?.end();
  await workers?.stop();
  await t?.close();
});

const revisionsPath = (id: string) => `${contentsPath(w, posts.id, id)}/revisions`;
const revisionsOf = async (id: string, token = w.writeKey) => expectStatus(await t.call('GET', `${revisionsPath(id)}?size=100`, { token }), 200).list;
const summary = (list: { version: number; action: string; status: string; actor: { type: string; id: string } | null }[]) =>
  list.map((r) => `${r.version} ${r.action} ${r.status} ${r.actor?.type}`);

describe('revisions', () => {
  it('every change records exactly one revision with the action, the data after it and its actor', async () => {
    const row = await createRow(w, posts.id, { title: 'One' }, { status: 'DRAFT' });
    const asAdmin = (body: Record<string, unknown>) => putRow(w, posts.id, row.id, body, t.adminToken);
    expectStatus(await asAdmin({ data: { title: 'Two' } }), 200);
    expectStatus(await asAdmin({ status: 'PUBLISHED' }), 200);
    expectStatus(await putRow(w, posts.id, row.id, { status: 'DRAFT' }), 200);
    expectStatus(await asAdmin({ status: 'SCHEDULED', publishAt: new Date(Date.now() + 3_600_000).toISOString() }), 200);
    expectStatus(await asAdmin({ status: 'DRAFT' }), 200);
    expectStatus(await asAdmin({ status: 'ARCHIVED' }), 200);
    expectStatus(await asAdmin({ status: 'DRAFT', data: { title: 'Three' } }), 200);
    const list = await revisionsOf(row.id);
    expect(summary(list)).toEqual([
      '8 updated DRAFT account',
      '7 archived ARCHIVED account',
      '6 updated DRAFT account',
      '5 scheduled SCHEDULED account',
      '4 unpublished DRAFT apiKey',
      '3 published PUBLISHED account',
      '2 updated DRAFT account',
      '1 created DRAFT apiKey',
    ]);
    expect(list.map((r: { data: { title: string } }) => r.data.title)).toEqual(['Three', 'Two', 'Two', 'Two', 'Two', 'Two', 'Two', 'One']);
    expect(list[0].actor).toEqual({ type: 'account', id: adminId });
    expect(list.at(-1).actor).toEqual({ type: 'apiKey', id: writeKeyId });
    const one = expectStatus(await t.call('GET', `${revisionsPath(row.id)}/3`, { token: w.writeKey }), 200);
    expect(one).toEqual(list[5]);
  });

  it('the scheduler publishing a row records `published` by whoever scheduled it', async () => {
    const row = await createRow(w, posts.id, { title: 'Soon' }, { status: 'SCHEDULED', publishAt: new Date(Date.now() + 1_000).toISOString() });
    await until(async () => (await revisionsOf(row.id)).length === 2, 15_000, 'the scheduled publish');
    expect(summary(await revisionsOf(row.id))).toEqual(['2 published PUBLISHED apiKey', '1 created SCHEDULED apiKey']);
  });

  it('a reference cleared by onDelete is an `updated` revision by the deleter', async () => {
    const authors = await createTable(w, [{ name: 'name', type: 'text' }]);
    const refs = await createTable(w, [{ name: 'author', type: 'reference', settings: { table: authors.id } }]);
    const author = await createRow(w, authors.id, { name: 'A' });
    const row = await createRow(w, refs.id, { author: author.id });
    expect((await t.call('DELETE', contentsPath(w, authors.id, author.id))).status).toBe(204);
    const list = expectStatus(await t.call('GET', `${contentsPath(w, refs.id, row.id)}/revisions`, { token: w.writeKey }), 200).list;
    expect(summary(list)).toEqual(['2 updated PUBLISHED account', '1 created PUBLISHED apiKey']);
    expect(list[0].data).toEqual({});
  });

  it('pages newest first; unknown versions are 404; read keys get 403', async () => {
    const row = await createRow(w, posts.id, { title: 'v1' });
    for (let i = 2; i <= 5; i++) expectStatus(await putRow(w, posts.id, row.id, { data: { title: `v${i}` } }), 200);
    const page = expectStatus(await t.call('GET', `${revisionsPath(row.id)}?size=2&page=2`, { token: w.writeKey }), 200);
    expect(page.list.map((r: { version: number }) => r.version)).toEqual([3, 2]);
    expect(page.pagination).toEqual({ page: 2, size: 2, total: 5, pages: 3, hasNext: true });
    expectError(await t.call('GET', `${revisionsPath(row.id)}/6`, { token: w.writeKey }), 404, 'NOT_FOUND');
    expectError(await t.call('GET', revisionsPath(row.id), { token: w.readKey }), 403, 'FORBIDDEN');
    expectError(await t.call('GET', `${revisionsPath(row.id)}/1`, { token: w.readKey }), 403, 'FORBIDDEN');
    expectError(await t.call('GET', revisionsPath('0190b0a0-0000-7000-8000-00000000c0de'), { token: w.writeKey }), 404, 'NOT_FOUND');
  });

  it('deleting a row deletes its revisions', async () => {
    const row = await createRow(w, posts.id, { title: 'Gone' });
    expectStatus(await putRow(w, posts.id, row.id, { data: { title: 'Going' } }), 200);
    const count = async () => Number((await db.query('select count(*) as n from contents_revision where row_id = $1', [row.id])).rows[0].n);
    expect(await count()).toBe(2);
    expect((await t.call('DELETE', contentsPath(w, posts.id, row.id), { token: w.writeKey })).status).toBe(204);
    expect(await count()).toBe(0);
  });
});

describe('restore', () => {
  const restore = (table: string, id: string, version: number, token = w.writeKey) =>
    t.call('POST', `${contentsPath(w, table, id)}/revisions/${version}/restore`, { token });

  it('puts back a revision’s data, keeps the status, records `restored` and fires contents.updated', async () => {
    const row = await createRow(w, posts.id, { title: 'First' }, { status: 'DRAFT' });
    expectStatus(await putRow(w, posts.id, row.id, { data: { title: 'Second' }, status: 'PUBLISHED' }), 200);
    const restored = expectStatus(await restore(posts.id, row.id, 1), 200);
    expect(restored).toMatchObject({ id: row.id, status: 'PUBLISHED', data: { title: 'First' } });
    expect(summary(await revisionsOf(row.id))).toEqual(['3 restored PUBLISHED apiKey', '2 published PUBLISHED apiKey', '1 created DRAFT apiKey']);
    const events = await db.query(`select payload->>'type' as type from event_outbox where payload->'data'->>'id' = $1 and payload->'data'->'data'->>'title' = 'First' and payload->>'type' = 'contents.updated'`, [row.id]);
    expect(events.rowCount).toBe(1);
  });

  it('is checked as an update: 409 for a value taken since, 422 for a column required since, 404 for no such version, 403 for read keys', async () => {
    const items = await createTable(w, [
      { name: 'sku', type: 'text', settings: { unique: true } },
      { name: 'note', type: 'text' },
    ]);
    const a = await createRow(w, items.id, { sku: 'X' });
    expectStatus(await putRow(w, items.id, a.id, { data: { sku: 'Y', note: 'n' } }), 200);
    await createRow(w, items.id, { sku: 'X', note: 'n' });
    expect(expectError(await restore(items.id, a.id, 1), 409, 'CONFLICT').message).toContain('data.sku');
    // `note` becomes required once every row has one; revision 1 of `a` has none.
    const columns = expectStatus(await t.call('GET', `/v1/${w.projectId}/tables/${items.id}/columns`), 200).list as { id: string; name: string }[];
    const note = columns.find((c) => c.name === 'note')!;
    expectStatus(await t.call('PUT', `/v1/${w.projectId}/tables/${items.id}/columns/${note.id}`, { body: { settings: { required: true } } }), 200);
    expect(expectError(await restore(items.id, a.id, 1), 422, 'VALIDATION_ERROR').details!.map((d: { field: string }) => d.field)).toEqual(['data.note']);
    expectStatus(await restore(items.id, a.id, 2), 200);
    expectError(await restore(items.id, a.id, 99), 404, 'NOT_FOUND');
    expectError(await restore(items.id, a.id, 1, w.readKey), 403, 'FORBIDDEN');
    // Nothing a refused restore did is left: the last revision is the good one.
    expect(summary(await t.call('GET', `${contentsPath(w, items.id, a.id)}/revisions`, { token: w.writeKey }).then((r) => r.json.list))[0]).toBe('3 restored PUBLISHED apiKey');
  });
});

describe('restore into the draft', () => {
  const restore = (table: string, id: string, version: number, body?: Record<string, unknown>, token = w.writeKey) =>
    t.call('POST', `${contentsPath(w, table, id)}/revisions/${version}/restore`, { token, body });
  const draftData = async (table: string, id: string) => expectStatus(await getRow(w, table, id, w.writeKey, '?version=draft'), 200).data;
  const versions = async (table: string, id: string) =>
    (expectStatus(await t.call('GET', `${contentsPath(w, table, id)}/revisions?size=100`, { token: w.writeKey }), 200).list as { version: number }[]).map((r) => r.version);
  const eventCount = async (id: string) => Number((await db.query('select count(*) as n from event_outbox where payload->\'data\'->>\'id\' = $1', [id])).rows[0].n);

  it('writes the revision’s data as the pending draft of a PUBLISHED row, replacing it, and leaves the live row, its revisions and its events alone', async () => {
    const table = await createTable(w, [
      { name: 'title', type: 'text', settings: { localized: true } },
      { name: 'tag', type: 'text' },
    ]);
    const row = await createRow(w, table.id, { title: { en: 'First' } }, { status: 'PUBLISHED' });
    const live = expectStatus(await putRow(w, table.id, row.id, { data: { title: { en: 'Second', fr: 'Seconde' }, tag: 'live' } }), 200);
    // A draft in progress, on a column the revision has no value for: the restore replaces it whole.
    expectStatus(await putRow(w, table.id, row.id, { data: { tag: 'drafted' }, draft: true }), 200);
    const before = { versions: await versions(table.id, row.id), events: await eventCount(row.id) };

    const answered = expectStatus(await restore(table.id, row.id, 1, { draft: true }), 200);
    expect(answered).toMatchObject({ id: row.id, status: 'PUBLISHED', hasDraft: true, data: live.data, updatedAt: live.updatedAt });
    expect(await draftData(table.id, row.id)).toEqual({ title: { en: 'First' } });
    expect(expectStatus(await getRow(w, table.id, row.id), 200).data).toEqual(live.data);
    expect(expectStatus(await getRow(w, table.id, row.id, w.readKey), 200).data).toEqual(live.data);
    // As a draft save: no revision, no event; publishing the draft is the change.
    expect(await versions(table.id, row.id)).toEqual(before.versions);
    expect(await eventCount(row.id)).toBe(before.events);
    const published = expectStatus(await t.call('POST', `${contentsPath(w, table.id, row.id)}/draft/publish`, { token: w.writeKey }), 200);
    expect(published).toMatchObject({ status: 'PUBLISHED', hasDraft: false, data: { title: { en: 'First' } } });
  });

  it('through /trpc as through REST', async () => {
    const row = await createRow(w, posts.id, { title: 'Old' }, { status: 'PUBLISHED' });
    expectStatus(await putRow(w, posts.id, row.id, { data: { title: 'New' } }), 200);
    const trpc = createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: `${t.url}/trpc`, headers: () => ({ authorization: `Bearer ${w.writeKey}` }) })] });
    const answered = await trpc.revisions.restore.mutate({ projectId: w.projectId, tableId: posts.id, contentsId: row.id, version: '1', draft: true });
    expect(answered).toMatchObject({ hasDraft: true, data: { title: 'New' } });
    expect(await draftData(posts.id, row.id)).toEqual({ title: 'Old' });
    // `draft: false` is the plain restore, onto the live row.
    const restored = await trpc.revisions.restore.mutate({ projectId: w.projectId, tableId: posts.id, contentsId: row.id, version: '1', draft: false });
    expect(restored).toMatchObject({ hasDraft: true, data: { title: 'Old' } });
    expect(await versions(posts.id, row.id)).toEqual([3, 2, 1]);
  });

  it('is refused as a draft save is: 409 for a row that is not PUBLISHED, 422 for data invalid now, 400 for a draft flag that is no boolean; nothing is written', async () => {
    const items = await createTable(w, [
      { name: 'name', type: 'text' },
      { name: 'note', type: 'text' },
    ]);
    const unpublished = await createRow(w, items.id, { name: 'a' }, { status: 'DRAFT' });
    expectStatus(await putRow(w, items.id, unpublished.id, { data: { name: 'b' } }), 200);
    expectError(await restore(items.id, unpublished.id, 1, { draft: true }), 409, 'INVALID_TRANSITION');
    expect(expectStatus(await getRow(w, items.id, unpublished.id), 200)).toMatchObject({ hasDraft: false, data: { name: 'b' } });

    const row = await createRow(w, items.id, { name: 'x' }, { status: 'PUBLISHED' });
    expectStatus(await putRow(w, items.id, row.id, { data: { name: 'y', note: 'n' } }), 200);
    expectStatus(await putRow(w, items.id, row.id, { data: { name: 'z' }, draft: true }), 200);
    // `note` becomes required once every row has one; revision 1 has none.
    expectStatus(await putRow(w, items.id, unpublished.id, { data: { note: 'n' } }), 200);
    const columns = expectStatus(await t.call('GET', `/v1/${w.projectId}/tables/${items.id}/columns`), 200).list as { id: string; name: string }[];
    const note = columns.find((c) => c.name === 'note')!;
    expectStatus(await t.call('PUT', `/v1/${w.projectId}/tables/${items.id}/columns/${note.id}`, { body: { settings: { required: true } } }), 200);
    expect(expectError(await restore(items.id, row.id, 1, { draft: true }), 422, 'VALIDATION_ERROR').details!.map((d: { field: string }) => d.field)).toEqual(['data.note']);
    expectBadRequest(await restore(items.id, row.id, 2, { draft: 'true' }), 'draft');
    expectError(await restore(items.id, row.id, 9, { draft: true }), 404, 'NOT_FOUND');
    expectError(await restore(items.id, row.id, 2, { draft: true }, w.readKey), 403, 'FORBIDDEN');
    // The draft in progress is the one saved before the refusals.
    expect(await draftData(items.id, row.id)).toEqual({ name: 'z', note: 'n' });
    expect(await versions(items.id, row.id)).toEqual([2, 1]);
  });
});

describe('retention', () => {
  it('keeps exactly the newest REVISIONS_PER_ROW revisions of a row, purged by the worker', async () => {
    const retention = await startWorkers(loadConfig({ LOG_LEVEL: 'silent', REVISIONS_PER_ROW: '3' }), t.db.url, createLogger('silent'), ['revisions']);
    try {
      const row = await createRow(w, posts.id, { title: 'r1' });
      const other = await createRow(w, posts.id, { title: 'o1' });
      for (let i = 2; i <= 7; i++) expectStatus(await putRow(w, posts.id, row.id, { data: { title: `r${i}` } }), 200);
      expectStatus(await putRow(w, posts.id, other.id, { data: { title: 'o2' } }), 200);
      const versions = async (id: string) => (await revisionsOf(id)).map((r: { version: number }) => r.version);
      await until(async () => (await versions(row.id)).length === 3, 15_000, 'the purge');
      expect(await versions(row.id)).toEqual([7, 6, 5]);
      expect((await revisionsOf(row.id))[0].data).toEqual({ title: 'r7' });
      expect(await versions(other.id)).toEqual([2, 1]);
    } finally {
      await retention.stop();
    }
  });
});

