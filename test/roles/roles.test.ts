import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { person } from '../auth/fixture.js';
import {
  buildWorld,
  createTable,
  expectBadRequest,
  expectConflict,
  expectCreated,
  expectError,
  expectNoContent,
  expectStatus,
  expectValidation,
  GHOST,
  ISO_UTC,
  type Table,
  type World,
} from '../contents/fixture.js';

/** Roles: GET|POST /v1/{projectId}/roles, GET|PUT|DELETE …/roles/{roleId} (docs/roles.md). */

let t: TestApi;
let w: World;
let authors: Table;
let articles: Table;
const path = (projectId = w.projectId) => `/v1/${projectId}/roles`;
const create = (body: Record<string, unknown>, token?: string | null) => t.call('POST', path(), { token, body });
const withRules = (rules: unknown[], name = `r-${Math.random().toString(36).slice(2)}`) => create({ name, rules });
const FIELDS = ['builtIn', 'createdAt', 'description', 'id', 'name', 'rules', 'updatedAt'];

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  authors = await createTable(w, [
    { name: 'name', type: 'text' },
    { name: 'account', type: 'text' },
  ]);
  articles = await createTable(w, [
    { name: 'title', type: 'text', settings: { localized: true } },
    { name: 'body', type: 'longtext' },
    { name: 'price', type: 'number' },
    { name: 'day', type: 'date' },
    { name: 'author', type: 'reference', settings: { table: authors.id } },
  ]);
});
afterAll(async () => t?.close());

describe('CRUD', () => {
  it('create (201, Location), read, update, list, delete', async () => {
    const rules = [
      { table: articles.key, actions: ['read', 'update'], where: [{ i: 'author.account', w: 'eq', v: '$me' }], fields: { write: ['title.fr', 'body'] } },
      { table: '$files', actions: ['read'], where: [{ i: 'mimeType', w: 'startsWith', v: 'image/' }] },
    ];
    const res = await create({ name: 'Translator', description: 'Translates into French', rules });
    const role = expectCreated(res, `/${w.projectId}/roles`);
    expect(Object.keys(role).sort()).toEqual(FIELDS);
    expect(role).toMatchObject({ name: 'Translator', description: 'Translates into French', rules, builtIn: false });
    expect(role.createdAt).toMatch(ISO_UTC);
    expect(expectStatus(await t.call('GET', res.headers.get('location')!), 200)).toEqual(role);

    const changed = expectStatus(await t.call('PUT', `${path()}/${role.id}`, { body: { name: 'French translator' } }), 200);
    expect(changed).toMatchObject({ id: role.id, name: 'French translator', description: 'Translates into French', rules });
    const newRules = [{ table: '*', actions: ['read'], statuses: ['PUBLISHED'], drafts: true }];
    const replaced = expectStatus(await t.call('PUT', `${path()}/${role.id}`, { body: { rules: newRules } }), 200);
    expect(replaced.rules).toEqual(newRules);
    expect(Date.parse(replaced.updatedAt)).toBeGreaterThanOrEqual(Date.parse(role.updatedAt));

    const listed = expectStatus(await t.call('GET', `${path()}?size=1000`), 200);
    expect(listed.list.find((r: { id: string }) => r.id === role.id)).toEqual(replaced);

    expectNoContent(await t.call('DELETE', `${path()}/${role.id}`));
    expectError(await t.call('GET', `${path()}/${role.id}`), 404, 'NOT_FOUND');
    expectError(await t.call('DELETE', `${path()}/${role.id}`), 404, 'NOT_FOUND');
  });

  it('lists the built-ins first, then custom roles oldest first, paged together', async () => {
    const pr = await t.call('POST', `/v1/workspaces/${w.workspaceId}/projects`, { body: { name: 'Roles paging' } });
    const base = path(pr.json.id);
    for (const name of ['a', 'b']) expectCreated(await t.call('POST', base, { body: { name, rules: [] } }));
    const all = expectStatus(await t.call('GET', base), 200);
    expect(all.list.map((r: { name: string }) => r.name)).toEqual(['ADMIN', 'EDITOR', 'VIEWER', 'a', 'b']);
    expect(all.pagination).toEqual({ page: 1, size: 20, total: 5, pages: 1, hasNext: false });
    const second = expectStatus(await t.call('GET', `${base}?size=2&page=2`), 200);
    expect(second.list.map((r: { name: string }) => r.name)).toEqual(['VIEWER', 'a']);
    expect(second.pagination).toEqual({ page: 2, size: 2, total: 5, pages: 3, hasNext: true });
    const third = expectStatus(await t.call('GET', `${base}?size=2&page=3&withCount=false`), 200);
    expect(third.list.map((r: { name: string }) => r.name)).toEqual(['b']);
    expect(third.pagination).toEqual({ page: 3, size: 2, total: null, pages: null, hasNext: false });
    const first = expectStatus(await t.call('GET', `${base}?size=3`), 200);
    expect(first.pagination.hasNext).toBe(true);
  });
});

