import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { person } from '../auth/fixture.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { buildWorld, columnsPath, contentsPath, createRow, createTable, expectError, expectStatus, getRow, list, putRow, type Table, type World } from './fixture.js';

/**
 * docs/contents.md#drafts-of-published-rows: a pending draft is saved, read, published and discarded by
 * accounts and read_write keys, while the live row (and so lists, filters, sorts, searches,
 * expansions and read keys) keeps its published values.
 */
let t: TestApi;
let w: World;
let db: pg.Client;
let posts: Table;

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  db = new pg.Client({ connectionString: t.db.url });
  await db.connect();
  posts = await createTable(w, [
    { name: 'title', type: 'text', settings: { required: true } },
    { name: 'slug', type: 'slug', settings: { source: 'title' } },
    { name: 'body', type: 'longtext' },
    { name: 'tag', type: 'text' },
  ]);
});
afterAll(async () => {
  await db?.end();
  await t?.close();
});

const draftPath = (table: string, id: string) => `${contentsPath(w, table, id)}/draft`;
const saveDraft = (table: string, id: string, data: Record<string, unknown>, token = w.writeKey) => putRow(w, table, id, { data, draft: true }, token);
const publishDraft = (table: string, id: string, token = w.writeKey) => t.call('POST', `${draftPath(table, id)}/publish`, { token });
const discard = (table: string, id: string, token = w.writeKey) => t.call('DELETE', draftPath(table, id), { token });
const draftView = async (table: string, id: string, token = w.writeKey) => expectStatus(await getRow(w, table, id, token, '?version=draft'), 200);
const revisionActions = async (table: string, id: string) =>
  (expectStatus(await t.call('GET', `${contentsPath(w, table, id)}/revisions?size=100`, { token: w.writeKey }), 200).list as { action: string }[]).map((r) => r.action);
const eventTypes = async (id: string) =>
  (await db.query(`select payload->>'type' as type from event_outbox where payload->'data'->>'id' = $1 order by seq`, [id])).rows.map(
    (r: { type: string }) => r.type,
  );

