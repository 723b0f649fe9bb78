import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  buildWorld, columnsPath, contentsPath, createRow, createTable, expectBadRequest, expectStatus, expectValidation, tablesPath, type World,
} from './fixture.js';

let t: TestApi;
let w: World;

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
});
afterAll(async () => t?.close());

const names = async (table: string) =>
  expectStatus(await t.call('GET', columnsPath(w, table)), 200).list.map((c: { name: string; position: number }) => `${c.position}:${c.name}`);

describe('column position', () => {
  it('PUT position moves the column; the others shift; the list follows', async () => {
    const table = await createTable(w, ['a', 'b', 'c', 'd'].map((name) => ({ name, type: 'text' })));
    const moved = expectStatus(await t.call('PUT', columnsPath(w, table.key, 'd'), { body: { position: 1 } }), 200);
    expect(moved).toMatchObject({ name: 'd', position: 1 });
    expect(await names(table.key)).toEqual(['1:d', '2:a', '3:b', '4:c']);
    expectStatus(await t.call('PUT', columnsPath(w, table.key, 'd'), { body: { position: 3 } }), 200);
    expect(await names(table.key)).toEqual(['1:a', '2:b', '3:d', '4:c']);
    // Past the end: last.
    expectStatus(await t.call('PUT', columnsPath(w, table.key, 'a'), { body: { position: 99 } }), 200);
    expect(await names(table.key)).toEqual(['1:b', '2:d', '3:c', '4:a']);
    // With a rename in the same request.
    expectStatus(await t.call('PUT', columnsPath(w, table.key, 'c'), { body: { position: 1, name: 'c2' } }), 200);
    expect(await names(table.key)).toEqual(['1:c2', '2:b', '3:d', '4:a']);
  });

  it('a deleted column leaves the numbering; a new column is appended after the moved ones', async () => {
    const table = await createTable(w, ['a', 'b', 'c'].map((name) => ({ name, type: 'text' })));
    expect((await t.call('DELETE', columnsPath(w, table.key, 'a'))).status).toBe(204);
    expectStatus(await t.call('PUT', columnsPath(w, table.key, 'c'), { body: { position: 1 } }), 200);
    expect(await names(table.key)).toEqual(['1:c', '2:b']);
    expect((await t.call('POST', columnsPath(w, table.key), { body: { name: 'e', type: 'text' } })).status).toBe(201);
    expect((await names(table.key)).map((n: string) => n.split(':')[1])).toEqual(['c', 'b', 'e']);
  });

  it('position must be a whole number >= 1 (400)', async () => {
    const table = await createTable(w, [{ name: 'a', type: 'text' }]);
    for (const position of [0, -1, 1.5, 'first']) expectBadRequest(await t.call('PUT', columnsPath(w, table.key, 'a'), { body: { position } }), 'position');
  });

  it('search keeps finding rows after a move (its index follows the column order)', async () => {
    const table = await createTable(w, [{ name: 'title', type: 'text' }, { name: 'body', type: 'longtext' }]);
    const row = await createRow(w, table.key, { title: 'alpha', body: 'bravo' });
    expectStatus(await t.call('PUT', columnsPath(w, table.key, 'body'), { body: { position: 1 } }), 200);
    const found = expectStatus(await t.call('GET', `${contentsPath(w, table.key)}?search=bravo`, { token: w.writeKey }), 200);
    expect(found.list.map((r: { id: string }) => r.id)).toEqual([row.id]);
  });
});

describe('table settings.display', () => {
  it('a new table has empty settings; display takes a column name or a template; null removes it', async () => {
    const table = await createTable(w, [{ name: 'title', type: 'text' }, { name: 'sku', type: 'text' }]);
    expect(expectStatus(await t.call('GET', tablesPath(w, table.key)), 200).settings).toEqual({});
    const byName = expectStatus(await t.call('PUT', tablesPath(w, table.key), { body: { settings: { display: 'title' } } }), 200);
    expect(byName.settings).toEqual({ display: 'title' });
    const template = '{{title}} ({{ sku }})';
    expect(expectStatus(await t.call('PUT', tablesPath(w, table.key), { body: { settings: { display: template } } }), 200).settings).toEqual({ display: template });
    // Other fields leave settings alone.
    expect(expectStatus(await t.call('PUT', tablesPath(w, table.key), { body: { name: 'Other' } }), 200).settings).toEqual({ display: template });
    expect(expectStatus(await t.call('PUT', tablesPath(w, table.key), { body: { settings: { display: null } } }), 200).settings).toEqual({});
  });

  it('unknown columns and malformed templates are 422 on settings.display, naming the columns', async () => {
    const table = await createTable(w, [{ name: 'title', type: 'text' }]);
    const unknown = expectValidation(await t.call('PUT', tablesPath(w, table.key), { body: { settings: { display: '{{title}} {{nope}} {{gone}}' } } }), ['settings.display']);
    expect(unknown.details![0].message).toContain('nope, gone');
    expectValidation(await t.call('PUT', tablesPath(w, table.key), { body: { settings: { display: 'nope' } } }), ['settings.display']);
    for (const display of ['{{title', '{{title}} }}', '{{ti tle}}', 'two words']) {
      expectValidation(await t.call('PUT', tablesPath(w, table.key), { body: { settings: { display } } }), ['settings.display']);
    }
    expectBadRequest(await t.call('PUT', tablesPath(w, table.key), { body: { settings: { display: '' } } }), 'settings.display');
    expectBadRequest(await t.call('PUT', tablesPath(w, table.key), { body: { settings: { other: 1 } } }), 'settings');
    expect(expectStatus(await t.call('GET', tablesPath(w, table.key)), 200).settings).toEqual({});
  });

  it('renaming a column keeps the display naming it', async () => {
    const table = await createTable(w, [{ name: 'title', type: 'text' }, { name: 'sku', type: 'text' }]);
    expectStatus(await t.call('PUT', tablesPath(w, table.key), { body: { settings: { display: '{{title}} ({{sku}})' } } }), 200);
    expectStatus(await t.call('PUT', columnsPath(w, table.key, 'title'), { body: { name: 'headline' } }), 200);
    expect(expectStatus(await t.call('GET', tablesPath(w, table.key)), 200).settings).toEqual({ display: '{{headline}} ({{sku}})' });
  });
});

describe('longtext settings.format', () => {
  it('takes plain or markdown on longtext only (400 otherwise)', async () => {
    const table = await createTable(w, [{ name: 'body', type: 'longtext', settings: { format: 'markdown' } }]);
    expect(table.columns.body.settings).toEqual({ format: 'markdown' });
    expectBadRequest(await t.call('POST', columnsPath(w, table.key), { body: { name: 'x', type: 'longtext', settings: { format: 'html' } } }), 'settings.format');
    expectBadRequest(await t.call('POST', columnsPath(w, table.key), { body: { name: 'y', type: 'text', settings: { format: 'markdown' } } }), 'settings.format');
    expect(expectStatus(await t.call('PUT', columnsPath(w, table.key, 'body'), { body: { settings: { format: null } } }), 200).settings).toEqual({});
  });
});
