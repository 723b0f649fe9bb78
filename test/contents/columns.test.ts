import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  addColumn, buildWorld, columnsPath, createRow, createTable, expectBadRequest, expectConflict, expectCreated, expectError,
  expectNoContent, expectStatus, expectValidation, getRow, GHOST, ISO_UTC, list, putRow, tablesPath, type Table, type World,
} from './fixture.js';

let t: TestApi;
let w: World;
let target: Table;

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  target = await createTable(w, [{ name: 'name', type: 'text' }]);
});
afterAll(async () => t?.close());

const post = (table: string, body: Record<string, unknown>) => t.call('POST', columnsPath(w, table), { body });
const put = (table: string, column: string, body: Record<string, unknown>) => t.call('PUT', columnsPath(w, table, column), { body });

/** docs/contents.md#tables-and-columns: every type with every setting that applies to it. */
const EVERY_TYPE = () => [
  { name: 'title', type: 'text', settings: { required: true, unique: true, minText: 1, maxText: 80, pattern: '[A-Za-z ]+', localized: false, defaultValue: 'Untitled' } },
  { name: 'body', type: 'longtext', settings: { minText: 0, maxText: 10000, localized: true, required: false } },
  { name: 'price', type: 'number', settings: { min: -1.5, max: 99.5, defaultValue: 1.25 } },
  { name: 'qty', type: 'integer', settings: { min: 0, max: 10, unique: false, defaultValue: 3 } },
  { name: 'flag', type: 'boolean', settings: { defaultValue: false } },
  { name: 'day', type: 'date', settings: { defaultValue: '2024-02-29' } },
  { name: 'at', type: 'datetime', settings: { unique: true } },
  { name: 'mail', type: 'email', settings: { unique: true, defaultValue: 'a@example.com' } },
  { name: 'site', type: 'url', settings: { localized: true } },
  { name: 'color', type: 'select', settings: { options: ['red', 'green'], defaultValue: 'red' } },
  { name: 'tags', type: 'select', settings: { options: ['a', 'b', 'c'], multiple: true, defaultValue: ['a'] } },
  { name: 'meta', type: 'json', settings: { defaultValue: { any: ['json'] } } },
  { name: 'slug', type: 'slug', settings: { source: 'title', required: false } },
  { name: 'ref', type: 'reference', settings: { table: target.id } },
  { name: 'refs', type: 'reference', settings: { table: target.id, multiple: true } },
  { name: 'image', type: 'file', settings: {} },
  { name: 'gallery', type: 'file', settings: { multiple: true } },
];

