import { Migration } from '@mikro-orm/migrations';

/**
 * A table's `settings` (docs/contents.md#tables-and-columns): `display`, the column or template
 * that labels a row in pickers and lists. Every existing table starts without settings.
 */
export class Migration20261202070000_table_settings extends Migration {
  override name = 'Migration20261202070000_table_settings';

  override up(): void {
    this.addSql(`alter table content_table add column settings jsonb not null default '{}'`);
  }

  override down(): void {
    this.addSql('alter table content_table drop column settings');
  }
}
