import { Migration } from '@mikro-orm/migrations';

/**
 * Tables, columns and contents (issue #4). Contents of every table live in one `contents`
 * table with a jsonb `data`; per-column expression indexes (partial on `table_id`) are created
 * and dropped at run time as columns come and go.
 */
export class Migration20261122020000_contents extends Migration {
  override name = 'Migration20261122020000_contents';

  override up(): void {
    this.addSql(`
      create extension if not exists pg_trgm;

      create table content_table (
        id uuid primary key,
        project_id uuid not null references project (id) on delete cascade,
        key text not null,
        name text not null,
        description text not null default '',
        default_status text not null default 'PUBLISHED',
        created_at timestamptz not null,
        updated_at timestamptz not null,
        deleted_at timestamptz null
      );
      create unique index content_table_key on content_table (project_id, key) where deleted_at is null;
      create index content_table_project_idx on content_table (project_id, created_at, id);

      create table content_column (
        id uuid primary key,
        table_id uuid not null references content_table (id) on delete cascade,
        name text not null,
        label text not null default '',
        type text not null,
        settings jsonb not null default '{}',
        position integer not null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        deleted_at timestamptz null
      );
      create unique index content_column_name on content_column (table_id, name) where deleted_at is null;

      create table contents (
        id uuid primary key,
        project_id uuid not null,
        table_id uuid not null references content_table (id) on delete cascade,
        status text not null check (status in ('DRAFT', 'SCHEDULED', 'PUBLISHED', 'ARCHIVED')),
        slug text null,
        data jsonb not null,
        publish_at timestamptz null,
        published_at timestamptz null,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      -- Default sort (createdAt desc, id desc), for everyone and for read keys (PUBLISHED only).
      create index contents_table_created on contents (table_id, created_at desc, id desc);
      create index contents_table_status_created on contents (table_id, status, created_at desc, id desc);
      create unique index contents_table_slug on contents (table_id, slug) where slug is not null;

      -- Exact totals without count(*): one row per (table, status), kept in the same
      -- transaction as every insert, delete and status change.
      create table contents_count (
        table_id uuid not null references content_table (id) on delete cascade,
        status text not null,
        count bigint not null default 0,
        primary key (table_id, status)
      );
    `);
  }
}
