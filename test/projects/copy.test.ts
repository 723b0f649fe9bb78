import { readdir } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCreated, expectNoContent, expectStatus, putRow, type World } from '../contents/fixture.js';
import { download, sha256, startFilesWorld, upload, type FilesWorld } from '../resources/fixture.js';

/**
 * docs/concepts.md#copying-a-project: POST /v1/workspaces/{workspaceId}/projects with `from`
 * copies the schema, roles and project configuration, and with `contents` the rows and the files
 * (sharing their stored bytes); keys, webhooks and members stay behind.
 */
let w: FilesWorld;
let db: pg.Client;
let source: Awaited<ReturnType<typeof buildSource>>;

beforeAll(async () => {
  w = await startFilesWorld('local', { WEBHOOKS_ALLOW_PRIVATE: 'true' });
  db = new pg.Client({ connectionString: w.t.db.url });
  await db.connect();
  source = await buildSource(w);
});
afterAll(async () => {
  await db?.end();
  await w?.close();
});

const call = (method: string, p: string, body?: unknown, token?: string) => w.t.call(method, p, { body, ...(token ? { token } : {}) });
const ok = async (method: string, p: string, body?: unknown) => expectStatus(await call(method, p, body), method === 'POST' ? 201 : 200);
const listAll = async (p: string) => (await ok('GET', `${p}${p.includes('?') ? '&' : '?'}size=100`)).list as Record<string, unknown>[];
const q = (value: unknown) => encodeURIComponent(JSON.stringify(value));
const withoutIds = <T extends Record<string, unknown>>(items: T[], ...more: string[]) =>
  items.map((item) => Object.fromEntries(Object.entries(item).filter(([k]) => k !== 'id' && !more.includes(k))));

/** A project with two related tables, a role, categories, variables, translations, a file, a webhook, rows in every status and a draft. */
async function buildSource(world: World) {
  const p = `/v1/${world.projectId}`;
  const authors = await ok('POST', `${p}/tables`, { key: 'authors', name: 'Authors' });
  await ok('POST', `${p}/tables/authors/columns`, { name: 'name', type: 'text', settings: { unique: true } });
  await ok('POST', `${p}/tables/authors/columns`, { name: 'bio', type: 'longtext', settings: { localized: true } });
  const posts = await ok('POST', `${p}/tables`, { key: 'posts', name: 'Posts', defaultStatus: 'DRAFT' });
  await ok('POST', `${p}/tables/posts/columns`, { name: 'title', type: 'text', settings: { required: true } });
  await ok('POST', `${p}/tables/posts/columns`, { name: 'slug', type: 'slug', settings: { source: 'title' } });
  await ok('POST', `${p}/tables/posts/columns`, { name: 'author', type: 'reference', settings: { table: 'authors', onDelete: 'restrict' } });
  await ok('POST', `${p}/tables/posts/columns`, { name: 'related', type: 'reference', settings: { table: 'posts', multiple: true } });
  await ok('POST', `${p}/tables/posts/columns`, { name: 'cover', type: 'file' });
  await ok('POST', `${p}/tables/posts/columns`, { name: 'tags', type: 'select', settings: { options: ['a', 'b'], multiple: true } });
  // A deleted column whose values the purge has not removed yet (no purge worker runs here).
  await ok('POST', `${p}/tables/posts/columns`, { name: 'gone', type: 'integer' });

  await ok('POST', `${p}/roles`, { name: 'writer', description: 'Writes posts', rules: [{ table: 'posts', actions: ['read', 'create'], where: [{ i: 'title', w: 'eq', v: 'x' }] }] });
  const parent = await ok('POST', `${p}/categories`, { name: 'News' });
  await ok('POST', `${p}/categories`, { name: 'Local news', parentId: parent.id });
  await ok('POST', `${p}/variables`, { key: 'site.title', value: { en: 'Hello' } });
  await ok('POST', `${p}/translations`, { key: 'greeting', locale: 'fr', value: 'Bonjour' });
  expectCreated(await call('POST', `${p}/webhooks`, { url: 'http://127.0.0.1:9/hook', events: ['contents.created'] }));

  const file = expectCreated(await upload(world, { bytes: 'cover bytes', filename: 'cover.txt', type: 'text/plain' }));
  const row = (table: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}) => ok('POST', `${p}/tables/${table}/contents`, { data, ...extra });
  const ann = await row('authors', { name: 'Ann', bio: { en: 'Writes', fr: 'Écrit' } }, { status: 'PUBLISHED' });
  const bob = await row('authors', { name: 'Bob' }, { status: 'PUBLISHED' });
  const first = await row('posts', { title: 'First post', author: ann.id, cover: file.id, tags: ['a'], gone: 1 }, { status: 'PUBLISHED' });
  const second = await row('posts', { title: 'Second post', author: bob.id, related: [first.id] });
  await row('posts', { title: 'Archived', author: ann.id }, { status: 'ARCHIVED' });
  await row('posts', { title: 'Later', related: [second.id, first.id] }, { status: 'SCHEDULED', publishAt: '2099-01-01T00:00:00.000Z' });
  // A draft of the published post naming another author and no cover.
  expectStatus(await putRow(world, 'posts', first.id, { data: { title: 'First, revised', author: bob.id, cover: null }, draft: true }, world.t.adminToken), 200);
  // Updated twice: version 3.
  expectStatus(await call('PUT', `${p}/tables/posts/contents/${second.id}`, { data: { title: 'Second post!' } }), 200);
  expectStatus(await call('PUT', `${p}/tables/posts/contents/${second.id}`, { data: { title: 'Second post!!' } }), 200);
  expectNoContent(await call('DELETE', `${p}/tables/posts/columns/gone`));
  return { p, authors, posts, file, ann, bob, first, second };
}

