import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Orm } from '../../src/db/orm.js';
import { rollUpRequestLogs } from '../../src/modules/logs/log-store.js';
import { createDatabaseAt } from '../helpers/database.js';
import { storedEntries } from './fixture.js';

/*
 * The migration to segments converts the rows of the old row-per-request table: every entry
 * kept with its id and fields, and the rollup's watermark respected (rows it had folded in are
 * not folded again, the others still are).
 */
let db: Awaited<ReturnType<typeof createDatabaseAt>>;
let orm: Orm;
let pool: pg.Pool;

beforeAll(async () => {
  db = await createDatabaseAt('Migration20261122100000_guarded_casts');
  ({ orm, pool } = db);
});
afterAll(() => db?.drop());

const HOUR = 3_600_000;
const T = Date.UTC(2026, 10, 1, 10, 30);

describe('migration to log segments', () => {
  it('keeps every entry, its id and fields, and folds into the rollups only what was not folded yet', async () => {
    const project = randomUUID();
    const other = randomUUID();
    const key = randomUUID();
    const insert = (rows: [string, string, number, number][]) =>
      pool.query(
        `insert into request_log (id, project_id, request_id, method, path, status, duration_ms, api_key_id, account_id, ip, user_agent, created_at)
         select gen_random_uuid(), p, r, 'GET', '/v1/x?q=✓', s, 2.5, $2::uuid, null, '10.0.0.1', 'ua', timestamptz 'epoch' + t * interval '1 millisecond'
           from unnest($1::uuid[], $3::text[], $4::int[], $5::float8[]) as u(p, r, s, t) returning id`,
        [rows.map((r) => r[0]), key, rows.map((r) => r[1]), rows.map((r) => r[2]), rows.map((r) => r[3])],
      );
    // Folded in by the last rollup: below the watermark.
    await insert([
      [project, 'a1', 200, T],
      [project, 'a2', 404, T + 1],
      [project, 'a3', 200, T + HOUR], // the next hour: a segment of its own
      [other, 'b1', 500, T + 2],
    ]);
    await pool.query(`update request_rollup_state set watermark = pg_current_xact_id()::text::bigint`);
    // Not folded in yet.
    await insert([[project, 'c1', 201, T + 3]]);
    const before = (await pool.query(`select id, request_id, project_id, status, (extract(epoch from created_at) * 1000)::float8 as at from request_log`)).rows;

    await orm.migrator.up();

    const after = await storedEntries(pool);
    expect(after).toHaveLength(5);
    for (const row of before) {
      expect(after.find((e) => e.id === row.id)).toEqual({
        id: row.id,
        projectId: row.project_id,
        requestId: row.request_id,
        method: 'GET',
        path: '/v1/x?q=✓',
        status: row.status,
        durationMs: 2.5,
        apiKeyId: key,
        accountId: null,
        ip: '10.0.0.1',
        userAgent: 'ua',
        createdAt: row.at,
      });
    }
    const segments = (await pool.query(`select project_id, entries, tx = 0 as rolled from request_log_segment order by project_id, first_at, tx`)).rows;
    expect(segments).toHaveLength(4);
    expect(segments.filter((s) => s.rolled).reduce((n, s) => n + s.entries, 0)).toBe(4);
    // Only the entry that was not rolled up before is folded in now.
    expect((await rollUpRequestLogs(pool)).folded).toBe(1);
    expect((await pool.query(`select to_regclass('request_log') as old`)).rows[0].old).toBeNull();
  });
});