describe('built-in roles', () => {
  it('ADMIN, EDITOR, VIEWER come first, with their id = name and their rules', async () => {
    const { list } = expectStatus(await t.call('GET', path()), 200);
    const [admin, editor, viewer] = list;
    for (const role of [admin, editor, viewer]) {
      expect(Object.keys(role).sort()).toEqual(FIELDS);
      expect(role.builtIn).toBe(true);
      expect(role.id).toBe(role.name);
      expect(role.description.length).toBeGreaterThan(0);
    }
    expect([admin.name, editor.name, viewer.name]).toEqual(['ADMIN', 'EDITOR', 'VIEWER']);
    const everything = [{ table: '*', actions: ['read', 'create', 'update', 'delete', 'publish'], drafts: true }];
    expect(admin.rules).toEqual(everything);
    expect(editor.rules).toEqual(everything);
    expect(viewer.rules).toEqual([{ table: '*', actions: ['read'], drafts: true }]);
    expect(expectStatus(await t.call('GET', `${path()}/VIEWER`), 200)).toEqual(viewer);
  });

  it('cannot be changed or deleted (409), nor their names taken (409)', async () => {
    for (const id of ['ADMIN', 'EDITOR', 'VIEWER']) {
      expectError(await t.call('PUT', `${path()}/${id}`, { body: { description: 'mine now' } }), 409, 'CONFLICT');
      expectError(await t.call('DELETE', `${path()}/${id}`), 409, 'CONFLICT');
    }
    expectConflict(await create({ name: 'EDITOR', rules: [] }), 'name');
    const role = expectCreated(await create({ name: 'Renamed later', rules: [] }));
    expectConflict(await t.call('PUT', `${path()}/${role.id}`, { body: { name: 'ADMIN' } }), 'name');
    expect(expectStatus(await t.call('GET', `${path()}/ADMIN`), 200).description).not.toBe('mine now');
  });

  it('a bad body on a built-in is 400 first, and invalid rules 422 before the 409', async () => {
    expectBadRequest(await t.call('PUT', `${path()}/ADMIN`, { body: { name: 12 } }), 'name');
    expectValidation(await t.call('PUT', `${path()}/ADMIN`, { body: { rules: [{ table: 'nope', actions: ['read'] }] } }), ['rules.0.table']);
  });
});

describe('access', () => {
  it('401 without a credential, 403 for API keys and for EDITOR and VIEWER members; a project ADMIN member may', async () => {
    expectError(await t.call('GET', path(), { token: null }), 401, 'UNAUTHORIZED');
    expectError(await create({ name: 'x', rules: [] }, null), 401, 'UNAUTHORIZED');
    const editor = await person(t, w.workspaceId, w.projectId, 'EDITOR');
    const viewer = await person(t, w.workspaceId, w.projectId, 'VIEWER');
    for (const token of [w.readKey, w.writeKey, editor.token, viewer.token]) {
      expectError(await t.call('GET', path(), { token }), 403, 'FORBIDDEN');
      expectError(await t.call('GET', `${path()}/ADMIN`, { token }), 403, 'FORBIDDEN');
      expectError(await create({ name: 'by-them', rules: [] }, token), 403, 'FORBIDDEN');
      expectError(await t.call('DELETE', `${path()}/${GHOST}`, { token }), 403, 'FORBIDDEN');
    }
    const admin = await person(t, w.workspaceId, w.projectId, 'ADMIN');
    expectCreated(await create({ name: 'by-admin-member', rules: [] }, admin.token));
    expectStatus(await t.call('GET', path(), { token: admin.token }), 200);
  });

  it('404 for an unknown role, a lower-case built-in name, and a role of another project', async () => {
    for (const id of [GHOST, 'nope', 'admin']) {
      expectError(await t.call('GET', `${path()}/${id}`), 404, 'NOT_FOUND');
      expectError(await t.call('PUT', `${path()}/${id}`, { body: { name: 'x' } }), 404, 'NOT_FOUND');
      expectError(await t.call('DELETE', `${path()}/${id}`), 404, 'NOT_FOUND');
    }
    const roleOfA = expectCreated(await create({ name: 'Of project A', rules: [] }));
    const b = expectStatus(await t.call('POST', `/v1/workspaces/${w.workspaceId}/projects`, { body: { name: 'B' } }), 201);
    expectError(await t.call('GET', `${path(b.id)}/${roleOfA.id}`), 404, 'NOT_FOUND');
    expectError(await t.call('PUT', `${path(b.id)}/${roleOfA.id}`, { body: { name: 'taken over' } }), 404, 'NOT_FOUND');
    expectError(await t.call('DELETE', `${path(b.id)}/${roleOfA.id}`), 404, 'NOT_FOUND');
    expect(expectStatus(await t.call('GET', `${path()}/${roleOfA.id}`), 200).name).toBe('Of project A');
    expectError(await t.call('GET', `/v1/${GHOST}/roles`), 404, 'NOT_FOUND');
  });
});

