import type pg from 'pg';
import { sqlOn, transaction, type Sql } from '../../db/sql.js';
import { LATENCY_BOUNDS_MS } from '../metrics/histogram.js';
import { uuidv7 } from '../../shared/ids.js';
import type { RequestLogEntry } from './log-buffer.js';

/*
 * The worker side of request logs (SPEC §9): bulk insert, hourly rollups, retention.
 */

/** One hand-over of the API's buffer: a queued job's id and its entries. */
export interface RequestLogBatch {
  id: string;
  entries: RequestLogEntry[];
}

/**
 * Inserts batches in one statement. A batch inserted before (its job retried after the insert
 * committed) is skipped by its id, so a batch can be delivered twice without duplicate rows.
 * Entries of unknown or deleted projects are dropped. Each row's id is a UUID v7 of its arrival.
 * Returns the number of rows inserted.
 */
export async function insertRequestLogs(sql: Sql, batches: RequestLogBatch[]): Promise<number> {
  if (batches.length === 0) return 0;
  const rows = batches.map((batch) => ({
    id: batch.id,
    entries: batch.entries.map((entry) => ({ ...entry, id: uuidv7(entry.createdAt), createdAt: new Date(entry.createdAt).toISOString() })),
  }));
  const [{ inserted }] = await sql<{ inserted: string }>({
    text: `with fresh as (
             insert into request_log_batch (id) select unnest($1::uuid[]) on conflict do nothing returning id
           ), rows as (
             insert into request_log (id, project_id, request_id, method, path, status, duration_ms,
                                      api_key_id, account_id, ip, user_agent, created_at)
             select e.id, e."projectId", e."requestId", e.method, e.path, e.status, e."durationMs",
                    e."apiKeyId", e."accountId", e.ip, e."userAgent", e."createdAt"
               from jsonb_to_recordset($2::jsonb) as b(id uuid, entries jsonb)
               join fresh on fresh.id = b.id
               cross join lateral jsonb_to_recordset(b.entries) as e(id uuid, "projectId" uuid, "requestId" text,
                    method text, path text, status smallint, "durationMs" real, "apiKeyId" uuid, "accountId" uuid,
                    ip text, "userAgent" text, "createdAt" timestamptz)
               join project p on p.id = e."projectId" and p.deleted_at is null
             returning 1
           )
           select count(*) as inserted from rows`,
    values: [batches.map((b) => b.id), JSON.stringify(rows)],
  });
  return Number(inserted);
}

/**
 * Folds every request log committed since the last run into `request_rollup`, and moves the
 * watermark, in one transaction. Exactly once, however many workers run it: the state row is
 * locked first, so runs take turns and each starts from the previous one's watermark. The log
 * table is then locked against inserts (SHARE: an insert in progress finishes first, new ones
 * wait a few milliseconds), so every row below this transaction's id is committed and visible,
 * and every later row gets a larger id: that id is the new watermark. (The snapshot's xmin would
 * need no lock, but any long transaction anywhere on the server would hold it back.)
 */
export async function rollUpRequestLogs(pool: pg.Pool): Promise<{ folded: number }> {
  return transaction(pool, async (sql) => {
    const [{ watermark }] = await sql<{ watermark: string }>({
      text: `select watermark from request_rollup_state where id = 1 for update`,
      values: [],
    });
    await sql({ text: 'lock table request_log in share mode', values: [] });
    const [{ upto }] = await sql<{ upto: string }>({ text: 'select pg_current_xact_id()::text as upto', values: [] });
    const state = { watermark, upto };
    const [{ folded }] = await sql<{ folded: string }>({
      text: `with raw as (
               select project_id, date_trunc('hour', created_at) as bucket, api_key_id, method, status,
                      width_bucket(duration_ms, $3::float8[]) as slot, count(*) as n, sum(duration_ms) as total
                 from request_log where tx >= $1 and tx < $2
                group by 1, 2, 3, 4, 5, 6
             ), grouped as (
               select project_id, bucket, api_key_id, method, status, sum(n) as requests,
                      sum(total) as duration_ms_sum, jsonb_object_agg(slot, n) as histogram
                 from raw group by 1, 2, 3, 4, 5
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
      values: [state.watermark, state.upto, LATENCY_BOUNDS_MS],
    });
    await sql({ text: `update request_rollup_state set watermark = $1, rolled_up_at = now() where id = 1`, values: [state.upto] });
    return { folded: Number(folded) };
  });
}

/** Rows per delete statement: short locks, small WAL bursts. */
const DELETE_BATCH = 5000;

/**
 * Deletes request logs older than `days`, by whole hours, in batches. The boundary is recorded
 * first, so lists and totals stop showing rows below it at once, not row by row. Only rows the
 * rollup has folded in are deleted (below the watermark), so no request goes missing from the
 * metrics. Rollups stay: metrics keep their history.
 */
export async function deleteExpiredLogs(pool: pg.Pool, days: number): Promise<number> {
  const sql = sqlOn(pool);
  const [{ boundary }] = await sql<{ boundary: string }>({
    text: `update request_rollup_state
              set retained_from = greatest(retained_from, date_trunc('hour', now() - make_interval(days => $1)))
            where id = 1 returning retained_from as boundary`,
    values: [days],
  });
  let removed = 0;
  for (;;) {
    const deleted = await sql<{ id: string }>({
      text: `delete from request_log where ctid in (
               select ctid from request_log
                where created_at < $1 and tx < (select watermark from request_rollup_state where id = 1) limit $2
             ) returning id`,
      values: [boundary, DELETE_BATCH],
    });
    removed += deleted.length;
    if (deleted.length < DELETE_BATCH) break;
  }
  // Batch ids only guard against a job retried within minutes.
  await sql({ text: `delete from request_log_batch where created_at < now() - interval '1 day'`, values: [] });
  return removed;
}
