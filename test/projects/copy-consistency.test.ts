import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { until } from '../helpers/until.js';
import { buildWorld, expectCreated, expectStatus, type World } from '../contents/fixture.js';

/**
 * A copy is one snapshot of its source (docs/concepts.md#copying-a-project), however the source
 * is written meanwhile. Writers run for the whole copy of a 20,000-row project:
 * - transactions that insert a row into each of two tables with the same `pair` (a write that
 *   spans tables, as a release publishes rows of several tables at once);
 * - transactions that move a unit between a counter row of each table (the sum never changes);
 * - API updates of other rows.
 * The copy must hold every pair complete and the counters' sum, and answer exact totals.
 */
const PAIRS = 10_000;
const TOTAL = 1_000;

let t: TestApi;
let w: World;
let db: pg.Pool;
const tableIds: Record<'a' | 'b', string> = { a: '', b: '' };
const counters: Record<'a' | 'b', string> = { a: '', b: '' };

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  db = new pg.Pool({ connectionString: t.db.url, max: 8 });
  for (const key of ['a', 'b'] as const) {
    const table = expectCreated(await t.call('POST', `/v1/${w.projectId}/tables`, { body: { key: `side_${key}`, name: `Side ${key}` } }));
    tableIds[key] = table.id;
    for (const column of [
      { name: 'pair', type: 'text' },
      { name: 'n', type: 'integer' },
      { name: 'note', type: 'text' },
    ]) {
      expectCreated(await t.call('POST', `/v1/${w.projectId}/tables/${table.id}/columns`, { body: column }));
    }
    const lines = Array.from({ length: PAIRS }, (_, i) => JSON.stringify({ data: { pair: `p${i}`, n: 0 } })).join('\n') + '\n';
    const imported = await t.call('POST', `/v1/${w.projectId}/tables/${table.id}/contents/import`, {
      raw: lines,
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expectStatus(imported, 200);
    const counter = expectCreated(await t.call('POST', `/v1/${w.projectId}/tables/${table.id}/contents`, { body: { data: { pair: 'counter', n: key === 'a' ? TOTAL : 0 } } }));
    counters[key] = counter.id;
  }
}, 120_000);
afterAll(async () => {
  await db?.end();
  await t?.close();
});

/** Inserts a pair of rows, one per table, in one transaction. */
async function insertPair(n: number): Promise<void> {
  const client = await db.connect();
  try {
    await client.query('begin');
    for (const key of ['a', 'b'] as const) {
      await client.query(
        `insert into contents (id, project_id, table_id, status, data, created_at, updated_at)
         values (gen_random_uuid(), $1, $2, 'PUBLISHED', jsonb_build_object('pair', $3::text, 'n', 0), now(), now())`,
        [w.projectId, tableIds[key], `w${n}`],
      );
    }
    await client.query('commit');
  } catch (error) {
    await client.query('rollback');
    throw error;
  } finally {
    client.release();
  }
}

/** Moves one unit from one counter row to the other, in one transaction (both rows locked in one order). */
async function moveUnit(n: number): Promise<void> {
  const [from, to] = n % 2 === 0 ? [counters.a, counters.b] : [counters.b, counters.a];
  const client = await db.connect();
  try {
    await client.query('begin');
    await client.query('select id from contents where id = any($1) order by id for update', [[from, to]]);
    await client.query(`update contents set data = jsonb_set(data, '{n}', to_jsonb((data->>'n')::int - 1)) where id = $1`, [from]);
    await client.query(`update contents set data = jsonb_set(data, '{n}', to_jsonb((data->>'n')::int + 1)) where id = $1`, [to]);
    await client.query('commit');
  } catch (error) {
    await client.query('rollback');
    throw error;
  } finally {
    client.release();
  }
}

