import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { expectCreated, expectError, expectStatus } from '../helpers/expect.js';
import { buildWorld, type World } from '../contents/fixture.js';
import { apply, changesOf, column, copy, diff, pull, table, type Snapshot } from './fixture.js';

/** Table settings in snapshots, plans and applies (docs/environments.md#snapshots). */

let t: TestApi;
let w: World;

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
});
afterAll(async () => t?.close());

async function newProject(): Promise<string> {
  const res = await t.call('POST', `/v1/workspaces/${w.workspaceId}/projects`, { body: { name: 'Env', locales: ['en', 'fr'], defaultLocale: 'en' } });
  return expectCreated(res).id as string;
}

const setDisplay = async (p: string, key: string, display: string | null) =>
  expectStatus(await t.call('PUT', `/v1/${p}/tables/${key}`, { body: { settings: { display } } }), 200);

const base = (): Snapshot => ({
  format: 1,
  locales: ['en', 'fr'],
  defaultLocale: 'en',
  roles: [],
  tables: [table('products', [column('title', 'text'), column('sku', 'text')]), table('tags', [column('name', 'text')])],
});

describe('table settings in snapshots', () => {
  it('round trip: a display pulled, applied to an empty project, pulled again: the same text', async () => {
    const a = await newProject();
    changesOf(await apply(t, a, base()));
    const plain = await pull(t, a);
    // A project without table settings pulls as before: no `settings` on its tables.
    expect(plain.snapshot.tables.every((x) => !('settings' in x))).toBe(true);
    await setDisplay(a, 'products', '{{title}} ({{sku}})');
    const pulledA = await pull(t, a);
    expect(pulledA.snapshot.tables[0]).toEqual({ ...base().tables[0], settings: { display: '{{title}} ({{sku}})' } });
    expect(Object.keys(pulledA.snapshot.tables[0])).toEqual(['key', 'name', 'description', 'defaultStatus', 'settings', 'columns']);
    expect('settings' in pulledA.snapshot.tables[1]).toBe(false);

    const b = await newProject();
    const changes = changesOf(await apply(t, b, pulledA.snapshot));
    expect(changes.filter((c) => c.op === 'updateTable')).toEqual([
      { op: 'updateTable', table: 'products', from: { settings: {} }, to: { settings: { display: '{{title}} ({{sku}})' } }, destructive: false },
    ]);
    const pulledB = await pull(t, b);
    expect(pulledB.text).toBe(pulledA.text);
    expect(expectStatus(await t.call('GET', `/v1/${b}/tables/products`), 200).settings).toEqual({ display: '{{title}} ({{sku}})' });
    expect(changesOf(await apply(t, b, pulledA.snapshot))).toEqual([]);
    // `settings: {}` is the same as none.
    const empty = copy(pulledA.snapshot);
    empty.tables[1].settings = {};
    expect(changesOf(await diff(t, b, empty))).toEqual([]);
  });

  it('a display may name a column the same snapshot adds or renames; removing it is an updateTable, not destructive', async () => {
    const p = await newProject();
    changesOf(await apply(t, p, base()));
    await setDisplay(p, 'products', '{{title}} ({{sku}})');
    const next = copy(base());
    next.tables[0].columns = [{ ...column('name', 'text'), renamedFrom: 'title' }, column('sku', 'text'), column('brand', 'text')];
    next.tables[0].settings = { display: '{{name}} {{brand}} ({{sku}})' };
    const changes = changesOf(await apply(t, p, next));
    expect(changes.map((c) => c.op)).toEqual(['updateTable', 'updateColumn', 'addColumn']);
    expect(changes[0]).toEqual({
      op: 'updateTable',
      table: 'products',
      from: { settings: { display: '{{title}} ({{sku}})' } },
      to: { settings: { display: '{{name}} {{brand}} ({{sku}})' } },
      destructive: false,
    });
    const pulled = await pull(t, p);
    expect(pulled.snapshot.tables[0].settings).toEqual({ display: '{{name}} {{brand}} ({{sku}})' });
    expect(changesOf(await apply(t, p, next))).toEqual([]);

    const without = copy(pulled.snapshot);
    delete without.tables[0].settings;
    expect(changesOf(await apply(t, p, without))).toEqual([
      { op: 'updateTable', table: 'products', from: { settings: { display: '{{name}} {{brand}} ({{sku}})' } }, to: { settings: {} }, destructive: false },
    ]);
    expect(expectStatus(await t.call('GET', `/v1/${p}/tables/products`), 200).settings).toEqual({});
    expect((await pull(t, p)).text).toBe(plain(without));
  });

  it('a display naming a column the table does not have, or malformed, is 422 on diff and apply; nothing is applied', async () => {
    const p = await newProject();
    const bad = base();
    bad.tables[0].settings = { display: '{{title}} ({{code}})' };
    bad.tables[1].settings = { display: '{{name' };
    for (const res of [await diff(t, p, bad), await apply(t, p, bad)]) {
      const error = expectError(res, 422, 'VALIDATION_ERROR');
      expect(error.details).toEqual([
        { field: 'tables.products.settings.display', message: 'names unknown columns: code' },
        { field: 'tables.tags.settings.display', message: 'must be a column name or a template of {{column}} placeholders' },
      ]);
    }
    expect((await pull(t, p)).snapshot.tables).toEqual([]);
    // The renamed-away name is unknown too: the display must name the column as the snapshot has it.
    changesOf(await apply(t, p, base()));
    const stale = base();
    stale.tables[0].columns[0] = { ...column('name', 'text'), renamedFrom: 'title' };
    stale.tables[0].settings = { display: 'title' };
    expect(expectError(await apply(t, p, stale), 422, 'VALIDATION_ERROR').details).toEqual([{ field: 'tables.products.settings.display', message: 'names unknown columns: title' }]);
    // Only the documented settings: another key is a malformed body.
    const other = base() as unknown as { tables: Record<string, unknown>[] };
    other.tables[0].settings = { colour: 'red' };
    expectError(await apply(t, p, other), 400, 'BAD_REQUEST');
  });
});

/** The pull text of a snapshot given in its normalised order (this file's snapshots are). */
function plain(s: Snapshot): string {
  return JSON.stringify({ ...s, tables: s.tables.map(({ key, name, description, defaultStatus, settings, columns }) => ({ key, name, description, defaultStatus, ...(settings ? { settings } : {}), columns: columns.map(({ renamedFrom: _r, ...c }) => c) })) });
}