async function copy(body: Record<string, unknown>, token?: string) {
  return call('POST', `/v1/workspaces/${w.workspaceId}/projects`, { name: 'Copy', ...body }, token);
}

/** Tables with their columns (ids left out, reference targets as table keys), roles and configuration of a project. */
async function schemaOf(projectId: string) {
  const p = `/v1/${projectId}`;
  const tables = await listAll(`${p}/tables`);
  const keyOf = new Map(tables.map((t) => [t.id, t.key]));
  const columns: Record<string, unknown> = {};
  for (const table of tables) {
    columns[table.key as string] = (await listAll(`${p}/tables/${table.id}/columns`)).map(({ id: _id, settings, ...c }) => {
      const s = settings as Record<string, unknown>;
      return { ...c, settings: s.table ? { ...s, table: keyOf.get(s.table) ?? `unknown ${s.table}` } : s };
    });
  }
  const categories = await listAll(`${p}/categories`);
  const nameOf = new Map(categories.map((c) => [c.id, c.name]));
  return {
    tables: withoutIds(tables),
    columns,
    // The built-in roles carry the project's own timestamps.
    roles: withoutIds(await listAll(`${p}/roles`)).map((r) => (r.builtIn ? withoutIds([r], 'createdAt', 'updatedAt')[0] : r)),
    categories: categories.map(({ id: _id, parentId, ...c }) => ({ ...c, parent: parentId ? nameOf.get(parentId) : null })),
    variables: withoutIds(await listAll(`${p}/variables`)),
    translations: withoutIds(await listAll(`${p}/translations`)),
  };
}

describe('copy of the schema only', () => {
  it('has the same tables, columns, roles and configuration, and no rows, files, keys, webhooks or members', async () => {
    const made = expectCreated(await copy({ from: { projectId: w.projectId } }), `/workspaces/${w.workspaceId}/projects`);
    expect(made).toMatchObject({ name: 'Copy', workspaceId: w.workspaceId, locales: ['en', 'fr'], defaultLocale: 'en' });
    expect(made.id).not.toBe(w.projectId);
    const [original, copied] = [await schemaOf(w.projectId), await schemaOf(made.id)];
    expect(copied).toEqual(original);
    expect(copied.columns).toHaveProperty('posts');
    expect(copied.categories).toContainEqual(expect.objectContaining({ name: 'Local news', parent: 'News' }));

    const p = `/v1/${made.id}`;
    for (const table of ['authors', 'posts']) {
      const rows = await ok('GET', `${p}/tables/${table}/contents`);
      expect(rows.list).toEqual([]);
      expect(rows.pagination.total).toBe(0);
    }
    expect(await listAll(`${p}/files`)).toEqual([]);
    expect(await listAll(`${p}/webhooks`)).toEqual([]);
    expect(await listAll(`${p}/api-keys`)).toEqual([]);
    expect(await listAll(`/v1/workspaces/${w.workspaceId}/projects/${made.id}/members`)).toEqual([]);
    // The copy is a project of its own: writes there leave the source alone.
    const row = await ok('POST', `${p}/tables/authors/contents`, { data: { name: 'Ann' } });
    expect(row.id).not.toBe(source.ann.id);
    expect((await ok('GET', `${source.p}/tables/authors/contents`)).pagination.total).toBe(2);
  });
});