describe('names', () => {
  it('409 for a name another role of the project has; other projects may reuse it', async () => {
    expectCreated(await create({ name: 'Reviewer', rules: [] }));
    expectConflict(await create({ name: 'Reviewer', rules: [] }), 'name');
    const other = expectCreated(await create({ name: 'Other', rules: [] }));
    expectConflict(await t.call('PUT', `${path()}/${other.id}`, { body: { name: 'Reviewer' } }), 'name');
    const b = expectStatus(await t.call('POST', `/v1/workspaces/${w.workspaceId}/projects`, { body: { name: 'B2' } }), 201);
    expectCreated(await t.call('POST', path(b.id), { body: { name: 'Reviewer', rules: [] } }));
  });

  it('400 for a missing or blank name, missing rules, a wrong JSON type, an unknown key, action or status', async () => {
    expectBadRequest(await create({ rules: [] }), 'name');
    expectBadRequest(await create({ name: '  ', rules: [] }), 'name');
    expectBadRequest(await create({ name: 'no rules' }), 'rules');
    expectBadRequest(await withRules([{ table: articles.key, actions: 'read' }]), 'actions');
    expectBadRequest(await withRules([{ table: articles.key, actions: ['fly'] }]), 'actions');
    expectBadRequest(await withRules([{ table: articles.key, actions: ['read'], statuses: ['LIVE'] }]), 'statuses');
    expectBadRequest(await withRules([{ table: articles.key, actions: ['read'], drafts: 'yes' }]), 'drafts');
    expectBadRequest(await withRules([{ table: articles.key, actions: ['read'], tabel: 'x' }]), 'tabel');
    expectBadRequest(await withRules([{ table: articles.key, actions: ['read'], where: { i: 'price' } }]), 'where');
  });
});

