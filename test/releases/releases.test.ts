import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transaction } from '../../src/db/sql.js';
import { CountChanges } from '../../src/modules/contents/index.js';
import { publishDueReleases } from '../../src/modules/releases/releases.schedule.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { buildWorld, createRow, createTable, expectCreated, expectError, expectNoContent, expectStatus, getRow, putRow, type Table, type World } from '../contents/fixture.js';

/** docs/releases.md: rows published together, in one transaction, by request or at publishAt. */
let t: TestApi;
let w: World;
let posts: Table;
let db: pg.Client;
beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  posts = await createTable(w, [{ name: 'title', type: 'text' }]);
  db = new pg.Client({ connectionString: t.db.url });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await t?.close();
});

const releases = () => `/v1/${w.projectId}/releases`;
const createRelease = async (body: Record<string, unknown> = { name: 'Launch' }) => expectCreated(await t.call('POST', releases(), { body, token: w.writeKey }));
const addItem = (releaseId: string, body: Record<string, unknown>, token = w.writeKey) => t.call('POST', `${releases()}/${releaseId}/items`, { body, token });
const readRelease = async (releaseId: string) => expectStatus(await t.call('GET', `${releases()}/${releaseId}`, { token: w.writeKey }), 200);
const publish = (releaseId: string) => t.call('POST', `${releases()}/${releaseId}/publish`, { token: w.writeKey });
const row = async (id: string) => expectStatus(await getRow(w, posts.id, id), 200);
const saveDraft = async (id: string, title: string) => expectStatus(await putRow(w, posts.id, id, { data: { title }, draft: true }), 200);
const eventsOf = async (type: string) => (await db.query(`select payload from event_outbox where payload->>'type' = $1`, [type])).rows.map((r) => r.payload);

/** Three rows: a DRAFT to publish, a PUBLISHED one to unpublish, a PUBLISHED one with a draft. */
async function launchRows() {
  const a = await createRow(w, posts.id, { title: 'A' }, { status: 'DRAFT' });
  const b = await createRow(w, posts.id, { title: 'B' }, { status: 'PUBLISHED' });
  const c = await createRow(w, posts.id, { title: 'C' }, { status: 'PUBLISHED' });
  await saveDraft(c.id, 'C, revised');
  return { a, b, c };
}

async function launchRelease(body?: Record<string, unknown>) {
  const { a, b, c } = await launchRows();
  const release = await createRelease(body);
  for (const [r, action] of [[a, 'publish'], [b, 'unpublish'], [c, 'publishDraft']] as const) {
    expectCreated(await addItem(release.id, { tableId: posts.key, contentsId: r.id, action }));
  }
  return { release, a, b, c };
}

