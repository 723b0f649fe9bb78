import { Migration } from '@mikro-orm/migrations';

/**
 * The realtime feed (docs/realtime.md#how-it-works). `event_feed` keeps committed events in the order the outbox
 * relay saw them commit: `position` is drawn by the one relay at a time, in its transaction, so
 * positions become visible in increasing order and "after position N" misses nothing. Each API
 * process reads it after the relay's NOTIFY (one read per process, whatever its number of
 * subscribers), and a resuming client replays it from the event it saw last. The feed keeps
 * at least a day and at least the last 10,000 events of each project (the `event-feed` worker).
 *
 * `event_stream` counts open streams per credential across API processes (REALTIME_MAX_STREAMS):
 * a row per stream, kept alive by its process; a process that dies leaves rows that expire.
 */
export class Migration20261126000000_event_feed extends Migration {
  override name = 'Migration20261126000000_event_feed';

  override up(): void {
    this.addSql(`
      create table event_feed (
        position bigint generated always as identity primary key,
        id uuid not null,
        project_id uuid not null,
        payload jsonb not null,
        created_at timestamptz not null default now()
      );
      create unique index event_feed_id on event_feed (id);
      create index event_feed_project_position on event_feed (project_id, position);

      create table event_stream (
        id uuid primary key,
        credential_id uuid not null,
        expires_at timestamptz not null
      );
      create index event_stream_credential on event_stream (credential_id);
    `);
  }
}