describe('rule validation (422)', () => {
  const ok = (rules: unknown[]) => withRules(rules).then((res) => expectCreated(res));
  const refused = async (rules: unknown[], fields: string[]) => expectValidation(await withRules(rules), fields);

  it('table: a table key, "*" or "$files"; a table id or an unknown key is refused', async () => {
    await ok([{ table: articles.key, actions: ['read'] }, { table: '*', actions: ['read'] }, { table: '$files', actions: ['read', 'create', 'update', 'delete'] }]);
    await refused([{ table: 'no_such_table', actions: ['read'] }], ['rules.0.table']);
    await refused([{ table: '*', actions: ['read'] }, { table: articles.id, actions: ['read'] }], ['rules.1.table']);
  });

  it('actions: at least one, each once; files are not published', async () => {
    await refused([{ table: articles.key, actions: [] }], ['rules.0.actions']);
    await refused([{ table: articles.key, actions: ['read', 'update', 'read'] }], ['rules.0.actions.2']);
    await refused([{ table: '$files', actions: ['read', 'publish'] }], ['rules.0.actions.1']);
  });

  it('where: the list filter language against the table, dotted paths and $me/$now accepted', async () => {
    const role = await ok([
      {
        table: articles.key,
        actions: ['read', 'update'],
        where: [
          { i: 'author.account', w: 'eq', v: '$me' },
          { i: 'createdAt', w: 'lte', v: '$now' },
          { i: 'day', w: 'lt', v: '$now' },
          { i: 'title', l: 'fr', w: 'contains', v: 'x' },
          { i: 'price', w: 'between', v: [1, 10] },
          { i: 'status', w: 'in', v: ['DRAFT', 'PUBLISHED'] },
        ],
      },
    ]);
    expect(role.rules[0].where[0]).toEqual({ i: 'author.account', w: 'eq', v: '$me' });
    const unknown = await withRules([{ table: articles.key, actions: ['read'], where: [{ i: 'body', w: 'null', v: true }, { i: 'nope', w: 'eq', v: 'x' }] }]);
    expect(expectValidation(unknown, ['rules.0.where']).details![0].message).toMatch(/^where\[1\]\.i: unknown field "nope"/);
    await refused([{ table: articles.key, actions: ['read'], where: [{ i: 'price', w: 'contains', v: 'x' }] }], ['rules.0.where']);
    await refused([{ table: articles.key, actions: ['read'], where: [{ i: 'price', w: 'eq', v: 'cheap' }] }], ['rules.0.where']);
    await refused([{ table: articles.key, actions: ['read'], where: [{ i: 'author.nope', w: 'eq', v: 'x' }] }], ['rules.0.where']);
    await refused([{ table: articles.key, actions: ['read'], where: [{ i: 'title', l: 'de', w: 'eq', v: 'x' }] }], ['rules.0.where']);
    // $me is an id: not a number; $now is a time: not a text.
    await refused([{ table: articles.key, actions: ['read'], where: [{ i: 'price', w: 'eq', v: '$me' }] }], ['rules.0.where']);
    const res = await withRules([{ table: authors.key, actions: ['read'], where: [{ i: 'name', w: 'eq', v: '$now' }] }]);
    expect(expectValidation(res, ['rules.0.where']).details![0].message).toContain('$now');
  });

  it('where on "*": system fields only; on "$files": name, mimeType and size only', async () => {
    await ok([{ table: '*', actions: ['read'], where: [{ i: 'status', w: 'eq', v: 'PUBLISHED' }, { i: 'publishedAt', w: 'lte', v: '$now' }] }]);
    await refused([{ table: '*', actions: ['read'], where: [{ i: 'title', w: 'eq', v: 'x' }] }], ['rules.0.where']);
    await ok([{ table: '$files', actions: ['read'], where: [{ i: 'size', w: 'lt', v: 1000000 }, { i: 'name', w: 'endsWith', v: '.pdf' }] }]);
    await refused([{ table: '$files', actions: ['read'], where: [{ i: 'createdAt', w: 'lt', v: '$now' }] }], ['rules.0.where']);
    await refused([{ table: '$files', actions: ['read'], where: [{ i: 'size', w: 'contains', v: '1' }] }], ['rules.0.where']);
  });

  it('fields: existing columns; write may name one project locale of a localized column', async () => {
    await ok([{ table: articles.key, actions: ['read', 'update'], fields: { read: ['title', 'price'], write: ['title.fr', 'title', 'body'] } }]);
    await refused([{ table: articles.key, actions: ['read'], fields: { read: ['title', 'nope'] } }], ['rules.0.fields.read.1']);
    await refused([{ table: articles.key, actions: ['read'], fields: { read: ['price', 'price'] } }], ['rules.0.fields.read.1']);
    await refused([{ table: articles.key, actions: ['update'], fields: { write: ['body', 'price', 'title.de'] } }], ['rules.0.fields.write.2']);
    await refused([{ table: articles.key, actions: ['update'], fields: { write: ['body.fr'] } }], ['rules.0.fields.write.0']);
    await refused([{ table: articles.key, actions: ['update'], fields: { write: ['title.fr.x', 'nope'] } }], ['rules.0.fields.write.0', 'rules.0.fields.write.1']);
    await refused([{ table: '*', actions: ['read'], fields: { read: ['title'] } }], ['rules.0.fields']);
    await refused([{ table: '$files', actions: ['read'], fields: { read: ['name'] } }], ['rules.0.fields']);
  });

  it('statuses: at least one, each once; files have no status nor drafts', async () => {
    await ok([{ table: articles.key, actions: ['read'], statuses: ['PUBLISHED', 'ARCHIVED'], drafts: true, writeAsDraft: false }]);
    await refused([{ table: articles.key, actions: ['read'], statuses: [] }], ['rules.0.statuses']);
    await refused([{ table: articles.key, actions: ['read'], statuses: ['DRAFT', 'DRAFT'] }], ['rules.0.statuses.1']);
    await refused([{ table: '$files', actions: ['read'], statuses: ['PUBLISHED'], drafts: true, writeAsDraft: true }], [
      'rules.0.statuses',
      'rules.0.drafts',
      'rules.0.writeAsDraft',
    ]);
  });

  it('every violation of every rule at once; at most 100 rules; PUT checks rules as POST does', async () => {
    await refused(
      [
        { table: articles.key, actions: ['read'] },
        { table: 'nope', actions: [] },
        { table: articles.key, actions: ['read'], where: [{ i: 'nope', w: 'eq', v: 1 }], fields: { write: ['nope'] } },
      ],
      ['rules.1.table', 'rules.1.actions', 'rules.2.where', 'rules.2.fields.write.0'],
    );
    const many = Array.from({ length: 101 }, () => ({ table: '*', actions: ['read'] }));
    await refused(many, ['rules']);
    await ok(many.slice(1));
    const role = await ok([]);
    expectValidation(await t.call('PUT', `${path()}/${role.id}`, { body: { rules: [{ table: 'nope', actions: ['read'] }] } }), ['rules.0.table']);
    expect(expectStatus(await t.call('GET', `${path()}/${role.id}`), 200).rules).toEqual([]);
  });
});
