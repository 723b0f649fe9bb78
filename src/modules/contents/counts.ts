import type { Sql, SqlQuery } from '../../db/sql.js';
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

/** Adjusts one (table, status) count by `delta` and bumps its change counter, on a random shard. */
export const countChange = (tableId: string, status: ContentStatus, delta: number): SqlQuery => ({
  text: `${ADD_TO_COUNTER} values ($1, $2, $3, $4, 1) ${ON_COUNTER}`,
  values: [tableId, status, randomShard(), delta],
});

/**
 * Counts the rows of `relation` (a CTE of new rows) in, on shard `shard` (a parameter). Counter
 * rows are taken in one order, so two batches that span the same tables cannot deadlock on them.
 */
export const countNewRows = (relation: string, shard: string) =>
  `${ADD_TO_COUNTER} select table_id, status, ${shard}, count(*), 1 from ${relation}
     group by table_id, status order by table_id, status ${ON_COUNTER}`;

/** Records a row moving from one status to another (null: did not exist / no longer exists). */
export async function recordChange(sql: Sql, tableId: string, from: ContentStatus | null, to: ContentStatus | null): Promise<void> {
  if (from === to && from !== null) {
    await sql(countChange(tableId, from, 0));
    return;
  }
  if (from !== null) await sql(countChange(tableId, from, -1));
  if (to !== null) await sql(countChange(tableId, to, 1));
}
