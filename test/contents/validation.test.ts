import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  buildWorld, createRow, createTable, expectBadRequest, expectCreated, expectStatus, expectValidation, GHOST, postRow, putRow,
  type Table, type World,
} from './fixture.js';

/** Contents validation (docs/contents.md#contents): every 422 rule with its exact `details[].field`. */

let t: TestApi;
let w: World;
let target: Table;
let other: Table;
let targetRow: { id: string };
let otherRow: { id: string };
let all: Table;

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  target = await createTable(w, [{ name: 'name', type: 'text' }]);
  other = await createTable(w, [{ name: 'name', type: 'text' }]);
  targetRow = await createRow(w, target.id, { name: 'target' });
  otherRow = await createRow(w, other.id, { name: 'other table' });
  // One column per type, none required, so that each offence stands alone.
  all = await createTable(w, [
    { name: 'text', type: 'text' },
    { name: 'longtext', type: 'longtext' },
    { name: 'number', type: 'number' },
    { name: 'integer', type: 'integer' },
    { name: 'boolean', type: 'boolean' },
    { name: 'date', type: 'date' },
    { name: 'datetime', type: 'datetime' },
    { name: 'email', type: 'email' },
    { name: 'url', type: 'url' },
    { name: 'select', type: 'select', settings: { options: ['red', 'green'] } },
    { name: 'selects', type: 'select', settings: { options: ['red', 'green'], multiple: true } },
    { name: 'json', type: 'json' },
    { name: 'slug', type: 'slug' },
    { name: 'ref', type: 'reference', settings: { table: target.id } },
    { name: 'refs', type: 'reference', settings: { table: target.id, multiple: true } },
    { name: 'file', type: 'file' },
    { name: 'files', type: 'file', settings: { multiple: true } },
  ]);
});
afterAll(async () => t?.close());

const create = (table: Table, data: Record<string, unknown>) => postRow(w, table.id, { data });

