import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { buildWorld, createRow, createTable, list, putRow, type World } from './fixture.js';

/**
 * Status counters (src/modules/contents/rows/counts.ts) under publishes and unpublishes racing in one
 * table. Every writer is forced onto the same counter shard here, the case where taking the
 * (table, status) counter rows in different orders deadlocked (a 500 for one of the writers).
 */
let t: TestApi;
let w: World;
beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
});
afterAll(async () => {
  vi.restoreAllMocks();
  await t?.close();
});

describe('status counters under racing status changes', () => {
  it('publishing and unpublishing rows of one table at once: no 500, and the totals stay exact', { timeout: 60_000 }, async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0); // shard 0 for every counter change
    const table = await createTable(w, [{ name: 'title', type: 'text' }]);
    const rows = await Promise.all(
      Array.from({ length: 20 }, (_, i) => createRow(w, table.id, { title: `r${i}` }, { status: i % 2 ? 'PUBLISHED' : 'DRAFT' })),
    );
    const statuses = new Map(rows.map((row, i) => [row.id as string, i % 2 ? 'PUBLISHED' : 'DRAFT']));
    for (let round = 0; round < 6; round++) {
      const answers = await Promise.all(
        rows.map(async (row) => {
          const next = statuses.get(row.id) === 'PUBLISHED' ? 'DRAFT' : 'PUBLISHED';
          const res = await putRow(w, table.id, row.id, { status: next });
          if (res.status === 200) statuses.set(row.id, next);
          return `${res.status} ${res.status === 200 ? '' : res.text}`;
        }),
      );
      expect(answers.filter((a) => !a.startsWith('200'))).toEqual([]);
    }
    // A read key's unfiltered total is the PUBLISHED counter; the write key's, all counters.
    const published = [...statuses.values()].filter((s) => s === 'PUBLISHED').length;
    expect((await list(w, table.id, w.readKey)).pagination.total).toBe(published);
    expect((await list(w, table.id, w.writeKey)).pagination.total).toBe(20);
  });

  it('an update that keeps its status leaves the counter rows alone: it does not wait for a transaction holding them', async () => {
    const table = await createTable(w, [{ name: 'title', type: 'text' }]);
    const row = await createRow(w, table.id, { title: 'before' }, { status: 'PUBLISHED' });
    const holder = new pg.Client({ connectionString: t.db.url });
    await holder.connect();
    try {
      await holder.query('begin');
      const held = await holder.query('select 1 from contents_count where table_id = $1 for update', [table.id]);
      expect(held.rowCount).toBeGreaterThan(0);
      // Before, the update added 0 to a counter row, and so waited here until the holder ended.
      const res = await Promise.race([putRow(w, table.id, row.id as string, { data: { title: 'after' } }), new Promise<null>((r) => setTimeout(() => r(null), 5_000))]);
      expect(res?.status).toBe(200);
      await holder.query('rollback');
    } finally {
      await holder.end();
    }
    expect((await list(w, table.id, w.readKey)).pagination.total).toBe(1);
  });
});
