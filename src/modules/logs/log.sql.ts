import type { SqlQuery } from '../../db/sql.js';
import type { LogSegment } from './log-segment.js';
import type { ListLogsInput } from './log.schema.js';

/*
 * The statements of request logs (docs/logs-and-metrics.md#request-logs): segment inserts, rollups, retention and compaction
 * (log-store.ts), and the reads of the log list and its total (log.service.ts).
 */

/** The facets of segment `s` as rows `f`. */
const FACET_ROWS = `jsonb_to_recordset(s.facets) as f(s smallint, m text, k uuid, n int, d float8, b jsonb, t int)`;
/** Segments `s` joined with their facets `f`. */
const FACETS = `cross join lateral ${FACET_ROWS}`;

/** Segments the rollup has folded in (merged ones, `tx = 0`, included). */
const ROLLED_UP = `tx < (select watermark from request_rollup_state where id = 1)`;

/**
 * Inserts segments, skipping known ids and unknown or deleted projects; returns the entries
 * inserted. `rolledUp` segments get `tx = 0`, below every watermark.
 */
export const insertSegments = (segments: LogSegment[], rolledUp: boolean): SqlQuery => ({
  text: `with rows as (
           insert into request_log_segment (id, project_id, first_at, last_at, entries, facets, payload, tx)
           select s.id, s."projectId", timestamptz 'epoch' + s."firstAt" * interval '1 millisecond',
                  timestamptz 'epoch' + s."lastAt" * interval '1 millisecond', s.entries, s.facets, decode(s.z, 'base64'),
                  ${rolledUp ? '0' : 'pg_current_xact_id()::text::bigint'}
             from jsonb_to_recordset($1::jsonb) as s(id uuid, "projectId" uuid, "firstAt" float8, "lastAt" float8,
                  entries int, facets jsonb, z text)
             join project p on p.id = s."projectId" and p.deleted_at is null
           on conflict (id) do nothing
           returning entries
         )
         select coalesce(sum(entries), 0) as inserted from rows`,
  values: [JSON.stringify(segments)],
});

/** The rollup state row, locked: rollup runs take turns. */
export const lockRollupState = (): SqlQuery => ({
  text: `select watermark from request_rollup_state where id = 1 for update`,
  values: [],
});

/** Holds back segment inserts until the transaction ends (one in progress finishes first). */
export const lockSegmentInserts = (): SqlQuery => ({ text: 'lock table request_log_segment in share mode', values: [] });

export const currentXactId = (): SqlQuery => ({ text: 'select pg_current_xact_id()::text as upto', values: [] });

/**
 * Folds the facets of segments with `watermark <= tx < upto` into `request_rollup`; returns the
 * entries folded. Streams (facets with `t = 1`) count in `streams` only: neither in `requests`
 * nor in the durations and latency histogram (docs/logs-and-metrics.md "Streams").
 */
