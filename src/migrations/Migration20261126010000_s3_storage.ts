import { Migration } from '@mikro-orm/migrations';

/**
 * STORAGE_DRIVER=s3 (docs/resources.md#storage-drivers): a file row may say its bytes are in the bucket. The check on
 * `file.storage_driver` (named by PostgreSQL after the column, as written inline in
 * Migration20261122050000_resources) is widened; rows of the other drivers are untouched.
 */
export class Migration20261126010000_s3_storage extends Migration {
  override name = 'Migration20261126010000_s3_storage';

  override up(): void {
    this.addSql(`
      alter table file drop constraint file_storage_driver_check;
      alter table file add constraint file_storage_driver_check check (storage_driver in ('local', 'postgres', 's3'));
    `);
  }
}
