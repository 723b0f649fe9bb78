import { Migration } from '@mikro-orm/migrations';

/**
 * Request logs (docs/logs-and-metrics.md#request-logs) and their hourly rollups.
 *
 * `request_log` is written only by the log-ingest worker, in bulk. No foreign key to project: the
 * insert itself drops entries of unknown projects, and the purge removes a deleted project's rows.
 * `tx` is the inserting transaction's id: the rollup job folds in exactly the rows whose
 * transactions have all finished (below the snapshot's xmin), so a row committed late by a slow
 * inserter is never skipped and never counted twice.
 *
 * `request_rollup` holds one row per (project, hour, key, method, status) with the request count
 * and a latency histogram (bucket index → count). Metrics read only rollups; log list totals read
 * rollups for whole hours and raw rows for the edges and for the rows not yet rolled up.
 */
export class Migration20261122090000_request_logs extends Migration {
  override name = 'Migration20261122090000_request_logs';

  override up(): void {
    this.addSql(`
      create table request_log (
        id uuid not null,
        project_id uuid not null,
        request_id text not null,
        method text not null,
        path text not null,
        status smallint not null,
        duration_ms real not null,
        api_key_id uuid null,
        account_id uuid null,
        ip text null,
        user_agent text null,
        created_at timestamptz not null,
        tx bigint not null default (pg_current_xact_id()::text::bigint)
      );
      -- Newest first per project, and the filters a dashboard uses most. Every index is paid on
      -- every logged request, so only these are b-trees.
      create index request_log_page on request_log (project_id, created_at desc, id desc);
      create index request_log_status on request_log (project_id, status, created_at desc, id desc);
      create index request_log_key on request_log (project_id, api_key_id, created_at desc, id desc) where api_key_id is not null;
      -- Rows arrive in (nearly) time and transaction order: block-range indexes serve the
      -- rollup's and the retention's range scans at a fraction of a b-tree's cost.
      create index request_log_tx on request_log using brin (tx);
      create index request_log_age on request_log using brin (created_at);

      -- The queued batches already inserted (pg-boss job ids): a batch retried after its insert
      -- committed is skipped, without a unique index over every row.
      create table request_log_batch (
        id uuid primary key,
        created_at timestamptz not null default now()
      );

      create table request_rollup (
        project_id uuid not null,
        bucket timestamptz not null,
        api_key_id uuid null,
        method text not null,
        status smallint not null,
        requests bigint not null,
        duration_ms_sum double precision not null,
        histogram jsonb not null,
        constraint request_rollup_key unique nulls not distinct (project_id, bucket, api_key_id, method, status)
      );
      create index request_rollup_bucket on request_rollup (bucket);

      -- One row: how far the rollup has folded (a transaction id) and where retained logs begin.
      create table request_rollup_state (
        id smallint primary key check (id = 1),
        watermark bigint not null default 0,
        retained_from timestamptz not null default '-infinity',
        rolled_up_at timestamptz null
      );
      insert into request_rollup_state (id) values (1);
    `);
  }
}
