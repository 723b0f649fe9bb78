import type pg from 'pg';
import { transaction, type Sql } from '../../db/sql.js';
import { paginationOf, pageWindow, wantsCount } from '../../shared/pagination.js';
import type { ListLogsInput, RequestLogOutput } from './log.schema.js';

interface LogRow {
  id: string;
  request_id: string;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  api_key_id: string | null;
  account_id: string | null;
  ip: string | null;
  user_agent: string | null;
  created_at: string;
}

const toOutput = (row: LogRow): RequestLogOutput => ({
  id: row.id,
  requestId: row.request_id,
  method: row.method,
  path: row.path,
  status: row.status,
  durationMs: Math.round(row.duration_ms * 100) / 100,
  apiKeyId: row.api_key_id,
  accountId: row.account_id,
  ip: row.ip,
  userAgent: row.user_agent,
  createdAt: row.created_at,
});

/**
 * The `status`/`method`/`apiKeyId` filters as SQL on either table (same column names), numbered
 * after the statement's `fixed` parameters.
 */
function filterSql(input: ListLogsInput, fixed: number): { where: string; values: unknown[] } {
  const parts: string[] = [];
  const values: unknown[] = [];
  const add = (column: string, value: unknown) => {
    values.push(value);
    parts.push(`and ${column} = $${fixed + values.length}`);
  };
  if (input.status !== undefined) add('status', input.status);
  if (input.method !== undefined) add('method', input.method);
  if (input.apiKeyId !== undefined) add('api_key_id', input.apiKeyId);
  return { where: parts.join(' '), values };
}

/**
 * `GET /{projectId}/logs` (SPEC §9): newest first, filtered. The page and the total read one
 * snapshot (repeatable read), so a rollup run in between cannot make the total count a row twice.
 */
export async function listLogs(pool: pg.Pool, projectId: string, input: ListLogsInput) {
  const { offset, limit } = pageWindow(input);
  // `to` is inclusive; timestamps are stored with the millisecond precision of the wire.
  const toExclusive = input.to ? new Date(input.to.getTime() + 1).toISOString() : 'infinity';
  const from = input.from?.toISOString() ?? '-infinity';
  return transaction(pool, async (sql) => {
    await sql({ text: 'set transaction isolation level repeatable read, read only', values: [] });
    const [state] = await sql<{ watermark: string; from: string }>({
      text: `select watermark, greatest($1::timestamptz, retained_from)::text as from from request_rollup_state where id = 1`,
      values: [from],
    });
    const range = [projectId, state.from, toExclusive];
    const pageFilters = filterSql(input, range.length);
    const rows = await sql<LogRow>({
      text: `select id, request_id, method, path, status, duration_ms, api_key_id, account_id, ip, user_agent, created_at
               from request_log
              where project_id = $1 and created_at >= $2 and created_at < $3 ${pageFilters.where}
              order by created_at desc, id desc offset ${offset} limit ${limit}`,
      values: [...range, ...pageFilters.values],
    });
    let total: number | null = null;
    if (wantsCount(input)) {
      const countFilters = filterSql(input, range.length + 1);
      total = await countLogs(sql, [...range, state.watermark, ...countFilters.values], countFilters.where);
    }
    return { list: rows.slice(0, input.size).map(toOutput), pagination: paginationOf(input, rows.length, total) };
  });
}

/**
 * The exact number of matching logs without scanning them all: whole hours come from the
 * rollups (which hold every row below the watermark), and raw rows are counted only for the
 * partial hours at both ends and for rows not rolled up yet (above the watermark, a minute's worth).
 * `$1` project, `$2` from, `$3` to (exclusive), `$4` watermark, then the filters.
 */
async function countLogs(sql: Sql, values: unknown[], filters: string): Promise<number> {
  const [row] = await sql<{ total: string }>({
    text: `with b as (
             select case when date_trunc('hour', $2::timestamptz) = $2::timestamptz then $2::timestamptz
                         else date_trunc('hour', $2::timestamptz) + interval '1 hour' end as lo,
                    date_trunc('hour', $3::timestamptz) as hi
           ), bounds as (select lo, greatest(lo, hi) as hi from b)
           select (select coalesce(sum(requests), 0) from request_rollup, bounds
                    where project_id = $1 and bucket >= bounds.lo and bucket < bounds.hi ${filters})
                + (select count(*) from request_log, bounds
                    where project_id = $1 and created_at >= $2 and created_at < least(bounds.lo, $3::timestamptz) ${filters})
                + (select count(*) from request_log, bounds
                    where project_id = $1 and created_at >= greatest(bounds.hi, $2::timestamptz) and created_at < $3 ${filters})
                + (select count(*) from request_log, bounds
                    where tx >= $4 and project_id = $1 and created_at >= bounds.lo and created_at < bounds.hi ${filters})
             as total`,
    values,
  });
  return Number(row.total);
}
