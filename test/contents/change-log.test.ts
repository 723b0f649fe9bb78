import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlOn } from '../../src/db/sql.js';
import { deleteSeenChanges, parseSnapshot, readTableState, visibleIn } from '../../src/modules/contents/list-cache/change-log.js';
import { CHANGES_RETENTION_MS } from '../../src/modules/contents/list-cache/table-sync.js';
import { Horizon } from '../../workers/handlers/change-log.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { buildWorld, createRow, createTable, type World } from './fixture.js';

/*
 * The change log the list caches read (list-cache/change-log.ts): triggers record every write,
 * a reader gets exactly the changes committed since its snapshot (a writer that started earlier
 * but commits later is not skipped), bulk statements record one "recompute" row, and trimming
 * keeps what a reader may still need.
 */
let t: TestApi;
let w: World;
let pool: pg.Pool;
beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  pool = new pg.Pool({ connectionString: t.db.url, max: 3 });
});
afterAll(async () => {
  await pool?.end();
  await t?.close();
});

describe('snapshots', () => {
  it('parse and visibility follow pg_visible_in_snapshot', () => {
    const s = parseSnapshot('100:105:101,103');
    expect([99, 100, 101, 102, 103, 104, 105].map((x) => visibleIn(x, s))).toEqual([true, true, false, true, false, true, false]);
    expect(parseSnapshot('7:7:').running.size).toBe(0);
  });
});

describe('reading changes', () => {
  it('a writer that commits after a later one is read once it commits, never skipped or read twice', async () => {
    const table = await createTable(w, [{ name: 'n', type: 'integer' }]);
    const sql = sqlOn(pool);
    const first = await readTableState(sql, table.id, null);
    expect(first.changes).toEqual([]);
    const slow = await pool.connect();
    try {
      await slow.query('begin');
      await slow.query(
        `insert into contents (id, project_id, table_id, status, data, created_at, updated_at) values ($1, $2, $3, 'PUBLISHED', '{"n": 1}', now(), now())`,
        [randomUUID(), w.projectId, table.id],
      );
      const fast = await createRow(w, table.id, { n: 2 });
      const second = await readTableState(sql, table.id, first.snapshot);
      expect(second.changes.map((c) => c.new?.id)).toEqual([fast.id]);
      expect(second.changes[0]).toMatchObject({ old: null, new: { status: 'PUBLISHED', data: { n: 2 }, createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/) } });
      await slow.query('commit');
      const third = await readTableState(sql, table.id, second.snapshot);
      expect(third.changes.map((c) => c.new?.data)).toEqual([{ n: 1 }]);
      expect((await readTableState(sql, table.id, third.snapshot)).changes).toEqual([]);
      // The slow insert went around the API, so the counters (the totals) hold only the API's create.
      expect(third.total).toBe(1);
    } finally {
      slow.release();
    }
  });

  it('updates carry both images; a statement over 256 rows records one row without images', async () => {
    const table = await createTable(w, [{ name: 'n', type: 'integer' }]);
    const sql = sqlOn(pool);
    const row = await createRow(w, table.id, { n: 1 });
    const start = await readTableState(sql, table.id, null);
    await pool.query(`update contents set data = '{"n": 5}' where id = $1`, [row.id]);
    const updated = await readTableState(sql, table.id, start.snapshot);
    expect(updated.changes.map((c) => [c.old?.data, c.new?.data])).toEqual([[{ n: 1 }, { n: 5 }]]);
    await pool.query(
      `insert into contents (id, project_id, table_id, status, data, created_at, updated_at)
       select gen_random_uuid(), $1, $2, 'DRAFT', '{}', now(), now() from generate_series(1, 300)`,
      [w.projectId, table.id],
    );
    const bulk = await readTableState(sql, table.id, updated.snapshot);
    expect(bulk.changes.map((c) => [c.old, c.new])).toEqual([[null, null]]);
  });

  it('trimming removes what ended before the horizon and keeps the rest', async () => {
    const table = await createTable(w, [{ name: 'n', type: 'integer' }]);
    const sql = sqlOn(pool);
    await createRow(w, table.id, { n: 1 });
    await createRow(w, table.id, { n: 2 });
    // The horizon is the second write's transaction id: the first one ended before it began.
    // (Not the server's current xmin: a transaction of another test file on the same server
    // may hold it below the first write.)
    const [{ xid }] = (await pool.query(`select xid::text from contents_change where table_id = $1 and new->'data' = '{"n":2}'`, [table.id])).rows;
    await deleteSeenChanges(sql, Number(xid));
    const { rows } = await pool.query(`select new->'data' as data from contents_change where table_id = $1`, [table.id]);
    expect(rows.map((r) => r.data)).toEqual([{ n: 2 }]);
  });
});

describe('the trimming horizon', () => {
  it('is the newest reading at least a retention period old', () => {
    const horizon = new Horizon();
    horizon.record(0, 10);
    horizon.record(1_000, 20);
    expect(horizon.at(CHANGES_RETENTION_MS - 1)).toBeNull();
    expect(horizon.at(CHANGES_RETENTION_MS)).toBe(10);
    horizon.record(CHANGES_RETENTION_MS + 5_000, 30);
    expect(horizon.at(CHANGES_RETENTION_MS + 1_000)).toBe(20);
    expect(horizon.at(CHANGES_RETENTION_MS + 2_000)).toBe(20);
    expect(horizon.at(2 * CHANGES_RETENTION_MS + 5_000)).toBe(30);
  });
});