export const foldSegments = (watermark: string, upto: string): SqlQuery => ({
  text: `with raw as (
           select s.project_id, date_trunc('hour', s.first_at, 'UTC') as bucket, f.k as api_key_id,
                  f.m as method, f.s as status, f.n, f.d, f.b, coalesce(f.t, 0) = 1 as stream
             from request_log_segment s ${FACETS}
            where s.tx >= $1 and s.tx < $2
         ), counts as (
           select project_id, bucket, api_key_id, method, status,
                  coalesce(sum(n) filter (where not stream), 0) as requests,
                  coalesce(sum(n) filter (where stream), 0) as streams,
                  coalesce(sum(d) filter (where not stream), 0) as duration_ms_sum
             from raw group by 1, 2, 3, 4, 5
         ), slots as (
           select project_id, bucket, api_key_id, method, status, slot.key, sum(slot.value::bigint) as n
             from raw, jsonb_each_text(raw.b) as slot where not raw.stream group by 1, 2, 3, 4, 5, 6
         ), histograms as (
           select project_id, bucket, api_key_id, method, status, jsonb_object_agg(key, n) as histogram
             from slots group by 1, 2, 3, 4, 5
         ), grouped as (
           select c.project_id, c.bucket, c.api_key_id, c.method, c.status, c.requests, c.streams, c.duration_ms_sum,
                  coalesce(h.histogram, '{}'::jsonb) as histogram
             from counts c left join histograms h on h.project_id = c.project_id and h.bucket = c.bucket
              and h.api_key_id is not distinct from c.api_key_id and h.method = c.method and h.status = c.status
         ), upserted as (
           insert into request_rollup as r (project_id, bucket, api_key_id, method, status, requests, streams, duration_ms_sum, histogram)
           select project_id, bucket, api_key_id, method, status, requests, streams, duration_ms_sum, histogram from grouped
           on conflict on constraint request_rollup_key do update set
             requests = r.requests + excluded.requests,
             streams = r.streams + excluded.streams,
             duration_ms_sum = r.duration_ms_sum + excluded.duration_ms_sum,
             histogram = coalesce((select jsonb_object_agg(k, coalesce((r.histogram ->> k)::bigint, 0) + coalesce((excluded.histogram ->> k)::bigint, 0))
                                     from jsonb_object_keys(r.histogram || excluded.histogram) as k), '{}'::jsonb)
         )
         select coalesce(sum(requests + streams), 0) as folded from grouped`,
  values: [watermark, upto],
});

export const advanceWatermark = (upto: string): SqlQuery => ({
  text: `update request_rollup_state set watermark = $1, rolled_up_at = now() where id = 1`,
  values: [upto],
});

/** Moves the retention boundary to the whole hour `days` ago (never back); returns it. */
export const raiseRetention = (days: number): SqlQuery => ({
  text: `update request_rollup_state
            set retained_from = greatest(retained_from, date_trunc('hour', now() - make_interval(days => $1), 'UTC'))
          where id = 1 returning retained_from as boundary`,
  values: [days],
});

/** A batch of rolled-up segments whose last entry is before `boundary`. */
export const expiredSegmentsBatch = (boundary: string, batch: number): SqlQuery => ({
  text: `delete from request_log_segment where id in (
           select id from request_log_segment
            where last_at < $1 and ${ROLLED_UP} limit $2
         ) returning entries`,
  values: [boundary, batch],
});

/** Small segments the rollup has folded in, not merged ones: what compaction may merge. */
const mergeable = (smallSegment: number) => `entries < ${smallSegment} and tx <> 0 and ${ROLLED_UP}`;

/** Project-hours, ended more than five minutes ago, with more than one mergeable segment. */
export const mergeableHours = (smallSegment: number, groups: number): SqlQuery => ({
  text: `select project_id, date_trunc('hour', last_at, 'UTC')::text as hour from request_log_segment
          where ${mergeable(smallSegment)} and last_at < date_trunc('hour', now() - interval '5 minutes', 'UTC')
          group by 1, 2 having count(*) > 1 limit ${groups}`,
  values: [],
});

/** Deletes and returns the mergeable segments of one project-hour, locked in id order. */
export const takeMergeable = (smallSegment: number, projectId: string, hour: string): SqlQuery => ({
  text: `delete from request_log_segment where id in (
           select id from request_log_segment
            where project_id = $1 and last_at >= $2::timestamptz and last_at < $2::timestamptz + interval '1 hour'
              and ${mergeable(smallSegment)}
            order by id for update
         ) returning id, project_id, payload`,
  values: [projectId, hour],
});

export const repeatableReadOnly = (): SqlQuery => ({ text: 'set transaction isolation level repeatable read, read only', values: [] });

export const rollupState = (): SqlQuery => ({
  text: `select watermark, extract(epoch from retained_from) * 1000 as retained_from from request_rollup_state where id = 1`,
  values: [],
});

/**
 * The `status`/`method`/`apiKeyId` filters as SQL on facets (`f`) or rollups (`r`), numbered after
 * the statement's `fixed` parameters.
 */
