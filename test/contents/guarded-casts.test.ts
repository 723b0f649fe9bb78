import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { addColumn, buildWorld, columnsPath, contentsPath, createRow, createTable, type World } from './fixture.js';

/**
 * Number, integer and boolean columns are cast from jsonb text in their indexes and statistics.
 * Those casts also meet values that are not this column's: dead row versions that still hold a
 * deleted column's value of the same name (index builds read them while an older snapshot is
 * open), and rows of other tables (statistics sample the whole `contents` table).
 */
let t: TestApi;
let w: World;
let db: pg.Client;
beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  db = new pg.Client({ connectionString: t.db.url });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await t?.close();
});

describe('guarded casts', () => {
  it('a number column can be added while dead row versions hold text under its name', async () => {
    const table = await createTable(w, [{ name: 'note', type: 'text' }]);
    for (let i = 0; i < 5; i++) await createRow(w, table.id, { note: `text ${i}` });
    // An old snapshot keeps the text versions alive for index builds (as any long transaction would).
    const old = new pg.Client({ connectionString: t.db.url });
    await old.connect();
    try {
      await old.query('begin isolation level repeatable read');
      await old.query('select 1 from project limit 1');
      expect((await t.call('DELETE', columnsPath(w, table.id, 'note'))).status).toBe(204);
      // What the purge does to the rows: the values go (new row versions), the old ones stay visible to `old`.
      await db.query(`update contents set data = data - 'note' where table_id = $1`, [table.id]);
      await db.query(`delete from content_column where table_id = $1 and name = 'note'`, [table.id]);
      const again = await t.call('POST', columnsPath(w, table.id), { body: { name: 'note', type: 'integer', settings: { unique: true } } });
      expect(again.status, again.text).toBe(201);
    } finally {
      await old.query('rollback');
      await old.end();
    }
    const row = await t.call('POST', contentsPath(w, table.id), { token: w.writeKey, body: { data: { note: 7 } } });
    expect(row.status, row.text).toBe(201);
    const found = await t.call('GET', `${contentsPath(w, table.id)}?filter=${encodeURIComponent(JSON.stringify([{ i: 'note', w: 'eq', v: 7 }]))}`, { token: w.writeKey });
    expect(found.json.list.map((r: { id: string }) => r.id)).toEqual([row.json.id]);
  });

  it('statistics on a number column survive text under the same name in another table', async () => {
    const words = await createTable(w, [{ name: 'amount', type: 'text' }]);
    for (let i = 0; i < 20; i++) await createRow(w, words.id, { amount: `about ${i}` });
    const numbers = await createTable(w, [{ name: 'amount', type: 'number' }, { name: 'flag', type: 'boolean' }]);
    await addColumn(w, words.id, { name: 'flag', type: 'select', settings: { options: ['yes', 'no'] } });
    await createRow(w, words.id, { flag: 'yes' });
    for (let i = 0; i < 20; i++) await createRow(w, numbers.id, { amount: i, flag: i % 2 === 0 });
    // ANALYZE evaluates every statistics expression on sampled rows of every table.
    await db.query('analyze contents');
    const sorted = await t.call('GET', `${contentsPath(w, numbers.id)}?size=3&sort=${encodeURIComponent(JSON.stringify([{ i: 'amount', o: 'desc' }]))}`, { token: w.writeKey });
    expect(sorted.json.list.map((r: { data: { amount: number } }) => r.data.amount)).toEqual([19, 18, 17]);
  });
});
