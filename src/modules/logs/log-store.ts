import type pg from 'pg';
import { sqlOn, transaction, type Sql } from '../../db/sql.js';
import { buildSegments, readSegment, type LogSegment } from './log-segment.js';
import {
  advanceWatermark,
  currentXactId,
  expiredSegmentsBatch,
  foldSegments,
  insertSegments,
  lockRollupState,
  lockSegmentInserts,
  mergeableHours,
  raiseRetention,
  takeMergeable,
} from './log.sql.js';

/*
 * The worker side of request logs (docs/logs-and-metrics.md#request-logs): segment inserts, hourly rollups, retention.
 */

/**
 * Inserts segments in one statement. A segment inserted before (its job retried after the insert
 * committed) is skipped by its id, so a job can be delivered twice without duplicate entries.
 * Segments of unknown or deleted projects are dropped. Returns the number of entries inserted.
 * `rolledUp`: entries the rollups already hold (merged segments), stored below every watermark.
 */
export async function insertLogSegments(sql: Sql, segments: LogSegment[], options: { rolledUp?: boolean } = {}): Promise<number> {
  if (segments.length === 0) return 0;
  const [{ inserted }] = await sql<{ inserted: string }>(insertSegments(segments, options.rolledUp ?? false));
  return Number(inserted);
}

/**
 * Folds every log segment committed since the last run into `request_rollup` (from the segments'
 * facets; the payloads stay closed), and moves the watermark, in one transaction. Exactly once,
 * however many workers run it: the state row is locked first, so runs take turns and each starts
 * from the previous one's watermark. The segment table is then locked against inserts (SHARE: an
 * insert in progress finishes first, new ones wait a few milliseconds), so every row below this
 * transaction's id is committed and visible, and every later row gets a larger id: that id is the
 * new watermark. (The snapshot's xmin would need no lock, but any long transaction anywhere on
 * the server would hold it back.)
 */
export async function rollUpRequestLogs(pool: pg.Pool): Promise<{ folded: number }> {
  return transaction(pool, async (sql) => {
    const [{ watermark }] = await sql<{ watermark: string }>(lockRollupState());
    await sql(lockSegmentInserts());
    const [{ upto }] = await sql<{ upto: string }>(currentXactId());
    const [{ folded }] = await sql<{ folded: string }>(foldSegments(watermark, upto));
    await sql(advanceWatermark(upto));
    return { folded: Number(folded) };
  });
}

/** Segments per delete statement (a few hundred entries each): short locks, small WAL bursts. */
const DELETE_BATCH = 1000;

/**
 * Deletes request logs older than `days`, by whole hours, in batches of segments. The boundary
 * is recorded first, so lists and totals stop showing entries below it at once (a segment that
 * spans it is kept until its last entry expires). Only segments the rollup has folded in are
 * deleted (below the watermark), so no request goes missing from the metrics. Rollups stay:
 * metrics keep their history. Returns the number of entries removed.
 */
export async function deleteExpiredLogs(pool: pg.Pool, days: number): Promise<number> {
  const sql = sqlOn(pool);
  const [{ boundary }] = await sql<{ boundary: string }>(raiseRetention(days));
  let removed = 0;
  for (;;) {
    const deleted = await sql<{ entries: number }>(expiredSegmentsBatch(boundary, DELETE_BATCH));
    removed += deleted.reduce((sum, row) => sum + row.entries, 0);
    if (deleted.length < DELETE_BATCH) break;
  }
  return removed;
}

/** Segments with fewer entries than this, in an hour that has ended, are merged. */
const SMALL_SEGMENT = 500;
/** Project-hours merged per run: a run stays short; the next minute's run goes on. */
const GROUPS_PER_RUN = 50;

/**
 * Merges the small segments of an hour that ended more than five minutes ago into as few
 * segments as fit (4,096 entries each), per project. A project logging a few requests a second
 * makes a segment of a few entries per hand-over; merged, a month of it is a few thousand rows,
 * so its log list and filters stay as fast as a busy project's. Only segments the rollup has
 * folded in are merged, and the merged ones carry `tx = 0`, so rollups never count them again;
 * entries keep their ids. Each project-hour is merged in one transaction that deletes what it
 * merges: a second run at once waits for the rows, then finds them gone, so no segment is merged
 * twice (rows are locked in id order: two runs cannot deadlock).
 */
export async function compactLogSegments(pool: pg.Pool): Promise<{ merged: number; into: number }> {
  const groups = await sqlOn(pool)<{ project_id: string; hour: string }>(mergeableHours(SMALL_SEGMENT, GROUPS_PER_RUN));
  let merged = 0;
  let into = 0;
  for (const group of groups) {
    await transaction(pool, async (sql) => {
      const taken = await sql<{ id: string; project_id: string; payload: Buffer }>(takeMergeable(SMALL_SEGMENT, group.project_id, group.hour));
      if (taken.length === 0) return;
      const entries = [];
      for (const segment of taken) {
        for (const entry of await readSegment(segment.id, segment.payload)) entries.push({ ...entry, projectId: segment.project_id });
      }
      entries.sort((a, b) => a.createdAt - b.createdAt);
      const segments = await buildSegments(entries);
      await insertLogSegments(sql, segments, { rolledUp: true });
      merged += taken.length;
      into += segments.length;
    });
  }
  return { merged, into };
}