describe('draft lifecycle', () => {
  it('saves, merges, shows, keeps through a plain PUT, and publishes a draft', async () => {
    const row = await createRow(w, posts.id, { title: 'Live title', body: 'Live body' }, { status: 'PUBLISHED' });
    expect(row.hasDraft).toBe(false);
    const saved = expectStatus(await saveDraft(posts.id, row.id, { title: 'Next title' }), 200);
    expect(saved).toMatchObject({ hasDraft: true, data: { title: 'Live title', slug: 'live-title', body: 'Live body' }, updatedAt: row.updatedAt });
    expectStatus(await saveDraft(posts.id, row.id, { body: 'Next body' }), 200);
    expect(expectStatus(await getRow(w, posts.id, row.id), 200)).toMatchObject({ hasDraft: true, data: { title: 'Live title', body: 'Live body' } });
    expect((await draftView(posts.id, row.id)).data).toEqual({ title: 'Next title', slug: 'live-title', body: 'Next body' });

    // A plain PUT changes the live row and keeps the draft, whose changes still apply over it.
    const fixed = expectStatus(await putRow(w, posts.id, row.id, { data: { tag: 'urgent' } }), 200);
    expect(fixed).toMatchObject({ hasDraft: true, data: { title: 'Live title', tag: 'urgent' } });
    expect((await draftView(posts.id, row.id, t.adminToken)).data).toEqual({ title: 'Next title', slug: 'live-title', body: 'Next body', tag: 'urgent' });

    const published = expectStatus(await publishDraft(posts.id, row.id), 200);
    expect(published).toMatchObject({ status: 'PUBLISHED', hasDraft: false, data: { title: 'Next title', slug: 'live-title', body: 'Next body', tag: 'urgent' } });
    expect(Date.parse(published.publishedAt)).toBeGreaterThan(Date.parse(row.publishedAt));
    expect(await revisionActions(posts.id, row.id)).toEqual(['draftPublished', 'updated', 'created']);
    expect(await eventTypes(row.id)).toEqual(['contents.created', 'contents.published', 'contents.updated', 'contents.updated', 'contents.published']);
    // Publishing or discarding again: there is no draft any more.
    expectError(await publishDraft(posts.id, row.id), 404, 'NOT_FOUND');
    expectError(await discard(posts.id, row.id), 404, 'NOT_FOUND');
    expect((await draftView(posts.id, row.id)).data.title).toBe('Next title');
  });

  it('discards a draft, leaving the live row, its version and its revisions alone', async () => {
    const row = await createRow(w, posts.id, { title: 'Keep me' }, { status: 'PUBLISHED' });
    expectStatus(await saveDraft(posts.id, row.id, { title: 'Throw me away' }, t.adminToken), 200);
    expect((await t.call('DELETE', draftPath(posts.id, row.id))).status).toBe(204);
    expect(expectStatus(await getRow(w, posts.id, row.id), 200)).toMatchObject({ hasDraft: false, data: { title: 'Keep me' }, updatedAt: row.updatedAt });
    expect(await revisionActions(posts.id, row.id)).toEqual(['created']);
    expect(await eventTypes(row.id)).toEqual(['contents.created', 'contents.published']);
  });

  it('refuses a draft of a row that is not PUBLISHED (409), a status in a draft and invalid values (422), saving nothing', async () => {
    const hidden = await createRow(w, posts.id, { title: 'Not out yet' }, { status: 'DRAFT' });
    expectError(await saveDraft(posts.id, hidden.id, { title: 'x' }), 409, 'INVALID_TRANSITION');
    const row = await createRow(w, posts.id, { title: 'Out' }, { status: 'PUBLISHED' });
    const withStatus = expectError(await putRow(w, posts.id, row.id, { data: { title: 'y' }, status: 'DRAFT', draft: true }), 422, 'VALIDATION_ERROR');
    expect(withStatus.details!.map((d) => d.field)).toEqual(['status']);
    const invalid = expectError(await saveDraft(posts.id, row.id, { title: null, nope: 1 }), 422, 'VALIDATION_ERROR');
    expect(invalid.details!.map((d) => d.field).sort()).toEqual(['data.nope', 'data.title']);
    expect(expectStatus(await getRow(w, posts.id, row.id), 200).hasDraft).toBe(false);
    expectError(await getRow(w, posts.id, 'no-such-row', w.writeKey, '?version=draft'), 404, 'NOT_FOUND');
    expectError(await discard(posts.id, '0190b0a0-0000-7000-8000-00000000c0de'), 404, 'NOT_FOUND');
  });

  it('checks a draft again when it is published: a unique value taken since is 409, a column required since 422', async () => {
    const items = await createTable(w, [
      { name: 'sku', type: 'text', settings: { unique: true } },
      { name: 'note', type: 'text' },
    ]);
    const a = await createRow(w, items.id, { sku: 'A', note: 'n' }, { status: 'PUBLISHED' });
    expectStatus(await saveDraft(items.id, a.id, { sku: 'B', note: null }), 200);
    await createRow(w, items.id, { sku: 'B', note: 'n' });
    expect(expectError(await publishDraft(items.id, a.id), 409, 'CONFLICT').message).toContain('data.sku');
    const columns = expectStatus(await t.call('GET', columnsPath(w, items.id)), 200).list as { id: string; name: string }[];
    const note = columns.find((c) => c.name === 'note')!;
    expectStatus(await t.call('PUT', columnsPath(w, items.id, note.id), { body: { settings: { required: true } } }), 200);
    const required = expectError(await publishDraft(items.id, a.id), 422, 'VALIDATION_ERROR');
    expect(required.details!.map((d) => d.field)).toEqual(['data.note']);
    // Both failures left the row and its draft as they were.
    expect(expectStatus(await getRow(w, items.id, a.id), 200)).toMatchObject({ hasDraft: true, data: { sku: 'A', note: 'n' } });
    expect(await revisionActions(items.id, a.id)).toEqual(['created']);
  });

  it('keeps a draft through unpublishing; publishing it then publishes the row, except from ARCHIVED (409)', async () => {
    const row = await createRow(w, posts.id, { title: 'Was out' }, { status: 'PUBLISHED' });
    expectStatus(await saveDraft(posts.id, row.id, { title: 'Comes back' }), 200);
    expect(expectStatus(await putRow(w, posts.id, row.id, { status: 'DRAFT' }), 200)).toMatchObject({ status: 'DRAFT', hasDraft: true });
    expectError(await saveDraft(posts.id, row.id, { body: 'more' }), 409, 'INVALID_TRANSITION');
    const published = expectStatus(await publishDraft(posts.id, row.id), 200);
    expect(published).toMatchObject({ status: 'PUBLISHED', hasDraft: false, data: { title: 'Comes back' } });
    expect((await revisionActions(posts.id, row.id))[0]).toBe('draftPublished');

    const archived = await createRow(w, posts.id, { title: 'Old' }, { status: 'PUBLISHED' });
    expectStatus(await saveDraft(posts.id, archived.id, { title: 'Older' }), 200);
    expectStatus(await putRow(w, posts.id, archived.id, { status: 'ARCHIVED' }), 200);
    expectError(await publishDraft(posts.id, archived.id), 409, 'INVALID_TRANSITION');
    expect((await discard(posts.id, archived.id)).status).toBe(204);
  });

  it('follows the columns: a renamed column keeps its draft value, a deleted one drops out', async () => {
    const notes = await createTable(w, [
      { name: 'headline', type: 'text' },
      { name: 'extra', type: 'text' },
    ]);
    const row = await createRow(w, notes.id, { headline: 'H', extra: 'E' }, { status: 'PUBLISHED' });
    expectStatus(await saveDraft(notes.id, row.id, { headline: 'H2', extra: 'E2' }), 200);
    expectStatus(await t.call('PUT', columnsPath(w, notes.id, notes.columns.headline.id), { body: { name: 'title' } }), 200);
    expect(expectStatus(await t.call('DELETE', columnsPath(w, notes.id, notes.columns.extra.id)), 204));
    expect((await draftView(notes.id, row.id)).data).toEqual({ title: 'H2' });
    expect(expectStatus(await publishDraft(notes.id, row.id), 200).data).toEqual({ title: 'H2' });
  });
});

