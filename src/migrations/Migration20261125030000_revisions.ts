import { Migration } from '@mikro-orm/migrations';

/**
 * Revisions of contents rows (docs/contents.md#revisions): `contents.version` counts a row's changes, and each
 * change writes `contents_revision` (the row's data and status after it, the action and who did
 * it) in the statement that makes it. A revision belongs to its row: deleting the row deletes
 * them. Rows that exist already get their first revision, `created`, from what they hold now.
 */
export class Migration20261125030000_revisions extends Migration {
  override name = 'Migration20261125030000_revisions';

  override up(): void {
    this.addSql(`
      alter table contents add column version int not null default 1;
      create table contents_revision (
        row_id uuid not null references contents (id) on delete cascade,
        version int not null,
        action text not null check (action in ('created', 'updated', 'published', 'unpublished', 'scheduled', 'archived', 'restored', 'draftPublished')),
        status text not null,
        data jsonb not null,
        actor_type text null check (actor_type in ('account', 'apiKey')),
        actor_id uuid null,
        created_at timestamptz not null,
        primary key (row_id, version)
      );
      -- Revisions are appended in time order: the retention worker finds recent ones through it.
      create index contents_revision_created on contents_revision using brin (created_at);
      insert into contents_revision (row_id, version, action, status, data, created_at)
      select id, 1, 'created', status, data, created_at from contents;
    `);
  }
}
