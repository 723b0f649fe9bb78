import type pg from 'pg';
import { sqlOn } from '../../../db/sql.js';
import { coalesce } from '../../../shared/coalesce.js';
import type { ContentsRow, NewRow } from './row.js';
import { insertContents } from './rows.sql.js';
import { randomShard } from './counts.js';

/** Inserts one row; a taken unique value fails the statement (23505) as a single insert would. */
export async function insertRow(db: pg.Pool | pg.PoolClient, row: NewRow): Promise<ContentsRow> {
  const [inserted] = await sqlOn(db)<ContentsRow>(insertContents([row], false, randomShard()));
  return inserted;
}

/** Concurrent creates leave in batches of up to this many rows... */
const MAX_BATCH = 64;
/** ...with at most this many batches running at once per pool. */
const MAX_IN_FLIGHT = 4;

const batchInserters = new WeakMap<pg.Pool, (row: NewRow) => Promise<ContentsRow | null>>();

/**
 * Inserts a row together with the creates running concurrently on the same pool (one statement,
 * one commit for the batch: per row, PostgreSQL and the API each do a fraction of the work).
 * Answers the inserted row, or null when one of its unique values was taken, by an existing row
 * or by an earlier row of the same batch. Rejects when the batch's statement failed; the caller
 * then inserts its row alone, so one bad row never fails the others.
 */
export function insertRowBatched(pool: pg.Pool, row: NewRow): Promise<ContentsRow | null> {
  let insert = batchInserters.get(pool);
  if (!insert) {
    insert = coalesce(
      async (rows: NewRow[]) => {
        const inserted = await sqlOn(pool)<ContentsRow>(insertContents(rows, true, randomShard()));
        const byId = new Map(inserted.map((r) => [r.id, r]));
        return rows.map(({ row }) => byId.get(row.id) ?? null);
      },
      { maxBatch: MAX_BATCH, maxInFlight: MAX_IN_FLIGHT },
    );
    batchInserters.set(pool, insert);
  }
  return insert(row);
}
