import { Migration } from '@mikro-orm/migrations';

/**
 * A row's `version` (docs/contents.md#concurrent-edits) is on the wire wherever the row is, so
 * the change log's image carries it too: cached lists and expanded rows built from images answer
 * it like a read of the row. `contents.version` itself exists since the revisions migration
 * (1 for every row then, each with its `created` revision 1), so nothing is backfilled. Images
 * logged before this one have no `version`; the caches forget such a row and read it anew.
 */
export class Migration20261130000000_version_image extends Migration {
  override name = 'Migration20261130000000_version_image';

  override up(): void {
    this.addSql(`
      create or replace function contents_change_image(c contents) returns jsonb language sql stable as $$
        select jsonb_build_object(
          'id', c.id, 'status', c.status, 'slug', c.slug, 'data', c.data,
          'createdAt', to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
          'updatedAt', to_char(c.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
          'publishedAt', to_char(c.published_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
          'publishAt', to_char(c.publish_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
          'version', c.version,
          'hasDraft', c.draft is not null)
      $$;
    `);
  }
}
