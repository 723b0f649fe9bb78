import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { expectCreated, expectError, expectStatus } from '../helpers/expect.js';
import { person } from '../auth/fixture.js';
import { buildWorld, roleKey, type World } from '../contents/fixture.js';
import { apply, changesOf, column, copy, diff, expectRows422, pull, schemaPath, table, type Snapshot } from './fixture.js';

/** GET /schema, POST /schema/diff and /schema/apply (docs/environments.md). */

let t: TestApi;
let w: World;

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
});
afterAll(async () => t?.close());

/** A project of the world's workspace with the same locales (en, fr). */
async function newProject(): Promise<string> {
  const res = await t.call('POST', `/v1/workspaces/${w.workspaceId}/projects`, { body: { name: 'Env', locales: ['en', 'fr'], defaultLocale: 'en' } });
  return expectCreated(res).id as string;
}

const rowsOf = async (projectId: string, key: string) =>
  expectStatus(await t.call('GET', `/v1/${projectId}/tables/${key}/contents?size=100&sort=${encodeURIComponent('[{"i":"createdAt","o":"asc"}]')}`), 200).list as { id: string; data: Record<string, unknown> }[];

/** A schema with every kind of thing a snapshot holds. */
const RICH: Snapshot = {
  format: 1,
  locales: ['en', 'fr'],
  defaultLocale: 'en',
  tables: [
    table('authors', [column('name', 'text', { required: true }), column('email', 'email', { unique: true })], { name: 'Authors', description: 'People' }),
    table(
      'posts',
      [
        column('title', 'text', { required: true, maxText: 120 }, 'Title'),
        column('slug', 'slug', { source: 'title' }),
        column('body', 'longtext', { localized: true }),
        column('author', 'reference', { table: 'authors', onDelete: 'restrict' }),
        column('tags', 'select', { options: ['news', 'tech'], multiple: true }),
        column('views', 'integer', { min: 0, defaultValue: 0 }),
        column('meta', 'json'),
      ],
      { name: 'Posts', defaultStatus: 'DRAFT' },
    ),
  ],
  roles: [
    { name: 'reviewer', description: 'Reads drafts of posts', rules: [{ table: 'posts', actions: ['read'], statuses: ['DRAFT'], drafts: true, fields: { read: ['title', 'body'] } }] },
    { name: 'writer', description: '', rules: [{ table: 'posts', actions: ['read', 'update'], where: [{ v: 10, w: 'lt', i: 'views' }] }] },
  ],
};

