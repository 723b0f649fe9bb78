import { Migration } from '@mikro-orm/migrations';

/**
 * A change counter beside each (table, status) row count. Every write to a table's contents
 * bumps it in the same statement that adjusts the count, so a cached filtered total is exact
 * for as long as the counter it was computed at has not moved — on every API process.
 */
export class Migration20261122030000_count_versions extends Migration {
  override name = 'Migration20261122030000_count_versions';

  override up(): void {
    this.addSql('alter table contents_count add column version bigint not null default 0');
  }
}
