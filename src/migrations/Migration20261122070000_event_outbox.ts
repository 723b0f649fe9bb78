import { Migration } from '@mikro-orm/migrations';

/**
 * The transactional outbox of domain events (docs/webhooks.md#how-it-runs). A change inserts its events here in its
 * own transaction — one row each, a single-index insert, where a pg-boss job insert costs about
 * ten times more — and the outbox relay worker moves them into the pg-boss `events` queue in
 * batches. Ids are UUID v7, so the primary key is also the order of the events.
 */
export class Migration20261122070000_event_outbox extends Migration {
  override name = 'Migration20261122070000_event_outbox';

  override up(): void {
    this.addSql(`
      create table event_outbox (
        id uuid primary key,
        payload jsonb not null
      );
    `);
  }
}