describe('releases', () => {
  it('creates, lists and reads a release with its items, their rows and whether each would pass', async () => {
    const { release, a, c } = await launchRelease();
    expect(release).toMatchObject({ name: 'Launch', status: 'open', publishAt: null, publishedAt: null });
    const listed = expectStatus(await t.call('GET', releases(), { token: w.writeKey }), 200);
    expect(listed.list.map((r: { id: string }) => r.id)).toContain(release.id);
    const read = await readRelease(release.id);
    expect(read.items).toHaveLength(3);
    expect(read.items.map((i: { wouldPass: boolean }) => i.wouldPass)).toEqual([true, true, true]);
    expect(read.items[0]).toMatchObject({ tableId: posts.id, contentsId: a.id, action: 'publish', current: { status: 'DRAFT', version: 1, hasDraft: false } });
    expect(read.items[2].current).toMatchObject({ status: 'PUBLISHED', hasDraft: true });
    // The dry run changed nothing.
    expect((await row(a.id)).status).toBe('DRAFT');
    expect((await row(c.id)).data.title).toBe('C');
  });

  it('refuses a row already in another open release (409), and read keys (403)', async () => {
    const r = await createRow(w, posts.id, { title: 'twice' });
    const first = await createRelease();
    const second = await createRelease();
    expectCreated(await addItem(first.id, { tableId: posts.id, contentsId: r.id, action: 'publish' }));
    expectError(await addItem(second.id, { tableId: posts.id, contentsId: r.id, action: 'publish' }), 409, 'CONFLICT');
    expectError(await t.call('GET', releases(), { token: w.readKey }), 403, 'FORBIDDEN');
    expectError(await addItem(second.id, { tableId: posts.id, contentsId: r.id, action: 'publish' }, w.readKey), 403, 'FORBIDDEN');
  });

  it('publishes every item in one go: statuses, the draft, events, revisions naming the release', async () => {
    const { release, a, b, c } = await launchRelease();
    const publishedBefore = (await eventsOf('contents.published')).filter((e) => [a.id, c.id].includes(e.data.id)).length;
    const published = expectStatus(await publish(release.id), 200);
    expect(published).toMatchObject({ id: release.id, status: 'published' });
    expect(Date.parse(published.publishedAt)).toBeGreaterThan(0);
    expect((await row(a.id)).status).toBe('PUBLISHED');
    expect((await row(b.id)).status).toBe('DRAFT');
    const cNow = await row(c.id);
    expect([cNow.status, cNow.data.title, cNow.hasDraft]).toEqual(['PUBLISHED', 'C, revised', false]);
    const events = await eventsOf('release.published');
    expect(events.filter((e) => e.data.releaseId === release.id).map((e) => e.data)).toEqual([{ releaseId: release.id, count: 3 }]);
    expect((await eventsOf('contents.published')).filter((e) => [a.id, c.id].includes(e.data.id))).toHaveLength(publishedBefore + 2);
    expect((await eventsOf('contents.unpublished')).filter((e) => e.data.id === b.id)).toHaveLength(1);
    for (const r of [a, b, c]) {
      const revisions = expectStatus(await t.call('GET', `/v1/${w.projectId}/tables/${posts.id}/contents/${r.id}/revisions`, { token: w.writeKey }), 200).list;
      expect(revisions[0].releaseId).toBe(release.id);
      expect(revisions.at(-1).releaseId).toBeNull();
    }
    // Published: no more changes, nor a second publish; its rows are free for another release.
    expectError(await publish(release.id), 409, 'CONFLICT');
    expectError(await t.call('DELETE', `${releases()}/${release.id}`, { token: w.writeKey }), 409, 'CONFLICT');
    expectCreated(await addItem((await createRelease()).id, { tableId: posts.id, contentsId: a.id, action: 'unpublish' }));
  });

  it('one failing item fails the whole release with its error, naming it, and changes nothing', async () => {
    const { release, a, b, c } = await launchRelease();
    const plain = await createRow(w, posts.id, { title: 'no draft' }, { status: 'PUBLISHED' });
    const failing = expectCreated(await addItem(release.id, { tableId: posts.id, contentsId: plain.id, action: 'publishDraft' }));
    const read = await readRelease(release.id);
    expect(read.items.map((i: { wouldPass: boolean }) => i.wouldPass)).toEqual([true, true, true, false]);
    expect(read.items[3].problem).toMatchObject({ code: 'NOT_FOUND' });
    const ids = [a, b, c, plain].map((r) => r.id);
    const before = await Promise.all(ids.map((id) => row(id)));
    const rowEvents = async () => (await db.query(`select count(*)::int as n from event_outbox where payload->'data'->>'id' = any($1::text[])`, [ids])).rows[0].n;
    const eventsBefore = await rowEvents();
    const error = expectError(await publish(release.id), 404, 'NOT_FOUND');
    expect(error.message).toContain('items.3');
    expect(error.message).toContain(failing.id);
    // Nothing of the first three items stays: rows (status, data, draft, version), events, revisions.
    expect(await Promise.all(ids.map((id) => row(id)))).toEqual(before);
    expect(await rowEvents()).toBe(eventsBefore);
    expect((await db.query('select count(*)::int as n from contents_revision where release_id = $1', [release.id])).rows[0].n).toBe(0);
    expect((await readRelease(release.id)).status).toBe('open');
    expect((await eventsOf('release.published')).filter((e) => e.data.releaseId === release.id)).toHaveLength(0);
    // Without the failing item it goes through.
    expectNoContent(await t.call('DELETE', `${releases()}/${release.id}/items/${failing.id}`, { token: w.writeKey }));
    expectStatus(await publish(release.id), 200);
  });

  it('an ARCHIVED row to publish is 409 INVALID_TRANSITION for the whole release', async () => {
    const archived = await createRow(w, posts.id, { title: 'old' }, { status: 'ARCHIVED' });
    const fresh = await createRow(w, posts.id, { title: 'new' }, { status: 'DRAFT' });
    const release = await createRelease();
    expectCreated(await addItem(release.id, { tableId: posts.id, contentsId: fresh.id, action: 'publish' }));
    expectCreated(await addItem(release.id, { tableId: posts.id, contentsId: archived.id, action: 'publish' }));
    const error = expectError(await publish(release.id), 409, 'INVALID_TRANSITION');
    expect(error.message).toContain('items.1');
    expect((await row(fresh.id)).status).toBe('DRAFT');
  });

  it('a custom role without publish on the table cannot add a row (403)', async () => {
    const role = expectCreated(await t.call('POST', `/v1/${w.projectId}/roles`, { body: { name: 'writer', rules: [{ table: posts.key, actions: ['read', 'update'] }] } }));
    const key = expectCreated(await t.call('POST', `/v1/${w.projectId}/api-keys`, { body: { name: 'writer', roleId: role.id } }));
    const r = await createRow(w, posts.id, { title: 'guarded' }, { status: 'DRAFT' });
    const release = expectCreated(await t.call('POST', releases(), { body: { name: 'by role' }, token: key.key }));
    expectError(await addItem(release.id, { tableId: posts.id, contentsId: r.id, action: 'publish' }, key.key), 403, 'FORBIDDEN');
    const publisher = expectCreated(await t.call('POST', `/v1/${w.projectId}/roles`, { body: { name: 'publisher', rules: [{ table: posts.key, actions: ['read', 'update', 'publish'] }] } }));
    const publisherKey = expectCreated(await t.call('POST', `/v1/${w.projectId}/api-keys`, { body: { name: 'publisher', roleId: publisher.id } }));
    expectCreated(await addItem(release.id, { tableId: posts.id, contentsId: r.id, action: 'publish' }, publisherKey.key));
  });

  it('a scheduled release is published once by two concurrent scheduler runs', async () => {
    const { release, a } = await launchRelease({ name: 'Scheduled', publishAt: new Date(Date.now() - 1000).toISOString() });
    const { pool, tables } = t.api.deps;
    const run = () => transaction(pool, async (sql, client) => {
      const counts = new CountChanges();
      const published = await publishDueReleases(sql, client, pool, tables, 10, counts);
      await counts.apply(sql);
      return published;
    });
    const counts = await Promise.all([run(), run()]);
    expect(counts.reduce((x, y) => x + y, 0)).toBe(1);
    expect((await readRelease(release.id)).status).toBe('published');
    expect((await row(a.id)).status).toBe('PUBLISHED');
    expect((await eventsOf('release.published')).filter((e) => e.data.releaseId === release.id)).toHaveLength(1);
    expect(await run()).toBe(0);
  });

  it('a scheduled release that fails changes nothing and is unscheduled with its failure; one due with it goes through, the counts exact', async () => {
    const publishAt = new Date(Date.now() - 1000).toISOString();
    const failing = await launchRelease({ name: 'Fails', publishAt });
    // A fourth row moves the counts (the launch's publish and unpublish cancel out), then the failing item.
    const extra = await createRow(w, posts.id, { title: 'extra' }, { status: 'DRAFT' });
    expectCreated(await addItem(failing.release.id, { tableId: posts.id, contentsId: extra.id, action: 'publish' }));
    const plain = await createRow(w, posts.id, { title: 'no draft either' }, { status: 'PUBLISHED' });
    expectCreated(await addItem(failing.release.id, { tableId: posts.id, contentsId: plain.id, action: 'publishDraft' }));
    const passing = await launchRelease({ name: 'Passes', publishAt });
    const before = await Promise.all([failing.a, failing.b, failing.c, extra].map((r) => row(r.id)));
    const { pool, tables } = t.api.deps;
    const published = await transaction(pool, async (sql, client) => {
      const counts = new CountChanges();
      const n = await publishDueReleases(sql, client, pool, tables, 10, counts);
      await counts.apply(sql);
      return n;
    });
    expect(published).toBe(1);
    expect(await Promise.all([failing.a, failing.b, failing.c, extra].map((r) => row(r.id)))).toEqual(before);
    expect(await readRelease(failing.release.id)).toMatchObject({ status: 'open', publishAt: null, failure: { code: 'NOT_FOUND' } });
    expect((await readRelease(passing.release.id)).status).toBe('published');
    expect((await row(passing.a.id)).status).toBe('PUBLISHED');
    const counted = await db.query(`select status, sum(count)::int as n from contents_count where table_id = $1 group by status having sum(count) <> 0 order by status`, [posts.id]);
    const actual = await db.query(`select status, count(*)::int as n from contents where table_id = $1 group by status order by status`, [posts.id]);
    expect(counted.rows).toEqual(actual.rows);
  });
});