describe('snapshots', () => {
  it('an empty project: format, locales, no tables, no roles (built-ins are not listed)', async () => {
    const { snapshot, text } = await pull(t, await newProject());
    expect(snapshot).toEqual({ format: 1, locales: ['en', 'fr'], defaultLocale: 'en', tables: [], roles: [] });
    expect(text).toBe(JSON.stringify(snapshot));
  });

  it('round trip: pull A, apply to an empty B, pull B: the same text; applying again changes nothing', async () => {
    const a = await newProject();
    const created = changesOf(await apply(t, a, RICH));
    expect(created.map((c) => c.op)).toEqual([
      'createTable', 'createTable', 'addColumn', 'addColumn',
      // posts: the slug column is added last (its source must exist), then put back in place.
      'updateTable', 'addColumn', 'addColumn', 'addColumn', 'addColumn', 'addColumn', 'addColumn', 'addColumn',
      'createRole', 'createRole',
    ]);
    const pulledA = await pull(t, a);
    // Keys come sorted, references name table keys, no ids anywhere.
    expect(pulledA.snapshot.tables.map((x) => x.key)).toEqual(['authors', 'posts']);
    expect(pulledA.snapshot.tables[1].columns.map((c) => c.name)).toEqual(['title', 'slug', 'body', 'author', 'tags', 'views', 'meta']);
    expect(pulledA.snapshot.tables[1].columns[3].settings).toEqual({ onDelete: 'restrict', table: 'authors' });
    expect(pulledA.snapshot.roles[1].rules).toEqual([{ table: 'posts', actions: ['read', 'update'], where: [{ i: 'views', v: 10, w: 'lt' }] }]);
    expect(pulledA.text).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);

    const b = await newProject();
    changesOf(await apply(t, b, pulledA.snapshot));
    const pulledB = await pull(t, b);
    expect(pulledB.text).toBe(pulledA.text);
    expect(changesOf(await apply(t, b, pulledA.snapshot))).toEqual([]);
    expect(changesOf(await diff(t, b, pulledA.snapshot))).toEqual([]);
    // The tables work: a row referencing an author, its slug derived, its default taken.
    const author = expectCreated(await t.call('POST', `/v1/${b}/tables/authors/contents`, { body: { data: { name: 'Ann', email: 'ann@example.com' } } }));
    const post = expectCreated(await t.call('POST', `/v1/${b}/tables/posts/contents`, { body: { data: { title: 'Hello world', author: author.id } } }));
    expect(post).toMatchObject({ status: 'DRAFT', data: { slug: 'hello-world', views: 0, author: author.id } });
  });

  it('a snapshot that is wrong on its own is 422 naming each problem by path', async () => {
    const p = await newProject();
    const bad = copy(RICH);
    bad.locales = ['en'];
    bad.tables[1].columns[3].settings.table = 'nowhere';
    bad.tables[1].columns.push(column('title', 'text'));
    bad.tables[0].columns[0].settings = { required: 'yes' };
    bad.roles.push({ name: 'EDITOR', description: '', rules: [] });
    const error = expectError(await apply(t, p, bad), 422, 'VALIDATION_ERROR');
    expect(error.details!.map((d) => d.field).sort()).toEqual(
      ['locales', 'roles.EDITOR.name', 'tables.authors.columns.name.settings', 'tables.posts.columns.author.settings.table', 'tables.posts.columns.title.name'].sort(),
    );
    expect((await pull(t, p)).snapshot.tables).toEqual([]);
  });

  it('a role whose rules name a column the snapshot does not have is 422 and nothing is applied', async () => {
    const p = await newProject();
    const bad = copy(RICH);
    bad.roles[0].rules = [{ table: 'posts', actions: ['read'], fields: { read: ['nope'] } }];
    const error = expectError(await apply(t, p, bad), 422, 'VALIDATION_ERROR');
    expect(error.details!.map((d) => d.field)).toEqual(['roles.reviewer.rules.0.fields.read.0']);
    expect((await pull(t, p)).snapshot.tables).toEqual([]);
  });
});