describe('who sees drafts', () => {
  let authors: Table;
  let live: { id: string; data: Record<string, string> };
  let other: { id: string };

  beforeAll(async () => {
    authors = await createTable(w, [
      { name: 'name', type: 'text' },
      { name: 'handle', type: 'slug', settings: { source: 'name' } },
      { name: 'bio', type: 'text' },
    ]);
    live = await createRow(w, authors.id, { name: 'Ann', bio: 'writes about boats' }, { status: 'PUBLISHED' });
    other = await createRow(w, authors.id, { name: 'Bob', bio: 'writes about trains' }, { status: 'PUBLISHED' });
    // The draft renames Ann to Zed (sorting her last), changes her handle and bio.
    expectStatus(await saveDraft(authors.id, live.id, { name: 'Zed', handle: 'zed', bio: 'secretword' }), 200);
  });

  it('read keys get the live values without hasDraft, by id, slug and list, and 403 for the draft', async () => {
    const byId = expectStatus(await getRow(w, authors.id, live.id, w.readKey), 200);
    expect(byId.data.name).toBe('Ann');
    expect(byId).not.toHaveProperty('hasDraft');
    expect(expectStatus(await getRow(w, authors.id, 'ann', w.readKey), 200).id).toBe(live.id);
    expectError(await getRow(w, authors.id, 'zed', w.readKey), 404, 'NOT_FOUND');
    expectError(await getRow(w, authors.id, live.id, w.readKey, '?version=draft'), 403, 'FORBIDDEN');
    for (const query of [{}, { fields: 'name,hasDraft' }]) {
      const { list: items } = await list(w, authors.id, w.readKey, query);
      expect(items.map((i) => i.data?.name).sort()).toEqual(['Ann', 'Bob']);
      for (const item of items) expect(item).not.toHaveProperty('hasDraft');
    }
  });

  it('project members see drafts by role: VIEWER reads them, EDITOR also saves, publishes and discards them', async () => {
    const viewer = await person(t, w.workspaceId, w.projectId, 'VIEWER');
    const editor = await person(t, w.workspaceId, w.projectId, 'EDITOR');
    const row = await createRow(w, posts.id, { title: 'Members' }, { status: 'PUBLISHED' });
    expectStatus(await saveDraft(posts.id, row.id, { title: 'Members, edited' }, editor.token), 200);
    expect(expectStatus(await getRow(w, posts.id, row.id, viewer.token), 200)).toMatchObject({ hasDraft: true, data: { title: 'Members' } });
    expect((await draftView(posts.id, row.id, viewer.token)).data.title).toBe('Members, edited');
    expectError(await saveDraft(posts.id, row.id, { title: 'x' }, viewer.token), 403, 'FORBIDDEN');
    expectError(await publishDraft(posts.id, row.id, viewer.token), 403, 'FORBIDDEN');
    expectError(await discard(posts.id, row.id, viewer.token), 403, 'FORBIDDEN');
    expect(expectStatus(await publishDraft(posts.id, row.id, editor.token), 200).data.title).toBe('Members, edited');
    const revisions = expectStatus(await t.call('GET', `${contentsPath(w, posts.id, row.id)}/revisions`, { token: viewer.token }), 200).list;
    expect(revisions[0]).toMatchObject({ action: 'draftPublished', actor: { type: 'account', id: editor.accountId } });
  });

  it('read keys cannot save, publish or discard drafts', async () => {
    expectError(await saveDraft(authors.id, live.id, { name: 'X' }, w.readKey), 403, 'FORBIDDEN');
    expectError(await publishDraft(authors.id, live.id, w.readKey), 403, 'FORBIDDEN');
    expectError(await discard(authors.id, live.id, w.readKey), 403, 'FORBIDDEN');
  });

  it('filters, sorts and searches of every caller see the live values; editors see hasDraft', async () => {
    for (const token of [w.readKey, w.writeKey, t.adminToken]) {
      const sorted = await list(w, authors.id, token, { sort: [{ i: 'name', o: 'asc' }] });
      expect(sorted.list.map((i) => i.id)).toEqual([live.id, other.id]);
      expect((await list(w, authors.id, token, { filter: [{ i: 'name', w: 'eq', v: 'Zed' }] })).list).toEqual([]);
      expect((await list(w, authors.id, token, { filter: [{ i: 'handle', w: 'eq', v: 'ann' }] })).list.map((i) => i.id)).toEqual([live.id]);
      expect((await list(w, authors.id, token, { search: 'secretword' })).list).toEqual([]);
      expect((await list(w, authors.id, token, { search: 'boats' })).list.map((i) => i.id)).toEqual([live.id]);
    }
    const items = (await list(w, authors.id, w.writeKey, { sort: [{ i: 'name', o: 'asc' }] })).list as { id: string; hasDraft?: boolean }[];
    expect(items.map((i) => i.hasDraft)).toEqual([true, false]);
    const asked = (await list(w, authors.id, t.adminToken, { fields: 'hasDraft', sort: [{ i: 'name', o: 'asc' }] })).list;
    expect(asked).toEqual([
      { id: live.id, hasDraft: true },
      { id: other.id, hasDraft: false },
    ]);
    expectError(await t.call('GET', `${contentsPath(w, authors.id)}?filter=${encodeURIComponent('[{"i":"hasDraft","w":"eq","v":true}]')}`), 400, 'INVALID_QUERY');
  });

  it('expanded references show the live values, with hasDraft for editors only', async () => {
    const books = await createTable(w, [{ name: 'author', type: 'reference', settings: { table: authors.id } }]);
    const book = await createRow(w, books.id, { author: live.id }, { status: 'PUBLISHED' });
    const asReader = expectStatus(await getRow(w, books.id, book.id, w.readKey, '?expand=author'), 200);
    expect(asReader.data.author).toMatchObject({ id: live.id, data: { name: 'Ann' } });
    expect(asReader.data.author).not.toHaveProperty('hasDraft');
    const asEditor = (await list(w, books.id, w.writeKey, { expand: 'author' })).list[0];
    expect(asEditor.data?.author).toMatchObject({ data: { name: 'Ann' }, hasDraft: true });
    const draftOfBook = await draftView(books.id, book.id);
    expect(draftOfBook.data.author).toBe(live.id);
  });

  it('a cached list follows drafts being saved and discarded', async () => {
    const hasDraftOf = async () => ((await list(w, authors.id, w.writeKey, { fields: 'hasDraft' })).list as { id: string; hasDraft: boolean }[]).find((i) => i.id === other.id)!.hasDraft;
    expect(await hasDraftOf()).toBe(false);
    expectStatus(await saveDraft(authors.id, other.id, { bio: 'soon' }), 200);
    expect(await hasDraftOf()).toBe(true);
    expect((await discard(authors.id, other.id)).status).toBe(204);
    expect(await hasDraftOf()).toBe(false);
  });
});

