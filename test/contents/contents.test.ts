import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  addColumn, buildWorld, contentsPath, createRow, createTable, expectConflict, expectCreated, expectError, expectNoContent,
  expectStatus, expectValidation, getRow, GHOST, ISO_UTC, list, postRow, putRow, type Table, type World,
} from './fixture.js';
import { clockPast } from '../helpers/until.js';

/** Contents CRUD, PUT merge, unique columns, slugs, locale reads (docs/contents.md#contents). */

let t: TestApi;
let w: World;
let articles: Table;

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  articles = await createTable(w, [
    { name: 'title', type: 'text', settings: { required: true } },
    { name: 'slug', type: 'slug', settings: { source: 'title' } },
    { name: 'body', type: 'longtext' },
    { name: 'price', type: 'number' },
    { name: 'sku', type: 'text', settings: { unique: true } },
    { name: 'intro', type: 'text', settings: { localized: true } },
  ]);
});
afterAll(async () => t?.close());

describe('contents CRUD', () => {
  it('create is 201 with Location and the full object; read answers the same object', async () => {
    const res = await postRow(w, articles.id, { data: { title: 'First', body: 'B', price: 10 } });
    const row = expectCreated(res, `/${w.projectId}/tables/${articles.id}/contents`);
    expect(Object.keys(row).sort()).toEqual(['createdAt', 'data', 'hasDraft', 'id', 'publishAt', 'publishedAt', 'slug', 'status', 'updatedAt', 'version']);
    expect(row).toMatchObject({ slug: 'first', status: 'PUBLISHED', publishAt: null, hasDraft: false, data: { title: 'First', slug: 'first', body: 'B', price: 10 } });
    for (const k of ['createdAt', 'updatedAt', 'publishedAt']) expect(row[k]).toMatch(ISO_UTC);
    expect(expectStatus(await t.call('GET', res.headers.get('location')!), 200)).toEqual(row);
    // Read keys never learn whether a row has a draft.
    const { hasDraft: _hidden, ...publicRow } = row;
    expect(expectStatus(await t.call('GET', res.headers.get('location')!, { token: w.readKey }), 200)).toEqual(publicRow);
  });

  it('PUT merges data: given columns replaced, absent kept, null clears; answers the full object', async () => {
    const row = await createRow(w, articles.id, { title: 'Merge', body: 'B', price: 1, intro: { en: 'Hi', fr: 'Salut' } });
    await clockPast(row.updatedAt);
    const up = expectStatus(await putRow(w, articles.id, row.id, { data: { price: 2, body: null } }), 200);
    expect(up.data).toEqual({ title: 'Merge', slug: 'merge', price: 2, intro: { en: 'Hi', fr: 'Salut' } });
    expect(up).toMatchObject({ id: row.id, slug: 'merge', status: 'PUBLISHED', createdAt: row.createdAt, publishedAt: row.publishedAt });
    expect(up.updatedAt > row.updatedAt).toBe(true);
    // An empty PUT (or none of data) changes nothing but is fine.
    expect(expectStatus(await putRow(w, articles.id, row.id, {}), 200).data).toEqual(up.data);
    expect(expectStatus(await putRow(w, articles.id, row.id, { data: {} }), 200).data).toEqual(up.data);
    expect(expectStatus(await getRow(w, articles.id, row.id, w.readKey), 200).data).toEqual(up.data);
    // Clearing a required column is 422; a wrong value too, and nothing is written.
    expectValidation(await putRow(w, articles.id, row.id, { data: { title: null } }), ['data.title']);
    expectValidation(await putRow(w, articles.id, row.id, { data: { price: 'x', nope: 1 } }), ['data.price', 'data.nope']);
    expect(expectStatus(await getRow(w, articles.id, row.id), 200).data).toEqual(up.data);
  });

  it('delete is 204 with no body, then 404 for read, update and delete', async () => {
    const row = await createRow(w, articles.id, { title: 'Delete me' });
    expectNoContent(await t.call('DELETE', contentsPath(w, articles.id, row.id), { token: w.writeKey }));
    expectError(await getRow(w, articles.id, row.id), 404, 'NOT_FOUND');
    expectError(await getRow(w, articles.id, 'delete-me'), 404, 'NOT_FOUND');
    expectError(await putRow(w, articles.id, row.id, { data: { price: 1 } }), 404, 'NOT_FOUND');
    expectError(await t.call('DELETE', contentsPath(w, articles.id, row.id), { token: w.writeKey }), 404, 'NOT_FOUND');
  });

  it('unknown id or slug is 404; so is a slug on a table without a slug column', async () => {
    expectError(await getRow(w, articles.id, GHOST), 404, 'NOT_FOUND');
    expectError(await getRow(w, articles.id, 'no-such-slug'), 404, 'NOT_FOUND');
    const plain = await createTable(w, [{ name: 'name', type: 'text' }]);
    await createRow(w, plain.id, { name: 'x' });
    expectError(await getRow(w, plain.id, 'x'), 404, 'NOT_FOUND');
    expectError(await putRow(w, plain.id, GHOST, { data: {} }), 404, 'NOT_FOUND');
  });

  it('read keys get 403 on every write, even for unknown tables and rows', async () => {
    const row = await createRow(w, articles.id, { title: 'Read only' });
    expectError(await postRow(w, articles.id, { data: { title: 'x' } }, w.readKey), 403, 'FORBIDDEN');
    expectError(await putRow(w, articles.id, row.id, { data: { title: 'x' } }, w.readKey), 403, 'FORBIDDEN');
    expectError(await t.call('DELETE', contentsPath(w, articles.id, row.id), { token: w.readKey }), 403, 'FORBIDDEN');
    expectError(await postRow(w, 'no_such_table', { data: {} }, w.readKey), 403, 'FORBIDDEN');
    expectError(await putRow(w, 'no_such_table', GHOST, {}, w.readKey), 403, 'FORBIDDEN');
    expectError(await t.call('DELETE', contentsPath(w, articles.id, GHOST), { token: w.readKey }), 403, 'FORBIDDEN');
    expect(expectStatus(await getRow(w, articles.id, row.id), 200).data.title).toBe('Read only');
  });

  it('account tokens write contents too', async () => {
    const row = expectCreated(await t.call('POST', contentsPath(w, articles.id), { body: { data: { title: 'By admin' } } }));
    expect(expectStatus(await t.call('PUT', contentsPath(w, articles.id, row.id), { body: { data: { price: 3 } } }), 200).data.price).toBe(3);
  });
});

