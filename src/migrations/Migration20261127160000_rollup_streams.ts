import { Migration } from '@mikro-orm/migrations';

/**
 * Event streams are counted apart from requests (docs/logs-and-metrics.md "Streams"): a rollup
 * row's `requests`, `duration_ms_sum` and `histogram` hold requests only, `streams` the streams
 * of the same project, hour, key, method and status. Hours rolled up before hold streams among
 * their requests (the segments then did not tell them apart), so `streams` is 0 there.
 */
export class Migration20261127160000_rollup_streams extends Migration {
  override name = 'Migration20261127160000_rollup_streams';

  override up(): void {
    this.addSql(`alter table request_rollup add column streams bigint not null default 0;`);
  }
}
