import { Migration } from '@mikro-orm/migrations';

/**
 * Releases (docs/releases.md): rows published together, at once or at `publish_at`. A row is in
 * at most one open release: `release_item.open` is true until its release is published, and a
 * partial unique index on it refuses a second. Revisions name the release that made them.
 */
export class Migration20261201000000_releases extends Migration {
  override name = 'Migration20261201000000_releases';

  override up(): void {
    this.addSql(`
      create table release (
        id uuid primary key,
        project_id uuid not null references project (id) on delete cascade,
        name text not null,
        status text not null default 'open',
        publish_at timestamptz null,
        published_at timestamptz null,
        failure jsonb null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index release_project_idx on release (project_id, id);
      create index release_due_idx on release (publish_at) where status = 'open' and publish_at is not null;
      create table release_item (
        id uuid primary key,
        release_id uuid not null references release (id) on delete cascade,
        table_id uuid not null,
        row_id uuid not null references contents (id) on delete cascade,
        action text not null,
        open boolean not null default true,
        created_at timestamptz not null default now()
      );
      create index release_item_release_idx on release_item (release_id, id);
      create unique index release_item_open_row on release_item (row_id) where open;
      alter table contents_revision add column release_id uuid null;
    `);
  }
}
