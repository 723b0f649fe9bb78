import type { Sql } from '../../../db/sql.js';
import { addToCounters } from './rows.sql.js';
import type { ContentStatus } from '../../tables/table.entity.js';

/*
 * Exact totals without count(*) (the dominant cost of a list): one row per (table, status)
 * holds the number of rows and a change counter, both kept in the same transaction as every
 * insert, update and delete. An unfiltered total is a sum over at most 4 x 16 rows, read with
 * the table's changes (list-cache/change-log.ts).
 */

/** Counter rows per (table, status): concurrent writers of one table pick different ones. */
const SHARDS = 16;

export const randomShard = () => Math.floor(Math.random() * SHARDS);

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
  await sql(addToCounters(tableId, randomShard(), [...deltas.keys()], [...deltas.values()]));
}
