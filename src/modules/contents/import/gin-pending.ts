import type pg from 'pg';
import { sqlOn } from '../../../db/sql.js';
import { cleanPendingList, ginIndexesOf } from './gin-pending.sql.js';

/*
 * A table's GIN indexes (trigram `contains`, search, multi-value columns) cost an import more
 * than any other part of its writes. Backend CPU for one statement of 10,000 rows like the
 * benchmark's (2026-11-26): 950 ms with the GIN indexes, 610 ms without them; on a busier
 * machine, 1,300 ms with their pending lists merged as usual and 930 ms with the entries only
 * appended. An import therefore only appends (its session's pending list limit is raised), and
 * a second connection merges the pending lists while it runs, on the other core. Readers stay
 * fast: a GIN scan reads the pending list whole, and it is kept short. A merge of pending
 * entries of rows not yet committed is safe: index entries are only pointers, and visibility is
 * decided by the heap.
 */

/** Pause between rounds that found nothing to merge. */
const IDLE_MS = 50;

export interface PendingListMerger {
  /** Stops merging, after a last round: what the import appended is merged before it answers. */
  stop(): Promise<void>;
}

/** Merges the pending lists of `tableId`'s GIN indexes until stopped; connections come from `pool`, one statement at a time. */
export async function mergePendingLists(pool: pg.Pool, tableId: string): Promise<PendingListMerger> {
  const sql = sqlOn(pool);
  const indexes = (await sql<{ name: string }>(ginIndexesOf(tableId))).map((r) => r.name);
  if (indexes.length === 0) return { stop: async () => {} };
  let running = true;
  const round = async () => {
    let merged = 0;
    for (const index of indexes) merged += Number((await sql<{ pages: string }>(cleanPendingList(index)))[0].pages);
    return merged;
  };
  // Merging only saves the import work: when it fails (an index dropped meanwhile, the server
  // going away), it stops, and the import merges what is left itself past its limit.
  const loop = (async () => {
    while (running) {
      if ((await round()) === 0 && running) await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    }
  })().catch(() => {});
  return {
    async stop() {
      running = false;
      await loop;
      await round().catch(() => {});
    },
  };
}