describe('release updates', () => {
  it('PUT renames and (re)schedules an open release; null unschedules; a published one is 409', async () => {
    const release = await createRelease({ name: 'Later' });
    const at = '2030-01-02T03:04:05.000Z';
    const scheduled = expectStatus(await t.call('PUT', `${releases()}/${release.id}`, { body: { name: 'Later, renamed', publishAt: at }, token: w.writeKey }), 200);
    expect(scheduled).toMatchObject({ name: 'Later, renamed', publishAt: at, status: 'open' });
    expect((await readRelease(release.id)).publishAt).toBe(at);
    const renamed = expectStatus(await t.call('PUT', `${releases()}/${release.id}`, { body: { name: 'Again' }, token: w.writeKey }), 200);
    expect(renamed).toMatchObject({ name: 'Again', publishAt: at });
    expect(expectStatus(await t.call('PUT', `${releases()}/${release.id}`, { body: { publishAt: null }, token: w.writeKey }), 200).publishAt).toBeNull();
    expectError(await t.call('PUT', `${releases()}/${release.id}`, { body: { publishAt: 'tomorrow' }, token: w.writeKey }), 400, 'BAD_REQUEST');
    expectStatus(await publish(release.id), 200);
    expectError(await t.call('PUT', `${releases()}/${release.id}`, { body: { name: 'Too late' }, token: w.writeKey }), 409, 'CONFLICT');
  });
});
