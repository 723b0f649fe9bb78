import { Migration } from '@mikro-orm/migrations';
import { buildConvertedSegments, type ConvertedEntry } from './frozen/20261122110000-log-segments.js';

/**
 * Request logs are stored as segments (see the logs module's log-segment.ts): one row per project
 * per hand-over of an API's buffer, its entries compressed, with the facets (hour, status,
 * method, key → count, duration sum, latency histogram) that totals, filters and rollups read.
 *
 * `tx` is the inserting transaction's id, as `request_log.tx` was: the rollup folds in the
 * segments between two of its watermarks. Segments whose entries are already in the rollups
 * (converted here, or merged by compaction) carry `tx = 0`, below every watermark, and are never
 * merged again.
 *
 * The payload is stored as it comes (already compressed): `storage external` spares PostgreSQL a
 * compression attempt on every insert.
 *
 * Existing `request_log` rows are converted, one segment per project and hour, keeping their ids;
 * rows the rollup had not folded in yet get a fresh `tx` so that it still does. The segments are
 * built by a frozen copy of the logs module's builder (frozen/20261122110000-log-segments.ts), so
 * that later changes to the module do not change what this migration writes.
 */
export class Migration20261122110000_log_segments extends Migration {
  override name = 'Migration20261122110000_log_segments';

  override async up(): Promise<void> {
    await this.execute(`
      create table request_log_segment (
        id uuid primary key,
        project_id uuid not null,
        first_at timestamptz not null,
        last_at timestamptz not null,
        entries int not null,
        facets jsonb not null,
        payload bytea not null,
        tx bigint not null default (pg_current_xact_id()::text::bigint)
      );
      alter table request_log_segment alter column payload set storage external;
      create index request_log_segment_page on request_log_segment (project_id, last_at desc);
      create index request_log_segment_tx on request_log_segment using brin (tx);
      create index request_log_segment_age on request_log_segment using brin (last_at);
      -- Small segments the compaction merges (see compactLogSegments; 500 is SMALL_SEGMENT).
      create index request_log_segment_small on request_log_segment (last_at) where entries < 500 and tx <> 0;
    `);
    const [{ watermark }] = (await this.execute('select watermark from request_rollup_state where id = 1')) as { watermark: string }[];
    const groups = (await this.execute(
      `select project_id, date_trunc('hour', created_at) as hour, tx < ? as rolled from request_log group by 1, 2, 3`,
      [watermark],
    )) as { project_id: string; hour: Date; rolled: boolean }[];
    for (const group of groups) {
      const rows = (await this.execute(
        `select id, project_id, request_id, method, path, status, duration_ms, api_key_id, account_id, ip, user_agent,
                (extract(epoch from created_at) * 1000)::float8 as created_at
           from request_log where project_id = ? and date_trunc('hour', created_at) = ? and (tx < ?) = ?`,
        [group.project_id, group.hour, watermark, group.rolled],
      )) as Record<string, string | number | null>[];
      const entries = rows.map((r) => ({
        id: r.id as string,
        projectId: r.project_id as string,
        requestId: r.request_id as string,
        method: r.method as string,
        path: r.path as string,
        status: Number(r.status),
        durationMs: Number(r.duration_ms),
        apiKeyId: r.api_key_id as string | null,
        accountId: r.account_id as string | null,
        ip: r.ip as string | null,
        userAgent: r.user_agent as string | null,
        createdAt: Math.round(Number(r.created_at)),
      })) satisfies ConvertedEntry[];
      for (const s of await buildConvertedSegments(entries)) {
        await this.execute(
          `insert into request_log_segment (id, project_id, first_at, last_at, entries, facets, payload, tx)
           values (?, ?, timestamptz 'epoch' + ? * interval '1 millisecond', timestamptz 'epoch' + ? * interval '1 millisecond', ?, ?::jsonb, decode(?, 'base64'),
                   case when ? then 0 else pg_current_xact_id()::text::bigint end)`,
          [s.id, s.projectId, s.firstAt, s.lastAt, s.entries, JSON.stringify(s.facets), s.z, group.rolled],
        );
      }
    }
    await this.execute('drop table request_log; drop table request_log_batch;');
  }
}
