import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { runSql } from '../../db/sql.js';
import type { ContentStatus } from '../tables/table.entity.js';

/**
 * Exact row counts per (table, status), kept in the same transaction as every insert, delete and
 * status change: an unfiltered list total costs one index lookup instead of a count(*) over the
 * table (the dominant cost of a list, see the benchmark).
 */
export async function adjustCount(em: EntityManager, tableId: string, status: ContentStatus, delta: number): Promise<void> {
  await runSql(em, {
    text: `insert into contents_count (table_id, status, count) values ($1, $2, $3)
           on conflict (table_id, status) do update set count = contents_count.count + excluded.count`,
    values: [tableId, status, delta],
  });
}

export async function moveCount(em: EntityManager, tableId: string, from: ContentStatus, to: ContentStatus): Promise<void> {
  if (from === to) return;
  await adjustCount(em, tableId, from, -1);
  await adjustCount(em, tableId, to, 1);
}

/** The number of rows a caller sees without filters: PUBLISHED only, or every status. */
export async function unfilteredTotal(pool: pg.Pool, tableId: string, publicOnly: boolean): Promise<number> {
  const { rows } = await pool.query<{ total: string | null }>(
    publicOnly
      ? `select sum(count) as total from contents_count where table_id = $1 and status = 'PUBLISHED'`
      : 'select sum(count) as total from contents_count where table_id = $1',
    [tableId],
  );
  return Number(rows[0]?.total ?? 0);
}
