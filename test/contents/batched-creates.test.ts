import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { buildWorld, createTable, expectConflict, list, postRow, type World } from './fixture.js';

/**
 * Concurrent creates are written in batches, one statement and one transaction per batch
 * (src/modules/contents/rows/insert.ts). Each request must still get its own answer: its
 * row, or a 409 naming the field when a unique value was taken, by a stored row or by another
 * row of the same batch; counts and events only for the rows that were stored.
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

/** Transactions the table's rows were written in (rows of one batch share their xmin). */
async function transactionsOf(tableId: string): Promise<number> {
  const { rows } = await db.query(`select count(distinct xmin::text)::int as n from contents where table_id = $1`, [tableId]);
  return rows[0].n;
}

/** `contents.created` events in the outbox for the table, as row ids, sorted. */
async function createdEvents(tableId: string): Promise<string[]> {
  const { rows } = await db.query(
    `select payload->'data'->>'id' as id from event_outbox where payload->>'tableId' = $1 and payload->>'type' = 'contents.created'`,
    [tableId],
  );
  return rows.map((r) => r.id as string).sort();
}

const createdIds = (results: { status: number; json: { id: string } }[]) =>
  results.filter((r) => r.status === 201).map((r) => r.json.id).sort();

describe('creates written in batches', () => {
  it('40 concurrent creates: all 201 with their own row, written in fewer transactions, counted and evented once each', async () => {
    const table = await createTable(w, [{ name: 'n', type: 'integer' }]);
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => postRow(w, table.id, { data: { n: i } })));
    expect(results.map((r) => r.status)).toEqual(Array(40).fill(201));
    // Each answer is the row its own request sent.
    results.forEach((r, i) => expect(r.json.data).toEqual({ n: i }));
    expect(new Set(results.map((r) => r.json.id)).size).toBe(40);
    expect(await transactionsOf(table.id)).toBeLessThan(40);
    const stored = await list(w, table.id, w.writeKey, { size: 100 });
    expect(stored.pagination.total).toBe(40);
    expect(stored.list.map((row: { id: string }) => row.id).sort()).toEqual(createdIds(results));
    expect(await createdEvents(table.id)).toEqual(createdIds(results));
  });

  it('a taken unique value refuses only its own row: 10 racing for one value and 10 distinct ones give 11 rows', async () => {
    const table = await createTable(w, [{ name: 'sku', type: 'text', settings: { unique: true } }]);
    const bodies = Array.from({ length: 20 }, (_, i) => ({ data: { sku: i % 2 === 0 ? 'SAME' : `own-${i}` } }));
    const results = await Promise.all(bodies.map((body) => postRow(w, table.id, body)));
    const refused = results.filter((r) => r.status === 409);
    expect(results.filter((r) => r.status === 201)).toHaveLength(11);
    expect(refused).toHaveLength(9);
    for (const r of refused) expectConflict(r, 'data.sku');
    results.forEach((r, i) => {
      if (i % 2 === 1) expect(r.status).toBe(201);
    });
    const stored = await list(w, table.id, w.writeKey, { size: 100 });
    expect(stored.pagination.total).toBe(11);
    expect(stored.list.map((row: { id: string }) => row.id).sort()).toEqual(createdIds(results));
    expect(await createdEvents(table.id)).toEqual(createdIds(results));
  });

  it('an explicit slug taken within the same burst: one 201, the others 409 naming the slug column', async () => {
    const table = await createTable(w, [
      { name: 'title', type: 'text' },
      { name: 'slug', type: 'slug', settings: { source: 'title' } },
    ]);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => postRow(w, table.id, { data: { title: `T${i}`, slug: 'taken' } })));
    expect(results.map((r) => r.status).sort()).toEqual([201, ...Array(7).fill(409)]);
    for (const r of results.filter((x) => x.status === 409)) expectConflict(r, 'data.slug');
    expect((await list(w, table.id, w.writeKey)).pagination.total).toBe(1);
  });

  it('a burst across two tables: each table counts and lists its own rows', async () => {
    const [a, b] = [await createTable(w, [{ name: 'n', type: 'integer' }]), await createTable(w, [{ name: 'n', type: 'integer' }])];
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => postRow(w, (i % 3 === 0 ? a : b).id, { data: { n: i }, status: i % 2 === 0 ? 'DRAFT' : 'PUBLISHED' })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(30).fill(201));
    const totals = async (tableId: string, token: string) => (await list(w, tableId, token, { size: 100 })).pagination.total;
    expect([await totals(a.id, w.writeKey), await totals(b.id, w.writeKey)]).toEqual([10, 20]);
    // Read keys count PUBLISHED rows only: the per-status counters were kept apart.
    expect([await totals(a.id, w.readKey), await totals(b.id, w.readKey)]).toEqual([5, 10]);
  });
});