describe('unique columns (enforced by the database)', () => {
  it('a duplicate is 409 CONFLICT naming data.<col>, on create and update; the own value is fine; a freed value is reusable', async () => {
    const a = await createRow(w, articles.id, { title: 'U1', sku: 'SKU-1' });
    const b = await createRow(w, articles.id, { title: 'U2', sku: 'SKU-2' });
    expectConflict(await postRow(w, articles.id, { data: { title: 'U3', sku: 'SKU-1' } }), 'data.sku');
    expectConflict(await putRow(w, articles.id, b.id, { data: { sku: 'SKU-1' } }), 'data.sku');
    expect(expectStatus(await putRow(w, articles.id, a.id, { data: { sku: 'SKU-1', price: 5 } }), 200).data.sku).toBe('SKU-1');
    // Comparison is exact: case differs, no conflict.
    expectCreated(await postRow(w, articles.id, { data: { title: 'U4', sku: 'sku-1' } }));
    expectStatus(await putRow(w, articles.id, a.id, { data: { sku: null } }), 200);
    expectCreated(await postRow(w, articles.id, { data: { title: 'U5', sku: 'SKU-1' } }));
    // Several rows without a value are fine.
    expectCreated(await postRow(w, articles.id, { data: { title: 'U6' } }));
    expectCreated(await postRow(w, articles.id, { data: { title: 'U7' } }));
  });

  it('422 wins over 409: an invalid row holding a duplicate is 422', async () => {
    await createRow(w, articles.id, { title: 'V1', sku: 'SKU-V' });
    expectValidation(await postRow(w, articles.id, { data: { sku: 'SKU-V' } }), ['data.title']);
    expectValidation(await postRow(w, articles.id, { data: { title: 'V2', sku: 'SKU-V', price: 'x' } }), ['data.price']);
  });

  it('10 concurrent creates of one value: exactly one 201 and nine 409 naming data.sku; one row stored', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => postRow(w, articles.id, { data: { title: `Race ${i}`, sku: 'RACE' } })));
    expect(results.map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(409)]);
    for (const r of results.filter((x) => x.status === 409)) expectConflict(r, 'data.sku');
    const stored = await list(w, articles.id, w.writeKey, { filter: [{ i: 'sku', w: 'eq', v: 'RACE' }] });
    expect(stored.list).toHaveLength(1);
    expect(stored.pagination.total).toBe(1);
    expect(stored.list[0].id).toBe(results.find((r) => r.status === 201)!.json.id);
  });

  it('unique numbers compare by value; unique localized columns are unique per locale', async () => {
    const table = await createTable(w, [
      { name: 'n', type: 'number', settings: { unique: true } },
      { name: 'name', type: 'text', settings: { unique: true, localized: true } },
    ]);
    await createRow(w, table.id, { n: 1, name: { en: 'Same', fr: 'Pareil' } });
    expectConflict(await postRow(w, table.id, { data: { n: 1.0 } }), 'data.n');
    expectCreated(await postRow(w, table.id, { data: { n: 2, name: { en: 'Pareil', fr: 'Same' } } }));
    expectConflict(await postRow(w, table.id, { data: { n: 3, name: { fr: 'Pareil' } } }), 'data.name');
    expectConflict(await postRow(w, table.id, { data: { n: 4, name: 'Same' } }), 'data.name');
  });
});

