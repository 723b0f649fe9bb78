import { Migration } from '@mikro-orm/migrations';

/**
 * Drafts of published rows (docs/contents.md#drafts-of-published-rows): `contents.draft` holds a row's pending changes, keyed by
 * column id (so a renamed column keeps its draft value and a deleted one drops out), and stays
 * null for a row without a draft. The live `data` never holds draft values, so lists, searches,
 * caches and read keys read nothing new. The change log's image learns `hasDraft`, so that cached
 * lists of editors show it and follow a draft being saved or discarded.
 */
export class Migration20261125040000_drafts extends Migration {
  override name = 'Migration20261125040000_drafts';

  override up(): void {
    this.addSql(`
      alter table contents add column draft jsonb null;
      create or replace function contents_change_image(c contents) returns jsonb language sql stable as $$
        select jsonb_build_object(
          'id', c.id, 'status', c.status, 'slug', c.slug, 'data', c.data,
          'createdAt', to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
          'updatedAt', to_char(c.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
          'publishedAt', to_char(c.published_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
          'publishAt', to_char(c.publish_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
          'hasDraft', c.draft is not null)
      $$;
    `);
  }
}