describe('copy with contents', () => {
  let copyId: string;
  let cp: string;
  beforeAll(async () => {
    copyId = expectCreated(await copy({ name: 'Staging', description: 'with rows', from: { projectId: w.projectId, contents: true } })).id;
    cp = `/v1/${copyId}`;
  });

  /** Every row of a table (all statuses, as the account sees them), oldest first. */
  const rowsOf = async (p: string, table: string) => listAll(`${p}/tables/${table}/contents?sort=${q([{ i: 'createdAt' }])}`);

  it('copies every row with its data, status, slug, version and timestamps, references pointing at the copy', async () => {
    const tables = ['authors', 'posts'];
    const before = (await Promise.all(tables.map((t) => rowsOf(source.p, t)))).flat();
    const after = (await Promise.all(tables.map((t) => rowsOf(cp, t)))).flat();
    expect(after).toHaveLength(before.length);
    // New ids, given in the order of the old ones: sorted by id, the n-th row is the n-th row's copy.
    const byId = (a: Record<string, unknown>, b: Record<string, unknown>) => ((a.id as string) < (b.id as string) ? -1 : 1);
    const copies = new Map([...before].sort(byId).map((row, i) => [row.id as string, [...after].sort(byId)[i].id as string]));
    expect([...copies].every(([old, made]) => old !== made)).toBe(true);
    const [fileBefore] = await listAll(`${source.p}/files`);
    const [fileAfter] = await listAll(`${cp}/files`);
    const remap = (v: unknown) => (typeof v === 'string' ? (copies.get(v) ?? (v === fileBefore.id ? fileAfter.id : v)) : v);
    const expected = before.map((row) => ({
      ...row,
      id: copies.get(row.id as string),
      data: Object.fromEntries(
        Object.entries(row.data as Record<string, unknown>).map(([k, v]) => [k, Array.isArray(v) && k === 'related' ? v.map(remap) : ['author', 'cover'].includes(k) ? remap(v) : v]),
      ),
    }));
    expect(after).toEqual(expected);

    const posts = await rowsOf(cp, 'posts');
    const title = (t: string) => posts.find((r) => (r.data as { title: string }).title === t)!;
    expect(title('First post').data).not.toHaveProperty('gone');
    expect((title('Later').data as { related: string[] }).related).toEqual([title('Second post!!').id, title('First post').id]);
    expect(title('Later')).toMatchObject({ status: 'SCHEDULED', publishAt: '2099-01-01T00:00:00.000Z' });
    expect(title('Second post!!')).toMatchObject({ status: 'DRAFT', version: 3 });
    expect((title('First post').data as { cover: string }).cover).toBe(fileAfter.id);
    // No revisions came along.
    const revisions = await db.query('select count(*)::int as n from contents_revision where row_id = any($1)', [[...copies.values()]]);
    expect(revisions.rows[0].n).toBe(0);
    const history = await ok('GET', `${cp}/tables/posts/contents/${title('Second post!!').id}/revisions`);
    expect(history.list).toEqual([]);
    // The next change starts the copy's history at the following version.
    const changed = expectStatus(await call('PUT', `${cp}/tables/posts/contents/${title('Second post!!').id}`, { data: { title: 'Second post!!' } }), 200);
    expect(changed.version).toBe(4);
    expect((await ok('GET', `${cp}/tables/posts/contents/${title('Second post!!').id}/revisions`)).list.map((r: { version: number }) => r.version)).toEqual([4]);
  });

  it('copies drafts, their references remapped', async () => {
    const posts = await rowsOf(cp, 'posts');
    const authors = await rowsOf(cp, 'authors');
    const first = posts.find((r) => (r.data as { title: string }).title === 'First post')!;
    expect(first.hasDraft).toBe(true);
    const draft = expectStatus(await w.t.call('GET', `${cp}/tables/posts/contents/${first.id}?version=draft`), 200);
    const original = expectStatus(await w.t.call('GET', `${source.p}/tables/posts/contents/${source.first.id}?version=draft`), 200);
    expect(original.data).toMatchObject({ title: 'First, revised', author: source.bob.id });
    expect(draft.data).toEqual({ ...original.data, author: authors.find((a) => (a.data as { name: string }).name === 'Bob')!.id });
    expect(draft.data).not.toHaveProperty('cover');
  });

  it('answers lists, filters, searches, totals and expansions on the copy at once', async () => {
    const byTitle = await ok('GET', `${cp}/tables/posts/contents?filter=${q([{ i: 'title', w: 'eq', v: 'Archived' }])}`);
    expect(byTitle.list.map((r: { data: { title: string } }) => r.data.title)).toEqual(['Archived']);
    const found = await ok('GET', `${cp}/tables/authors/contents?search=writes`);
    expect(found.list.map((r: { data: { name: string } }) => r.data.name)).toEqual(['Ann']);
    expect((await ok('GET', `${cp}/tables/posts/contents`)).pagination.total).toBe(4);
    const expanded = await ok('GET', `${cp}/tables/posts/contents?expand=author&filter=${q([{ i: 'author.name', w: 'eq', v: 'Bob' }])}`);
    expect(expanded.list.map((r: { data: { author: { data: { name: string } } } }) => r.data.author.data.name)).toEqual(['Bob']);
    // The unique index came too: a second Ann is refused in the copy.
    expect((await call('POST', `${cp}/tables/authors/contents`, { data: { name: 'Ann' } })).status).toBe(409);
    // A read key of the copy sees its published rows.
    const key = expectCreated(await call('POST', `${cp}/api-keys`, { name: 'read', permission: 'read' }));
    const published = await w.t.call('GET', `${cp}/tables/authors/contents`, { token: key.key });
    expect(expectStatus(published, 200).list).toHaveLength(2);
  });

  it('shares the stored bytes of files: one copy on disk; deleting either file keeps the other downloadable', async () => {
    const [a] = await listAll(`${source.p}/files`);
    const [b] = await listAll(`${cp}/files`);
    expect(withoutIds([b], 'url')).toEqual(withoutIds([a], 'url'));
    expect(b.id).not.toBe(a.id);
    expect(b.sha256).toBe(sha256('cover bytes'));
    const keys = await db.query('select storage_key, storage_project_id from file where id = any($1)', [[a.id, b.id]]);
    expect(new Set(keys.rows.map((r) => r.storage_key)).size).toBe(1);
    expect(keys.rows.every((r) => r.storage_project_id === w.projectId)).toBe(true);
    const stored = async () => (await readdir(path.join(w.dir, w.projectId)).catch(() => [] as string[])).length;
    expect(await stored()).toBe(1);

    // The source lets go of its file (its rows stop referencing it first).
    const sourcePosts = await rowsOf(source.p, 'posts');
    for (const row of sourcePosts.filter((r) => (r.data as { cover?: string }).cover)) {
      expectStatus(await call('PUT', `${source.p}/tables/posts/contents/${row.id}`, { data: { cover: null } }), 200);
    }
    expectNoContent(await call('DELETE', `${source.p}/files/${a.id}`));
    expect(await stored()).toBe(1);
    const got = await download({ ...w, projectId: copyId }, b.id as string, {}, w.t.adminToken);
    expect(got.status).toBe(200);
    expect(got.body.toString()).toBe('cover bytes');

    // The copy's file was the last to hold them: deleting it removes the bytes.
    const copyPosts = await rowsOf(cp, 'posts');
    for (const row of copyPosts.filter((r) => (r.data as { cover?: string }).cover)) {
      expectStatus(await call('PUT', `${cp}/tables/posts/contents/${row.id}`, { data: { cover: null } }), 200);
    }
    expectNoContent(await call('DELETE', `${cp}/files/${b.id}`));
    expect(await stored()).toBe(0);
  });

  it('leaves the source as it was', async () => {
    const authors = await rowsOf(source.p, 'authors');
    expect(authors.map((a) => a.id).sort()).toEqual([source.ann.id, source.bob.id].sort());
    expect((await rowsOf(source.p, 'posts')).length).toBe(4);
  });
});