describe('slugs', () => {
  it('derived from the source: lower-case ASCII with dashes; -2, -3 on clash; lookups by slug', async () => {
    const a = await createRow(w, articles.id, { title: 'Hello World' });
    const b = await createRow(w, articles.id, { title: 'hello   world!' });
    const c = await createRow(w, articles.id, { title: 'Hello, World' });
    expect([a.slug, b.slug, c.slug]).toEqual(['hello-world', 'hello-world-2', 'hello-world-3']);
    expect([a.data.slug, b.data.slug, c.data.slug]).toEqual(['hello-world', 'hello-world-2', 'hello-world-3']);
    expect((await createRow(w, articles.id, { title: 'Crème Brûlée à Paris!' })).slug).toBe('creme-brulee-a-paris');
    for (const row of [a, b, c]) expect(expectStatus(await getRow(w, articles.id, row.slug, w.readKey), 200).id).toBe(row.id);
    // Updating the source does not move an existing slug.
    expect(expectStatus(await putRow(w, articles.id, a.id, { data: { title: 'Other' } }), 200).slug).toBe('hello-world');
  });

  it('a given slug is kept; a duplicate given slug is 409 naming data.slug; a bad one is 422', async () => {
    const row = await createRow(w, articles.id, { title: 'Given', slug: 'my-own-slug' });
    expect(row.slug).toBe('my-own-slug');
    expectConflict(await postRow(w, articles.id, { data: { title: 'Other', slug: 'my-own-slug' } }), 'data.slug');
    expectValidation(await postRow(w, articles.id, { data: { title: 'Other', slug: 'Not A Slug' } }), ['data.slug']);
    const other = await createRow(w, articles.id, { title: 'Mover' });
    expectConflict(await putRow(w, articles.id, other.id, { data: { slug: 'my-own-slug' } }), 'data.slug');
    const moved = expectStatus(await putRow(w, articles.id, other.id, { data: { slug: 'moved' } }), 200);
    expect([moved.slug, moved.data.slug]).toEqual(['moved', 'moved']);
    expect(expectStatus(await getRow(w, articles.id, 'moved'), 200).id).toBe(other.id);
    expectError(await getRow(w, articles.id, 'mover'), 404, 'NOT_FOUND');
    // A derived slug skips the taken one.
    expect((await createRow(w, articles.id, { title: 'My own slug' })).slug).toBe('my-own-slug-2');
  });

  it('concurrent creates with the same source all succeed with distinct slugs', async () => {
    const results = await Promise.all(Array.from({ length: 12 }, () => postRow(w, articles.id, { data: { title: 'Same Title' } })));
    expect(results.map((r) => r.status), results.map((r) => r.text).join('\n')).toEqual(Array(12).fill(201));
    const slugs = results.map((r) => r.json.slug).sort();
    expect(new Set(slugs).size).toBe(12);
    expect(slugs).toContain('same-title');
    for (const s of slugs) expect(s).toMatch(/^same-title(-\d+)?$/);
  });

  it('a slug column added later: updating old rows derives free slugs instead of failing', async () => {
    const table = await createTable(w, [{ name: 'title', type: 'text' }]);
    const a = await createRow(w, table.id, { title: 'Twin' });
    const b = await createRow(w, table.id, { title: 'Twin' });
    await addColumn(w, table.id, { name: 'slug', type: 'slug', settings: { source: 'title' } });
    const c = await createRow(w, table.id, { title: 'Twin' });
    expect(c.slug).toBe('twin');
    const ua = expectStatus(await putRow(w, table.id, a.id, { data: { title: 'Twin' } }), 200);
    const ub = expectStatus(await putRow(w, table.id, b.id, { data: {} }), 200);
    expect(new Set([c.slug, ua.slug, ub.slug]).size).toBe(3);
  });
});

