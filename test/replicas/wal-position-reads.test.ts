import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWalPositionAfter } from '../../src/db/wal-position-reads.js';
import { parseLsn, WAL_POSITION_SQL } from '../../src/db/wal-position.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/*
 * The WAL position after a write that did not read it with its COMMIT (src/db/wal-position-reads.ts):
 * shared by the writes that ask together, and never read before a write asked.
 */

let db: TestDatabase;
let pool: pg.Pool;
let positionReads = 0;
let running = 0;
let mostAtOnce = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
  const query = pool.query.bind(pool);
  // Counts the position reads the pool is asked for (the statement still runs on the real server).
  pool.query = ((text: string, values?: unknown[]) => {
    if (text !== WAL_POSITION_SQL) return query(text, values);
    positionReads++;
    mostAtOnce = Math.max(mostAtOnce, ++running);
    return query(text, values).finally(() => running--);
  }) as typeof pool.query;
  await pool.query('create table wal_probe (n int)');
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

describe('WAL position reads after writes', () => {
  it('answers 32 concurrent writes with a few shared reads, one at a time, each past the write it answers', async () => {
    positionReads = 0;
    mostAtOnce = 0;
    const writes = await Promise.all(
      Array.from({ length: 32 }, async (_, i) => {
        await pool.query('insert into wal_probe (n) values ($1)', [i]);
        const [{ lsn }] = (await pool.query<{ lsn: string }>('select pg_current_wal_insert_lsn()::text as lsn -- after the write')).rows;
        return { committed: parseLsn(lsn)!, answered: parseLsn(await readWalPositionAfter(pool))! };
      }),
    );
    expect(positionReads).toBeGreaterThan(0);
    expect(positionReads).toBeLessThanOrEqual(16);
    expect(mostAtOnce).toBe(1);
    for (const { committed, answered } of writes) expect(answered >= committed).toBe(true);
  });

  it('reads again for a write that asks after the last read started', async () => {
    const first = parseLsn(await readWalPositionAfter(pool))!;
    await pool.query('insert into wal_probe (n) values (1)');
    const second = parseLsn(await readWalPositionAfter(pool))!;
    expect(second > first).toBe(true);
  });
});
