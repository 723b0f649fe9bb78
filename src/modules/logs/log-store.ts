import type pg from 'pg';
import { sqlOn, transaction, type Sql } from '../../db/sql.js';
import { buildSegments, readSegment, type LogSegment } from './log-segment.js';

/*
 * The worker side of request logs (SPEC §9): segment inserts, hourly rollups, retention.
 */

/**
 * Inserts segments in one statement. A segment inserted before (its job retried after the insert
 * committed) is skipped by its id, so a job can be delivered twice without duplicate entries.
 * Segments of unknown or deleted projects are dropped. Returns the number of entries inserted.
 * `rolledUp`: entries the rollups already hold (merged segments), stored below every watermark.
 */
export async function insertLogSegments(sql: Sql, segments: LogSegment[], options: { rolledUp?: boolean } = {}): Promise<number> {
  if (segments.length === 0) return 0;
  const [{ inserted }] = await sql<{ inserted: string }>({
    text: `with rows as (
             insert into request_log_segment (id, project_id, first_at, last_at, entries, facets, payload, tx)
             select s.id, s."projectId", timestamptz 'epoch' + s."firstAt" * interval '1 millisecond',
                    timestamptz 'epoch' + s."lastAt" * interval '1 millisecond', s.entries, s.facets, decode(s.z, 'base64'),
                    ${options.rolledUp ? '0' : 'pg_current_xact_id()::text::bigint'}
               from jsonb_to_recordset($1::jsonb) as s(id uuid, "projectId" uuid, "firstAt" float8, "lastAt" float8,
                    entries int, facets jsonb, z text)
               join project p on p.id = s."projectId" and p.deleted_at is null
             on conflict (id) do nothing
             returning entries
           )
           select coalesce(sum(entries), 0) as inserted from rows`,
    values: [JSON.stringify(segments)],
  });
  return Number(inserted);
}

/** The facets of segment `s` as rows `f`. */
export const FACET_ROWS = `jsonb_to_recordset(s.facets) as f(s smallint, m text, k uuid, n int, d float8, b jsonb)`;
/** Segments `s` joined with their facets `f`. */
export const FACETS = `cross join lateral ${FACET_ROWS}`;

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
    const [{ watermark }] = await sql<{ watermark: string }>({
      text: `select watermark from request_rollup_state where id = 1 for update`,
      values: [],
    });
    await sql({ text: 'lock table request_log_segment in share mode', values: [] });
    const [{ upto }] = await sql<{ upto: string }>({ text: 'select pg_current_xact_id()::text as upto', values: [] });
    const state = { watermark, upto };
    const [{ folded }] = await sql<{ folded: string }>({
      text: `with raw as (
               select s.project_id, date_trunc('hour', s.first_at, 'UTC') as bucket, f.k as api_key_id,
                      f.m as method, f.s as status, f.n, f.d, f.b
                 from request_log_segment s ${FACETS}
                where s.tx >= $1 and s.tx < $2
             ), counts as (
               select project_id, bucket, api_key_id, method, status, sum(n) as requests, sum(d) as duration_ms_sum
                 from raw group by 1, 2, 3, 4, 5
             ), slots as (
               select project_id, bucket, api_key_id, method, status, slot.key, sum(slot.value::bigint) as n
                 from raw, jsonb_each_text(raw.b) as slot group by 1, 2, 3, 4, 5, 6
             ), histograms as (
               select project_id, bucket, api_key_id, method, status, jsonb_object_agg(key, n) as histogram
                 from slots group by 1, 2, 3, 4, 5
             ), grouped as (
               select c.project_id, c.bucket, c.api_key_id, c.method, c.status, c.requests, c.duration_ms_sum, h.histogram
                 from counts c join histograms h on h.project_id = c.project_id and h.bucket = c.bucket
                  and h.api_key_id is not distinct from c.api_key_id and h.method = c.method and h.status = c.status
             ), upserted as (
               insert into request_rollup as r (project_id, bucket, api_key_id, method, status, requests, duration_ms_sum, histogram)
               select * from grouped
               on conflict on constraint request_rollup_key do update set
                 requests = r.requests + excluded.requests,
                 duration_ms_sum = r.duration_ms_sum + excluded.duration_ms_sum,
                 histogram = (select jsonb_object_agg(k, coalesce((r.histogram ->> k)::bigint, 0) + coalesce((excluded.histogram ->> k)::bigint, 0))
                                from jsonb_object_keys(r.histogram || excluded.histogram) as k)
             )
             select coalesce(sum(requests), 0) as folded from grouped`,
      values: [state.watermark, state.upto],
    });
    await sql({ text: `update request_rollup_state set watermark = $1, rolled_up_at = now() where id = 1`, values: [state.upto] });
    return { folded: Number(folded) };
  });
}

/** Segments the rollup has folded in (merged ones, `tx = 0`, included). */
const ROLLED_UP = `tx < (select watermark from request_rollup_state where id = 1)`;

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
  const [{ boundary }] = await sql<{ boundary: string }>({
    text: `update request_rollup_state
              set retained_from = greatest(retained_from, date_trunc('hour', now() - make_interval(days => $1), 'UTC'))
            where id = 1 returning retained_from as boundary`,
    values: [days],
  });
  let removed = 0;
  for (;;) {
    const deleted = await sql<{ entries: number }>({
      text: `delete from request_log_segment where id in (
               select id from request_log_segment
                where last_at < $1 and ${ROLLED_UP} limit $2
             ) returning entries`,
      values: [boundary, DELETE_BATCH],
    });
    removed += deleted.reduce((sum, row) => sum + row.entries, 0);
    if (deleted.length < DELETE_BATCH) break;
  }
  return removed;
}

/** Segments with fewer entries than this, in an hour that has ended, are merged. */
const SMALL_SEGMENT = 500;
/** Small segments the rollup has folded in, not merged ones: what compaction may merge. */
const MERGEABLE = `entries < ${SMALL_SEGMENT} and tx <> 0 and ${ROLLED_UP}`;
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
  const groups = await sqlOn(pool)<{ project_id: string; hour: string }>({
    text: `select project_id, date_trunc('hour', last_at, 'UTC')::text as hour from request_log_segment
            where ${MERGEABLE} and last_at < date_trunc('hour', now() - interval '5 minutes', 'UTC')
            group by 1, 2 having count(*) > 1 limit ${GROUPS_PER_RUN}`,
    values: [],
  });
  let merged = 0;
  let into = 0;
  for (const group of groups) {
    await transaction(pool, async (sql) => {
      const taken = await sql<{ id: string; project_id: string; payload: Buffer }>({
        text: `delete from request_log_segment where id in (
                 select id from request_log_segment
                  where project_id = $1 and last_at >= $2::timestamptz and last_at < $2::timestamptz + interval '1 hour'
                    and ${MERGEABLE}
                  order by id for update
               ) returning id, project_id, payload`,
        values: [group.project_id, group.hour],
      });
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