describe('columns: types and settings', () => {
  it('every type is accepted with every setting that applies; positions follow creation order', async () => {
    const table = await createTable(w);
    const specs = EVERY_TYPE();
    const created = [];
    for (const spec of specs) {
      const column = expectCreated(await post(table.id, spec), `/${w.projectId}/tables/${table.id}/columns`);
      expect(Object.keys(column).sort()).toEqual(['createdAt', 'id', 'label', 'name', 'position', 'settings', 'type', 'updatedAt']);
      expect(column).toMatchObject({ name: spec.name, type: spec.type, label: spec.name, settings: spec.settings });
      expect(column.createdAt).toMatch(ISO_UTC);
      created.push(column);
    }
    const positions = created.map((c) => c.position);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(new Set(positions).size).toBe(positions.length);
    const listed = expectStatus(await t.call('GET', `${columnsPath(w, table.id)}?size=100`, { token: w.readKey }), 200);
    expect(listed.list.map((c: { name: string }) => c.name)).toEqual(specs.map((s) => s.name));
    expect(listed.pagination).toMatchObject({ page: 1, size: 100, total: specs.length, pages: 1 });
    // Paging keeps position order.
    const page2 = expectStatus(await t.call('GET', `${columnsPath(w, table.id)}?size=5&page=2`), 200);
    expect(page2.list.map((c: { name: string }) => c.name)).toEqual(specs.slice(5, 10).map((s) => s.name));
    // The defaults apply to a new row.
    const row = await createRow(w, table.id, { at: '2024-01-01T00:00:00Z' });
    expect(row.data).toMatchObject({ title: 'Untitled', price: 1.25, qty: 3, flag: false, day: '2024-02-29', mail: 'a@example.com', color: 'red', tags: ['a'], meta: { any: ['json'] } });
    expect(row.slug).toBe('untitled');
  });

  it('a label is kept; a column is readable by id and by name', async () => {
    const table = await createTable(w);
    const col = await addColumn(w, table.id, { name: 'headline', type: 'text', label: 'Headline' });
    expect(col.label).toBe('Headline');
    expect(expectStatus(await t.call('GET', columnsPath(w, table.id, 'headline')), 200).id).toBe(col.id);
    expect(expectStatus(await t.call('GET', columnsPath(w, table.key, col.id), { token: w.readKey }), 200).name).toBe('headline');
    expectError(await t.call('GET', columnsPath(w, table.id, 'nope')), 404, 'NOT_FOUND');
    expectError(await t.call('GET', columnsPath(w, table.id, GHOST)), 404, 'NOT_FOUND');
  });

  it('settings that do not apply to the type, or unknown ones, are 400 naming settings.<key>', async () => {
    const table = await createTable(w);
    const cases: [string, Record<string, unknown>, string][] = [
      ['number', { minText: 1 }, 'settings.minText'],
      ['integer', { pattern: 'x' }, 'settings.pattern'],
      ['text', { min: 1 }, 'settings.min'],
      ['text', { options: ['a'] }, 'settings.options'],
      ['text', { multiple: true }, 'settings.multiple'],
      ['longtext', { pattern: 'x' }, 'settings.pattern'],
      ['email', { localized: true }, 'settings.localized'],
      ['boolean', { max: 1 }, 'settings.max'],
      ['date', { localized: true }, 'settings.localized'],
      ['datetime', { min: 0 }, 'settings.min'],
      ['json', { maxText: 3 }, 'settings.maxText'],
      ['slug', { localized: true }, 'settings.localized'],
      ['select', { options: ['a'], table: target.id }, 'settings.table'],
      ['reference', { table: target.id, options: ['a'] }, 'settings.options'],
      ['file', { source: 'x' }, 'settings.source'],
      ['url', { pattern: 'x' }, 'settings.pattern'],
      ['text', { colour: 'red' }, 'settings.colour'],
    ];
    for (const [type, settings, field] of cases) expectBadRequest(await post(table.id, { name: 'c', type, settings }), field);
    expect(expectStatus(await t.call('GET', columnsPath(w, table.id)), 200).list).toEqual([]);
  });

  it('settings of the wrong kind are 400 naming the setting', async () => {
    const table = await createTable(w);
    const cases: [string, Record<string, unknown>, string][] = [
      ['text', { required: 'yes' }, 'settings.required'],
      ['text', { unique: 1 }, 'settings.unique'],
      ['text', { minText: -1 }, 'settings.minText'],
      ['text', { maxText: 1.5 }, 'settings.maxText'],
      ['text', { minText: 5, maxText: 2 }, 'settings.minText'],
      ['text', { pattern: '(' }, 'settings.pattern'],
      ['text', { localized: 'yes' }, 'settings.localized'],
      ['number', { min: 'zero' }, 'settings.min'],
      ['number', { min: 5, max: 1 }, 'settings.min'],
      ['select', { options: [] }, 'settings.options'],
      ['select', { options: 'a,b' }, 'settings.options'],
      ['select', { options: ['a', 'a'] }, 'settings.options'],
      ['select', { options: ['a'], multiple: 'no' }, 'settings.multiple'],
      ['slug', { source: '' }, 'settings.source'],
    ];
    for (const [type, settings, field] of cases) expectBadRequest(await post(table.id, { name: 'c', type, settings }), field);
  });

  it('missing options (select) or table (reference) is 400; so are a bad name, a bad type and no type', async () => {
    const table = await createTable(w);
    expectBadRequest(await post(table.id, { name: 'c', type: 'select' }), 'settings.options');
    expectBadRequest(await post(table.id, { name: 'c', type: 'select', settings: { multiple: true } }), 'settings.options');
    expectBadRequest(await post(table.id, { name: 'c', type: 'reference' }), 'settings.table');
    expectBadRequest(await post(table.id, { name: 'c', type: 'reference', settings: { multiple: true } }), 'settings.table');
    for (const name of ['1a', '_a', 'a-b', 'a b', '', 'a'.repeat(64)]) expectBadRequest(await post(table.id, { name, type: 'text' }), 'name');
    expectBadRequest(await post(table.id, { type: 'text' }), 'name');
    expectBadRequest(await post(table.id, { name: 'c', type: 'string' }), 'type');
    expectBadRequest(await post(table.id, { name: 'c' }), 'type');
    expectBadRequest(await post(table.id, { name: 'c', type: 'text', settings: ['required'] }), 'settings');
  });

  it('a reference to an unknown, deleted or foreign table (by id or key) is 422 settings.table', async () => {
    const table = await createTable(w);
    const gone = await createTable(w);
    expectNoContent(await t.call('DELETE', tablesPath(w, gone.id)));
    const otherProject = await t.call('POST', `/v1/workspaces/${w.workspaceId}/projects`, { body: { name: 'Other' } });
    const foreign = expectCreated(await t.call('POST', `/v1/${otherProject.json.id}/tables`, { body: { key: 'foreign', name: 'F' } }));
    for (const ref of [GHOST, gone.id, gone.key, foreign.id, foreign.key, 'no_such_table', 'not-a-key']) {
      expectValidation(await post(table.id, { name: 'r', type: 'reference', settings: { table: ref } }), ['settings.table']);
    }
    // A table may reference itself.
    expectCreated(await post(table.id, { name: 'parent', type: 'reference', settings: { table: table.id } }));
  });

  it("a reference may name its table by key, on create and update: the table's id is stored and returned", async () => {
    const table = await createTable(w);
    const other = await createTable(w, [{ name: 'name', type: 'text' }]);
    const column = expectCreated(await post(table.id, { name: 'author', type: 'reference', settings: { table: target.key } }));
    expect(column.settings).toEqual({ table: target.id });
    expect(expectStatus(await t.call('GET', columnsPath(w, table.id, 'author')), 200).settings).toEqual({ table: target.id });

    expect(expectStatus(await put(table.id, 'author', { settings: { table: other.key } }), 200).settings).toEqual({ table: other.id });
    expectValidation(await put(table.id, 'author', { settings: { table: 'no_such_table' } }), ['settings.table']);
    // Changing another setting keeps the stored id, which outlives a change of the table's key.
    expectStatus(await t.call('PUT', tablesPath(w, other.id), { body: { key: `${other.key}_renamed` } }), 200);
    expect(expectStatus(await put(table.id, 'author', { settings: { multiple: true } }), 200).settings).toEqual({ table: other.id, multiple: true });
    // Values are ids of rows of the referenced table.
    const author = await createRow(w, other.id, { name: 'Ada' });
    expect((await createRow(w, table.id, { author: [author.id] })).data).toEqual({ author: [author.id] });
    // On a column of another type, `table` is still a setting that does not apply (400).
    expectBadRequest(await post(table.id, { name: 'plain', type: 'text', settings: { table: target.key } }), 'settings.table');
  });

  it('slug source must name a text column of the table (422 settings.source)', async () => {
    const table = await createTable(w, [{ name: 'title', type: 'text' }, { name: 'count', type: 'integer' }]);
    expectValidation(await post(table.id, { name: 'slug', type: 'slug', settings: { source: 'nope' } }), ['settings.source']);
    expectValidation(await post(table.id, { name: 'slug', type: 'slug', settings: { source: 'count' } }), ['settings.source']);
    expectCreated(await post(table.id, { name: 'slug', type: 'slug', settings: { source: 'title' } }));
  });

  it('an invalid defaultValue is 422 settings.defaultValue', async () => {
    const table = await createTable(w);
    const cases: [string, Record<string, unknown>][] = [
      ['integer', { defaultValue: 1.5 }],
      ['number', { min: 0, defaultValue: -1 }],
      ['text', { maxText: 2, defaultValue: 'abc' }],
      ['select', { options: ['a'], defaultValue: 'b' }],
      ['date', { defaultValue: '2024-13-01' }],
      ['boolean', { defaultValue: 'true' }],
      ['email', { defaultValue: 'nope' }],
    ];
    for (const [type, settings] of cases) expectValidation(await post(table.id, { name: 'd', type, settings }), ['settings.defaultValue']);
  });

  it('a second slug column is 409; a duplicate name is 409 naming name', async () => {
    const table = await createTable(w, [{ name: 'title', type: 'text' }, { name: 'slug', type: 'slug' }]);
    expectConflict(await post(table.id, { name: 'slug2', type: 'slug' }), 'slug');
    expectConflict(await post(table.id, { name: 'title', type: 'longtext' }), 'name');
    // Changing another column's type to slug is the same conflict.
    expectConflict(await put(table.id, 'title', { type: 'slug' }), 'slug');
    // Renaming onto an existing name too.
    await addColumn(w, table.id, { name: 'other', type: 'text' });
    expectConflict(await put(table.id, 'other', { name: 'title' }), 'name');
  });

  it('concurrent creates of one name, or of two slug columns: one 201, the others 409', async () => {
    const table = await createTable(w);
    const same = await Promise.all(Array.from({ length: 5 }, () => post(table.id, { name: 'dup', type: 'text' })));
    expect(same.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    for (const r of same.filter((x) => x.status === 409)) expectConflict(r, 'name');
    const slugs = await Promise.all(['s1', 's2', 's3'].map((name) => post(table.id, { name, type: 'slug' })));
    expect(slugs.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    const listed = expectStatus(await t.call('GET', columnsPath(w, table.id)), 200).list;
    expect(listed.filter((c: { type: string }) => c.type === 'slug')).toHaveLength(1);
    expect(listed.filter((c: { name: string }) => c.name === 'dup')).toHaveLength(1);
  });

  it('PUT on an unknown column is 404 (before 400); a bad name or type is 400', async () => {
    const table = await createTable(w, [{ name: 'a', type: 'text' }]);
    expectError(await put(table.id, 'nope', { name: 'b' }), 404, 'NOT_FOUND');
    expectError(await put(table.id, GHOST, { type: 'wrong' }), 404, 'NOT_FOUND');
    expectBadRequest(await put(table.id, 'a', { name: '1bad' }), 'name');
    expectBadRequest(await put(table.id, 'a', { type: 'wrong' }), 'type');
    expectBadRequest(await put(table.id, 'a', { type: 'select' }), 'settings.options');
    expect(expectStatus(await put(table.id, 'a', { type: 'select', settings: { options: ['x'] } }), 200).type).toBe('select');
  });

  it('PUT merges settings key by key; null removes a setting; fields absent keep their values', async () => {
    const table = await createTable(w);
    const col = await addColumn(w, table.id, { name: 'price', type: 'number', label: 'Price', settings: { min: 0, max: 10, required: true } });
    const up = expectStatus(await put(table.id, col.id, { settings: { max: 20, unique: true } }), 200);
    expect(up).toMatchObject({ id: col.id, name: 'price', label: 'Price', type: 'number', position: col.position });
    expect(up.settings).toEqual({ min: 0, max: 20, required: true, unique: true });
    const removed = expectStatus(await put(table.id, 'price', { settings: { min: null, required: null } }), 200);
    expect(removed.settings).toEqual({ max: 20, unique: true });
    expect(expectStatus(await t.call('GET', columnsPath(w, table.id, col.id)), 200).settings).toEqual({ max: 20, unique: true });
    // The merged result is checked like a new definition.
    expectBadRequest(await put(table.id, col.id, { settings: { pattern: 'x' } }), 'settings.pattern');
    expectBadRequest(await put(table.id, col.id, { settings: { min: 30 } }), 'settings.min');
    // The new rules apply to new writes at once.
    expectValidation(await t.call('POST', `${tablesPath(w, table.id)}/contents`, { token: w.writeKey, body: { data: { price: 21 } } }), ['data.price']);
  });

  it('rename: values follow the column; the old name is unknown; label is kept', async () => {
    const table = await createTable(w, [{ name: 'title', type: 'text', label: 'Title', settings: { unique: true } }]);
    const row = await createRow(w, table.id, { title: 'Hello' });
    const up = expectStatus(await put(table.id, 'title', { name: 'headline' }), 200);
    expect(up).toMatchObject({ name: 'headline', label: 'Title' });
    expect(expectStatus(await getRow(w, table.id, row.id), 200).data).toEqual({ headline: 'Hello' });
    expectValidation(await t.call('POST', `${tablesPath(w, table.id)}/contents`, { token: w.writeKey, body: { data: { title: 'x' } } }), ['data.title']);
    // The unique rule moved with it.
    expectConflict(await t.call('POST', `${tablesPath(w, table.id)}/contents`, { token: w.writeKey, body: { data: { headline: 'Hello' } } }), 'data.headline');
    const found = await list(w, table.id, w.readKey, { filter: [{ i: 'headline', w: 'eq', v: 'Hello' }] });
    expect(found.list.map((r) => r.id)).toEqual([row.id]);
    expect(expectStatus(await putRow(w, table.id, row.id, { data: { headline: 'Bye' } }), 200).data).toEqual({ headline: 'Bye' });
  });

  it('delete is 204; then 404; a new column is appended after the others', async () => {
    const table = await createTable(w, [{ name: 'a', type: 'text' }, { name: 'b', type: 'text' }]);
    expectNoContent(await t.call('DELETE', columnsPath(w, table.id, 'a')));
    expectError(await t.call('GET', columnsPath(w, table.id, 'a')), 404, 'NOT_FOUND');
    expectError(await t.call('DELETE', columnsPath(w, table.id, table.columns.a.id)), 404, 'NOT_FOUND');
    const c = await addColumn(w, table.id, { name: 'c', type: 'text' });
    expect(c.position).toBeGreaterThan(table.columns.b.position);
    expect(expectStatus(await t.call('GET', columnsPath(w, table.id)), 200).list.map((x: { name: string }) => x.name)).toEqual(['b', 'c']);
  });

  it('read keys list and read columns; writes are 403 (read_write keys may change the schema)', async () => {
    const table = await createTable(w, [{ name: 'a', type: 'text' }]);
    expectStatus(await t.call('GET', columnsPath(w, table.id), { token: w.readKey }), 200);
    expectError(await t.call('POST', columnsPath(w, table.id), { token: w.readKey, body: { name: 'b', type: 'text' } }), 403, 'FORBIDDEN');
    expectError(await t.call('PUT', columnsPath(w, table.id, 'a'), { token: w.readKey, body: { label: 'x' } }), 403, 'FORBIDDEN');
    expectError(await t.call('DELETE', columnsPath(w, table.id, 'a'), { token: w.readKey }), 403, 'FORBIDDEN');
    expectCreated(await t.call('POST', columnsPath(w, table.id), { token: w.writeKey, body: { name: 'b', type: 'text' } }));
  });
});