function filterSql(input: ListLogsInput, fixed: number, on: 'f' | 'r'): { where: string; values: unknown[] } {
  const columns = on === 'f' ? { status: 'f.s', method: 'f.m', apiKeyId: 'f.k' } : { status: 'r.status', method: 'r.method', apiKeyId: 'r.api_key_id' };
  const parts: string[] = [];
  const values: unknown[] = [];
  for (const name of ['status', 'method', 'apiKeyId'] as const) {
    if (input[name] === undefined) continue;
    values.push(input[name]);
    parts.push(`and ${columns[name]} = $${fixed + values.length}`);
  }
  return { where: parts.join(' '), values };
}

const hasFilters = (input: ListLogsInput) => input.status !== undefined || input.method !== undefined || input.apiKeyId !== undefined;

/** The project and filters of a list request; times are passed as ISO strings or ±infinity. */
export interface TimeWindow {
  projectId: string;
  input: ListLogsInput;
}

/**
 * Up to `limit` segments of a project newest first (by last entry, then id) that may hold entries
 * in [from, to): `lastFrom <= last_at < lastTo`, `first_at < to`, with a facet matching the
 * filters, after the keyset `after`.
 */
export const segmentsNewestFirst = (
  w: TimeWindow,
  bounds: { lastFrom: string; lastTo: string; to: string },
  after: { lastAt: string; id: string } | null,
  limit: number,
): SqlQuery => {
  const filters = filterSql(w.input, 4, 'f');
  const facetFilter = hasFilters(w.input) ? `and exists (select 1 from ${FACET_ROWS} where true ${filters.where})` : '';
  return {
    text: `select id, last_at::text as last_text, extract(epoch from last_at) * 1000 as last_ms, payload from request_log_segment s
            where project_id = $1 and last_at >= $2 and last_at < $3 and first_at < $4 ${facetFilter}
              ${after ? `and (last_at, id) < ($${5 + filters.values.length}::timestamptz, $${6 + filters.values.length}::uuid)` : ''}
            order by s.last_at desc, s.id desc limit ${limit}`,
    values: [w.projectId, bounds.lastFrom, bounds.lastTo, bounds.to, ...filters.values, ...(after ? [after.lastAt, after.id] : [])],
  };
};

/**
 * Matching entries in the whole hours [lo, hi): from the rollups, and from the facets of segments
 * not rolled up yet (`tx >= watermark`).
 */
export const countWholeHours = (w: TimeWindow, lo: string, hi: string, watermark: string): SqlQuery => {
  const rollupFilters = filterSql(w.input, 4, 'r');
  const facetFilters = filterSql(w.input, 4, 'f');
  return {
    text: `select (select coalesce(sum(requests + streams), 0) from request_rollup r
                    where project_id = $1 and bucket >= $2 and bucket < $3 ${rollupFilters.where})
                + (select coalesce(sum(f.n), 0) from request_log_segment s ${FACETS}
                    where s.project_id = $1 and s.last_at >= $2 and s.last_at < $3 and s.tx >= $4 ${facetFilters.where})
             as n`,
    values: [w.projectId, lo, hi, watermark, ...facetFilters.values],
  };
};

/**
 * In [a, b) within the hour ending at `hourEnd`: the matching entries of segments wholly inside
 * (from their facets), and the ids of those that straddle an end.
 */
export const countWithinHour = (w: TimeWindow, a: string, b: string, hourEnd: string): SqlQuery => {
  const filters = filterSql(w.input, 3, 'f');
  return {
    text: `select coalesce(sum(f.n) filter (where s.first_at >= $2 and s.last_at < $3), 0) as inside,
                  array_agg(distinct s.id) filter (where not (s.first_at >= $2 and s.last_at < $3)) as straddling
             from request_log_segment s ${FACETS}
            where s.project_id = $1 and s.last_at >= $2 and s.last_at < $${4 + filters.values.length} and s.first_at < $3 ${filters.where}`,
    values: [w.projectId, a, b, ...filters.values, hourEnd],
  };
};

export const segmentsById = (ids: string[]): SqlQuery => ({ text: 'select id, payload from request_log_segment where id = any($1)', values: [ids] });