describe('locale reads', () => {
  it('?locale= returns plain values with fallback to the default locale; an unknown locale is 400 INVALID_QUERY', async () => {
    const both = await createRow(w, articles.id, { title: 'Loc', intro: { en: 'Hello', fr: 'Bonjour' } });
    const enOnly = await createRow(w, articles.id, { title: 'Loc2', intro: 'Only English' });
    const none = await createRow(w, articles.id, { title: 'Loc3' });
    expect(expectStatus(await getRow(w, articles.id, both.id, w.readKey), 200).data.intro).toEqual({ en: 'Hello', fr: 'Bonjour' });
    expect(expectStatus(await getRow(w, articles.id, both.id, w.readKey, '?locale=fr'), 200).data.intro).toBe('Bonjour');
    expect(expectStatus(await getRow(w, articles.id, both.id, w.readKey, '?locale=en'), 200).data.intro).toBe('Hello');
    expect(expectStatus(await getRow(w, articles.id, enOnly.id, w.readKey, '?locale=fr'), 200).data.intro).toBe('Only English');
    const plain = expectStatus(await getRow(w, articles.id, none.slug, w.readKey, '?locale=fr'), 200).data;
    expect(plain.intro ?? null).toBeNull();
    expect(plain.title).toBe('Loc3');
    expectError(await getRow(w, articles.id, both.id, w.readKey, '?locale=de'), 400, 'INVALID_QUERY');
    const listed = await list(w, articles.id, w.readKey, { locale: 'fr', filter: [{ i: 'id', w: 'eq', v: both.id }] });
    expect(listed.list.map((r) => r.data!.intro)).toEqual(['Bonjour']);
    expectError(await t.call('GET', `${contentsPath(w, articles.id)}?locale=de`, { token: w.readKey }), 400, 'INVALID_QUERY');
  });
});