describe('contents validation', () => {
  it('a wrong value for each type is 422 naming data.<column>', async () => {
    const bad: Record<string, unknown[]> = {
      text: [5, true, ['x'], { a: 1 }],
      longtext: [5, ['x']],
      number: ['1', true, [1], {}],
      integer: [1.5, '1', 2 ** 53, true],
      boolean: ['true', 1, 0, 'false'],
      date: ['2024-02-30', '2023-02-29', '2024-1-1', '2024-01-01T00:00:00Z', '01/02/2024', 20240101],
      datetime: ['2024-01-01T10:00:00', '2024-01-01', 'yesterday', '2024-13-01T00:00:00Z', 1700000000000],
      email: ['not-an-email', 'a@b', 'a b@c.d', 5],
      url: ['example.com', 'ftp://example.com/x', '/relative', 'http//x', 5],
      select: ['blue', 'Red', ['red'], 1],
      selects: ['red', ['red', 'blue'], [1]],
      slug: ['Hello World', 'a--b', '-a', 'a-', 'UPPER', 'é', 5],
      ref: ['not-a-uuid', GHOST, otherRow.id, [targetRow.id], 5],
      refs: [targetRow.id, [GHOST], [targetRow.id, GHOST], ['x'], [otherRow.id]],
      file: ['not-a-uuid', 5, ['0190b0a0-0000-7000-8000-000000000001']],
      files: ['0190b0a0-0000-7000-8000-000000000001', ['x']],
    };
    for (const [column, values] of Object.entries(bad)) {
      for (const value of values) {
        const res = await create(all, { [column]: value });
        expect(res.status, `${column} = ${JSON.stringify(value)}: ${res.text}`).toBe(422);
        expectValidation(res, [`data.${column}`]);
      }
    }
  });

  it('a good value for each type is stored as given (datetimes normalised to UTC, ids lower-case)', async () => {
    const form = new FormData();
    form.append('file', new Blob(['hello'], { type: 'text/plain' }), 'a.txt');
    const uploaded = await fetch(`${t.url}/v1/${w.projectId}/files`, { method: 'POST', headers: { authorization: `Bearer ${w.writeKey}` }, body: form });
    expect(uploaded.status).toBe(201);
    const fileId = ((await uploaded.json()) as { id: string }).id;
    const row = await createRow(w, all.id, {
      text: 'Hello', longtext: '# Title\n\n<p>html</p>', number: -12.5, integer: 9007199254740991, boolean: false, date: '2024-02-29',
      datetime: '2024-05-01T12:30:00+02:00', email: 'a.b+c@example.co.uk', url: 'https://example.com/a?b=c#d', select: 'green',
      selects: ['green', 'red'], json: { nested: [1, 'two', null, { deep: true }] }, slug: 'hello-world-2', ref: targetRow.id.toUpperCase(),
      refs: [targetRow.id], file: fileId.toUpperCase(), files: [],
    });
    expect(row.data).toEqual({
      text: 'Hello', longtext: '# Title\n\n<p>html</p>', number: -12.5, integer: 9007199254740991, boolean: false, date: '2024-02-29',
      datetime: '2024-05-01T10:30:00.000Z', email: 'a.b+c@example.co.uk', url: 'https://example.com/a?b=c#d', select: 'green',
      selects: ['green', 'red'], json: { nested: [1, 'two', null, { deep: true }] }, slug: 'hello-world-2', ref: targetRow.id,
      refs: [targetRow.id], file: fileId, files: [],
    });
    expect(expectStatus(await t.call('GET', `/v1/${w.projectId}/tables/${all.id}/contents/${row.id}`, { token: w.readKey }), 200).data).toEqual(row.data);
    for (const [value, stored] of [
      ['2024-05-01T00:00:00Z', '2024-05-01T00:00:00.000Z'],
      ['2024-05-01T00:00:00.123456-05:30', '2024-05-01T05:30:00.123Z'],
      ['2024-05-01T23:59+01:00', '2024-05-01T22:59:00.000Z'],
    ]) {
      expect((await createRow(w, all.id, { datetime: value })).data.datetime).toBe(stored);
    }
    // json takes any JSON value, scalars included.
    for (const value of ['text', 0, false, [1, 2]]) expect((await createRow(w, all.id, { json: value })).data.json).toEqual(value);
  });

  it('min/max are inclusive bounds of number and integer columns', async () => {
    const table = await createTable(w, [{ name: 'price', type: 'number', settings: { min: 0.5, max: 10 } }, { name: 'qty', type: 'integer', settings: { min: -2, max: 3 } }]);
    expectCreated(await create(table, { price: 0.5, qty: -2 }));
    expectCreated(await create(table, { price: 10, qty: 3 }));
    expectValidation(await create(table, { price: 0.49 }), ['data.price']);
    expectValidation(await create(table, { price: 10.01 }), ['data.price']);
    expectValidation(await create(table, { qty: -3 }), ['data.qty']);
    expectValidation(await create(table, { qty: 4, price: 11 }), ['data.qty', 'data.price']);
  });

  it('minText/maxText count Unicode code points; pattern must match the whole value', async () => {
    const table = await createTable(w, [
      { name: 'code', type: 'text', settings: { minText: 2, maxText: 4 } },
      { name: 'sku', type: 'text', settings: { pattern: '[A-Z]{3}-[0-9]+' } },
      { name: 'bio', type: 'longtext', settings: { maxText: 3 } },
    ]);
    expectCreated(await create(table, { code: '😀😀😀😀', bio: '日本語' }));
    expectCreated(await create(table, { code: 'ab' }));
    expectCreated(await create(table, { code: 'e\u0301e\u0301' })); // 4 code points, 2 graphemes
    expectValidation(await create(table, { code: '😀😀😀😀😀' }), ['data.code']);
    expectValidation(await create(table, { code: '\u00e9' }), ['data.code']);
    expectValidation(await create(table, { code: 'e\u0301e\u0301e' }), ['data.code']);
    expectValidation(await create(table, { bio: 'abcd' }), ['data.bio']);
    expectCreated(await create(table, { sku: 'ABC-123' }));
    for (const sku of ['abc-123', 'ABC-', 'xABC-1', 'ABC-1x', 'ABCD-1']) expectValidation(await create(table, { sku }), ['data.sku']);
  });

  it('required: missing or null is 422; on update null is 422 and absence keeps the value', async () => {
    const table = await createTable(w, [{ name: 'title', type: 'text', settings: { required: true } }, { name: 'flag', type: 'boolean', settings: { required: true } }]);
    expectValidation(await create(table, {}), ['data.title', 'data.flag']);
    expectValidation(await create(table, { title: null, flag: false }), ['data.title']);
    // false is a value.
    expectCreated(await create(table, { title: 'x', flag: false }));
    const row = await createRow(w, table.id, { title: 'x', flag: false });
    expectValidation(await putRow(w, table.id, row.id, { data: { title: null } }), ['data.title']);
    expectStatus(await putRow(w, table.id, row.id, { data: { flag: true } }), 200);
  });

  it('unknown columns are 422 naming data.<name>; a non-object data is 400', async () => {
    expectValidation(await create(all, { text: 'x', nosuch: 1, Text: 'case matters' }), ['data.nosuch', 'data.Text']);
    expectBadRequest(await postRow(w, all.id, {}), 'data');
    expectBadRequest(await postRow(w, all.id, { data: 'x' }), 'data');
    expectBadRequest(await postRow(w, all.id, { data: [1] }), 'data');
    expectBadRequest(await postRow(w, all.id, { data: {}, status: 'LIVE' }), 'status');
  });

  it('localized columns: unknown locale → data.<col>.<locale>; plain value is the default locale; required applies to it', async () => {
    const table = await createTable(w, [
      { name: 'title', type: 'text', settings: { localized: true, required: true, maxText: 5 } },
      { name: 'link', type: 'url', settings: { localized: true } },
    ]);
    expectValidation(await create(table, { title: { en: 'Hi', de: 'Hallo', es: 'Hola' } }), ['data.title.de', 'data.title.es']);
    expectValidation(await create(table, { title: { fr: 'Salut' } }), ['data.title.en']);
    expectValidation(await create(table, { title: { en: 'Hello!', fr: 5 } }), ['data.title.en', 'data.title.fr']);
    expectValidation(await create(table, { title: 'Toolong' }), ['data.title']);
    expectValidation(await create(table, { title: 'Hi', link: { fr: 'not a url' } }), ['data.link.fr']);
    expectValidation(await create(table, {}), ['data.title']);
    expectValidation(await create(table, { title: {} }), ['data.title']);
    const plain = await createRow(w, table.id, { title: 'Hello' });
    expect(plain.data).toEqual({ title: { en: 'Hello' } });
    const both = await createRow(w, table.id, { title: { en: 'Hi', fr: 'Salut' }, link: { fr: 'https://example.fr' } });
    expect(both.data).toEqual({ title: { en: 'Hi', fr: 'Salut' }, link: { fr: 'https://example.fr' } });
    // A PUT merges a localized value per locale; removing the default locale of a required one is 422.
    expectValidation(await putRow(w, table.id, both.id, { data: { title: { en: null } } }), ['data.title.en']);
    expect(expectStatus(await putRow(w, table.id, both.id, { data: { title: { en: 'Yo' } } }), 200).data.title).toEqual({ en: 'Yo', fr: 'Salut' });
    expect(expectStatus(await putRow(w, table.id, both.id, { data: { title: { fr: null } } }), 200).data.title).toEqual({ en: 'Yo' });
  });

  it('every offence is listed at once, in one 422', async () => {
    const table = await createTable(w, [
      { name: 'title', type: 'text', settings: { required: true } },
      { name: 'price', type: 'number', settings: { min: 0, max: 100 } },
      { name: 'code', type: 'text', settings: { maxText: 3 } },
      { name: 'color', type: 'select', settings: { options: ['red'] } },
      { name: 'ref', type: 'reference', settings: { table: target.id } },
      { name: 'intro', type: 'text', settings: { localized: true } },
    ]);
    const res = await create(table, { price: 500, code: 'toolong', color: 'pink', ref: GHOST, intro: { de: 'x' }, extra: true });
    const error = expectValidation(res, ['data.title', 'data.price', 'data.code', 'data.color', 'data.ref', 'data.intro.de', 'data.extra']);
    expect(error.message).toContain('data.title');
    // publishAt problems are listed with the data problems.
    const both = await postRow(w, table.id, { data: { price: -1 }, status: 'SCHEDULED' });
    expectValidation(both, ['data.title', 'data.price', 'publishAt']);
  });

  it('a reference must be a row of the referenced table; non-public rows count', async () => {
    const table = await createTable(w, [{ name: 'ref', type: 'reference', settings: { table: target.id } }]);
    const draft = await createRow(w, target.id, { name: 'draft' }, { status: 'DRAFT' });
    expect((await createRow(w, table.id, { ref: draft.id })).data.ref).toBe(draft.id);
    expectValidation(await create(table, { ref: otherRow.id }), ['data.ref']);
    const gone = await createRow(w, target.id, { name: 'gone' });
    expectStatus(await t.call('DELETE', `/v1/${w.projectId}/tables/${target.id}/contents/${gone.id}`, { token: w.writeKey }), 204);
    expectValidation(await create(table, { ref: gone.id }), ['data.ref']);
  });
});
