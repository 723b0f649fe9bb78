import type { SqlQuery } from '../../db/sql.js';
import type { MetricsInput } from './metrics.schema.js';

/**
 * A workspace and a time range of the hourly rollups (`to` exclusive), ISO strings; optionally
 * one of its projects and one API key (null: all).
 */
export interface RollupRange {
  workspaceId: string;
  from: string;
  to: string;
  projectId: string | null;
  apiKeyId: string | null;
}

/** Rollups `r` of the live projects of the workspace (or the one asked for), within the range, of the key asked for. */
const SCOPE = `r.project_id in (select id from project where workspace_id = $1 and deleted_at is null and ($4::uuid is null or id = $4))
                 and r.bucket >= $2 and r.bucket < $3 and ($5::uuid is null or r.api_key_id = $5)`;
const rangeValues = (range: RollupRange) => [range.workspaceId, range.from, range.to, range.projectId, range.apiKeyId];

/** Requests, errors (status 400 and above) and event streams of rollups `r` (streams are never requests: see foldSegments). */
const COUNTS = `sum(r.requests) as requests, coalesce(sum(r.requests) filter (where r.status >= 400), 0) as errors, sum(r.streams) as streams`;

/** Live projects of a workspace (or the one asked for) with their contents, file and storage counts. */
export const projectFigures = (workspaceId: string, projectId: string | null): SqlQuery => ({
  text: `select p.id, p.name,
                (select coalesce(sum(c.count), 0) from contents_count c join content_table t on t.id = c.table_id
                  where t.project_id = p.id and t.deleted_at is null) as contents,
                (select count(*) from file f where f.project_id = p.id) as files,
                (select coalesce(sum(f.size), 0) from file f where f.project_id = p.id) as bytes
           from project p where p.workspace_id = $1 and p.deleted_at is null and ($2::uuid is null or p.id = $2)
          order by p.created_at, p.id`,
  values: [workspaceId, projectId],
});

export const requestsByProject = (range: RollupRange): SqlQuery => ({
  text: `select r.project_id, ${COUNTS} from request_rollup r where ${SCOPE} group by r.project_id`,
  values: rangeValues(range),
});

/** Requests and streams per API key (with its name, while the key exists), busiest first. */
export const requestsByKey = (range: RollupRange): SqlQuery => ({
  text: `select r.api_key_id, r.project_id, k.name, ${COUNTS}
           from request_rollup r left join api_key k on k.id = r.api_key_id
          where ${SCOPE} and r.api_key_id is not null
          group by r.api_key_id, r.project_id, k.name order by requests desc, r.api_key_id`,
  values: rangeValues(range),
});

/** Requests per bucket of `granularity` (a validated enum, so safe to inline). */
export const requestSeries = (range: RollupRange, granularity: MetricsInput['granularity']): SqlQuery => ({
  text: `select date_trunc('${granularity}', r.bucket) as bucket, ${COUNTS}
           from request_rollup r where ${SCOPE} group by 1`,
  values: rangeValues(range),
});

/** The latency histograms' slots summed per bucket of `granularity`. */
export const latencySlots = (range: RollupRange, granularity: MetricsInput['granularity']): SqlQuery => ({
  text: `select date_trunc('${granularity}', r.bucket) as bucket, h.key as slot, sum(h.value::bigint) as count
           from request_rollup r, jsonb_each_text(r.histogram) as h where ${SCOPE} group by 1, 2`,
  values: rangeValues(range),
});