describe('concurrency', () => {
  it('a draft publish and a plain PUT of the same row both land, one after the other', async () => {
    for (let round = 0; round < 8; round++) {
      const row = await createRow(w, posts.id, { title: `Round ${round}`, body: 'before' }, { status: 'PUBLISHED' });
      expectStatus(await saveDraft(posts.id, row.id, { title: `Drafted ${round}` }), 200);
      const [published, put] = await Promise.all([publishDraft(posts.id, row.id), putRow(w, posts.id, row.id, { data: { body: `after ${round}` } })]);
      expectStatus(published, 200);
      expectStatus(put, 200);
      const final = expectStatus(await getRow(w, posts.id, row.id), 200);
      expect(final).toMatchObject({ hasDraft: false, data: { title: `Drafted ${round}`, body: `after ${round}` } });
      const revisions = (expectStatus(await t.call('GET', `${contentsPath(w, posts.id, row.id)}/revisions`, { token: w.writeKey }), 200).list as {
        version: number;
        action: string;
      }[]).map((r) => `${r.version} ${r.action}`);
      expect(revisions.slice(2)).toEqual(['1 created']);
      expect(revisions.slice(0, 2).map((r) => r.split(' ')[0])).toEqual(['3', '2']);
      expect(new Set(revisions.slice(0, 2).map((r) => r.split(' ')[1]))).toEqual(new Set(['draftPublished', 'updated']));
    }
  });
});