describe('plans against stored rows', () => {
  /** A project with `items(title text, n integer, code text)` and three rows. */
  async function withRows() {
    const p = await newProject();
    const base: Snapshot = { format: 1, locales: ['en', 'fr'], defaultLocale: 'en', roles: [], tables: [table('items', [column('title', 'text'), column('n', 'integer'), column('code', 'text')])] };
    changesOf(await apply(t, p, base));
    const ids: string[] = [];
    for (const data of [{ title: 'a', n: 1, code: '10' }, { title: 'b', n: 2, code: '20' }, { title: 'c', code: 'x' }]) {
      ids.push(expectCreated(await t.call('POST', `/v1/${p}/tables/items/contents`, { body: { data } })).id);
    }
    return { p, base, ids };
  }

  it('renamedFrom renames the column and keeps its values; the next apply of the same snapshot changes nothing', async () => {
    const { p, base } = await withRows();
    const next = copy(base);
    next.tables[0].columns[0] = { ...column('headline', 'text'), renamedFrom: 'title' };
    const changes = changesOf(await apply(t, p, next));
    expect(changes).toEqual([{ op: 'updateColumn', table: 'items', column: 'headline', from: { name: 'title', label: 'title' }, to: { name: 'headline', label: 'headline' }, destructive: false }]);
    expect((await rowsOf(p, 'items')).map((r) => r.data.headline)).toEqual(['a', 'b', 'c']);
    expect(changesOf(await apply(t, p, next))).toEqual([]);
  });

  it('integer → text converts the values; text → integer converts when every value parses, else 422 naming the rows', async () => {
    const { p, base, ids } = await withRows();
    const asText = copy(base);
    asText.tables[0].columns[1].type = 'text';
    expect(changesOf(await apply(t, p, asText))).toMatchObject([{ op: 'updateColumn', column: 'n', from: { type: 'integer' }, to: { type: 'text' }, destructive: false }]);
    expect((await rowsOf(p, 'items')).map((r) => r.data.n ?? null)).toEqual(['1', '2', null]);

    const codeAsInteger = copy(asText);
    codeAsInteger.tables[0].columns[2].type = 'integer';
    expectRows422(await apply(t, p, codeAsInteger, { allowDestructive: true }), 'tables.items.columns.code', [ids[2]]);
    expect((await rowsOf(p, 'items')).map((r) => r.data.code)).toEqual(['10', '20', 'x']);
    // Once the odd value is fixed, the change goes through and the values are numbers.
    expectStatus(await t.call('PUT', `/v1/${p}/tables/items/contents/${ids[2]}`, { body: { data: { code: '30' } } }), 200);
    changesOf(await apply(t, p, codeAsInteger));
    expect((await rowsOf(p, 'items')).map((r) => r.data.code)).toEqual([10, 20, 30]);
  });

  it('a lossy conversion is destructive, with the rows it concerns', async () => {
    const { p, base, ids } = await withRows();
    expectStatus(await t.call('PUT', `/v1/${p}/tables/items/contents/${ids[2]}`, { body: { data: { code: '007' } } }), 200);
    const next = copy(base);
    next.tables[0].columns[2].type = 'integer';
    const error = expectError(await apply(t, p, next), 409, 'CONFLICT');
    expect(error.message).toContain('updateColumn items.code (1 row)');
    const planned = changesOf(await diff(t, p, next));
    expect(planned).toMatchObject([{ op: 'updateColumn', column: 'code', destructive: true, rows: 1 }]);
    changesOf(await apply(t, p, next, { allowDestructive: true }));
    expect((await rowsOf(p, 'items')).map((r) => r.data.code)).toEqual([10, 20, 7]);
  });

  it('new constraints the rows break: required without values, unique with a shared default: 422 naming the rows; nothing applied', async () => {
    const { p, base, ids } = await withRows();
    const next = copy(base);
    next.tables[0].columns.push(column('sku', 'text', { required: true }), column('ean', 'text', { unique: true, defaultValue: 'E' }));
    next.tables[0].columns[0].settings = { unique: true };
    next.tables.push(table('fresh', [column('x', 'text')]));
    const error = expectRows422(await apply(t, p, next), 'tables.items.columns.sku', ids);
    expectRows422(await apply(t, p, next), 'tables.items.columns.ean', ids);
    expect(error.details).toHaveLength(2);
    expect(await pull(t, p).then((s) => s.snapshot)).toEqual(base);
    // Duplicates in an existing column made unique:
    expectStatus(await t.call('PUT', `/v1/${p}/tables/items/contents/${ids[1]}`, { body: { data: { title: 'a' } } }), 200);
    const unique = copy(base);
    unique.tables[0].columns[0].settings = { unique: true };
    expectRows422(await apply(t, p, unique), 'tables.items.columns.title', [ids[0], ids[1]]);
  });

  it('drops are destructive: 409 naming them with their row counts; allowDestructive applies them; dryRun changes nothing', async () => {
    const { p, base } = await withRows();
    const next = copy(base);
    next.tables[0].columns.splice(1, 1);
    next.tables.push(table('other', []));
    const refused = expectError(await apply(t, p, next), 409, 'CONFLICT');
    expect(refused.message).toContain('dropColumn items.n (2 rows)');

    const dry = changesOf(await apply(t, p, next, { allowDestructive: true, dryRun: true }));
    expect(dry).toEqual([
      { op: 'createTable', table: 'other', to: { name: 'other', description: '', defaultStatus: 'PUBLISHED' }, destructive: false },
      { op: 'dropColumn', table: 'items', column: 'n', from: { label: 'n', type: 'integer', settings: {} }, destructive: true, rows: 2 },
    ]);
    expect((await pull(t, p)).snapshot).toEqual(base);

    expect(changesOf(await apply(t, p, next, { allowDestructive: true }))).toEqual(dry);
    expect((await pull(t, p)).snapshot).toEqual(next);
    expect((await rowsOf(p, 'items')).every((r) => !('n' in r.data))).toBe(true);

    const dropped = copy(next);
    dropped.tables = dropped.tables.filter((x) => x.key !== 'items');
    expect(changesOf(await diff(t, p, dropped))).toEqual([{ op: 'dropTable', table: 'items', from: { name: 'items', description: '', defaultStatus: 'PUBLISHED' }, destructive: true, rows: 3 }]);
    changesOf(await apply(t, p, dropped, { allowDestructive: true }));
    expectError(await t.call('GET', `/v1/${p}/tables/items`), 404, 'NOT_FOUND');
  });

  it('column order follows the snapshot; table fields and roles are updated in place', async () => {
    const { p, base } = await withRows();
    const next = copy(base);
    next.tables[0].columns.reverse();
    next.tables[0].description = 'Things';
    next.roles = [{ name: 'r', description: 'one', rules: [{ table: 'items', actions: ['read'] }] }];
    const changes = changesOf(await apply(t, p, next));
    expect(changes).toEqual([
      { op: 'updateTable', table: 'items', from: { description: '', columns: ['title', 'n', 'code'] }, to: { description: 'Things', columns: ['code', 'n', 'title'] }, destructive: false },
      { op: 'createRole', role: 'r', to: { description: 'one', rules: [{ table: 'items', actions: ['read'] }] }, destructive: false },
    ]);
    expect((await pull(t, p)).snapshot).toEqual(next);
    const listed = expectStatus(await t.call('GET', `/v1/${p}/tables/items/columns`), 200).list.map((c: { name: string }) => c.name);
    expect(listed).toEqual(['code', 'n', 'title']);
    const renamedRole = copy(next);
    renamedRole.roles[0].rules = [{ table: 'items', actions: ['read', 'create'] }];
    expect(changesOf(await apply(t, p, renamedRole))).toMatchObject([{ op: 'updateRole', role: 'r', from: { rules: [{ actions: ['read'] }] } }]);
  });
});

