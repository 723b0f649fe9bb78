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
  // Nothing moved (an update that keeps its status): no statement. Adding 0 still updated a
  // counter row, which then stayed locked until the commit, so concurrent updates of a table
  // queued on its counter rows.
  if (from === to) return;
  const deltas = new Map<ContentStatus, number>();
  if (from !== null) deltas.set(from, -rows);
  if (to !== null) deltas.set(to, (deltas.get(to) ?? 0) + rows);
  await sql(addToCounters(tableId, randomShard(), [...deltas.keys()], [...deltas.values()]));
}

/**
 * The count changes of many writes in one transaction (a release, a scheduled publisher's
 * batch), applied together at its end: one statement per table, tables in id order, each taking
 * its counter rows in status order. Recorded write by write on random shards, two such
 * transactions over the same table each held counter rows the other waited for (a deadlock);
 * taken at the end in one order, they only ever wait for each other, and the counter rows are
 * held for the commit alone instead of the whole transaction.
 */
export class CountChanges {
  private readonly tables = new Map<string, Map<ContentStatus, number>>();

  /** Records `rows` rows of `tableId` moving from one status to another (null: did not exist / no longer exists). */
  add(tableId: string, from: ContentStatus | null, to: ContentStatus | null, rows = 1): void {
    if (from === to) return;
    const deltas = this.tables.get(tableId) ?? new Map<ContentStatus, number>();
    this.tables.set(tableId, deltas);
    if (from !== null) deltas.set(from, (deltas.get(from) ?? 0) - rows);
    if (to !== null) deltas.set(to, (deltas.get(to) ?? 0) + rows);
  }

  /** Adds another collector's changes (a part of the transaction that was kept). */
  merge(other: CountChanges): void {
    for (const [tableId, deltas] of other.tables) for (const [status, delta] of deltas) this.add(tableId, null, status, delta);
  }

  /** Applies and forgets the changes recorded so far. */
  async apply(sql: Sql): Promise<void> {
    for (const tableId of [...this.tables.keys()].sort()) {
      const changed = [...this.tables.get(tableId)!].filter(([, delta]) => delta !== 0);
      if (changed.length > 0) await sql(addToCounters(tableId, randomShard(), changed.map(([status]) => status), changed.map(([, delta]) => delta)));
    }
    this.tables.clear();
  }
}
