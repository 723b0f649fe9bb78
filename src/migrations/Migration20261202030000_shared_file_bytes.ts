import { Migration } from '@mikro-orm/migrations';

/**
 * Copies of a project share their files' bytes (docs/concepts.md#copying-a-project): a copied
 * `file` row points at the same stored bytes as the original, which stay where the driver wrote
 * them, under the name of the project that uploaded them. `storage_project_id` is that project
 * (the file's own for every existing row); it has no foreign key, since the bytes outlive a
 * purged project while a copy still holds them. `file (storage_key)` answers "does another file
 * still hold these bytes?" before they are removed, and the partial index on the few copied rows
 * "do copies hold bytes stored under this project's name?" when a project is purged.
 */
export class Migration20261202030000_shared_file_bytes extends Migration {
  override name = 'Migration20261202030000_shared_file_bytes';

  override up(): void {
    this.addSql(`
      alter table file add column storage_project_id uuid null;
      update file set storage_project_id = project_id;
      alter table file alter column storage_project_id set not null;
      create index file_storage_key on file (storage_key);
      create index file_copied_bytes on file (storage_project_id) where storage_project_id <> project_id;
    `);
  }
}
