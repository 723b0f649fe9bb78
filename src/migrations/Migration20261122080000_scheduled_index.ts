import { Migration } from '@mikro-orm/migrations';

/** The scheduled publisher's scan: rows waiting for their publishAt, in time order. */
export class Migration20261122080000_scheduled_index extends Migration {
  override name = 'Migration20261122080000_scheduled_index';

  override up(): void {
    this.addSql(`create index contents_scheduled on contents (publish_at) where status = 'SCHEDULED'`);
  }
}
