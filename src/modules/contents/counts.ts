import type { Sql } from '../../db/sql.js';
import type { ContentStatus } from '../tables/table.entity.js';

/*
 * Exact totals without count(*) (the dominant cost of a list): one row per (table, status)
 * holds the number of rows and a change counter, both kept in the same transaction as every
 * insert, update and delete. An unfiltered total is a sum over at most 4 x 16 rows, read with
 * the table's changes (list-cache/change-log.ts).
 */

/** Counter rows per (table, status): concurrent writers of one table pick different ones. */
const SHARDS = 16;

export const randomShard = () => Math.floor(Math.random() * SHARDS);

const ADD_TO_COUNTER = `insert into contents_count (table_id, status, shard, count, version)`;
const ON_COUNTER = `on conflict (table_id, status, shard) do update
         set count = contents_count.count + excluded.count, version = contents_count.version + 1`;

/**
 * Counts the rows of `relation` (a CTE of new rows) in, on shard `shard` (a parameter). Counter
 * rows are taken in one order, so two batches that span the same tables cannot deadlock on them.
 */
export const countNewRows = (relation: string, shard: string) =>
  `${ADD_TO_COUNTER} select table_id, status, ${shard}, count(*), 1 from ${relation}
     group by table_id, status order by table_id, status ${ON_COUNTER}`;

/**
 * Records `rows` rows moving from one status to another (null: did not exist / no longer exists)
 * in one statement, on one shard, taking the counter rows in status order. Taken one by one on
 * random shards, a publish and an unpublish in the same table could each hold the counter row the
 * other waited for: a deadlock, answered as a 500 (seen once in CI).
 */
export async function recordChange(sql: Sql, tableId: string, from: ContentStatus | null, to: ContentStatus | null, rows = 1): Promise<void> {
  const deltas = new Map<ContentStatus, number>();
  if (from !== null) deltas.set(from, -rows);
  if (to !== null) deltas.set(to, (deltas.get(to) ?? 0) + rows);
  await sql({
    text: `${ADD_TO_COUNTER} select $1::uuid, status, $2::int, delta, 1 from unnest($3::text[], $4::int[]) as change(status, delta)
             order by status ${ON_COUNTER}`,
    values: [tableId, randomShard(), [...deltas.keys()], [...deltas.values()]],
  });
}