describe('bodies', () => {
  it('wrong JSON types are 400 on both faces, not coerced: allowDestructive "true", format "1", settings a string', async () => {
    const p = await newProject();
    const empty = { format: 1, locales: ['en', 'fr'], defaultLocale: 'en', tables: [], roles: [] };
    expectError(await t.call('POST', schemaPath(p, 'apply'), { body: { snapshot: empty, allowDestructive: 'true' } }), 400, 'BAD_REQUEST');
    expectError(await t.call('POST', schemaPath(p, 'apply'), { body: { snapshot: { ...empty, format: '1' } } }), 400, 'BAD_REQUEST');
    expectError(await t.call('POST', schemaPath(p, 'diff'), { body: { snapshot: { ...empty, tables: [table('a', [{ ...column('x', 'text'), settings: 'no' as never }])] } } }), 400, 'BAD_REQUEST');
    const trpc = await t.call('POST', '/trpc/schema.applySnapshot', { body: { projectId: p, snapshot: empty, dryRun: 'false' } });
    expect(trpc.status).toBe(400);
    expect(changesOf(await apply(t, p, empty, { dryRun: false }))).toEqual([]);
  });
});

describe('access: project ADMIN only', () => {
  it('EDITOR and VIEWER members, read and read_write keys, custom roles: 403 on pull, diff and apply', async () => {
    const { snapshot } = await pull(t, w.projectId);
    const editor = await person(t, w.workspaceId, w.projectId, 'EDITOR');
    const viewer = await person(t, w.workspaceId, w.projectId, 'VIEWER');
    const custom = await roleKey(w, [{ table: '*', actions: ['read', 'create', 'update', 'delete', 'publish'] }]);
    const member = await person(t, w.workspaceId);
    expectCreated(await t.call('POST', `/v1/workspaces/${w.workspaceId}/projects/${w.projectId}/members`, { body: { accountId: member.accountId, role: custom.roleId } }));
    for (const token of [editor.token, viewer.token, w.readKey, w.writeKey, custom.key, member.token]) {
      expectError(await t.call('GET', schemaPath(w.projectId), { token }), 403, 'FORBIDDEN');
      expectError(await t.call('POST', schemaPath(w.projectId, 'diff'), { token, body: { snapshot } }), 403, 'FORBIDDEN');
      expectError(await t.call('POST', schemaPath(w.projectId, 'apply'), { token, body: { snapshot } }), 403, 'FORBIDDEN');
    }
    const admin = await person(t, w.workspaceId, w.projectId, 'ADMIN');
    expectStatus(await t.call('GET', schemaPath(w.projectId), { token: admin.token }), 200);
  });
});
