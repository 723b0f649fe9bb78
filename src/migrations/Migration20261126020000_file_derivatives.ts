import { Migration } from '@mikro-orm/migrations';

/**
 * Derived images (docs/resources.md#image-transformations): a transformation of a file's bytes (`sha256`) with normalized
 * parameters (`params`, e.g. `v1-w400-inside-q80.webp`) is computed once and stored through a
 * storage driver, shared by every API replica. Keyed by the bytes rather than the file, so
 * that files with the same bytes share them and a replaced file's new bytes never meet the
 * old ones' derivatives; they are removed once no file of the project holds those bytes.
 *
 * `storage_driver` has no check: derivatives go to whichever driver STORAGE_DRIVER names, and
 * drivers are added over time. `file (project_id, sha256)` answers "does a file still hold these
 * bytes?" for those removals.
 */
export class Migration20261126020000_file_derivatives extends Migration {
  override name = 'Migration20261126020000_file_derivatives';

  override up(): void {
    this.addSql(`
      create table file_derivative (
        id uuid primary key,
        project_id uuid not null references project (id) on delete cascade,
        sha256 text not null,
        params text not null,
        mime_type text not null,
        size bigint not null,
        storage_driver text not null,
        storage_key text not null,
        created_at timestamptz not null default now()
      );
      create unique index file_derivative_source on file_derivative (project_id, sha256, params);
      create index file_project_sha256 on file (project_id, sha256);
    `);
  }
}