describe('a copy while the source is written', () => {
  it('is one snapshot: every pair complete, the counters sum to the total, totals exact', async () => {
    let running = true;
    const commits: number[] = [];
    const loop = async (work: (n: number) => Promise<unknown>) => {
      for (let n = 0; running; n++) {
        await work(n);
        commits.push(Date.now());
      }
    };
    const someRow = (await t.call('GET', `/v1/${w.projectId}/tables/side_a/contents?size=50`)).json.list as { id: string }[];
    const updates: number[] = [];
    const writers = [
      loop((n) => insertPair(n * 2)),
      loop((n) => insertPair(n * 2 + 1)),
      // Three movers: a move commits every few milliseconds, between any two statements of a copy that read without one snapshot.
      loop(moveUnit),
      loop(moveUnit),
      loop(moveUnit),
      loop(async (n) => {
        const row = someRow[n % someRow.length];
        const res = await t.call('PUT', `/v1/${w.projectId}/tables/side_a/contents/${row.id}`, { token: w.writeKey, body: { data: { note: `u${n}` } } });
        updates.push(res.status);
      }),
    ];
    // Writers are under way before the copy starts.
    while (commits.length < 20) await new Promise((resolve) => setTimeout(resolve, 10));
    const started = Date.now();
    const res = await t.call('POST', `/v1/workspaces/${w.workspaceId}/projects`, { body: { name: 'Snapshot', from: { projectId: w.projectId, contents: true } } });
    const ended = Date.now();
    running = false;
    await Promise.all(writers);
    const copy = expectCreated(res);
    expect(commits.filter((at) => at >= started && at <= ended).length, 'writes committed while the copy ran').toBeGreaterThan(0);
    expect(updates.every((status) => status === 200)).toBe(true);

    const tables = (await db.query<{ id: string; key: string }>('select id, key from content_table where project_id = $1', [copy.id])).rows;
    const idOf = (key: string) => tables.find((x) => x.key === key)!.id;
    const [a, b] = [idOf('side_a'), idOf('side_b')];
    const incomplete = await db.query(
      `select count(*)::int as n from (select data->>'pair' as pair from contents where table_id = $1) x
         full join (select data->>'pair' as pair from contents where table_id = $2) y using (pair)
        where x.pair is null or y.pair is null`,
      [a, b],
    );
    expect(incomplete.rows[0].n).toBe(0);
    const sum = await db.query(`select sum((data->>'n')::int)::int as n from contents where table_id = any($1) and data->>'pair' = 'counter'`, [[a, b]]);
    expect(sum.rows[0].n).toBe(TOTAL);
    const counts = await db.query<{ table_id: string; n: number }>(`select table_id, count(*)::int as n from contents where table_id = any($1) group by table_id`, [[a, b]]);
    expect(counts.rows.length).toBe(2);
    expect(counts.rows[0].n).toBe(counts.rows[1].n);
    expect(counts.rows[0].n).toBeGreaterThanOrEqual(PAIRS + 1);
    // The copy answers its exact totals at once.
    for (const table of ['side_a', 'side_b']) {
      const list = expectStatus(await t.call('GET', `/v1/${copy.id}/tables/${table}/contents?size=1`), 200);
      expect(list.pagination.total).toBe(counts.rows[0].n);
    }
    // The source went on: it holds more pairs than the copy saw.
    const source = await db.query(`select count(*)::int as n from contents where table_id = $1`, [tableIds.a]);
    expect(source.rows[0].n).toBeGreaterThan(counts.rows[0].n);
  }, 120_000);

  /**
   * Holds the source project's row changed in an open transaction until the copy waits for it,
   * then commits: the copy's lock then meets a change newer than its snapshot.
   */
  async function copyAcross(change: string) {
    const client = await db.connect();
    try {
      await client.query('begin');
      await client.query(change, [w.projectId]);
      const copying = t.call('POST', `/v1/workspaces/${w.workspaceId}/projects`, { body: { name: 'Retried', from: { projectId: w.projectId } } });
      await until(
        async () => (await db.query(`select 1 from pg_stat_activity where wait_event_type = 'Lock' and query like '%for share of p%'`)).rowCount,
        30_000,
        'the copy waiting for the source project row',
      );
      await client.query('commit');
      return await copying;
    } finally {
      client.release();
    }
  }

  it('a change of the source committed while the copy waits for it: the copy starts again from a new snapshot', async () => {
    const made = expectCreated(await copyAcross(`update project set description = 'changed meanwhile' where id = $1`));
    expect((await t.call('GET', `/v1/${made.id}/tables`)).json.list).toHaveLength(2);
  });

  it('the source deleted while the copy waits for it: 404, and no project was made', async () => {
    const before = (await db.query('select count(*)::int as n from project')).rows[0].n;
    const res = await copyAcross('update project set deleted_at = now() where id = $1');
    expect([res.status, res.json.error?.code]).toEqual([404, 'NOT_FOUND']);
    expect((await db.query('select count(*)::int as n from project')).rows[0].n).toBe(before);
  });
});