describe('copy of a table with many references', () => {
  it('remaps every one of 41 reference columns (more than one jsonb_build_object takes)', async () => {
    const made = expectCreated(await call('POST', `/v1/workspaces/${w.workspaceId}/projects`, { name: 'Wide' }));
    const p = `/v1/${made.id}`;
    await ok('POST', `${p}/tables`, { key: 'wide', name: 'Wide' });
    const names = Array.from({ length: 41 }, (_, i) => `r${i}`);
    for (const name of names) await ok('POST', `${p}/tables/wide/columns`, { name, type: 'reference', settings: { table: 'wide' } });
    const target = await ok('POST', `${p}/tables/wide/contents`, { data: {} });
    const row = await ok('POST', `${p}/tables/wide/contents`, { data: Object.fromEntries(names.map((n) => [n, target.id])) });
    const copied = expectCreated(await copy({ from: { projectId: made.id, contents: true } }));
    const rows = (await ok('GET', `/v1/${copied.id}/tables/wide/contents`)).list as { id: string; data: Record<string, string> }[];
    const [copiedTarget, copiedRow] = [rows.find((r) => Object.keys(r.data).length === 0)!, rows.find((r) => Object.keys(r.data).length > 0)!];
    expect(copiedRow.id).not.toBe(row.id);
    expect(copiedRow.data).toEqual(Object.fromEntries(names.map((n) => [n, copiedTarget.id])));
  }, 120_000);
});
