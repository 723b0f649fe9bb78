import { Migration } from '@mikro-orm/migrations';

/**
 * Spreads each (table, status) count over 16 rows. With one row, every writer of a table waited
 * for the previous writer's commit to update it (one commit at a time per table); with a random
 * shard per write they rarely meet. Totals and change counters are sums over the shards.
 */
export class Migration20261122040000_count_shards extends Migration {
  override name = 'Migration20261122040000_count_shards';

  override up(): void {
    this.addSql(`
      alter table contents_count add column shard smallint not null default 0;
      alter table contents_count drop constraint contents_count_pkey;
      alter table contents_count add primary key (table_id, status, shard);
    `);
  }
}
