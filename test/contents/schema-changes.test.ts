import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  addColumn, buildWorld, columnsPath, createRow, createTable, expectConflict, expectCreated, expectError, expectNoContent,
  expectStatus, expectValidation, getRow, list, postRow, putRow, type World,
} from './fixture.js';

/** Columns added, changed and removed on tables that already hold rows (docs/contents.md#tables-and-columns). */

let t: TestApi;
let w: World;

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
});
afterAll(async () => t?.close());

const post = (table: string, body: Record<string, unknown>) => t.call('POST', columnsPath(w, table), { body });
const put = (table: string, column: string, body: Record<string, unknown>) => t.call('PUT', columnsPath(w, table, column), { body });
const columnNames = async (table: string) =>
  expectStatus(await t.call('GET', columnsPath(w, table)), 200).list.map((c: { name: string }) => c.name);

/** A 409 CONFLICT whose message names `field` and every id in `ids`. */
function expectRowConflict(res: Awaited<ReturnType<typeof post>>, field: string, ids: string[]) {
  const error = expectConflict(res, field);
  for (const id of ids) expect(error.message, `message must name row ${id}`).toContain(id);
  return error;
}

describe('columns on tables with rows', () => {
  it('adding a required column without a default is 409 naming the rows; nothing is added', async () => {
    const table = await createTable(w, [{ name: 'title', type: 'text' }]);
    const a = await createRow(w, table.id, { title: 'a' });
    const b = await createRow(w, table.id, { title: 'b' });
    expectRowConflict(await post(table.id, { name: 'sku', type: 'text', settings: { required: true } }), 'required', [a.id, b.id]);
    expect(await columnNames(table.id)).toEqual(['title']);
    // On an empty table the same column is fine.
    const empty = await createTable(w);
    expectCreated(await post(empty.id, { name: 'sku', type: 'text', settings: { required: true } }));
  });

  it('adding a column with a defaultValue backfills existing rows; new rows get it too', async () => {
    const table = await createTable(w, [{ name: 'title', type: 'text' }]);
    const a = await createRow(w, table.id, { title: 'a' });
    const b = await createRow(w, table.id, { title: 'b' });
    expectCreated(await post(table.id, { name: 'stock', type: 'integer', settings: { required: true, defaultValue: 5 } }));
    expectCreated(await post(table.id, { name: 'when', type: 'datetime', settings: { defaultValue: '2024-06-01T12:00:00+02:00' } }));
    for (const row of [a, b]) {
      const got = expectStatus(await getRow(w, table.id, row.id), 200);
      expect(got.data).toEqual({ title: row.data.title, stock: 5, when: '2024-06-01T10:00:00.000Z' });
    }
    const c = await createRow(w, table.id, { title: 'c' });
    expect(c.data).toEqual({ title: 'c', stock: 5, when: '2024-06-01T10:00:00.000Z' });
    const filtered = await list(w, table.id, w.readKey, { filter: [{ i: 'stock', w: 'eq', v: 5 }] });
    expect(filtered.pagination.total).toBe(3);
  });

  it('a unique column added with a default over several rows is 409 naming the duplicates', async () => {
    const table = await createTable(w, [{ name: 'title', type: 'text' }]);
    const a = await createRow(w, table.id, { title: 'a' });
    const b = await createRow(w, table.id, { title: 'b' });
    expectRowConflict(await post(table.id, { name: 'code', type: 'text', settings: { unique: true, defaultValue: 'X' } }), 'unique', [a.id, b.id]);
    expect(await columnNames(table.id)).toEqual(['title']);
    expect(expectStatus(await getRow(w, table.id, a.id), 200).data).toEqual({ title: 'a' });
  });

  it('turning on required with empty rows is 409 naming them; once filled it is accepted', async () => {
    const table = await createTable(w, [{ name: 'title', type: 'text' }, { name: 'note', type: 'text' }]);
    const full = await createRow(w, table.id, { title: 'full', note: 'n' });
    const empty1 = await createRow(w, table.id, { title: 'e1' });
    const empty2 = await createRow(w, table.id, { title: 'e2', note: 'n' });
    expectStatus(await putRow(w, table.id, empty2.id, { data: { note: null } }), 200);
    const error = expectRowConflict(await put(table.id, 'note', { settings: { required: true } }), 'required', [empty1.id, empty2.id]);
    expect(error.message).not.toContain(full.id);
    expect(expectStatus(await t.call('GET', columnsPath(w, table.id, 'note')), 200).settings).toEqual({});
    expectCreated(await postRow(w, table.id, { data: { title: 'still optional' } }));
    const optional = (await list(w, table.id, w.writeKey, { filter: [{ i: 'note', w: 'null', v: true }] })).list.map((r) => r.id);
    for (const id of optional) expectStatus(await putRow(w, table.id, id, { data: { note: 'filled' } }), 200);
    expect(expectStatus(await put(table.id, 'note', { settings: { required: true } }), 200).settings).toEqual({ required: true });
    expectValidation(await postRow(w, table.id, { data: { title: 'x' } }), ['data.note']);
  });

  it('turning on unique with duplicates is 409 naming them; after fixing them it holds for new writes', async () => {
    const table = await createTable(w, [{ name: 'sku', type: 'text' }]);
    const a = await createRow(w, table.id, { sku: 'A' });
    const b = await createRow(w, table.id, { sku: 'A' });
    const c = await createRow(w, table.id, { sku: 'C' });
    const error = expectRowConflict(await put(table.id, 'sku', { settings: { unique: true } }), 'unique', [a.id, b.id]);
    expect(error.message).not.toContain(c.id);
    // Still not unique: a third A is accepted.
    const d = await createRow(w, table.id, { sku: 'A' });
    for (const row of [b, d]) expectNoContent(await t.call('DELETE', `/v1/${w.projectId}/tables/${table.id}/contents/${row.id}`, { token: w.writeKey }));
    expectStatus(await put(table.id, 'sku', { settings: { unique: true } }), 200);
    expectConflict(await postRow(w, table.id, { data: { sku: 'A' } }), 'data.sku');
    expectConflict(await putRow(w, table.id, c.id, { data: { sku: 'A' } }), 'data.sku');
    // Turning it off again allows duplicates.
    expectStatus(await put(table.id, 'sku', { settings: { unique: null } }), 200);
    expectCreated(await postRow(w, table.id, { data: { sku: 'A' } }));
  });

  it('a new type that existing values do not fit is 409 naming the rows; the column is unchanged', async () => {
    const table = await createTable(w, [{ name: 'v', type: 'text' }, { name: 'n', type: 'number' }]);
    const num = await createRow(w, table.id, { v: '12', n: 1.5 });
    const word = await createRow(w, table.id, { v: 'twelve', n: 2 });
    expectRowConflict(await put(table.id, 'v', { type: 'number' }), 'type', [num.id, word.id]);
    expectRowConflict(await put(table.id, 'v', { type: 'email' }), 'type', [num.id, word.id]);
    expectRowConflict(await put(table.id, 'n', { type: 'integer' }), 'type', [num.id]);
    expectRowConflict(await put(table.id, 'n', { type: 'text' }), 'type', [num.id, word.id]);
    expect(expectStatus(await t.call('GET', columnsPath(w, table.id, 'n')), 200).type).toBe('number');
    // Values that fit: text → longtext, number stays number with tighter bounds that hold.
    expect(expectStatus(await put(table.id, 'v', { type: 'longtext' }), 200).type).toBe('longtext');
    expectStatus(await put(table.id, 'n', { settings: { min: 1, max: 2 } }), 200);
    // Settings that existing values violate are refused the same way.
    expectRowConflict(await put(table.id, 'n', { settings: { max: 1.9 } }), 'type', [word.id]);
    expectRowConflict(await put(table.id, 'v', { settings: { maxText: 3 } }), 'type', [word.id]);
  });

  it('select options removed while rows use them is 409', async () => {
    const table = await createTable(w, [{ name: 'color', type: 'select', settings: { options: ['red', 'green'] } }]);
    const red = await createRow(w, table.id, { color: 'red' });
    expectRowConflict(await put(table.id, 'color', { settings: { options: ['green', 'blue'] } }), 'type', [red.id]);
    expect(expectStatus(await put(table.id, 'color', { settings: { options: ['red', 'blue'] } }), 200).settings.options).toEqual(['red', 'blue']);
    expectValidation(await postRow(w, table.id, { data: { color: 'green' } }), ['data.color']);
  });

  it("a deleted column's values disappear from reads at once and the name is unknown to writes and queries", async () => {
    const table = await createTable(w, [{ name: 'title', type: 'text' }, { name: 'secret', type: 'text' }]);
    const row = await createRow(w, table.id, { title: 'visible', secret: 'hidden' });
    expectNoContent(await t.call('DELETE', columnsPath(w, table.id, 'secret')));
    for (const token of [w.readKey, w.writeKey, undefined]) {
      expect(expectStatus(await getRow(w, table.id, row.id, token), 200).data).toEqual({ title: 'visible' });
      const body = await list(w, table.id, token!);
      expect(body.list.map((r) => r.data)).toEqual([{ title: 'visible' }]);
    }
    expectError(await t.call('GET', `/v1/${w.projectId}/tables/${table.id}/contents?fields=secret`, { token: w.readKey }), 400, 'INVALID_QUERY');
    const filter = encodeURIComponent(JSON.stringify([{ i: 'secret', w: 'eq', v: 'hidden' }]));
    expectError(await t.call('GET', `/v1/${w.projectId}/tables/${table.id}/contents?filter=${filter}`, { token: w.readKey }), 400, 'INVALID_QUERY');
    expectValidation(await postRow(w, table.id, { data: { title: 'x', secret: 'y' } }), ['data.secret']);
    expectValidation(await putRow(w, table.id, row.id, { data: { secret: 'y' } }), ['data.secret']);
    const updated = expectStatus(await putRow(w, table.id, row.id, { data: { title: 'still visible' } }), 200);
    expect(updated.data).toEqual({ title: 'still visible' });
  });

  it('turning localized on keeps existing plain values as the default locale', async () => {
    const table = await createTable(w, [{ name: 'intro', type: 'text' }]);
    const row = await createRow(w, table.id, { intro: 'Hello' });
    expectStatus(await put(table.id, 'intro', { settings: { localized: true } }), 200);
    expect(expectStatus(await getRow(w, table.id, row.id), 200).data.intro).toEqual({ en: 'Hello' });
    expect(expectStatus(await getRow(w, table.id, row.id, w.readKey, '?locale=fr'), 200).data.intro).toBe('Hello');
    const found = await list(w, table.id, w.readKey, { filter: [{ i: 'intro', w: 'eq', v: 'Hello', l: 'en' }] });
    expect(found.list.map((r) => r.id)).toEqual([row.id]);
  });

  it('turning localized off while rows hold per-locale values is 409; a localized default is the default locale', async () => {
    const table = await createTable(w, [{ name: 'intro', type: 'text', settings: { localized: true } }]);
    const row = await createRow(w, table.id, { intro: { en: 'Hi', fr: 'Salut' } });
    expectRowConflict(await put(table.id, 'intro', { settings: { localized: null } }), 'type', [row.id]);
    expectCreated(await post(table.id, { name: 'teaser', type: 'longtext', settings: { localized: true, defaultValue: 'Soon' } }));
    expect(expectStatus(await getRow(w, table.id, row.id), 200).data.teaser).toEqual({ en: 'Soon' });
    const fresh = await createRow(w, table.id, { intro: 'Hello' });
    expect(fresh.data).toEqual({ intro: { en: 'Hello' }, teaser: { en: 'Soon' } });
    expect(expectStatus(await getRow(w, table.id, fresh.id, w.readKey, '?locale=fr'), 200).data).toEqual({ intro: 'Hello', teaser: 'Soon' });
  });

  it('deleting the slug column: slug becomes null, old slugs are 404, a new slug column starts afresh', async () => {
    const table = await createTable(w, [{ name: 'title', type: 'text' }, { name: 'slug', type: 'slug', settings: { source: 'title' } }]);
    const row = await createRow(w, table.id, { title: 'Hello' });
    expect(row.slug).toBe('hello');
    expectNoContent(await t.call('DELETE', columnsPath(w, table.id, 'slug')));
    const got = expectStatus(await getRow(w, table.id, row.id), 200);
    expect([got.slug, got.data]).toEqual([null, { title: 'Hello' }]);
    expectError(await getRow(w, table.id, 'hello'), 404, 'NOT_FOUND');
    expectCreated(await post(table.id, { name: 'path', type: 'slug', settings: { source: 'title' } }));
    const again = await createRow(w, table.id, { title: 'Hello' });
    expect([again.slug, again.data.path]).toEqual(['hello', 'hello']);
    expect(expectStatus(await getRow(w, table.id, 'hello'), 200).id).toBe(again.id);
  });

  it('changing a text column into the slug column: its values become the slugs; duplicates are 409', async () => {
    const table = await createTable(w, [{ name: 'handle', type: 'text' }]);
    const a = await createRow(w, table.id, { handle: 'first-post' });
    const b = await createRow(w, table.id, { handle: 'second' });
    const c = await createRow(w, table.id, { handle: 'second' });
    expectRowConflict(await put(table.id, 'handle', { type: 'slug' }), 'handle', [b.id, c.id]);
    expectNoContent(await t.call('DELETE', `/v1/${w.projectId}/tables/${table.id}/contents/${c.id}`, { token: w.writeKey }));
    expectStatus(await put(table.id, 'handle', { type: 'slug' }), 200);
    expect(expectStatus(await getRow(w, table.id, 'first-post', w.readKey), 200).id).toBe(a.id);
    expect(expectStatus(await getRow(w, table.id, b.id), 200).slug).toBe('second');
    expectConflict(await postRow(w, table.id, { data: { handle: 'second' } }), 'data.handle');
    // And back to text: no slug any more.
    expectStatus(await put(table.id, 'handle', { type: 'text' }), 200);
    expect(expectStatus(await getRow(w, table.id, a.id), 200).slug).toBeNull();
    expectError(await getRow(w, table.id, 'first-post'), 404, 'NOT_FOUND');
  });

  it('turning on required for a localized column: rows without a default-locale value are 409', async () => {
    const table = await createTable(w, [{ name: 'intro', type: 'text', settings: { localized: true } }]);
    const en = await createRow(w, table.id, { intro: { en: 'Hi' } });
    const fr = await createRow(w, table.id, { intro: { fr: 'Salut' } });
    const error = expectRowConflict(await put(table.id, 'intro', { settings: { required: true } }), 'required', [fr.id]);
    expect(error.message).not.toContain(en.id);
    expectStatus(await putRow(w, table.id, fr.id, { data: { intro: { en: 'Hello', fr: 'Salut' } } }), 200);
    expectStatus(await put(table.id, 'intro', { settings: { required: true } }), 200);
  });

  it('renaming the source column of a slug keeps the slug derived from it', async () => {
    const table = await createTable(w, [{ name: 'title', type: 'text' }, { name: 'slug', type: 'slug', settings: { source: 'title' } }]);
    expectStatus(await put(table.id, 'title', { name: 'headline' }), 200);
    const row = await createRow(w, table.id, { headline: 'Renamed Source' });
    expect(row.slug).toBe('renamed-source');
  });

  it('adding a column with existing rows leaves them readable and listable', async () => {
    const table = await createTable(w, [{ name: 'title', type: 'text' }]);
    const row = await createRow(w, table.id, { title: 'old' });
    await addColumn(w, table.id, { name: 'extra', type: 'integer' });
    expect(expectStatus(await getRow(w, table.id, row.id), 200).data).toEqual({ title: 'old' });
    expect((await list(w, table.id, w.readKey, { sort: [{ i: 'extra', o: 'asc' }] })).list.map((r) => r.id)).toEqual([row.id]);
  });
});
